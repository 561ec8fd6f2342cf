"""The replay engine: applies timeline entries in effective order to player
states and appends one history row per player per entry. Pure: no I/O.

Each entry is a ruleset change, a rating adjustment, a game or a season close
(see projections.timeline). For families rated per event (AdlG), every game of
one event is rated from the states before the event and the summed changes are
applied after the event's last game.

A game is rated through its family's fast path when the family offers one
(``Family.fast_rater``: the same maths on plain values, no structs built),
else through ``Family.rate``; both give the same changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from datetime import date
from typing import Any

import msgspec

from ledger.families.base import Family, Game, PlayerState, Season
from ledger.families.registry import load_family
from projections.timeline import SEP, key_event, key_id

#: History rows held before they are handed to ``write``.
ROWS_CHUNK = 50_000


class Play(msgspec.Struct, frozen=True, gc=False):
    """What the replay needs of a game: its sides (player ids in recorded
    order), its stored result and the facts a family may rate from."""

    sides: tuple[tuple[str, ...], ...]
    result: dict[str, Any]
    event: str | None = None
    round: int | None = None
    neutral: bool = False
    attributes: dict[str, float] = {}


class Entry(msgspec.Struct, frozen=True, gc=False):
    """One timeline entry of a ladder.

    ``n`` numbers the entry (the store position of the event that recorded
    it), ``date`` is ISO text; ``data`` is a ``Play`` for a game, the kind's
    payload (a dict) otherwise.
    """

    key: str
    kind: str  # "ruleset" | "adjust" | "game" | "season"
    n: int
    id: str
    date: str
    data: Any


class Duel(msgspec.Struct, frozen=True, gc=False):
    """A game of one player against one, as a timeline holds most games
    (one small struct, no ``Play`` or sides built; ``game_entry``). It
    stands for ``expand(duel)``: not neutral, no attributes, its event,
    round and id those its key spells (``timeline.sort_key``), its date the
    key's. Read as an entry is (``kind``, ``id``, ``date``, ``data``), so a
    reader of entries reads either."""

    key: str
    n: int
    a: str
    b: str
    result: dict[str, Any]

    @property
    def kind(self) -> str:
        return "game"

    @property
    def id(self) -> str:
        return key_id(self.key)

    @property
    def date(self) -> str:
        return self.key[:10]

    @property
    def data(self) -> Play:
        """The game's ``Play`` (built: a reader of many duels reads their
        fields, ``duel_event``)."""
        return expand(self).data


def duel_event(duel: Duel) -> str:
    """The event of a duel (its key's: a duel always has one)."""
    return key_event(duel.key)


def expand(duel: Duel) -> Entry:
    """The timeline entry a compact duel stands for."""
    key, n, a, b, result = duel.key, duel.n, duel.a, duel.b, duel.result
    parts = key.split(SEP)  # date, rank, event (SEP in it: joined back), round, order, id
    event = SEP.join(parts[2:-3])
    play = Play(((a,), (b,)), result, event, int(parts[-3][1:]), False, {})  # (``ordinal``)
    return Entry(key, "game", n, key_id(key), parts[0], play)


def is_duel(
    sides: Sequence[Sequence[str]],
    event: str | None,
    round: int | None,
    neutral: bool,
    attributes: Mapping[str, float],
) -> bool:
    """Whether a game with these facts stands as a ``Duel``: one player
    against one, in an event and round (its key spells them), not neutral,
    no attributes."""
    return (
        len(sides) == 2
        and len(sides[0]) == 1
        and len(sides[1]) == 1
        and bool(event)
        and round is not None
        and not neutral
        and not attributes
    )


class Shared:
    """One object for each of the equal values that many timeline entries
    hold (a player's id, a result): a timeline held whole holds each once,
    not once a game (1M elo games read whole by ``whatif``: 792 -> 388 MB,
    and 0.5 s less to make and free them)."""

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}
        self._codes: dict[str, dict[str, Any]] = {}
        self._results: dict[tuple[Any, ...], dict[str, Any]] = {}

    def player(self, pid: str) -> str:
        """The one string of a player's id."""
        return self._ids.get(pid) or self._ids.setdefault(pid, pid)

    def result(self, result: dict[str, Any]) -> dict[str, Any]:
        """The one dict of equal results (never changed by a reader)."""
        code = result.get("result") if len(result) == 1 else None
        if type(code) is str:  # {"result": code}: most results
            shared = self._codes.get(code)
            if shared is None:
                shared = self._codes[code] = result
            return shared
        with suppress(TypeError):  # lists in it (unit lists, ranks): kept as it is
            result = self._results.setdefault(tuple(result.items()), result)
        return result


