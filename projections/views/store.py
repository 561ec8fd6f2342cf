"""The per-ladder store: a ladder's timeline entries, checkpoints, history,
standings and its replay state (frontier, games since the last checkpoint,
problem), read and written in the views' database.

A game's entry is read through ``views.games`` (unless voided); the other entries
(rulesets, adjustments, season closes) are ``view_entries`` rows. Ladders
and players are the views' numbers here; states are keyed by player id.

Checkpoints are compact: each holds, as packed arrays, the states of the
players that changed since the checkpoint before it, and every
``WHOLE_EVERY``-th holds every player's; restoring one reads back to the
last whole one.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date
from operator import attrgetter
from typing import Any

import msgspec

from ledger.families.base import PlayerState
from ledger.kernel import collection
from projections.db import Database
from projections.replay import Duel, Entry, HistoryRow, Shared
from projections.views import games as kept_games
from projections.views import history
from projections.views.player_numbers import PlayerNumbers

#: Game entries read per page while replaying (a replay holds one page):
#: some 1.3 KB a game as read (its row, facts and entry), so a late result
#: that replays 20,000 games holds 2.6 MB, not the 26 MB a page of 20,000
#: took, a high-water mark a long-running follower kept (``bench/soak.py``).
#: A page is one indexed range read: smaller pages cost no measurable time.
ENTRY_PAGE = 2000
#: Games read per page by ``every_ladder_entry`` (which holds them all
#: anyway): what is in flight besides them is one page's rows as read.
WHOLE_PAGE = 20_000
#: Players whose stored standings one statement reads (``_stored_standings``).
STANDINGS_PAGE = 256
#: A checkpoint holds every player's state once in this many at least, and
#: once the checkpoints since the last whole one hold as many bytes as it:
#: a restore then reads at most some twice a whole one's states, and a
#: ladder of many players (100,000: 4% of them in each checkpoint of 2,000
#: games) does not save them all every 16,000 games.
WHOLE_EVERY = 8

_decode_data = msgspec.json.Decoder(dict[str, Any]).decode
_pack = msgspec.msgpack.Encoder().encode
_RATING, _GAMES = attrgetter("rating"), attrgetter("games")
_LAST_PLAYED, _RATED_SINCE = attrgetter("last_played"), attrgetter("rated_since")
_EXTRA = attrgetter("extra")
_unpack = msgspec.msgpack.Decoder(
    tuple[list[int], list[float], list[int], list[int], list[int], list[dict[str, float] | None]]
).decode
#: A family's state beyond a rating, as ``view_standings.state`` holds it.
_encode_state = msgspec.json.Encoder().encode
_decode_state = msgspec.json.Decoder(dict[str, float]).decode


class WholeDue(msgspec.Struct):
    """What decides a ladder's next whole checkpoint: the checkpoints and
    their bytes since the last whole one, and that one's bytes."""

    checkpoints: int
    bytes: int = 0
    whole_bytes: int = 0


class ReplayProgress(msgspec.Struct):
    """Where a ladder's replay stands: its frontier, games since the last
    checkpoint and its problem (a row of ``view_ladders``)."""

    name: str
    #: Key of the last entry replayed ('' when nothing is), and its place.
    frontier: str = ""
    frontier_pos: int = 0
    #: Games replayed since the last checkpoint.
    since_checkpoint: int = 0
    #: Why the ladder cannot be replayed (None when it can).
    problem: str | None = None


def ladder_number(conn: Database, ladder_id: str) -> int | None:
    """The views' number of the ladder with this id."""
    row = conn.execute("SELECT n FROM view_ladders WHERE id=?", (ladder_id,)).fetchone()
    return row[0] if row else None


def _entry(row: Any) -> Entry:
    n, key, kind, entry_id, on, data = row
    return Entry(key, kind, n, entry_id, on, _decode_data(data))


#: An entry's key (``Entry`` or ``Duel``), read in C: a whole ladder's
#: entries are sorted by it (1M: 0.42 -> 0.34 s against a function).
_key: Callable[[Entry | Duel], str] = attrgetter("key")


