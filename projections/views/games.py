"""A ladder's games in the views: the one module that reads and writes them.

Every reader of games (the queries, the replay's catch-up, the site, the
exports, verify, the audit) goes through the functions here, so the games'
storage is known to this module alone. Today a game is a row of
``view_games``: its number ``n`` (the store position of its first record),
its ladder and effective-order key, its status, event and round, its
version, its facts kept compactly (``views.facts``), the recording of its
first record (``view_recordings``) with the sheet row and reason, and its
facts as first recorded once a correction changed them.

A game's id is not kept: it ends its key (``timeline.GAME_KEY``), and a
game is found by its id or a prefix of it through the event store's own
index (its primary key, ``(originator_id, originator_version)``), whose
first record's position is the game's number. Throwaway views in memory
(time travel, verify, a preview), which have no event store beside them,
scan their keys instead.

Callers get rows as tuples in the column orders named below; a game's
facts stay in their kept form (``views.facts.read`` decodes them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from uuid import UUID

from ledger.kernel import suggest
from ledger.kernel.errors import NotFound
from ledger.kernel.translation import N_, Message
from projections.db import Database, Row, stream

#: The games' table (created with the other view tables).
DDL = """
CREATE TABLE view_games (
    n INTEGER PRIMARY KEY, ladder INTEGER NOT NULL, key TEXT NOT NULL,
    status TEXT NOT NULL, event TEXT, round INTEGER, version INTEGER NOT NULL,
    facts TEXT NOT NULL, recording INTEGER NOT NULL, source_row INTEGER, reason TEXT,
    first_facts TEXT);
"""
#: Its secondary indexes (built after a rebuild or a first import fills it).
INDEX_DDL = """
CREATE INDEX IF NOT EXISTS view_games_key ON view_games (ladder, key);
"""
TABLE = "view_games"

#: A game's row as the projector holds it (a list), in this order.
COLUMNS = (
    "n, ladder, key, status, event, round, version, facts, recording, source_row, "
    "reason, first_facts"
)
#: Numbers read per statement (well under any driver's limit on parameters).
_BATCH = 500


#: Hex digits of a game's id (the event store keeps 32 of them).
_HEX = frozenset("0123456789abcdef")


def game_id(alias: str = "") -> str:
    """SQL reading a game's id from its key (``alias``: the table's, with
    its dot), which the key ends with."""
    return f"substr({alias}key, length({alias}key) - 35)"


_ID = game_id("g.")
_ALIASED = ", ".join(f"g.{column.strip()}" for column in COLUMNS.split(","))


# -- the projector's writes --------------------------------------------------
def game_for_update(
    conn: Database, n: int | None = None, gid: str | None = None
) -> list[Any] | None:
    """A game's row (``COLUMNS``) by number or else by id, to be changed
    and written back by ``write``; None when there is none."""
    if n is not None:
        found = conn.execute(f"SELECT {COLUMNS} FROM view_games WHERE n=?", (n,)).fetchone()
        return list(found) if found is not None else None
    digits = _digits(gid or "")
    found = _games_between(conn, digits, digits, _ALIASED, 1) if len(digits) == 32 else []
    return list(found[0]) if found else None


def write(conn: Database, new: Sequence[Sequence[Any]], changed: Sequence[Sequence[Any]]) -> None:
    """Insert the ``new`` games' rows and write back the ``changed`` ones'
    (rows in ``COLUMNS`` order)."""
    if new:
        conn.insert_rows("INSERT INTO view_games", new)
    if changed:
        conn.executemany(
            "UPDATE view_games SET ladder=?, key=?, status=?, event=?, round=?, "
            "version=?, facts=?, first_facts=? WHERE n=?",
            [(*g[1:8], g[11], g[0]) for g in changed],
        )


def holds_any(conn: Database) -> bool:
    """Whether the views hold a game (recorded, corrected or voided)."""
    return conn.execute("SELECT 1 FROM view_games LIMIT 1").fetchone() is not None


# -- a game by id ------------------------------------------------------------
def by_ref(conn: Database, ref: str) -> Row:
    """A game's row (every column, and its ``id``) by its id or any
    unambiguous prefix of its short id."""
    ref = ref.strip().lower()
    digits = _digits(ref)
    prefix = digits[:8]
    every = f"g.*, {_ID} AS id"
    if len(ref) == 36:
        rows = _games_between(conn, digits, digits, every, 2) if len(digits) == 32 else []
    else:  # the short id is the id's first 8 digits: a range of the id index
        rows = _games_between(conn, prefix, prefix, every, 2) if prefix else []
    if not rows:
        hint = suggest.hint(
            suggest.close_ids(ref, _ids_near(conn, prefix)),
            N_("game ids are shown by 'history' and 'audit'"),
        )
        raise NotFound(Message("unknown game {ref}{hint}", ref=repr(ref), hint=hint))
    if len(rows) > 1:
        raise NotFound(Message("game id {ref!r} is ambiguous: give more characters", ref=ref))
    return rows[0]


def _ids_near(conn: Database, prefix: str) -> list[str]:
    """Game ids sharing the longest start with ``prefix`` that any has (a
    few dozen at most): where a mistyped short id's right one is found."""
    for length in range(min(len(prefix), 7), 1, -1):
        start = prefix[:length]
        rows = _games_between(conn, start, start, _ID, 50)
        if rows:
            return [r[0] for r in rows]
    return []


