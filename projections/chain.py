"""Extending the hash chain from the read side (to be removed: links are
written at append time by ``ledger.recorders``)."""

from __future__ import annotations

from typing import Any

from ledger.chain import GENESIS, SCHEMA, head, link
from projections.db import Database

__all__ = ["GENESIS", "SCHEMA", "Chainer", "head", "link"]
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
