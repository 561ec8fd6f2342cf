"""The per-ladder store: a ladder's timeline entries, checkpoints, history,
standings and its replay state (frontier, games since the last checkpoint,
problem), read and written in the views' database."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date
from typing import Any

import msgspec

from projections.db import Database
from projections.families.base import PlayerState
from projections.replay import Entry, Row

#: Entries read per page while replaying (a replay holds one page).
ENTRY_PAGE = 20000
#: History rows written per statement.
HISTORY_BATCH = 10000

_decode_data = msgspec.json.Decoder(dict[str, Any]).decode
_states_encoder = msgspec.msgpack.Encoder()
_states_decoder = msgspec.msgpack.Decoder(dict[str, PlayerState])


class LadderState(msgspec.Struct):
    """Where a ladder's replay stands."""

    name: str
    #: Key of the last entry replayed ('' when nothing is).
    frontier: str = ""
    #: Games replayed since the last checkpoint.
    since_checkpoint: int = 0
    #: Why the ladder cannot be replayed (None when it can).
    problem: str | None = None


def ladder_entries(conn: Database, ladder: str, after: str | None) -> Iterator[Entry]:
    """A ladder's entries in effective order after a key (or all), read in
    pages so a replay of a large ladder holds only one page in memory."""
    last = "" if after is None else after
    while True:
        page = conn.execute(
            "SELECT key, kind, id, date, data FROM view_entries "
            "WHERE ladder=? AND key>? ORDER BY key LIMIT ?",
            (ladder, last, ENTRY_PAGE),
        ).fetchall()
        for key, kind, entry_id, on, data in page:
            yield Entry(key, kind, entry_id, date.fromisoformat(on), _decode_data(data))
        if len(page) < ENTRY_PAGE:
            return
        last = page[-1][0]


def ruleset_entries(conn: Database, ladder: str, upto: str | None = None) -> list[Entry]:
    """A ladder's rulesets in effective order (those at or before ``upto``)."""
    rows = conn.execute(
        "SELECT key, kind, id, date, data FROM view_entries WHERE ladder=? AND kind='ruleset' "
        "AND key<=? ORDER BY key",
        (ladder, "\x7f" if upto is None else upto),
    ).fetchall()
    return [
        Entry(key, kind, entry_id, date.fromisoformat(on), _decode_data(data))
        for key, kind, entry_id, on, data in rows
    ]


def ruleset_in_force(conn: Database, ladder: str, key: str) -> dict[str, Any] | None:
    """The ruleset entry (family, params, who, why) in force at ``key``: the
    latest adopted at or before it."""
    row = conn.execute(
        "SELECT data FROM view_entries WHERE ladder=? AND kind='ruleset' AND key<=? "
        "ORDER BY key DESC LIMIT 1",
        (ladder, key),
    ).fetchone()
    return _decode_data(row[0]) if row else None


