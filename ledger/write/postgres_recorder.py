"""The PostgreSQL event store's recorder: the ledger's recorder
(``ledger.write.recorders.LedgerRecorder``) in PostgreSQL's dialect, the append sent in
bounded chunks, a writer that waits too long for another's lock stopped with
``Busy``, a role that may not append with ``Denied``, and the events and
chain made append-only by trigger.

Apart from the SQLite recorder so that a SQLite ledger's commands never
import psycopg (about a third of a command's start-up).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder
from eventsourcing.utils import retry

from ledger.kernel import chain
from ledger.kernel.errors import Busy, ConnectionLost, Denied, connection_lost
from ledger.kernel.translation import Message
from ledger.write import write_index
from ledger.write.recorders import (
    APPEND_ONLY,
    STORE_VERSION,
    Batch,
    EventRow,
    LedgerRecorder,
    decoded_events,
    event_rows,
)

#: Rows sent per statement (events, chain links, index rows).
CHUNK = 1000

#: What a write says when its connection was lost while it committed.
COMMIT_UNCERTAIN = Message(
    "lost the connection to the ledger's database while it committed: this write may or "
    "may not have been recorded. Run the same command again: a game or row already "
    "recorded is refused or skipped as such, what is missing is recorded"
)


class PostgresLedgerRecorder(LedgerRecorder, PostgresApplicationRecorder):
    """PostgreSQL event store with chain links and the write index."""

    #: Whether chain links are stored as bytes (``_links_are_bytes``).
    _link_bytes: bool | None = None

    def stored_id(self, aggregate: UUID) -> UUID:
        # A uuid column.
        return aggregate

    def game_prefix_bounds(self, prefix: str) -> tuple[str, str]:
        low, high = prefix.ljust(32, "0"), prefix.ljust(32, "f")
        return str(UUID(low)), str(UUID(high))

    def _create_table(self, curs: Any) -> None:
        super()._create_table(curs)
        schema = self.datastore.schema
        curs.execute(chain.SCHEMA.replace(chain.TABLE, f'"{schema}".{chain.TABLE}'))
        wrapped = self._cursor(curs)
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
        return self._append(batches, None)

    def _append(self, batches: Iterable[Batch], ids: list[int] | None) -> int:
        """Insert the batches in one transaction (their ids into ``ids``)."""
        import psycopg

        committing = False
        with self.datastore.get_connection() as conn:
            try:
                with conn.transaction(), conn.cursor() as curs:
                    # Writers are serialised from here to the commit: the
                    # chain head read with each batch is the latest.
                    self._lock_table(curs)
                    self._notify_channel(curs)
                    stored = self._append_batches(self._cursor(curs), batches, ids)
                    committing = True
                return stored
            except psycopg.errors.LockNotAvailable:
                raise Busy(
                    Message(
                        "another writer holds the ledger (an import or a command elsewhere): "
                        "waited {lock_timeout} s for it, recorded nothing; try again "
                        "(LEDGER_LOCK_TIMEOUT sets the wait)",
                        lock_timeout=self.datastore.lock_timeout,
                    )
                ) from None
            except psycopg.errors.InsufficientPrivilege as exc:
                raise Denied(
                    Message(
                        "role {user!r} may not record in this ledger ({message_primary}); "
                        "nothing was recorded: use a referee's role",
                        user=conn.info.user,
                        message_primary=exc.diag.message_primary,
                    )
                ) from None
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                # Lost before the commit was sent, the transaction is rolled
                # back for sure and eventsourcing's retry may run it again;
                # lost during the commit, the server may have committed it:
                # never retried blindly, said so instead.
                if committing and connection_lost(exc):
                    raise ConnectionLost(COMMIT_UNCERTAIN) from None
                raise

    def _cursor(self, c: Any) -> _PostgresCursor:
        return _PostgresCursor(c, self.datastore.schema, self.events_table_name)

    def _insert_rows(self, cursor: _PostgresCursor, rows: Sequence[EventRow]) -> list[int]:
        # The table lock is taken once for the append: eventsourcing's insert
        # without its own lock and notification.
        ids: list[int] = []
        for chunk in chunks(rows):
            events = [StoredEvent(UUID(h), v, t, s) for h, v, t, s in chunk]
            PostgresAggregateRecorder._insert_stored_events(self, cursor.curs, events)
            ids += [row["notification_id"] for row in cursor.curs.fetchall()]
        return ids

    def _insert_links(self, cursor: _PostgresCursor, links: Sequence[tuple[int, str]]) -> None:
        as_bytes = self._links_are_bytes(cursor)
        kind = "bytea" if as_bytes else "text"
        for chunk in chunks(links):
            cursor.execute(
                f"INSERT INTO {chain.TABLE} (seq, link) "
                f"SELECT * FROM unnest(?::bigint[], ?::{kind}[])",
                (
                    [seq for seq, _ in chunk],
                    [chain.stored(link) if as_bytes else link for _, link in chunk],
                ),
            )

    def _links_are_bytes(self, cursor: _PostgresCursor) -> bool:
        """Whether the chain's link column is BYTEA (a new ledger's) rather
        than TEXT (a ledger made before, which would keep bytes as their
        escaped text, ``\\x…``, not a link): read from the catalogue at the
        first append (a query never needs it), then kept for the recorder's life."""
        if self._link_bytes is None:
            rows = cursor.rows(
                "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                "WHERE attrelid = to_regclass(?) AND attname = 'link'",
                (f'"{self.datastore.schema}".{chain.TABLE}',),
            )
            self._link_bytes = bool(rows) and rows[0][0] == "bytea"
        return self._link_bytes


def chunks(rows: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    """``rows`` in consecutive slices of at most ``size``."""
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


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
    """``?`` placeholders become ``%s``; tables are qualified by the schema,
    and ``stored_events`` names the store's events table."""

    def __init__(self, curs: Any, schema: str, events_table: str) -> None:
        self.curs = curs
        self.schema = schema
        self.events = f' "{schema}".{events_table} '

    def _sql(self, sql: str) -> str:
        sql = _TABLE_NAMES.sub(f'"{self.schema}".\\1', sql).replace("?", "%s")
        return sql.replace(" stored_events ", self.events)

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