def ladder_entries(
    conn: Database, ladder: int, after: str | None, players: PlayerNumbers | None = None
) -> Iterator[Entry | Duel]:
    """A ladder's entries in effective order after a key (or all), games
    as a rebuild holds them (``replay.game_entry``), read in pages so a
    replay of a large ladder holds only one page in memory. ``players``:
    the numbers the caller holds, those the entries name fetched into it
    (None: every player's read)."""
    players = _numbers(conn, players)
    others = _other_entries(conn, ladder, after, players)
    # The other entries are few: each is put in its place in a page of games
    # by bisection, not compared with every game.
    at, count = 0, len(others)
    for page in _game_pages(conn, ladder, after, players):
        start, last = 0, page[-1].key
        while at < count and others[at].key < last:
            cut = bisect_left(page, others[at].key, start, key=_key)
            yield from page[start:cut]
            yield others[at]
            at, start = at + 1, cut
        yield from page[start:] if start else page
    yield from others[at:]


@collection.paused()
def every_ladder_entry(
    conn: Database, ladder: int, players: PlayerNumbers | None = None
) -> list[Entry | Duel]:
    """Every entry of a ladder, as ``ladder_entries`` gives them after no
    key, held whole (``whatif``, ``tune``, a projector holding timelines):
    its games read in the order they were recorded, which visits their
    events about in the order they are stored rather than seeking one a
    game along the key index (1M games: 1.2 s against 2.7-5.9 s), then
    sorted into effective order. With the cyclic garbage collector paused
    (``collection``): each page's rows, alive while the entries grow, would
    otherwise set off full collections that free nothing (1M elo games: 17
    of them, ``whatif`` 6.8 -> 6.3 s)."""
    players = _numbers(conn, players)
    entries: list[Entry | Duel] = _other_entries(conn, ladder, None, players)
    for page in kept_games.timeline_as_recorded(conn, ladder, WHOLE_PAGE):
        entries += _game_entries(page, players)
    entries.sort(key=_key)
    return entries


def _numbers(conn: Database, players: PlayerNumbers | None) -> PlayerNumbers:
    """The numbers the caller holds, else every player's, read."""
    if players is not None:
        return players
    return PlayerNumbers.given(
        {pid: n for n, pid in conn.execute("SELECT n, id FROM view_players").fetchall()}
    )


def _other_entries(
    conn: Database, ladder: int, after: str | None, players: PlayerNumbers
) -> list[Entry]:
    """A ladder's entries other than games (rulesets, adjustments, season
    closes) after a key (or all), in effective order."""
    others = [
        _entry(r)
        for r in conn.execute(
            "SELECT n, key, kind, id, date, data FROM view_entries WHERE ladder=? AND key>? "
            "ORDER BY key",
            (ladder, after or ""),
        ).fetchall()
    ]
    players.fetch(e.data["player"] for e in others if e.kind == "adjust")
    return others


def _game_entries(page: list[Entry | Duel], players: PlayerNumbers) -> list[Entry | Duel]:
    """A page of game entries, the numbers of the players they name fetched
    (the replay writes history by number)."""
    players.fetch(_named(page))
    return page


def _named(page: list[Entry | Duel]) -> Iterator[str]:
    """The players a page of game entries names (read only when their
    numbers are not all held)."""
    for entry in page:
        if type(entry) is Duel:
            yield entry.a
            yield entry.b
        else:
            for side in entry.data.sides:
                yield from side


def _game_pages(
    conn: Database, ladder: int, after: str | None, players: PlayerNumbers
) -> Iterator[list[Entry | Duel]]:
    """A ladder's games not voided after a key (or all), a page at a time
    (none empty), in effective order. Past the first page (a correction far
    back, not a game recorded at the end) the events are read through a
    memory map (``Database.scattered_reads``): in effective order they are
    scattered over the file, one read() a page otherwise (1M elo games, a
    correction 50% back: 1.3 -> 0.2 s of system time)."""
    pages = _games_after(conn, ladder, after or "", players)
    first = next(pages, None)
    if first is None:
        return
    yield first
    if len(first) == ENTRY_PAGE:  # (more may follow)
        with conn.scattered_reads():
            yield from pages