def played_where(conn: Database, ref: str) -> tuple[int, str] | None:
    """(ladder number, date) of the game not voided whose id is or starts
    with ``ref`` (None when there is none)."""
    digits = _digits(ref.lower())
    if not digits:
        return None
    found = _games_between(
        conn, digits, digits, "g.ladder, substr(g.key, 1, 10)", 1, "g.status <> 'voided'"
    )
    return (found[0][0], found[0][1]) if found else None


def ids(conn: Database) -> dict[int, str]:
    """Every game's id by number."""
    return dict(conn.execute(f"SELECT n, {game_id()} FROM view_games").fetchall())


def _digits(ref: str) -> str:
    """The hex digits of a game's id or of its start (none when ``ref``
    holds anything else but dashes)."""
    digits = ref.replace("-", "")
    return digits if len(digits) <= 32 and _HEX.issuperset(digits) else ""


def _games_between(
    conn: Database, low: str, high: str, columns: str, limit: int, where: str = ""
) -> list[Any]:
    """``columns`` of up to ``limit`` games (``g``) whose ids' hex digits
    start from ``low`` through ``high`` (prefixes), in id order: through the
    event store's primary key where the views are beside it (a game's number
    is its first record's position), else a scan of the views' keys."""
    low, high = low.ljust(32, "0"), high.ljust(32, "f")
    extra = f" AND {where}" if where else ""
    events = conn.events_beside()
    if events is None:  # views in memory: a few games, scanned
        return conn.execute(
            f"SELECT {columns} FROM view_games g WHERE {_ID} >= ? AND {_ID} <= ?{extra} "
            f"ORDER BY {_ID} LIMIT {limit}",
            (str(UUID(low)), str(UUID(high))),
        ).fetchall()
    if conn.kind != "sqlite":  # a uuid column; SQLite's holds the 32 digits
        low, high = str(UUID(low)), str(UUID(high))
    return conn.execute(
        f"SELECT {columns} FROM {events} e JOIN view_games g ON g.n = e.{conn.events_position} "
        f"WHERE e.originator_id >= ? AND e.originator_id <= ? AND e.originator_version = 1"
        f"{extra} ORDER BY e.originator_id LIMIT {limit}",
        (low, high),
    ).fetchall()


# -- counts and places in a ladder's order -----------------------------------
def count(
    conn: Database,
    ladder: int,
    before: str = "\x7f",
    *,
    through: bool = False,
    since: str = "",
    recording: int | None = None,
) -> int:
    """How many games of a ladder, not voided, have keys from ``since`` to
    before ``before`` (or at it, ``through``); ``recording``: only those
    its import recorded."""
    op = "<=" if through else "<"
    sql = f"SELECT COUNT(*) FROM view_games WHERE ladder=? AND status<>'voided' AND key{op}?"
    params: list[Any] = [ladder, before]
    if since:
        sql += " AND key>=?"
        params.append(since)
    if recording is not None:
        sql += " AND recording=?"
        params.append(recording)
    return conn.execute(sql, params).fetchone()[0]


