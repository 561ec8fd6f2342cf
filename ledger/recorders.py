"""Event-store recorders that write, in the same transaction as the events,
their hash-chain links and the write side's own lookups.

Following eventsourcing's ``examples/searchabletimestamps``, the recorders
override the insert step: after the events are inserted (the table is then
locked against other writers), each event's chain link is appended, and the
write index (``ledger.write_index``) is updated. An event never exists
without its link, and a name claimed by two concurrent commands fails one of
them with the store's own IntegrityError.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder

from ledger import chain, write_index


def _notes(stored: Sequence[StoredEvent], ids: Sequence[int]) -> list[tuple[int, StoredEvent]]:
    return list(zip(ids, stored, strict=True))


def _domain(stored: Sequence[StoredEvent], kwargs: dict[str, Any]) -> Any:
    """The decoded events: passed by the application with ``put`` (so a
    cipher or compressor never gets in the way), else decoded here (a copy
    of stored events, as ``ledger migrate`` makes)."""
    events = kwargs.get("decoded_events")
    return events if events is not None else write_index.decoded(stored)


def chain_rows(previous: str, notes: list[tuple[int, StoredEvent]]) -> list[tuple[int, str]]:
    """(sequence, link) for each newly stored event, after ``previous``."""
    rows = []
    for seq, event in notes:
        previous = chain.link(previous, event)
        rows.append((seq, previous))
    return rows


class SQLiteLedgerRecorder(SQLiteApplicationRecorder):
    """SQLite event store with chain links and the write index."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read of the write index or the stored events."""
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, params)
            return [tuple(row) for row in c.fetchall()]

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
            *write_index.schema("INTEGER"),
        ]

    def _insert_events(self, c: Any, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Any:
        ids = super()._insert_events(c, stored_events, **kwargs)
        if not stored_events:
            return ids
        # The events' insert took SQLite's write lock: no other writer can
        # extend the chain between reading its head and writing the links.
        write_index.apply(_SQLiteCursor(c), _domain(stored_events, kwargs))
        c.execute(f"SELECT link FROM {chain.TABLE} ORDER BY seq DESC LIMIT 1")
        row = c.fetchone()
        previous = row[0] if row else chain.GENESIS
        c.executemany(
            f"INSERT INTO {chain.TABLE} VALUES (?, ?)",
            chain_rows(previous, _notes(stored_events, ids)),
        )
        return ids


class PostgresLedgerRecorder(PostgresApplicationRecorder):
    """PostgreSQL event store with chain links and the write index."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read of the write index or the stored events."""
        with self.datastore.transaction(commit=False) as curs:
            wrapped = _PostgresCursor(curs, self.datastore.schema)
            events = f'"{self.datastore.schema}".{self.events_table_name}'
            wrapped.execute(sql.replace(" stored_events ", f" {events} "), params)
            return [tuple(row.values()) for row in curs.fetchall()]

    def rebuild_index(self, notifications: Any) -> None:
        with self.datastore.transaction(commit=True) as curs:
            write_index.rebuild(_PostgresCursor(curs, self.datastore.schema), notifications)

    def game_prefix_bounds(self, prefix: str) -> tuple[str, str]:
        low, high = prefix.ljust(32, "0"), prefix.ljust(32, "f")
        return str(UUID(low)), str(UUID(high))

    def _create_table(self, curs: Any) -> None:
        super()._create_table(curs)
        schema = self.datastore.schema
        curs.execute(chain.SCHEMA.replace(chain.TABLE, f'"{schema}".{chain.TABLE}'))
        wrapped = _PostgresCursor(curs, schema)
        for ddl in write_index.schema("BIGINT"):
            wrapped.execute(ddl)

    def _fetch_ids_after_insert_events(
        self, curs: Any, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        ids = super()._fetch_ids_after_insert_events(curs, stored_events, **kwargs)
        if not stored_events or ids is None:
            return ids
        # The stored-events table is locked EXCLUSIVE by the insert: writers
        # are serialised, so the chain head read here is the latest.
        schema = self.datastore.schema
        write_index.apply(_PostgresCursor(curs, schema), _domain(stored_events, kwargs))
        curs.execute(f'SELECT link FROM "{schema}".{chain.TABLE} ORDER BY seq DESC LIMIT 1')
        row = curs.fetchone()
        previous = row["link"] if row else chain.GENESIS
        curs.executemany(
            f'INSERT INTO "{schema}".{chain.TABLE} VALUES (%s, %s)',
            chain_rows(previous, _notes(stored_events, ids)),
        )
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


_TABLE_NAMES = re.compile(rf"\b({'|'.join((*write_index.TABLES, chain.TABLE))})\b")


class _PostgresCursor:
    """``?`` placeholders become ``%s``; tables are qualified by the schema."""

    def __init__(self, curs: Any, schema: str) -> None:
        self.curs = curs
        self.schema = schema

    def _sql(self, sql: str) -> str:
        return _TABLE_NAMES.sub(f'"{self.schema}".\\1', sql).replace("?", "%s")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        self.curs.execute(self._sql(sql), params)
        return self.curs

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.curs.executemany(self._sql(sql), rows)
