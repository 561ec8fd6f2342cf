"""The hash chain over the ledger's event log.

Each link is the SHA-256 of the previous link and the event's full stored
content (topic, aggregate id and version, state), so changing, inserting or
deleting any stored event breaks every later link. The store's sequence
numbers are left out: they are not stable across stores, and a migrated
ledger keeps its chain and head. An organiser
publishes the head next to a ranking; ``ledger verify --head`` proves the
ledger still holds exactly what was published.

The links live in ``ledger_chain`` beside the event store (not a view: a
rebuild of the views never rewrites them).
"""

from __future__ import annotations

import hashlib
from typing import Any

from projections.db import Database

GENESIS = "0" * 64

SCHEMA = "CREATE TABLE IF NOT EXISTS ledger_chain (seq INTEGER PRIMARY KEY, link TEXT NOT NULL)"


def link(previous: str, note: Any) -> str:
    """The link that covers ``previous`` and one stored event."""
    h = hashlib.sha256()
    for part in (previous, note.topic, str(note.originator_id), str(note.originator_version)):
        h.update(part.encode())
        h.update(b"\x00")
    state = note.state
    # A row edited by hand may come back as text: hash what is stored.
    h.update(state.encode() if isinstance(state, str) else bytes(state))
    return h.hexdigest()


def head(conn: Database) -> tuple[int, str]:
    """(sequence, link) of the last event chained, or (0, GENESIS)."""
    row = conn.execute("SELECT seq, link FROM ledger_chain ORDER BY seq DESC LIMIT 1").fetchone()
    return (row[0], row[1]) if row else (0, GENESIS)


class Chainer:
    """Extends the chain with notifications not yet chained."""

    def __init__(self, conn: Database) -> None:
        self.conn = conn
        self.last_seq, self.previous = head(conn)

    def add(self, note: Any) -> None:
        if note.id <= self.last_seq:
            return  # chained when it was first appended (a rebuild re-reads it)
        self.previous = link(self.previous, note)
        self.last_seq = note.id
        self.conn.execute("INSERT INTO ledger_chain VALUES (?, ?)", (note.id, self.previous))
