"""The PostgreSQL event store's recorder: chain links and the write index
in the events' own transaction (see ``ledger.write.recorders``), the append sent in
bounded chunks, a writer that waits too long for another's lock stopped with
``Busy``, a role that may not append with ``Denied``, and the events and
chain made append-only by trigger.

Apart from ``ledger.write.recorders`` so that a SQLite ledger's commands never
import psycopg (about a third of a command's start-up).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder
from eventsourcing.utils import retry

from ledger.kernel import chain
from ledger.kernel.errors import Busy, Denied
from ledger.write import write_index
from ledger.write.recorders import (
    APPEND_ONLY,
    STORE_VERSION,
    Batch,
    EventRow,
    chain_rows,
    chunks,
    decoded_events,
    event_rows,
)


class PostgresLedgerRecorder(PostgresApplicationRecorder):
    """PostgreSQL event store with chain links and the write index."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read of the write index or the stored events."""
        with self.datastore.transaction(commit=False) as curs:
            wrapped = _PostgresCursor(curs, self.datastore.schema)
            events = f'"{self.datastore.schema}".{self.events_table_name}'
            wrapped.execute(sql.replace(" stored_events ", f" {events} "), params)
            return [tuple(row.values()) for row in curs.fetchall()]

    def close_reader(self) -> None:
        """Nothing to close: reads go through the store's pool."""

    def stored_id(self, aggregate: UUID) -> UUID:
        """An aggregate's id as the events table stores it (a uuid column)."""
        return aggregate

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
        for ddl in append_only_ddl(schema, (self.events_table_name, chain.TABLE)):
            curs.execute(ddl)
        curs.execute(
            f'CREATE TABLE IF NOT EXISTS "{schema}".ledger_store_version (version BIGINT NOT NULL)'
        )
        curs.execute(f'DELETE FROM "{schema}".ledger_store_version')
        curs.execute(f'INSERT INTO "{schema}".ledger_store_version VALUES (%s)', (STORE_VERSION,))

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int]:
        """Append events with their chain links and write index, in one
        transaction sent in chunks of ``CHUNK`` rows; their notification ids."""
        if not stored_events:
            return []
        ids: list[int] = []
        self._append([(event_rows(stored_events), decoded_events(stored_events, kwargs))], ids)
        return ids

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_batches(self, batches: Iterable[Batch]) -> int:
        """Append batches of event rows, each with its chain links and write
        index, all in one transaction; how many events were stored.
        ``batches`` is read again from its start if the connection fails."""
        return self._append(batches, None)

    def _append(self, batches: Iterable[Batch], ids: list[int] | None) -> int:
        """Insert the batches in one transaction (their ids into ``ids``)."""
        import psycopg

        stored = 0
        with self.datastore.get_connection() as conn:
            try:
                with conn.transaction(), conn.cursor() as curs:
                    # Writers are serialised from here to the commit: the
                    # chain head read below is the latest.
                    self._lock_table(curs)
                    self._notify_channel(curs)
                    for rows, decoded in batches:
                        batch_ids: list[int] = []
                        for chunk in chunks(rows):
                            events = [StoredEvent(UUID(h), v, t, s) for h, v, t, s in chunk]
                            PostgresAggregateRecorder._insert_stored_events(self, curs, events)
                            batch_ids += [row["notification_id"] for row in curs.fetchall()]
                        self._write_side(curs, rows, batch_ids, decoded)
                        stored += len(rows)
                        if ids is not None:
                            ids += batch_ids
                    return stored
            except psycopg.errors.LockNotAvailable:
                raise Busy(
                    "another writer holds the ledger (an import or a command elsewhere): "
                    f"waited {self.datastore.lock_timeout} s for it, recorded nothing; "
                    "try again (LEDGER_LOCK_TIMEOUT sets the wait)"
                ) from None
            except psycopg.errors.InsufficientPrivilege as exc:
                raise Denied(
                    f"role {conn.info.user!r} may not record in this ledger "
                    f"({exc.diag.message_primary}); nothing was recorded: use a referee's role"
                ) from None

    def _write_side(
        self, curs: Any, rows: Sequence[EventRow], ids: Sequence[int], decoded: Iterable[Any]
    ) -> None:
        """The write index and the chain links of the events just inserted."""
        schema = self.datastore.schema
        write_index.apply(_PostgresCursor(curs, schema), decoded)
        curs.execute(f'SELECT link FROM "{schema}".{chain.TABLE} ORDER BY seq DESC LIMIT 1')
        row = curs.fetchone()
        previous = row["link"] if row else chain.GENESIS
        links = chain_rows(previous, ids, rows)
        for chunk in chunks(links):
            curs.execute(
                f'INSERT INTO "{schema}".{chain.TABLE} (seq, link) '
                "SELECT * FROM unnest(%s::bigint[], %s::text[])",
                ([seq for seq, _ in chunk], [link for _, link in chunk]),
            )


def append_only_ddl(schema: str, tables: Sequence[str]) -> list[str]:
    """DDL of the triggers that refuse UPDATE, DELETE and TRUNCATE on
    ``tables``, for every role (the owner can drop them, deliberately)."""
    refuse = f'"{schema}".ledger_refuse_change'
    ddl = [
        f"CREATE OR REPLACE FUNCTION {refuse}() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN RAISE EXCEPTION 'the ledger''s history is append-only: % on % refused', "
        "TG_OP, TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege'; END $$"
    ]
    for table in tables:
        ddl += [
            f'DROP TRIGGER IF EXISTS {APPEND_ONLY} ON "{schema}".{table}',
            f'CREATE TRIGGER {APPEND_ONLY} BEFORE UPDATE OR DELETE OR TRUNCATE ON "{schema}".'
            f"{table} FOR EACH STATEMENT EXECUTE FUNCTION {refuse}()",
        ]
    return ddl


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
        for chunk in chunks(rows):
            self.curs.executemany(self._sql(sql), chunk)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of a read, as tuples (the store's cursor gives dicts)."""
        self.curs.execute(self._sql(sql), params)
        return [tuple(row.values()) for row in self.curs.fetchall()]