def game_entry(key: str, n: int, play: Play, shared: Shared | None = None) -> Entry | Duel:
    """A game's timeline entry as a rebuild holds it (``views.projector``):
    a ``Duel`` where one stands for it (``is_duel``), else an ``Entry``
    (its id ends its key, its date starts it); a duel's players and result
    those of ``shared`` when given."""
    sides = play.sides
    if is_duel(sides, play.event, play.round, play.neutral, play.attributes):
        a, b, result = sides[0][0], sides[1][0], play.result
        if shared is not None:
            a, b, result = shared.player(a), shared.player(b), shared.result(result)
        return Duel(key, n, a, b, result)
    return Entry(key, "game", n, key_id(key), key[:10], play)


#: One history row, as the views store it: (ladder, pos, seat, entry,
#: player, kind, side, s, p, k, before, change, after, games_before, games_after,
#: note); ladder, entry and player are the views' numbers, ``pos`` the
#: entry's place in the ladder's effective order, ``seat`` the row's place
#: in the entry. A player's rated game, most rows, comes short: (ladder,
#: pos, seat, entry, player, s, p, k, before, change, games_before), its kind
#: 'game', side its seat, after before + change, one game more, no note
#: (``views.history.whole_row`` expands it). A row of a player whose state
#: holds more than a rating (``PlayerState.extra``) is whole and ends with
#: that state after the entry.
HistoryRow = tuple[Any, ...]


class EntryFailed(Exception):
    """An entry the ladder's family could not apply (a family that cannot
    be loaded, a game missing what the family needs, a bug in a family):
    the replay stops at ``entry``; ``cause`` is what the family raised."""

    def __init__(self, entry: Entry, cause: BaseException) -> None:
        super().__init__(f"{entry.kind} {entry.id}: {cause}")
        self.entry = entry
        self.cause = cause


def resolve_merges(merged_into: Mapping[str, str]) -> dict[str, str]:
    """Follow merge chains (a into b, b into c) to the final player."""
    out = {}
    for player in merged_into:
        target = player
        seen = set()
        while target in merged_into and target not in seen:
            seen.add(target)
            target = merged_into[target]
        out[player] = target
    return out


_days: dict[str, date] = {}
#: Days ``_days`` holds at most: a ladder's dates keep coming, and a
#: follower runs for years.
DAYS_HELD = 4096


def day(text: str) -> date:
    """An ISO date as a ``date`` (cached: a replay meets few distinct days)."""
    value = _days.get(text)
    if value is None:
        if len(_days) >= DAYS_HELD:
            _days.clear()
        value = _days[text] = date.fromisoformat(text)
    return value


