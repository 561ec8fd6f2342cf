"""The SQLite event store's recorder: the ledger's recorder
(``ledger.write.recorders.LedgerRecorder``) in SQLite's dialect.

A command's events go through eventsourcing's own insert, extended (override
plus ``super()``, as eventsourcing's ``examples/searchabletimestamps`` does)
by the write index and chain links in the same transaction; an import's
batches are inserted many rows a statement (``ledger.kernel.bulk_insert``).
Reads run on a connection of their own, in autocommit mode.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder

from ledger.kernel import chain, sqlite_pragmas
from ledger.kernel.bulk_insert import insert_rows
from ledger.write import write_index
from ledger.write.recorders import Batch, EventRow, LedgerRecorder, decoded_events, event_rows

#: SQLite's page cache (KiB) while an import appends its batches: room for
#: the events' key index of about 1.5M games (filled only as needed).
IMPORT_CACHE_KIB = 128 * 1024


class SQLiteLedgerRecorder(LedgerRecorder, SQLiteApplicationRecorder):
    """SQLite event store with chain links and the write index."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._reader: sqlite3.Connection | None = None
        self._reader_lock = threading.Lock()

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read of the write index, the chain or the stored events.

        One statement is its own snapshot, so it runs on a connection of its
        own in autocommit mode: a tenth of the time of a transaction taken
        from the store's pool, which an import pays for every new name. An
        in-memory store (one database a connection) reads through the pool."""
        reader = self._reader or self._open_reader()
        if reader is None:
            return super().query(sql, params)
        with self._reader_lock:
            return reader.execute(sql, params).fetchall()

    def _open_reader(self) -> sqlite3.Connection | None:
        pool = self.datastore.pool
        if pool.is_sqlite_memory_mode:
            return None
        with self._reader_lock:
            if self._reader is None:
                self._reader = sqlite3.connect(
                    pool.db_name, uri=True, timeout=30, isolation_level=None,
                    check_same_thread=False,
                )  # fmt: skip
        return self._reader

    def close_reader(self) -> None:
        with self._reader_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    def stored_id(self, aggregate: UUID) -> str:
        return aggregate.hex

    def game_prefix_bounds(self, prefix: str) -> tuple[str, str]:
        # Ids are stored as 32 hex digits.
        return prefix.ljust(32, "0"), prefix.ljust(32, "f")

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            chain.SQLITE_SCHEMA,
            *write_index.schema("INTEGER", " WITHOUT ROWID"),
        ]

    def insert_batches(self, batches: Iterable[Batch]) -> int:
        # The events' key index takes each new game at a random place: with
        # the default 2 MB of cache, nearly every insert evicts a changed
        # page into the WAL, written again and again. Each many-row INSERT
        # keeps a statement journal (to undo that statement alone on a
        # conflict); past 64 KiB SQLite writes it to a temporary file: as
        # many bytes again as the events. In memory (``temp_store`` 2) it
        # holds one statement's pages at most.
        with (
            self.datastore.transaction(commit=True) as c,
            sqlite_pragmas.changed(c, cache_size=-IMPORT_CACHE_KIB, temp_store=2),
        ):
            return self._append_batches(_SQLiteCursor(c), batches)

    def _insert_events(self, c: Any, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Any:
        # Every id is stored in one form (32 hex digits), one given as text too.
        stored_events = [
            s if isinstance(s.originator_id, UUID) else StoredEvent(
                UUID(s.originator_id), s.originator_version, s.topic, s.state
            )
            for s in stored_events
        ]  # fmt: skip
        ids = super()._insert_events(c, stored_events, **kwargs)
        if ids:
            cursor = _SQLiteCursor(c)
            rows = event_rows(stored_events)
            self._write_side(cursor, rows, ids, decoded_events(stored_events, kwargs))
        return ids

    def _cursor(self, c: Any) -> _SQLiteCursor:
        return _SQLiteCursor(c)

    def _insert_rows(self, cursor: _SQLiteCursor, rows: Sequence[EventRow]) -> list[int]:
        """Insert event rows; their rowids (notification ids).

        The first insert is the transaction's first statement: it takes
        SQLite's write lock, waiting for another writer (a read first would
        fail at once on a stale snapshot). A rowid table without
        AUTOINCREMENT numbers each new row one past its largest rowid, so the
        rest follow the first one's in one statement (checked, never assumed)."""
        c = cursor.c
        c.execute(self.insert_events_statement, rows[0])
        first = c.lastrowid
        if len(rows) > 1:
            insert_rows(c, f"INSERT INTO {self.events_table_name}", rows[1:])
        c.execute(f"SELECT MAX(rowid) FROM {self.events_table_name}")
        if c.fetchone()[0] != first + len(rows) - 1:
            # Never seen: refuse rather than chain links to the wrong rows.
            raise RuntimeError("stored events were not numbered in sequence")  # pragma: no cover
        return list(range(first, first + len(rows)))

    def _insert_links(self, cursor: _SQLiteCursor, links: Sequence[tuple[int, str]]) -> None:
        # Bytes whatever the column: a ledger made before has a TEXT one,
        # which keeps a blob as a blob (readers take either form).
        stored = [(seq, chain.stored(link)) for seq, link in links]
        insert_rows(cursor.c, f"INSERT INTO {chain.TABLE}", stored)


class _SQLiteCursor:
    """The write index's view of a cursor: ``?`` placeholders, bare tables."""

    def __init__(self, c: Any) -> None:
        self.c = c

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        self.c.execute(sql, params)
        return self.c

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.c.executemany(sql, rows)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of a read, as tuples."""
        self.c.execute(sql, params)
        return [tuple(row) for row in self.c.fetchall()]
