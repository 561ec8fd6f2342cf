"""Event-store recorders that write, in the same transaction as the events,
their hash-chain links and the write side's own lookups.

Following eventsourcing's ``examples/searchabletimestamps``, the recorders
override the insert step: after the events are inserted (the table is then
locked against other writers), each event's chain link is appended, and the
write index (``ledger.write_index``) is updated. An event never exists
without its link, and a name claimed by two concurrent commands fails one of
them with the store's own IntegrityError.

An import's append comes as batches (``insert_batches``): every batch is
written in the one transaction, so a sheet of any size is stored all or
nothing without ever being held whole in memory.

On PostgreSQL the append is sent in bounded chunks inside its one
transaction (a 40,000-event import sent as one statement hung psycopg's
pipeline for ever while holding the table lock); a writer that waits longer
than the lock timeout for another's append stops with ``Busy``; a role that
may not append stops with ``Denied``. The events and chain tables refuse
UPDATE, DELETE and TRUNCATE by trigger, whoever asks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from eventsourcing.utils import retry

from ledger import chain, write_index
from ledger.errors import Busy, Denied

#: Rows sent per statement on PostgreSQL (events, chain links, index rows).
CHUNK = 1000
#: The PostgreSQL store's shape (``ledger_store_version``); a store of an
#: older one is upgraded by its owner (``Storage.prepare``).
#: 1: no version table; 2: append-only triggers on the events and chain.
STORE_VERSION = 2
#: The trigger that keeps stored events and chain links append-only.
APPEND_ONLY = "ledger_append_only"

#: SQLite's page cache (KiB) while an import appends its batches: room for
#: the events' key index of about 1.5M games (filled only as needed).
IMPORT_CACHE_KIB = 128 * 1024

#: A stored event as a row of the events table: (originator id as 32 hex
#: digits, version, topic, state). An import hands its events over in this
#: form, never as an object each.
EventRow = tuple[str, int, str, bytes]
#: Rows of stored events with the decoded events the write index reads among
#: them (see ``_domain``; an import leaves its games out and gives each
#: round's last number instead), appended together.
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


def _domain(stored: Sequence[StoredEvent], kwargs: dict[str, Any]) -> Any:
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

    def insert_batches(self, batches: Iterable[Batch], rounds: dict[str, int] | None = None) -> int:
        """Append batches of event rows, each with its chain links and write
        index, all in one transaction; how many events were stored.
        ``rounds``: the last order-of-play number of each round the batches
        fill (``write_index.apply_rounds``)."""
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
                write_index.apply_rounds(_SQLiteCursor(c), rounds or {})
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
            c.executemany(self.insert_events_statement, rows[1:])
        c.execute(f"SELECT MAX(rowid) FROM {self.events_table_name}")
        if c.fetchone()[0] != first + len(rows) - 1:
            # Never seen: refuse rather than chain links to the wrong rows.
            raise RuntimeError("stored events were not numbered in sequence")  # pragma: no cover
        return list(range(first, first + len(rows)))

    def _insert_events(self, c: Any, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Any:
        if not stored_events:
            return []
        return self._append_rows(c, event_rows(stored_events), _domain(stored_events, kwargs))

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
        c.executemany(f"INSERT INTO {chain.TABLE} VALUES (?, ?)", chain_rows(previous, ids, rows))
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
        self._append([(event_rows(stored_events), _domain(stored_events, kwargs))], ids)
        return ids

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_batches(self, batches: Iterable[Batch], rounds: dict[str, int] | None = None) -> int:
        """Append batches of event rows, each with its chain links and write
        index, all in one transaction; how many events were stored.
        ``batches`` is read again from its start if the connection fails.
        ``rounds``: as for SQLite (``write_index.apply_rounds``)."""
        return self._append(batches, None, rounds)

    def _append(
        self, batches: Iterable[Batch], ids: list[int] | None, rounds: dict[str, int] | None = None
    ) -> int:
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
                    write_index.apply_rounds(
                        _PostgresCursor(curs, self.datastore.schema), rounds or {}
                    )
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
        for chunk in chunks(rows):
            self.curs.executemany(self._sql(sql), chunk)
