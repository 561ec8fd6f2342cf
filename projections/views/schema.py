"""The view tables and their version.

The views are disposable (every row derives from the events), so a change of
shape bumps ``VERSION``: views of another version are dropped and the next
catch-up rebuilds them from the events. DDL runs only then: opening views of
this version reads one row.
"""

from __future__ import annotations

from ledger import chain
from projections.db import Database

#: Bump when the view tables change shape (or what their rows hold).
VERSION = 9

SCHEMA = """
CREATE TABLE view_tracking (
    name TEXT PRIMARY KEY, position INTEGER NOT NULL);
CREATE TABLE view_ladders (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, key TEXT NOT NULL,
    opened_at TEXT, opened_by TEXT, frontier TEXT NOT NULL DEFAULT '',
    since_checkpoint INTEGER NOT NULL DEFAULT 0, problem TEXT);
CREATE TABLE view_players (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, key TEXT NOT NULL,
    merged_into TEXT, registered_at TEXT);
CREATE INDEX view_players_key ON view_players (key);
CREATE TABLE view_games (
    id TEXT PRIMARY KEY, short TEXT NOT NULL, ladder TEXT NOT NULL,
    key TEXT NOT NULL, status TEXT NOT NULL, facts TEXT NOT NULL,
    recorded_at TEXT, recorded_by TEXT, version INTEGER NOT NULL);
CREATE INDEX view_games_short ON view_games (short);
CREATE TABLE view_entries (
    ladder TEXT NOT NULL, key TEXT NOT NULL, kind TEXT NOT NULL,
    id TEXT NOT NULL, date TEXT NOT NULL, event TEXT, data TEXT NOT NULL,
    PRIMARY KEY (ladder, key));
CREATE INDEX view_entries_kind ON view_entries (ladder, kind, key);
CREATE TABLE view_checkpoints (
    ladder TEXT NOT NULL, key TEXT NOT NULL, states BLOB NOT NULL,
    PRIMARY KEY (ladder, key));
CREATE TABLE view_history (
    ladder TEXT NOT NULL, key TEXT NOT NULL, entry TEXT NOT NULL,
    kind TEXT NOT NULL, player TEXT NOT NULL, date TEXT NOT NULL,
    event TEXT, round INTEGER, side INTEGER NOT NULL, opponents TEXT NOT NULL,
    s REAL, p REAL, k REAL, before REAL NOT NULL, change REAL NOT NULL,
    after REAL NOT NULL, games_before INTEGER NOT NULL,
    games_after INTEGER NOT NULL, note TEXT NOT NULL);
CREATE INDEX view_history_key ON view_history (ladder, key);
CREATE INDEX view_history_player ON view_history (ladder, player, key);
CREATE TABLE view_standings (
    ladder TEXT NOT NULL, player TEXT NOT NULL, rating REAL NOT NULL,
    games INTEGER NOT NULL, last_played TEXT, rated_since TEXT,
    PRIMARY KEY (ladder, player));
CREATE TABLE view_audit (
    seq INTEGER PRIMARY KEY, recorded_at TEXT NOT NULL, recorded_by TEXT NOT NULL,
    kind TEXT NOT NULL, ladder TEXT, summary TEXT NOT NULL, reason TEXT,
    source TEXT);
CREATE TABLE view_version (version INTEGER NOT NULL);
"""

#: Every view table, dropped together (``view_version`` last).
TABLES = (
    "view_tracking",
    "view_ladders",
    "view_players",
    "view_games",
    "view_entries",
    "view_checkpoints",
    "view_history",
    "view_standings",
    "view_audit",
    "view_version",
)


def stored_version(db: Database) -> int | None:
    """The version of the views in ``db`` (None when there are none)."""
    if not db.table_exists("view_version"):
        return None
    row = db.execute("SELECT version FROM view_version").fetchone()
    return row[0] if row else None


def create(db: Database) -> None:
    """Drop every view table and create this version's, empty (inside the
    caller's transaction)."""
    for table in TABLES:
        db.execute(f"DROP TABLE IF EXISTS {table}")
    db.script(SCHEMA)
    db.execute("INSERT INTO view_version VALUES (?)", (VERSION,))
    # The chain is written by the event store's recorder; the table is
    # created here too so that reading its head works on any ledger.
    db.script(chain.SCHEMA)


def connect(db: Database) -> Database:
    """Make sure the view tables are of this code's shape: one read when
    they are; created (or dropped and created) under the catch-up lock when
    missing or of another version."""
    if stored_version(db) != VERSION:
        with db.transaction():
            if stored_version(db) != VERSION:  # another process may have done it
                create(db)
    return db