class Replay:
    """Replays one ladder's entries onto ``states``.

    ``family`` is the ruleset in force before the first entry (None when the
    replay starts from the ladder's first entry, which is its first ruleset).
    With ``numbers`` (player id -> the views' player number) the replay
    keeps history rows of ``ladder``, numbering entries from ``pos``;
    without, it only moves the states (``whatif``). ``load`` binds each
    ruleset's family to its parameters.
    """

    def __init__(
        self,
        states: dict[str, PlayerState],
        family: Family | None = None,
        merges: Mapping[str, str] | None = None,
        event_ends: Mapping[str, str] | None = None,
        numbers: Mapping[str, int] | None = None,
        ladder: int = 0,
        pos: int = 0,
        load: Callable[[str, Mapping[str, Any]], Family] = load_family,
    ) -> None:
        self.states = states
        #: Binds a ruleset's family to its parameters (``ledger tune`` binds
        #: one whose parameters hold every grid point's values at once).
        self.load = load
        self.merges = merges or {}
        #: The key of each event's last game, for families rated per event.
        self.event_ends = event_ends or {}
        self.numbers = numbers
        self.ladder = ladder
        #: The place of the last entry applied in the ladder's effective order.
        self.pos = pos
        self.since_checkpoint = 0
        #: History rows not yet handed to ``write``.
        self.rows: list[HistoryRow] = []
        #: Players given a row since the last checkpoint, and before it.
        self.changed: set[str] = set()
        self.touched: set[str] = set()
        self.family: Family | None = None
        self._use(family)

    def _use(self, family: Family | None) -> None:
        self.family = family
        self._per_event = family is not None and family.per_event
        fast = family.fast_rater() if family is not None else None
        self._fast = fast.rate if fast is not None else None
        self._duel = fast.duel if fast is not None else None

    def run(
        self,
        entries: Iterable[Entry | Duel],
        write: Callable[[list[HistoryRow]], None] | None = None,
        checkpoint: Callable[[str, int, dict[str, PlayerState], set[str]], None] | None = None,
        every: int = 0,
        since: int = 0,
    ) -> None:
        """Apply entries in order. History rows go to ``write`` in chunks
        (the last ones when the run ends).

        ``checkpoint(key, pos, states, changed)`` is called after an entry
        when the states are a safe place to restart from (no event
        half-applied): after every season close, every event close, and
        once ``every`` games have passed since the last checkpoint (``since``
        of them before this run); ``changed`` holds the players whose state
        moved since the previous checkpoint of this run.
        """
        pending: dict[str, dict[str, list[Any]]] = {}
        self.since_checkpoint = since
        states = self.states
        for entry in entries:
            self.pos = pos = self.pos + 1
            try:
                key = entry.key
                if type(entry) is Duel:  # most games of a rebuild
                    if not self._per_event and self._one_on_one(
                        entry.n, entry.a, entry.b, entry.result, key[:10], False
                    ):
                        self.since_checkpoint += 1
                        boundary = False
                    else:  # rated per event, or not by the family's duel
                        entry = expand(entry)
                        boundary = self._apply(entry, pending)
                elif entry.kind != "game" or self._per_event:
                    boundary = self._apply(entry, pending)
                else:
                    self.since_checkpoint += 1
                    boundary = False
                    self._game(entry)
            except Exception as exc:  # noqa: BLE001 - whatever a family raises
                raise EntryFailed(expand(entry) if type(entry) is Duel else entry, exc) from exc
            if write is not None and len(self.rows) >= ROWS_CHUNK:
                write(self.rows)
                self.rows = []
            due = boundary or (every and self.since_checkpoint >= every)
            if due and checkpoint is not None and not pending:
                checkpoint(key, pos, states, self.changed)
                self.touched |= self.changed
                self.changed = set()
                self.since_checkpoint = 0
        self.touched |= self.changed
        if write is not None and self.rows:
            write(self.rows)
            self.rows = []

    def _one_on_one(
        self, n: int, a: str, b: str, result: dict[str, Any], on: str, neutral: bool
    ) -> bool:
        """A game of one player against one, rated by the family's ``duel``
        (its maths on plain values, no structs built); False, and nothing
        changed, when the family has none or declines this game."""
        duel = self._duel
        if duel is None:
            return False
        merges = self.merges
        if merges:
            a, b = merges.get(a, a), merges.get(b, b)
        get = self.states.get
        state_a = get(a) or self._new(a, on)
        state_b = get(b) or self._new(b, on)
        c = duel(result, state_a, state_b, neutral)
        if c is None:
            return False
        last = _days.get(on) or day(on)
        before_a, games_a = state_a.rating, state_a.games
        before_b, games_b = state_b.rating, state_b.games
        state_a.rating = before_a + c[0]
        state_b.rating = before_b + c[4]
        state_a.games = games_a + 1
        state_b.games = games_b + 1
        state_a.last_played = state_b.last_played = last
        numbers = self.numbers
        if numbers is not None:
            self.changed.add(a)
            self.changed.add(b)
            # Short rows (``HistoryRow``): kind 'game', side = seat, after =
            # before + change, one more game, no note.
            ladder, pos = self.ladder, self.pos
            self.rows += (
                (ladder, pos, 0, n, numbers[a], c[1], c[2], c[3], before_a, c[0], games_a),
                (ladder, pos, 1, n, numbers[b], c[5], c[6], c[7], before_b, c[4], games_b),
            )
        return True

    def _apply(self, entry: Entry, pending: dict[str, dict[str, list[Any]]]) -> bool:
        """Apply one entry; returns whether it closed a period (a season or
        an event), a safe place for a checkpoint."""
        kind = entry.kind
        if kind == "game":
            self.since_checkpoint += 1
            event = entry.data.event
            if self._per_event and event is not None:
                self._event_game(entry, pending.setdefault(event, {}))
                if self.event_ends.get(event, entry.key) <= entry.key:
                    self._close_event(event, pending, entry.date)
                    return True
            else:
                self._game(entry)
                if event in pending and self.event_ends.get(event, entry.key) <= entry.key:
                    self._close_event(event, pending, entry.date)
                    return True
        elif kind == "ruleset":
            for event in list(pending):  # a rule change closes open events
                self._close_event(event, pending, entry.date)
            self._use(self.load(entry.data["family"], entry.data["params"]))
        elif kind == "adjust":
            self._adjust(entry)
        elif kind == "season":
            self._season(entry)
            return True
        return False

    def _new(self, player: str, on: str) -> PlayerState:
        assert self.family is not None
        family = self.family
        state = PlayerState(
            rating=family.initial_rating(), rated_since=day(on), extra=family.initial_state()
        )
        self.states[player] = state
        return state

    def _sides(self, entry: Entry) -> Any:
        sides = entry.data.sides
        merges = self.merges
        if merges:
            sides = tuple(tuple(merges.get(p, p) for p in side) for side in sides)
        return sides

    def _changes(self, entry: Entry, sides: Any, states: list[list[PlayerState]]) -> list[Any]:
        """Each player's (delta, s, p, k[, rated, note, state]), per side."""
        play = entry.data
        fast = self._fast
        if fast is not None:
            changes = fast(play.result, states, play.neutral, play.attributes)
            if changes is not None:
                return changes
        family = self.family
        assert family is not None
        game = Game(
            id=entry.id,
            date=day(entry.date),
            sides=tuple(map(tuple, sides)),
            result=family.load_result(play.result),
            event=play.event,
            round=play.round,
            neutral=play.neutral,
            attributes=play.attributes or {},
        )
        rated = family.rate(game, states)
        if len(rated) != len(sides) or any(
            len(side) != len(c) for side, c in zip(sides, rated, strict=True)
        ):
            raise ValueError(f"{family.name} rated {len(rated)} sides of a {len(sides)}-side game")
        return [
            [(c.delta, c.s, c.p, c.k, c.rated, c.note, c.state) for c in side] for side in rated
        ]

    def _game(self, entry: Entry) -> None:
        """A game whose changes apply at once."""
        play = entry.data
        sides = play.sides
        if self.merges:
            sides = self._sides(entry)
        on = entry.date
        if (
            len(sides) == 2
            and len(sides[0]) == 1
            and len(sides[1]) == 1
            and self._one_on_one(entry.n, sides[0][0], sides[1][0], play.result, on, play.neutral)
        ):
            return
        get = self.states.get
        states = [[get(p) or self._new(p, on) for p in side] for side in sides]
        changes = self._changes(entry, sides, states)
        last = day(on)
        keep = self.numbers is not None
        seat = 0
        for side_no, side in enumerate(sides):
            side_states = states[side_no]
            for i, change in enumerate(changes[side_no]):
                state = side_states[i]
                before = state.rating
                games_before = state.games
                if len(change) > 4 and not change[4]:  # not rated for this player
                    delta = 0.0
                    after, games_after = before, games_before
                else:
                    delta = change[0]
                    state.rating = after = before + delta
                    state.games = games_after = games_before + 1
                    state.last_played = last
                    if len(change) > 6 and change[6] is not None:
                        state.extra = change[6]
                if keep:
                    player = side[i]
                    self.changed.add(player)
                    self.rows.append(
                        (self.ladder, self.pos, seat, entry.n, self.numbers[player], "game",
                         side_no, change[1], change[2], change[3], before, delta, after,
                         games_before, games_after, change[5] if len(change) > 4 else "")
                        + _extra(state.extra)
                    )  # fmt: skip
                seat += 1

    def _event_game(self, entry: Entry, ev_pending: dict[str, list[Any]]) -> None:
        """A game of an event rated per event: rated from the states before
        the event began; its changes are summed and applied at the close."""
        sides = self._sides(entry)
        on = entry.date
        states = []
        for side in sides:
            side_states = []
            for player in side:
                state = self.states.get(player) or self._new(player, on)
                if player not in ev_pending:
                    ev_pending[player] = [msgspec.structs.replace(state), 0.0, 0, state.extra]
                side_states.append(ev_pending[player][0])
            states.append(side_states)
        changes = self._changes(entry, sides, states)
        keep = self.numbers is not None
        seat = 0
        for side_no, side in enumerate(sides):
            side_states = states[side_no]
            for i, change in enumerate(changes[side_no]):
                player, state = side[i], side_states[i]
                if len(change) > 4 and not change[4]:
                    delta = 0.0
                    before = after = state.rating
                    games_before = games_after = state.games
                else:
                    delta = change[0]
                    acc = ev_pending[player]
                    acc[1] += delta
                    acc[2] += 1
                    if len(change) > 6 and change[6] is not None:
                        acc[3] = change[6]
                    before, after = state.rating, state.rating + acc[1]
                    games_before, games_after = state.games, state.games + acc[2]
                if keep:
                    self.changed.add(player)
                    self.rows.append(
                        (self.ladder, self.pos, seat, entry.n, self.numbers[player], "game",
                         side_no, change[1], change[2], change[3], before, delta, after,
                         games_before, games_after, change[5] if len(change) > 4 else "")
                        + _extra(ev_pending[player][3] if player in ev_pending else state.extra)
                    )  # fmt: skip
                seat += 1

    def _close_event(self, event: str, pending: dict[str, dict[str, list[Any]]], on: str) -> None:
        for player, (_, total, games, extra) in pending.pop(event, {}).items():
            state = self.states[player]
            state.rating += total
            state.games += games
            state.last_played = day(on)
            state.extra = extra

    def _adjust(self, entry: Entry) -> None:
        data = entry.data
        player = self.merges.get(data["player"], data["player"])
        state = self.states.get(player) or self._new(player, entry.date)
        before = state.rating
        if data.get("to") is not None:
            state.rating = data["to"]
        elif data.get("by") is not None:
            state.rating = before + data["by"]
        if data.get("state"):  # values of the family's state set (``state_columns``)
            assert self.family is not None
            state.extra = self.family.adjust_state(state.extra, data["state"])
        if self.numbers is not None:
            self.changed.add(player)
            self.rows.append(
                (self.ladder, self.pos, 0, entry.n, self.numbers[player], "adjust", 0,
                 None, None, None, before, state.rating - before, state.rating,
                 state.games, state.games, data.get("reason") or "")
                + _extra(state.extra)
            )  # fmt: skip

    def _season(self, entry: Entry) -> None:
        assert self.family is not None
        data = entry.data
        season = Season(label=data["label"], start=day(data["start"]), end=day(entry.date))
        changes = self.family.close_season(season, self.states)
        for seat, player in enumerate(sorted(changes)):
            change = changes[player]
            state = self.states[player]
            before = state.rating
            state.rating = before + change.delta
            if self.numbers is not None:
                self.changed.add(player)
                self.rows.append(
                    (self.ladder, self.pos, seat, entry.n, self.numbers[player], "season", 0,
                     None, None, None, before, change.delta, state.rating,
                     state.games, state.games, change.reason)
                    + _extra(state.extra)
                )  # fmt: skip


def _extra(state: dict[str, float] | None) -> tuple[Any, ...]:
    """The end of a whole history row: a family's state after it, when the
    player's state holds more than a rating (``HistoryRow``)."""
    return () if state is None else (state,)


def event_ends(
    entries: Sequence[Entry | Duel], load: Callable[[str, Mapping[str, Any]], Family] = load_family
) -> dict[str, str]:
    """The key of each event's last game among ``entries`` (in effective
    order), for a replay of them; none when no ruleset among them rates
    per event (``load`` binds a ruleset's family), as only such a replay
    reads them."""
    rulesets = [e for e in entries if type(e) is not Duel and e.kind == "ruleset"]
    if not any(_rates_per_event(r, load) for r in rulesets):
        return {}
    ends = {}
    for e in entries:
        if type(e) is Duel:
            ends[duel_event(e)] = e.key
        elif e.kind == "game" and e.data.event is not None:
            ends[e.data.event] = e.key
    return ends


def _rates_per_event(ruleset: Entry, load: Callable[[str, Mapping[str, Any]], Family]) -> bool:
    try:
        return load(ruleset.data["family"], ruleset.data["params"]).per_event
    except Exception:  # noqa: BLE001 - the replay names it (EntryFailed) when it reaches it
        return True