def last_played(conn: Database, ladder: int, before: str) -> tuple[str, str | None] | None:
    """(key, event) of a ladder's last game not voided before ``before``."""
    row = conn.execute(
        "SELECT key, event FROM view_games WHERE ladder=? AND status<>'voided' AND key<? "
        "ORDER BY key DESC LIMIT 1",
        (ladder, before),
    ).fetchone()
    return (row[0], row[1]) if row else None


def event_spans(conn: Database, ladder: int) -> list[tuple[str, str, str]]:
    """(event, key of its first game, key of its last game) of a ladder's
    events (games not voided)."""
    return [
        (event, lo, hi)
        for event, lo, hi in conn.execute(
            "SELECT event, MIN(key), MAX(key) FROM view_games WHERE ladder=? "
            "AND status<>'voided' AND event IS NOT NULL GROUP BY event",
            (ladder,),
        ).fetchall()
    ]


def pages(conn: Database, ladder: int, before: str) -> Iterator[tuple]:
    """(event, month, first key, last key, games) of each event's games
    (month "") and each month's games outside events, voided ones too,
    before ``before``."""
    yield from conn.execute(
        "SELECT event, CASE WHEN event IS NULL THEN substr(key, 1, 7) ELSE '' END, "
        "MIN(key), MAX(key), COUNT(*) FROM view_games WHERE ladder=? AND key<? GROUP BY 1, 2",
        (ladder, before),
    )


# -- games read in effective order -------------------------------------------
def timeline_page(conn: Database, ladder: int, after: str, size: int) -> list[tuple]:
    """(key, n, id, event, round, facts) of up to ``size`` games of a
    ladder not voided after key ``after``, in effective order."""
    return conn.execute(
        f"SELECT key, n, {game_id()}, event, round, facts FROM view_games WHERE ladder=? "
        "AND key>? "
        "AND status<>'voided' ORDER BY key LIMIT ?",
        (ladder, after, size),
    ).fetchall()


def details(conn: Database, numbers: Iterable[int]) -> Iterator[tuple]:
    """(n, key, id, date, event, round, status, facts) of the games with
    these numbers."""
    wanted = sorted(set(numbers))
    for at in range(0, len(wanted), _BATCH):
        part = wanted[at : at + _BATCH]
        yield from conn.tuples(
            f"SELECT n, key, {game_id()}, substr(key, 1, 10), event, round, status, facts "
            f"FROM view_games WHERE n IN ({','.join('?' * len(part))})",
            part,
        )


#: A game with its first record: (n, id, key, status, event, round, facts,
#: first_facts, reason, source_row, recorded_at, recorded_by, file).
RECORDED = (
    f"g.n, {_ID}, g.key, g.status, g.event, g.round, g.facts, g.first_facts, g.reason, "
    "g.source_row, r.recorded_at, r.recorded_by, r.file"
)
_RECORDED_FROM = "FROM view_games g JOIN view_recordings r ON r.n = g.recording"


def recorded(conn: Database, ladder: int, before: str = "\x7f", since: str = "") -> Iterator[tuple]:
    """Every game of a ladder (voided ones too) from ``since`` to before
    ``before``, with its first record (``RECORDED``), in effective order.
    Streamed."""
    yield from stream(
        conn,
        f"SELECT {RECORDED} {_RECORDED_FROM} WHERE g.ladder=? AND g.key>=? AND g.key<? "
        "ORDER BY g.key",
        (ladder, since, before),
    )


def recorded_voided(conn: Database, ladder: int, since: str, before: str) -> list[tuple]:
    """The voided games of a ladder from ``since`` to before ``before``,
    with their first record (``RECORDED``), in effective order."""
    return conn.execute(
        f"SELECT {RECORDED} {_RECORDED_FROM} WHERE g.ladder=? AND g.status='voided' "
        "AND g.key>=? AND g.key<? ORDER BY g.key",
        (ladder, since, before),
    ).fetchall()