class LadderStore:
    """One ladder's derived rows: checkpoints, history, standings and its
    replay state."""

    def __init__(self, conn: Database, ladder: str) -> None:
        self.conn = conn
        self.ladder = ladder

    # -- replay state ---------------------------------------------------------
    def state(self) -> LadderState:
        row = self.conn.execute(
            "SELECT name, frontier, since_checkpoint, problem FROM view_ladders WHERE id=?",
            (self.ladder,),
        ).fetchone()
        if row is None:  # entries of a ladder whose opening is not (yet) known
            return LadderState(name=self.ladder)
        return LadderState(row[0], row[1], row[2], row[3])

    def replayed(self, frontier: str, since_checkpoint: int) -> None:
        """Note a replay that went through: up to ``frontier``, no problem."""
        self.conn.execute(
            "UPDATE view_ladders SET frontier=?, since_checkpoint=?, problem=NULL WHERE id=?",
            (frontier, since_checkpoint, self.ladder),
        )

    def failed(self, problem: str) -> None:
        """Note a replay that could not go through: nothing derived is kept
        (the same as a rebuild from the events would hold), only the problem."""
        self.clear_after(None)
        self.conn.execute("DELETE FROM view_standings WHERE ladder=?", (self.ladder,))
        self.conn.execute(
            "UPDATE view_ladders SET frontier='', since_checkpoint=0, problem=? WHERE id=?",
            (problem, self.ladder),
        )

    # -- timeline -------------------------------------------------------------
    def entries(self, after: str | None) -> Iterator[Entry]:
        return ladder_entries(self.conn, self.ladder, after)

    def rulesets(self, upto: str | None = None) -> list[Entry]:
        return ruleset_entries(self.conn, self.ladder, upto)

    def event_spans(self) -> list[tuple[str, str, str]]:
        """(event, key of its first game, key of its last game)."""
        return [
            (event, lo, hi)
            for event, lo, hi in self.conn.execute(
                "SELECT event, MIN(key), MAX(key) FROM view_entries WHERE ladder=? "
                "AND kind='game' AND event IS NOT NULL GROUP BY event",
                (self.ladder,),
            ).fetchall()
        ]

    # -- checkpoints ----------------------------------------------------------
    def checkpoint_keys_before(self, key: str) -> list[str]:
        """Checkpoint keys before ``key``, latest first."""
        return [
            k
            for (k,) in self.conn.execute(
                "SELECT key FROM view_checkpoints WHERE ladder=? AND key<? ORDER BY key DESC",
                (self.ladder, key),
            )
        ]

    def checkpoint(self, key: str) -> dict[str, PlayerState]:
        blob = self.conn.execute(
            "SELECT states FROM view_checkpoints WHERE ladder=? AND key=?", (self.ladder, key)
        ).fetchone()[0]
        return _states_decoder.decode(blob)

    def save_checkpoint(self, key: str, states: dict[str, PlayerState]) -> None:
        self.conn.execute(
            "INSERT INTO view_checkpoints VALUES (?,?,?) "
            "ON CONFLICT (ladder, key) DO UPDATE SET states = excluded.states",
            (self.ladder, key, _states_encoder.encode(states)),
        )

    def clear_after(self, key: str | None) -> None:
        """Forget history and checkpoints after ``key`` (all when None)."""
        after = key or ""
        self.conn.execute("DELETE FROM view_history WHERE ladder=? AND key>?", (self.ladder, after))
        self.conn.execute(
            "DELETE FROM view_checkpoints WHERE ladder=? AND key>?", (self.ladder, after)
        )

    # -- standings and history ------------------------------------------------
    def standings(self) -> dict[str, PlayerState]:
        return {
            player: PlayerState(
                rating=rating,
                games=games,
                last_played=date.fromisoformat(last) if last else None,
                rated_since=date.fromisoformat(since) if since else None,
            )
            for player, rating, games, last, since in self.conn.execute(
                "SELECT player, rating, games, last_played, rated_since "
                "FROM view_standings WHERE ladder=?",
                (self.ladder,),
            )
        }

    def put_standings(self, states: dict[str, PlayerState], replace: bool) -> None:
        """Write these players' standings (``replace``: and only theirs)."""
        if replace:
            self.conn.execute("DELETE FROM view_standings WHERE ladder=?", (self.ladder,))
        self.conn.executemany(
            "INSERT INTO view_standings VALUES (?,?,?,?,?,?) ON CONFLICT (ladder, player) "
            "DO UPDATE SET rating = excluded.rating, games = excluded.games, "
            "last_played = excluded.last_played, rated_since = excluded.rated_since",
            [
                (self.ladder, p, s.rating, s.games, _iso(s.last_played), _iso(s.rated_since))
                for p, s in states.items()
            ],
        )

    def put_history(self, rows: Iterable[Row]) -> set[str]:
        """Write history rows in batches; returns the players they touch."""
        touched: set[str] = set()
        batch: list[tuple[Any, ...]] = []
        for row in rows:
            touched.add(row.player)
            batch.append(_history_row(self.ladder, row))
            if len(batch) >= HISTORY_BATCH:
                self._insert_history(batch)
                batch = []
        self._insert_history(batch)
        return touched

    def _insert_history(self, batch: list[tuple[Any, ...]]) -> None:
        if batch:
            marks = ",".join("?" * len(batch[0]))
            self.conn.executemany(f"INSERT INTO view_history VALUES ({marks})", batch)


def _history_row(ladder: str, row: Row) -> tuple[Any, ...]:
    values = msgspec.structs.astuple(row)
    # The date as text: a TEXT column on every database.
    return (ladder, *values[:4], row.date.isoformat(), *values[5:])


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None