def _games_after(
    conn: Database, ladder: int, last: str, players: PlayerNumbers
) -> Iterator[list[Entry | Duel]]:
    """``_game_pages``' pages, read as they come."""
    shared = Shared()
    while True:
        page = kept_games.timeline_page(conn, ladder, last, ENTRY_PAGE, shared)
        if not page:
            return
        yield _game_entries(page, players)
        if len(page) < ENTRY_PAGE:
            return
        last = page[-1].key


def ruleset_entries(conn: Database, ladder: int, upto: str | None = None) -> list[Entry]:
    """A ladder's rulesets in effective order (those at or before ``upto``)."""
    return [
        _entry(r)
        for r in conn.execute(
            "SELECT n, key, kind, id, date, data FROM view_entries WHERE ladder=? "
            "AND kind='ruleset' AND key<=? ORDER BY key",
            (ladder, "\x7f" if upto is None else upto),
        ).fetchall()
    ]


def ruleset_in_force(conn: Database, ladder: int, key: str) -> dict[str, Any] | None:
    """The ruleset entry (family, params, who, why) in force at ``key``: the
    latest adopted at or before it."""
    row = conn.execute(
        "SELECT data FROM view_entries WHERE ladder=? AND kind='ruleset' AND key<=? "
        "ORDER BY key DESC LIMIT 1",
        (ladder, key),
    ).fetchone()
    return _decode_data(row[0]) if row else None


#: Checkpoints read at a time when looking for a restart.
CHECKPOINT_PAGE = 64