def recorded_by_number(conn: Database, numbers: Sequence[int]) -> dict[int, tuple]:
    """The games with these numbers (a batch), with their first record
    (``RECORDED``), by number."""
    if not numbers:
        return {}
    return {
        r[0]: r
        for r in conn.execute(
            f"SELECT {RECORDED} {_RECORDED_FROM} WHERE g.n IN ({','.join('?' * len(numbers))})",
            list(numbers),
        ).fetchall()
    }


def kept_facts(conn: Database, ladder: int) -> Iterator[str]:
    """The kept facts of every game of a ladder, voided ones too. Streamed."""
    for (facts,) in stream(conn, "SELECT facts FROM view_games WHERE ladder=?", (ladder,)):
        yield facts


# -- the audit -----------------------------------------------------------------
#: An audit row: view_audit's columns, the ladder's name, and for a game's
#: line whose summary is written at query time (``summary`` NULL) the game's
#: id, facts, key, event and round (``game``, ``game_facts``, ...).
_AUDIT_GAME = (
    f"{_ID} AS game, g.facts AS game_facts, g.key AS game_key, g.event AS game_event, "
    "g.round AS game_round"
)


def audit_rows(conn: Database, where: str = "", params: Sequence[Any] = ()) -> Any:
    """The audit in recording order, a game's first record a line of its own
    (``where``: a condition on the line ``a``)."""
    return conn.execute(
        "SELECT a.seq, a.recorded_at, a.recorded_by, a.kind, l.name AS ladder, a.subject, "
        f"a.summary, a.facts, a.reason, a.source, {_AUDIT_GAME} FROM ("
        "SELECT seq, recorded_at, recorded_by, kind, ladder, subject, summary, facts, reason, "
        "source FROM view_audit UNION ALL "
        "SELECT g.n, r.recorded_at, r.recorded_by, 'game recorded', g.ladder, g.n, NULL, "
        "g.first_facts, g.reason, r.file || ':' || g.source_row FROM view_games g "
        "JOIN view_recordings r ON r.n = g.recording) a "
        "LEFT JOIN view_ladders l ON l.n = a.ladder "
        "LEFT JOIN view_games g ON a.summary IS NULL AND g.n = a.subject "
        + (f"WHERE {where} " if where else "")
        + "ORDER BY a.seq",
        params,
    )


def later_audit_rows(conn: Database, ladder: int) -> Any:
    """The audit lines of a ladder's games after their first records, in
    recording order (the columns of ``audit_rows`` but the ladder's name)."""
    return conn.execute(
        "SELECT a.seq, a.recorded_at, a.recorded_by, a.kind, a.subject, a.summary, a.facts, "
        f"a.reason, a.source, {_AUDIT_GAME} FROM view_audit a "
        "LEFT JOIN view_games g ON g.n = a.subject "
        "WHERE a.ladder=? AND a.kind LIKE 'game %' ORDER BY a.seq",
        (ladder,),
    )


def latest_sources(conn: Database, ladder: int) -> dict[str, str]:
    """Game id -> the sheet's file:row of its latest record after its first
    (a game recorded again: few)."""
    return dict(
        conn.execute(
            f"SELECT {_ID}, MAX(a.source) FROM view_audit a JOIN view_games g ON g.n = a.subject "
            "WHERE a.ladder=? AND a.kind='game recorded' AND a.source IS NOT NULL GROUP BY g.n",
            (ladder,),
        ).fetchall()
    )


#: The names of ``COMPARED``'s columns.
COMPARED_COLUMNS = (
    "id", "ladder id", "key", "status", "event", "round", "version", "facts", "recorded_at",
    "recorded_by", "file", "source_row", "reason", "first_facts",
)  # fmt: skip
#: Every game as a rebuild must reproduce it, with ids in place of the
#: views' numbers (``verify`` compares them).
COMPARED = (
    f"SELECT {_ID} AS game, l.id, g.key, g.status, g.event, g.round, g.version, g.facts, "
    "r.recorded_at, r.recorded_by, r.file, g.source_row, g.reason, g.first_facts "
    "FROM view_games g LEFT JOIN view_ladders l ON l.n = g.ladder "
    "LEFT JOIN view_recordings r ON r.n = g.recording ORDER BY 1"
)
