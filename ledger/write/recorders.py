"""Event-store recorders that write, in the same transaction as the events,
their hash-chain links and the write side's own lookups.

Following eventsourcing's ``examples/searchabletimestamps``, the recorders
override the insert step: after the events are inserted (the table is then
locked against other writers), each event's chain link is appended, and the
write index (``ledger.write.write_index``) is updated. An event never exists
without its link, and a name claimed by two concurrent commands fails one of
them with the store's own IntegrityError.

An import's append comes as batches (``insert_batches``): every batch is
written in the one transaction, so a sheet of any size is stored all or
nothing without ever being held whole in memory.

The SQLite recorder is here, with what both stores share; PostgreSQL's is
in ``ledger.write.postgres_recorder`` (imported only for a PostgreSQL ledger).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder

from ledger.kernel import chain
from ledger.kernel.bulk_insert import insert_rows
from ledger.write import write_index

#: Rows sent per statement on PostgreSQL (events, chain links, index rows).
CHUNK = 1000
#: The PostgreSQL store's shape (``ledger_store_version``); a store of an
#: older one is upgraded by its owner (``Storage.prepare``).
#: 1: no version table; 2: append-only triggers on the events and chain;
#: 3: the write index's name blocks (``write_index.VERSION`` 2).
STORE_VERSION = 3
#: The trigger that keeps stored events and chain links append-only.
APPEND_ONLY = "ledger_append_only"

#: SQLite's page cache (KiB) while an import appends its batches: room for
#: the events' key index of about 1.5M games (filled only as needed).
IMPORT_CACHE_KIB = 128 * 1024

#: A stored event as a row of the events table: (originator id as 32 hex
#: digits, version, topic, state). An import hands its events over in this
#: form, never as an object each.
EventRow = tuple[str, int, str, bytes]
#: Rows of stored events with what the write index reads of them (see
#: ``decoded_events``; new games give the rounds they reach instead,
#: ``write_index.Reached``), appended together.
Batch = tuple[Sequence[EventRow], Sequence[Any]]


def chunks(rows: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    """``rows`` in consecutive slices of at most ``size``."""
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def event_rows(stored: Sequence[StoredEvent]) -> list[EventRow]:
    """Stored events as rows of the events table (an id given as text is
    read as a UUID: every id is stored, and chained, in one form)."""
    return [
        (
            s.originator_id.hex if isinstance(s.originator_id, UUID) else UUID(s.originator_id).hex,
            s.originator_version,
            s.topic,
            s.state,
        )
        for s in stored
    ]


def decoded_events(stored: Sequence[StoredEvent], kwargs: dict[str, Any]) -> Any:
    """The decoded events: passed by the application with ``put`` (so a
    cipher or compressor never gets in the way), else decoded here (a copy
    of stored events, as ``ledger migrate`` makes)."""
    events = kwargs.get("decoded_events")
    return events if events is not None else write_index.decoded(stored)


def chain_rows(
    previous: str, ids: Sequence[int], rows: Sequence[EventRow]
) -> list[tuple[int, str]]:
    """(sequence, link) for each newly stored event, after ``previous``."""
    import hashlib  # chain.link_of's hash, found once for the batch

    out = []
    append, sha256, link_of = out.append, hashlib.sha256, chain.link_of
    for seq, (h, version, topic, state) in zip(ids, rows, strict=True):
        # The id as a UUID's text (how it reads back from either store).
        if type(state) is bytes:
            # ``chain.link_of`` made here, one call and one string a row
            # fewer (an import chains a million); the same bytes hashed
            # (tests compare both).
            head = (
                f"{previous}\x00{topic}\x00{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
                f"\x00{version}\x00"
            )
            previous = sha256(head.encode() + state).hexdigest()
        else:
            text = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
            previous = link_of(previous, topic, text, version, state)
        append((seq, previous))
    return out


class SQLiteLedgerRecorder(SQLiteApplicationRecorder):
    """SQLite event store with chain links and the write index."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._reader: sqlite3.Connection | None = None
        self._reader_lock = threading.Lock()

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read of the write index or the stored events.

        One statement is its own snapshot, so it runs on a connection of its
        own in autocommit mode: a tenth of the time of a transaction taken
        from the store's pool, which an import pays for every new name. An
        in-memory store (one database a connection) reads through the pool."""
        reader = self._reader or self._open_reader()
        if reader is None:
            with self.datastore.transaction(commit=False) as c:
                c.execute(sql, params)
                return [tuple(row) for row in c.fetchall()]
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
        """Close the connection ``query`` reads on (opened again if needed)."""
        with self._reader_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    def stored_id(self, aggregate: UUID) -> str:
        """An aggregate's id as the events table stores it."""
        return aggregate.hex

    def rebuild_index(self, notifications: Any) -> None:
        with self.datastore.transaction(commit=True) as c:
            write_index.rebuild(_SQLiteCursor(c), notifications)

    def game_prefix_bounds(self, prefix: str) -> tuple[str, str]:
        # Ids are stored as 32 hex digits.
        return prefix.ljust(32, "0"), prefix.ljust(32, "f")

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            chain.SCHEMA,
            *write_index.schema("INTEGER", " WITHOUT ROWID"),
        ]

    def insert_batches(self, batches: Iterable[Batch]) -> int:
        """Append batches of event rows, each with its chain links and write
        index, all in one transaction; how many events were stored."""
        stored = 0
        with self.datastore.transaction(commit=True) as c:
            c.execute("PRAGMA cache_size")
            cache = c.fetchone()[0]
            # The events' key index takes each new game at a random place:
            # with the default 2 MB of cache, nearly every insert evicts a
            # changed page into the WAL, written again and again.
            c.execute(f"PRAGMA cache_size = {-IMPORT_CACHE_KIB}")
            try:
                for rows, decoded in batches:
                    self._append_rows(c, rows, decoded)
                    stored += len(rows)
            finally:
                c.execute(f"PRAGMA cache_size = {int(cache)}")
        return stored

    def _insert_rows(self, c: Any, rows: Sequence[EventRow]) -> list[int]:
        """Insert event rows; their rowids (notification ids).

        The first insert is the transaction's first statement: it takes
        SQLite's write lock, waiting for another writer (a read first would
        fail at once on a stale snapshot). A rowid table without
        AUTOINCREMENT numbers each new row one past its largest rowid, so the
        rest follow the first one's in one statement (checked, never assumed)."""
        c.execute(self.insert_events_statement, rows[0])
        first = c.lastrowid
        if len(rows) > 1:
            insert_rows(c, f"INSERT INTO {self.events_table_name}", rows[1:])
        c.execute(f"SELECT MAX(rowid) FROM {self.events_table_name}")
        if c.fetchone()[0] != first + len(rows) - 1:
            # Never seen: refuse rather than chain links to the wrong rows.
            raise RuntimeError("stored events were not numbered in sequence")  # pragma: no cover
        return list(range(first, first + len(rows)))

    def _insert_events(self, c: Any, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Any:
        if not stored_events:
            return []
        return self._append_rows(
            c, event_rows(stored_events), decoded_events(stored_events, kwargs)
        )

    def _append_rows(self, c: Any, rows: Sequence[EventRow], decoded: Iterable[Any]) -> list[int]:
        """Insert rows, then their write index and chain links; their ids."""
        if not rows:
            return []
        ids = self._insert_rows(c, rows)
        # The events' insert took SQLite's write lock: no other writer can
        # extend the chain between reading its head and writing the links.
        write_index.apply(_SQLiteCursor(c), decoded)
        c.execute(f"SELECT link FROM {chain.TABLE} ORDER BY seq DESC LIMIT 1")
        row = c.fetchone()
        previous = row[0] if row else chain.GENESIS
        insert_rows(c, f"INSERT INTO {chain.TABLE}", chain_rows(previous, ids, rows))
        return ids


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