class LadderStore:
    """One ladder's derived rows: checkpoints, history, standings and its
    replay state. ``numbers``: player ids and the views' numbers, each
    fetched before it is used."""

    def __init__(
        self, conn: Database, ladder: int, numbers: PlayerNumbers, fresh: bool = False
    ) -> None:
        self.conn = conn
        self.ladder = ladder
        self.numbers = numbers
        #: Checkpoints saved since the last whole one (None: not read yet;
        #: ``fresh`` views have none: the first is whole).
        self._since_whole: WholeDue | None = WholeDue(WHOLE_EVERY) if fresh else None
        #: Appending: the players changed since the last checkpoint of an
        #: earlier run are in history rows after it (read at the next one).
        self.appending = False
        #: Where the states of players a replay holds none of come from,
        #: when it holds only those its entries name (None: it holds every
        #: player's): the standings for an append, the checkpoint it
        #: restarted from for a restart. Untouched by the replay, their
        #: states are those; a checkpoint reads the ones it saves.
        self.unread: Callable[[Iterable[str] | None], dict[str, PlayerState]] | None = None
        #: The history rows of this replay, written in chunks (``history``).
        self.history = history.Rows(conn, ladder, fresh)

    # -- replay state ---------------------------------------------------------
    def state(self) -> ReplayProgress:
        row = self.conn.execute(
            "SELECT name, frontier, frontier_pos, since_checkpoint, problem FROM view_ladders "
            "WHERE n=?",
            (self.ladder,),
        ).fetchone()
        if row is None:  # pragma: no cover - the projector numbers every ladder
            return ReplayProgress(name=str(self.ladder))
        return ReplayProgress(row[0], row[1], row[2], row[3], row[4])

    def replayed(self, frontier: str, pos: int, since_checkpoint: int) -> None:
        """Note a replay that went through: up to ``frontier``, no problem."""
        self.conn.execute(
            "UPDATE view_ladders SET frontier=?, frontier_pos=?, since_checkpoint=?, "
            "problem=NULL WHERE n=?",
            (frontier, pos, since_checkpoint, self.ladder),
        )

    def failed(self, problem: str) -> None:
        """Note a replay that could not go through: nothing derived is kept
        (the same as a rebuild from the events would hold), only the problem."""
        self.history.drop()
        self.conn.execute("DELETE FROM view_checkpoints WHERE ladder=?", (self.ladder,))
        self.conn.execute("DELETE FROM view_standings WHERE ladder=?", (self.ladder,))
        self.conn.execute(
            "UPDATE view_ladders SET frontier='', frontier_pos=0, since_checkpoint=0, problem=? "
            "WHERE n=?",
            (problem, self.ladder),
        )

    # -- timeline -------------------------------------------------------------
    def entries(self, after: str | None) -> Iterator[Entry | Duel]:
        return ladder_entries(self.conn, self.ladder, after, self.numbers)

    def rulesets(self, upto: str | None = None) -> list[Entry]:
        return ruleset_entries(self.conn, self.ladder, upto)

    def event_spans(self, after: str | None = None) -> list[tuple[str, str, str]]:
        """(event, key of its first game, key of its last game), of the
        games after key ``after`` alone when given."""
        return kept_games.event_spans(self.conn, self.ladder, after)

    def changed_spans(self, since: str) -> list[tuple[str, str, str]]:
        """The spans of the events with a game at or after key ``since``
        (where a change not replayed yet put its games): each as kept at the
        last replay (``keep_spans``), widened to those games."""
        recent = kept_games.event_spans(self.conn, self.ladder, since, at=True)
        kept = kept_games.kept_spans(self.conn, self.ladder, [event for event, _, _ in recent])
        spans = []
        for event, first, last in recent:
            was = kept.get(event)
            spans.append(
                (event, min(first, was[0]), max(last, was[1])) if was else (event, first, last)
            )
        return spans

    def keep_spans(self, after: str | None, spans: list[tuple[str, str, str]]) -> None:
        """Keep the spans of the ladder's events after key ``after`` (all
        when None): every event's, as a replay from there finds them."""
        kept_games.keep_spans(self.conn, self.ladder, after, spans)

    def spans_kept(self) -> bool:
        """Whether the spans of the ladder's events are kept."""
        return kept_games.spans_kept(self.conn, self.ladder)

    def forget_spans(self) -> None:
        """Keep no span of the ladder's events."""
        kept_games.forget_spans(self.conn, self.ladder)

    # -- checkpoints ----------------------------------------------------------
    def checkpoints_before(self, key: str) -> Iterator[tuple[str, int]]:
        """(key, pos) of the checkpoints before ``key``, latest first, read
        a page at a time (a restart most often takes the first; a ladder
        rated per event has a checkpoint at each event's close)."""
        while True:
            page = self.conn.tuples(
                "SELECT key, pos FROM view_checkpoints WHERE ladder=? AND key<? "
                "ORDER BY key DESC LIMIT ?",
                (self.ladder, key, CHECKPOINT_PAGE),
            )
            yield from page
            if len(page) < CHECKPOINT_PAGE:
                return
            key = page[-1][0]

    def restore(self, key: str, players: Iterable[str] | None = None) -> dict[str, PlayerState]:
        """The states saved at checkpoint ``key`` (of ``players`` alone,
        when given)."""
        chain = []
        for whole, blob in self.conn.execute(
            "SELECT whole, states FROM view_checkpoints WHERE ladder=? AND key<=? "
            "ORDER BY key DESC",
            (self.ladder, key),
        ):
            chain.append(blob)
            if whole:
                break
        # The latest checkpoint first: each player's state is made once, from
        # the last one to save it (a whole checkpoint and its deltas hold
        # some players many times over), each day once (players share them).
        unpacked = [_unpack(blob) for blob in chain]
        wanted: set[int] | None = None
        if players is None:
            self.numbers.fetch_numbers(n for columns in unpacked for n in columns[0])
        else:
            players = list(players)
            self.numbers.fetch(players)
            wanted = {self.numbers.by_id[p] for p in players if p in self.numbers.by_id}
        ids = self.numbers.by_number
        days = _Ordinals()
        states: dict[str, PlayerState] = {}
        for columns in unpacked:
            for n, rating, games, last, since, extra in zip(*columns, strict=True):
                if wanted is not None and n not in wanted:
                    continue
                player = ids[n]
                if player in states:
                    continue
                # (positional: rating, games, last played, rated since, extra)
                states[player] = PlayerState(rating, games, days[last], days[since], extra)
        return states

    def _add_unread(self, states: dict[str, PlayerState], players: set[str] | None) -> None:
        """Add to a partial replay's ``states`` those of ``players`` (all
        when None) it holds none of, from ``unread``."""
        assert self.unread is not None
        if players is None:
            for player, state in self.unread(None).items():
                states.setdefault(player, state)
            return
        missing = [p for p in players if p not in states]
        if missing:
            states.update(self.unread(missing))

    def save_checkpoint(
        self, key: str, pos: int, states: dict[str, PlayerState], changed: set[str]
    ) -> None:
        """Save the states at ``key``: those in ``changed`` (and, when
        appending, those changed by earlier runs), or all of them."""
        due = self._since_whole
        if due is None:
            due = self._since_whole = self._deltas_since_whole(key)
        whole = due.checkpoints + 1 >= WHOLE_EVERY and due.bytes >= due.whole_bytes
        if not whole and self.appending:
            # (the place of the checkpoint before: places grow with keys, so
            # one step along the key index, not a scan of every checkpoint)
            found = self.conn.execute(
                "SELECT pos FROM view_checkpoints WHERE ladder=? AND key<? ORDER BY key DESC "
                "LIMIT 1",
                (self.ladder, key),
            ).fetchone()
            changed = changed | self.players_after(found[0] if found else 0)
        self.appending = False
        if self.unread is not None:
            self._add_unread(states, None if whole else changed)
            if whole:
                self.unread = None
        numbers = self.numbers.by_id
        if whole:
            players, picked = list(states), list(states.values())
        else:
            players = [p for p in changed if p in states]
            picked = list(map(states.__getitem__, players))
        # (each column in one C-level pass where it can be: a whole
        # checkpoint of a ladder of 100,000 players is 100,000 states)
        blob = _pack(
            (
                list(map(numbers.__getitem__, players)),
                list(map(_RATING, picked)),
                list(map(_GAMES, picked)),
                [d.toordinal() if d else 0 for d in map(_LAST_PLAYED, picked)],
                [d.toordinal() if d else 0 for d in map(_RATED_SINCE, picked)],
                list(map(_EXTRA, picked)),
            )
        )
        self.conn.execute(
            "INSERT INTO view_checkpoints VALUES (?,?,?,?,?) ON CONFLICT (ladder, key) "
            "DO UPDATE SET pos=excluded.pos, whole=excluded.whole, states=excluded.states",
            (self.ladder, key, pos, 1 if whole else 0, blob),
        )
        if whole:
            self._since_whole = WholeDue(0, 0, len(blob))
        else:
            due.checkpoints += 1
            due.bytes += len(blob)

    def _deltas_since_whole(self, key: str) -> WholeDue:
        """The checkpoints before ``key`` since the last whole one (a whole
        one is due when there is none)."""
        due = WholeDue(0)
        for whole, size in self.conn.execute(
            "SELECT whole, length(states) FROM view_checkpoints WHERE ladder=? AND key<? "
            "ORDER BY key DESC",
            (self.ladder, key),
        ):
            if whole:
                due.whole_bytes = size
                return due
            due.checkpoints += 1
            due.bytes += size
        return WholeDue(WHOLE_EVERY)

    def clear_after(self, key: str | None, pos: int) -> None:
        """Forget history after place ``pos`` and checkpoints after ``key``
        (all when None)."""
        self.history.forget_after(pos)
        self.conn.execute(
            "DELETE FROM view_checkpoints WHERE ladder=? AND key>?", (self.ladder, key or "")
        )

    def players_after(self, pos: int) -> set[str]:
        """The players with a history row after place ``pos``."""
        numbers = history.players_after(self.conn, self.ladder, pos)
        self.numbers.fetch_numbers(numbers)
        return {self.numbers.by_number[n] for n in numbers}

    # -- standings and history ------------------------------------------------
    def standings(self, players: Iterable[str] | None = None) -> dict[str, PlayerState]:
        """Every player's state (a rated player's row of the standings), or
        only those of ``players`` (ids; those not rated yet are left out)."""
        wanted = None
        if players is not None:
            players = list(players)
            self.numbers.fetch(players)
            numbers = self.numbers.by_id
            wanted = sorted(numbers[p] for p in players if p in numbers)
            if not wanted:
                return {}
        rows = self._stored_standings(wanted).values()
        self.numbers.fetch_numbers(row[1] for row in rows)
        ids = self.numbers.by_number
        return {
            ids[player]: PlayerState(
                rating=rating,
                games=games,
                last_played=date.fromisoformat(last) if last else None,
                rated_since=date.fromisoformat(since) if since else None,
                extra=_decode_state(extra) if extra else None,
            )
            for _, player, rating, games, last, since, extra in rows
        }

    def put_standings(
        self, states: Mapping[str, PlayerState], replace: bool, compared: bool = False
    ) -> None:
        """Write these players' standings (``replace``: and only theirs, every
        other player's deleted). Replacing or ``compared``, only the rows
        that differ from those stored are written (a replay from a
        checkpoint near the end changes few players')."""
        self.numbers.fetch(states)
        numbers = self.numbers.by_id
        ladder = self.ladder
        iso = _Days()
        rows = [
            (
                ladder,
                numbers[p],
                s.rating,
                s.games,
                iso[s.last_played],
                iso[s.rated_since],
                None if s.extra is None else _encode_state(s.extra).decode(),
            )
            for p, s in states.items()
        ]  # fmt: skip
        if replace or compared:
            stored = self._stored_standings(None if replace else [row[1] for row in rows])
            if replace:
                kept = {row[1] for row in rows}
                self._delete_standings([player for player in stored if player not in kept])
            # (a rating of zero is written again: == does not tell -0.0 from 0.0)
            rows = [row for row in rows if not row[2] or stored.get(row[1]) != row]
        self.conn.executemany(
            "INSERT INTO view_standings VALUES (?,?,?,?,?,?,?) ON CONFLICT (ladder, player) "
            "DO UPDATE SET rating = excluded.rating, games = excluded.games, "
            "last_played = excluded.last_played, rated_since = excluded.rated_since, "
            "state = excluded.state",
            rows,
        )

    def _stored_standings(self, players: list[int] | None) -> dict[int, tuple[Any, ...]]:
        """The stored standings rows of these players (by number; every
        player's when None), as ``put_standings`` makes them, a page of
        players a statement."""
        sql = (
            "SELECT ladder, player, rating, games, last_played, rated_since, state "
            "FROM view_standings WHERE ladder=?"
        )
        if players is None:
            return {row[1]: row for row in self.conn.tuples(sql, (self.ladder,))}
        stored = {}
        for at in range(0, len(players), STANDINGS_PAGE):
            marks, padded = self.conn.in_list(players[at : at + STANDINGS_PAGE])
            for row in self.conn.tuples(f"{sql} AND player IN {marks}", (self.ladder, *padded)):
                stored[row[1]] = row
        return stored

    def forget_standings(self, players: Iterable[str]) -> None:
        """Delete these players' standings (they have no state any more)."""
        numbers = self.numbers.by_id
        self._delete_standings([numbers[p] for p in players if p in numbers])

    def _delete_standings(self, players: list[int]) -> None:
        """Delete the standings of these players (by number)."""
        if players:
            self.conn.executemany(
                "DELETE FROM view_standings WHERE ladder=? AND player=?",
                [(self.ladder, n) for n in players],
            )

    def put_history(self, rows: list[HistoryRow]) -> None:
        """Add history rows (in effective order) to the ladder's packed
        history; ``finish_history`` writes what is left."""
        self.history.add(rows)

    def finish_history(self) -> None:
        """Write the history rows not written yet."""
        self.history.finish()


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


class _Ordinals(dict):  # type: ignore[type-arg]
    """Each day by its ordinal (0: none), made once (players share days)."""

    def __missing__(self, ordinal: int) -> date | None:
        day = self[ordinal] = date.fromordinal(ordinal) if ordinal else None
        return day


class _Days(dict):  # type: ignore[type-arg]
    """Each day's ISO text, made once (a ladder's standings share few days)."""

    def __missing__(self, day: date | None) -> str | None:
        text = self[day] = _iso(day)
        return text
