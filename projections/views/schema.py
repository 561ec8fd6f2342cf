"""The view tables and their version.

The views are disposable (every row derives from the events), so a change of
shape bumps ``VERSION``: views of another version are dropped and the next
catch-up rebuilds them from the events. DDL runs only then: opening views of
this version reads one row.

Rows are keyed by integer surrogates: a ladder, player, game or other entry
is numbered by the position in the event store of the event that first
recorded it (so the same events always give the same numbers, in a rebuild
as in a catch-up), and its name or id is joined at query time. History is
packed per (ladder, player) in chunks (``views.history``, the one module
that reads and writes it): its rows grow with players, not with games.
People and scripts read history rows through ``ledger export``.
A ladder's standings are stored in (ladder, player) order without a rowid,
so a ranking is one scan of its rows rather than one lookup a player.

A ladder's games are ``views.games``'s (the one module that reads and writes
them); a game's first record is audited with it (its ``recording``: when, by
whom and from which file, one row of ``view_recordings`` for all the games an
import recorded); every later event has its own ``view_audit`` line. A
line's ``summary`` is NULL for a game's (written when read from the facts of
the event at its ``seq``: the views keep no copy of a game's facts), else
the sentence's template and facts (``views.said``), written in the
reader's language when read.
"""

from __future__ import annotations

import re

from ledger.kernel import chain
from projections.db import Database
from projections.views import games, history
from projections.views.version import VERSION as VERSION  # bumped there

#: The tables, without their secondary indexes (a rebuild fills them first).
TABLE_DDL = """
CREATE TABLE view_tracking (
    name TEXT PRIMARY KEY, position INTEGER NOT NULL);
CREATE TABLE view_ladders (
    n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, key TEXT NOT NULL,
    opened_at TEXT, opened_by TEXT, frontier TEXT NOT NULL DEFAULT '',
    frontier_pos INTEGER NOT NULL DEFAULT 0, since_checkpoint INTEGER NOT NULL DEFAULT 0,
    problem TEXT);
CREATE TABLE view_players (
    n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, key TEXT NOT NULL,
    merged_into TEXT, registered_at TEXT);
CREATE TABLE view_recordings (
    n INTEGER PRIMARY KEY, recorded_at TEXT NOT NULL, recorded_by TEXT NOT NULL, file TEXT);
CREATE TABLE view_entries (
    n INTEGER PRIMARY KEY, ladder INTEGER NOT NULL, key TEXT NOT NULL, kind TEXT NOT NULL,
    id TEXT NOT NULL, date TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE view_checkpoints (
    ladder INTEGER NOT NULL, key TEXT NOT NULL, pos INTEGER NOT NULL, whole INTEGER NOT NULL,
    states BLOB NOT NULL, PRIMARY KEY (ladder, key));
CREATE TABLE view_standings (
    ladder INTEGER NOT NULL, player INTEGER NOT NULL, rating REAL NOT NULL,
    games INTEGER NOT NULL, last_played TEXT, rated_since TEXT, state TEXT,
    PRIMARY KEY (ladder, player)) WITHOUT ROWID;
CREATE TABLE view_audit (
    seq INTEGER PRIMARY KEY, recorded_at TEXT NOT NULL, recorded_by TEXT NOT NULL,
    kind TEXT NOT NULL, ladder INTEGER, subject INTEGER, summary TEXT,
    reason TEXT, source TEXT);
CREATE TABLE view_version (version INTEGER NOT NULL);
"""

#: Secondary indexes of the rest (built after a rebuild or a first import
#: has filled the tables; the games' are ``views.games``').
INDEX_DDL = """
CREATE INDEX IF NOT EXISTS view_players_key ON view_players (key);
CREATE INDEX IF NOT EXISTS view_entries_key ON view_entries (ladder, key);
"""

#: Every view table, dropped together (``view_version`` last).
TABLES = (
    "view_tracking",
    "view_ladders",
    "view_players",
    games.TABLE,
    games.EVENTS,
    games.SPANS,
    "view_recordings",
    "view_entries",
    "view_checkpoints",
    "view_history_chunks",
    "view_standings",
    "view_audit",
    "view_version",
)
#: Every SQL view of earlier versions, dropped first (each depending on the
#: next): ``view_history`` was a table up to version 9 and an SQL view up to
#: 12, ``view_history_rows`` a table up to 10 and a view up to 12, over
#: ``view_history_data`` (a row per player per entry up to 12).
VIEWS = ("view_history", "view_history_rows")
#: Tables of earlier versions, dropped with the rest.
OLD_TABLES = ("view_history_data",)


def stored_version(db: Database) -> int | None:
    """The version of the views in ``db`` (None when there are none)."""
    if not db.table_exists("view_version"):
        return None
    row = db.execute("SELECT version FROM view_version").fetchone()
    return row[0] if row else None


def create(db: Database, indexes: bool = True) -> None:
    """Drop every view table and create this version's, empty (inside the
    caller's transaction); ``indexes=False`` leaves the secondary indexes
    to ``create_indexes`` (a rebuild fills the tables first)."""
    for name in (*VIEWS, *OLD_TABLES, *TABLES):
        _drop(db, name)
    db.script(_ddl(db, TABLE_DDL))
    db.script(_ddl(db, games.DDL))
    db.script(_ddl(db, history.DDL))
    db.execute("INSERT INTO view_version VALUES (?)", (VERSION,))
    # The chain is written by the event store's recorder; the table is
    # created here too so that reading its head works on any ledger.
    db.script(chain.SQLITE_SCHEMA if db.kind == "sqlite" else chain.SCHEMA)
    if indexes:
        create_indexes(db)


def create_indexes(db: Database) -> None:
    """The secondary indexes not built yet."""
    db.script(games.INDEX_DDL)
    db.script(INDEX_DDL)
    db.script(history.INDEX_DDL)


def drop_indexes(db: Database) -> None:
    """Drop the secondary indexes (inside the caller's transaction), for
    views about to be filled as a rebuild fills them: ``create_indexes``
    builds each once, sorted, after the tables are full, rather than
    keeping it in order row by row."""
    every = games.INDEX_DDL + INDEX_DDL + history.INDEX_DDL
    for name in re.findall(r"INDEX IF NOT EXISTS (\w+)", every):
        db.execute(f"DROP INDEX IF EXISTS {name}")


def connect(db: Database) -> Database:
    """Make sure the view tables are of this code's shape: one read when
    they are; created (or dropped and created) under the catch-up lock when
    missing or of another version."""
    if stored_version(db) != VERSION:
        with db.transaction():
            if stored_version(db) != VERSION:  # another process may have done it
                create(db)
    return db


def _ddl(db: Database, ddl: str) -> str:
    # WITHOUT ROWID is SQLite's: a PostgreSQL table is a heap either way.
    return ddl if db.kind == "sqlite" else ddl.replace(" WITHOUT ROWID", "")


def _drop(db: Database, name: str) -> None:
    """Drop a view table or SQL view of any version, whichever it is."""
    if db.kind == "sqlite":
        row = db.execute("SELECT type FROM sqlite_master WHERE name=?", (name,)).fetchone()
        kind = row[0] if row else None
    else:
        row = db.execute(
            "SELECT relkind FROM pg_class WHERE oid = to_regclass(?)", (name,)
        ).fetchone()
        kind = {"v": "view", "r": "table"}.get(row[0]) if row else None
    if kind == "view":
        db.execute(f"DROP VIEW {name}")
    elif kind == "table":
        db.execute(f"DROP TABLE {name}")
