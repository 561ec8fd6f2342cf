"""The replay engine: applies timeline entries in effective order to player
states and yields one history row per player per entry. Pure: no I/O.

Each entry is a ruleset change, a rating adjustment, a game or a season close
(see projections.timeline). For families rated per event (AdlG), every game of
one event is rated from the states before the event and the summed changes are
applied after the event's last game.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from datetime import date
from typing import Any

import msgspec

from projections.families.base import Family, Game, PlayerState, Season
from projections.families.registry import load_family


class Entry(msgspec.Struct, frozen=True):
    """One timeline entry of a ladder; ``data`` is the kind's payload."""

    key: str
    kind: str  # "ruleset" | "adjust" | "game" | "season"
    id: str
    date: date
    data: dict[str, Any]


class Row(msgspec.Struct, array_like=True):
    """One history row: what one entry did to one player."""

    key: str
    entry: str
    kind: str
    player: str
    date: date
    event: str | None
    round: int | None
    side: int
    opponents: str
    s: float | None
    p: float | None
    k: float | None
    before: float
    change: float
    after: float
    games_before: int
    games_after: int
    note: str


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


class Replay:
    """Replays one ladder's entries onto ``states``.

    ``family`` is the ruleset in force before the first entry (None when the
    replay starts from the ladder's first entry, which is its first ruleset).
    """

    def __init__(
        self,
        states: dict[str, PlayerState],
        family: Family | None = None,
        merges: Mapping[str, str] | None = None,
        event_ends: Mapping[str, str] | None = None,
    ) -> None:
        self.states = states
        self.family = family
        self.merges = merges or {}
        #: The key of each event's last game, for families rated per event.
        self.event_ends = event_ends or {}
        self.since_checkpoint = 0

    def _state(self, player: str, on: date) -> PlayerState:
        state = self.states.get(player)
        if state is None:
            assert self.family is not None
            state = PlayerState(rating=self.family.initial_rating(), rated_since=on)
            self.states[player] = state
        return state

    def run(
        self,
        entries: Iterable[Entry],
        checkpoint: Callable[[str, dict[str, PlayerState]], None] | None = None,
        every: int = 0,
        since: int = 0,
    ) -> Iterator[Row]:
        """Apply entries in order, yielding history rows.

        ``checkpoint(key, states)`` is called after an entry when the states
        are a safe place to restart from (no event half-applied): after every
        season close, every event close, and once ``every`` games have passed
        since the last checkpoint (``since`` of them before this run).
        """
        pending: dict[str, dict[str, list[Any]]] = {}
        self.since_checkpoint = since
        for entry in entries:
            try:
                boundary = yield from self._apply(entry, pending)
            except Exception as exc:  # noqa: BLE001 - whatever a family raises
                raise EntryFailed(entry, exc) from exc
            due = boundary or (every and self.since_checkpoint >= every)
            if checkpoint is not None and due and not pending:
                checkpoint(entry.key, self.states)
                self.since_checkpoint = 0

    def _apply(
        self, entry: Entry, pending: dict[str, dict[str, list[Any]]]
    ) -> Generator[Row, None, bool]:
        """Yield the rows of one entry; returns whether it closed a period
        (a season or an event), a safe place for a checkpoint."""
        if entry.kind == "ruleset":
            for event in list(pending):  # a rule change closes open events
                self._close_event(event, pending, entry.date)
            self.family = load_family(entry.data["family"], entry.data["params"])
        elif entry.kind == "game":
            self.since_checkpoint += 1
            yield from self._game(entry, pending)
            event = entry.data.get("event")
            if event in pending and self.event_ends.get(event, entry.key) <= entry.key:
                self._close_event(event, pending, entry.date)
                return True
        elif entry.kind == "adjust":
            yield from self._adjust(entry)
        elif entry.kind == "season":
            yield from self._season(entry)
            return True
        return False

    def _game(self, entry: Entry, pending: dict[str, dict[str, list[Any]]]) -> Iterator[Row]:
        family = self.family
        assert family is not None
        data = entry.data
        sides = tuple(tuple(self.merges.get(p, p) for p in side) for side in data["sides"])
        event = data.get("event")
        per_event = family.per_event and event is not None
        ev_pending = pending.setdefault(event, {}) if per_event else None
        states = []
        for side in sides:
            side_states = []
            for player in side:
                state = self._state(player, entry.date)
                if ev_pending is not None:
                    # Rated from the state before the event began.
                    if player not in ev_pending:
                        ev_pending[player] = [msgspec.structs.replace(state), 0.0, 0]
                    state = ev_pending[player][0]
                side_states.append(state)
            states.append(side_states)
        game = Game(
            id=entry.id,
            date=entry.date,
            sides=sides,
            result=family.load_result(data["result"]),
            event=event,
            round=data.get("round"),
            neutral=data.get("neutral", False),
            attributes=data.get("attributes") or {},
        )
        changes = family.rate(game, states)
        for side_no, (side, side_states, side_changes) in enumerate(
            zip(sides, states, changes, strict=True)
        ):
            opponents = ",".join(p for other in sides if other is not side for p in other)
            for player, state, change in zip(side, side_states, side_changes, strict=True):
                if not change.rated:
                    before = after = state.rating
                    games_before = games_after = state.games
                elif ev_pending is not None:
                    acc = ev_pending[player]
                    acc[1] += change.delta
                    acc[2] += 1
                    before, after = state.rating, state.rating + acc[1]
                    games_before, games_after = state.games, state.games + acc[2]
                else:
                    before = state.rating
                    state.rating = before + change.delta
                    after = state.rating
                    games_before = state.games
                    state.games += 1
                    games_after = state.games
                    state.last_played = entry.date
                yield Row(
                    entry.key,
                    entry.id,
                    "game",
                    player,
                    entry.date,
                    event,
                    data.get("round"),
                    side_no,
                    opponents,
                    change.s,
                    change.p,
                    change.k,
                    before,
                    change.delta if change.rated else 0.0,
                    after,
                    games_before,
                    games_after,
                    change.note,
                )

    def _close_event(self, event: str, pending: dict[str, dict[str, list[Any]]], on: date) -> None:
        for player, (_, total, games) in pending.pop(event, {}).items():
            state = self.states[player]
            state.rating += total
            state.games += games
            state.last_played = on

    def _adjust(self, entry: Entry) -> Iterator[Row]:
        data = entry.data
        player = self.merges.get(data["player"], data["player"])
        state = self._state(player, entry.date)
        before = state.rating
        state.rating = data["to"] if data.get("to") is not None else before + data["by"]
        yield Row(
            entry.key, entry.id, "adjust", player, entry.date, None, None, 0, "",
            None, None, None, before, state.rating - before, state.rating,
            state.games, state.games, data.get("reason") or "",
        )  # fmt: skip

    def _season(self, entry: Entry) -> Iterator[Row]:
        assert self.family is not None
        data = entry.data
        season = Season(
            label=data["label"], start=date.fromisoformat(data["start"]), end=entry.date
        )
        changes = self.family.close_season(season, self.states)
        for player in sorted(changes):
            change = changes[player]
            state = self.states[player]
            before = state.rating
            state.rating = before + change.delta
            yield Row(
                entry.key, entry.id, "season", player, entry.date, None, None, 0, "",
                None, None, None, before, change.delta, state.rating,
                state.games, state.games, change.reason,
            )  # fmt: skip


def event_ends(entries: Iterable[Entry]) -> dict[str, str]:
    """The key of each event's last game among ``entries``."""
    return {
        e.data["event"]: e.key
        for e in entries
        if e.kind == "game" and e.data.get("event") is not None
    }
