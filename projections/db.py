"""The views' database: the same SQL on SQLite and PostgreSQL.

Views and checkpoints live beside the event store (the same SQLite file, or
the same PostgreSQL schema). SQL is written once with ``?`` placeholders and
portable upserts; this module adapts placeholders, column types and the
exclusive transaction that serialises catch-ups.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from ledger.kernel import sqlite_pragmas
from ledger.kernel.bulk_insert import insert_rows, plain_binding
from ledger.kernel.errors import Denied
from ledger.kernel.translation import Message


class Row(tuple):
    """A result row readable by position or by column name (like sqlite3.Row)."""

    names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row.names = names
        return row

    def __getitem__(self, key: Any) -> Any:  # type: ignore[override]
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self.names)


class Database:
    """A connection to the views, with the few operations the views use."""

    kind = "sqlite"
    #: The driver's own errors: a failure of the database, never of a family.
    errors: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)

    def insert_rows(self, head: str, rows: Sequence[Sequence[Any]]) -> None:
        """``head`` (``INSERT INTO table (columns)``, without ``VALUES``) for
        each row: a bulk write, many rows a statement on SQLite."""
        insert_rows(self.conn, head, rows)

    @staticmethod
    def in_list(values: Sequence[Any]) -> tuple[str, tuple[Any, ...]]:
        """``(?,?,...)`` for ``values`` and its parameters, the list padded
        (its last value repeated) to a power of two: a statement of a few
        shapes, not one per length (PostgreSQL prepares each shape it meets
        often, and a follower running for months would churn its driver's
        statement cache with lists of every length)."""
        size = 1 << (len(values) - 1).bit_length() if values else 1
        padded = (*values, *[values[-1]] * (size - len(values))) if values else (None,)
        return f"({','.join('?' * size)})", padded

    def tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of a SELECT as a plain tuple: quicker to make and to
        index than a row readable by column name (a ranking of thousands)."""
        cursor = self.conn.cursor()
        cursor.row_factory = None
        try:
            return cursor.execute(sql, params).fetchall()
        finally:
            cursor.close()

    def json_field(self, column: str, name: str) -> str:
        """SQL reading the top-level field ``name`` of the JSON text in
        ``column``: an object as its JSON text, a number or a string as its
        value (PostgreSQL: as text)."""
        return f"json_extract({column}, '$.{name}')"

    def script(self, ddl: str) -> None:
        for statement in ddl.split(";"):
            if statement.strip():
                self.execute(self.ddl(statement))

    def ddl(self, statement: str) -> str:
        return statement

    def table_exists(self, name: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)
        ).fetchone()
        return row is not None

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """An exclusive transaction (no other catch-up runs beside it):
        committed when the block ends, rolled back if it raises."""
        self.begin_exclusive()
        try:
            yield self
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def begin_exclusive(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def may_write(self, tables: Iterable[str]) -> bool:
        """Whether rows of ``tables`` may be written (roles are PostgreSQL's)."""
        return True

    def owner(self) -> str | None:
        """The role that owns the views' schema, when this role is not it
        (only that role may create, drop or upgrade tables); None otherwise."""
        return None

    def close(self) -> None:
        self.conn.close()

    def reconnect(self) -> None:
        """A new connection in place of one its server dropped (a SQLite
        file's connection is never dropped: nothing to do)."""

    def for_scattered_reads(self) -> Database:
        """This database, set for a query's scattered reads (a history looks
        up hundreds of rows spread over the file); nothing to set by default."""
        return self

    @contextmanager
    def scattered_reads(self) -> Iterator[None]:
        """``for_scattered_reads`` for the block alone (a long read back in
        a process that goes on: a follower's resident size stays its own);
        nothing to set by default."""
        yield

    @contextmanager
    def filling_whole(self) -> Iterator[None]:
        """Settings while views are filled whole (a rebuild, a first import:
        rows appended, indexes built once at the end); nothing by default."""
        yield

    #: The event store's table (eventsourcing's name for it on this backend).
    events_table = "stored_events"
    #: The column numbering the events in store order.
    events_position = "rowid"

    def events_beside(self) -> str | None:
        """The event store's table as this connection's SQL names it, when
        the views are beside it (the same SQLite file or PostgreSQL
        database); None for throwaway views in memory, which have none."""
        found = getattr(self, "_events_beside", None)
        if found is None:
            name = self._events_name()
            if self.table_exists(name):
                found = self._events_beside = name  # known for good once there
        return found

    def _events_name(self) -> str:
        return self.events_table

    def standing(self) -> Standing:
        """Where the views stand against the event store, read with plain SQL
        (no event-store machinery): a query opens the views this way and
        starts the catch-up only when they are behind."""
        version = position = last = None
        if self.table_exists("view_version"):
            row = self.execute("SELECT MAX(version) FROM view_version").fetchone()
            version = row[0] if row else None
        if self.table_exists("view_tracking"):
            row = self.execute("SELECT position FROM view_tracking WHERE name='views'").fetchone()
            position = row[0] if row else 0
        if self.table_exists(self.events_table):
            last = self.execute(
                f"SELECT COALESCE(MAX({self.events_position}), 0) FROM {self.events_table}"
            ).fetchone()[0]
        return Standing(version, position or 0, last)


class Standing(NamedTuple):
    """The views' version (None: no views), the last event they applied and
    the event store's last (None: no event store yet)."""

    version: int | None
    position: int
    last: int | None

    @property
    def behind(self) -> int:
        """Events stored that the views have not applied."""
        return max((self.last or 0) - self.position, 0)


#: How much of a SQLite ledger a query may map into memory (address space;
#: the pages are the OS's file cache, but they count in the process's
#: resident size, so a rebuild reading every event does not map them).
MMAP_BYTES = 1 << 30
#: The page cache (KiB) while views are filled whole (``filling_whole``).
FILL_CACHE_KIB = 8192


class SQLiteDatabase(Database):
    kind = "sqlite"

    def __init__(self, path: str, uri: str | None = None) -> None:
        """``uri``: a ``file:`` URI to open instead of ``path`` (a read-only
        ledger's, ``Storage.uri``)."""
        conn = sqlite3.connect(
            uri or path, isolation_level=None, timeout=30, check_same_thread=False,
            uri=uri is not None,
        )  # fmt: skip
        conn.row_factory = sqlite3.Row
        # Views are rebuilt from the events if ever lost: trade durability of
        # the last transaction for speed, and give bulk replays a big cache.
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA cache_size=-65536")
        conn.execute("PRAGMA temp_store=MEMORY")
        super().__init__(conn)

    def for_scattered_reads(self) -> Database:
        """Pages read through a memory map rather than one read() each."""
        self.conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
        return self

    @contextmanager
    def scattered_reads(self) -> Iterator[None]:
        """The memory map for the block, as it was after."""
        with sqlite_pragmas.changed(self.conn.cursor(), mmap_size=MMAP_BYTES):
            yield

    @contextmanager
    def filling_whole(self) -> Iterator[None]:
        """A small page cache and sorts on disk while views are filled whole.
        Their rows are appended, so a big cache buys nothing but resident
        memory, and an index built at the end sorts its whole table: in
        memory (``temp_store=MEMORY``) that sort and the cache cost a 1M-game
        rebuild some 200 MB above the timeline it holds."""
        with sqlite_pragmas.changed(self.conn.cursor(), cache_size=-FILL_CACHE_KIB, temp_store=1):
            yield

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """``Database.transaction``, binding NULLs and blobs the cheap way
        while it lasts (``bulk_insert.plain_binding``): a catch-up's or a
        rebuild's rows hold many, written by more statements than bulk ones."""
        with plain_binding(), super().transaction() as db:
            yield db


class PostgresDatabase(Database):
    kind = "postgres"
    events_table = "ledger_events"
    events_position = "notification_id"
    # Keys are compared byte by byte (the effective-order key uses \x1f).
    _TYPES = (
        (re.compile(r"\bTEXT\b"), 'TEXT COLLATE "C"'),
        (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
        (re.compile(r"\bBLOB\b"), "BYTEA"),
        (re.compile(r"\bINTEGER\b"), "BIGINT"),
    )

    def __init__(self, url: str, schema: str) -> None:
        import psycopg

        def rows(cursor: Any) -> Any:
            names = {c.name: i for i, c in enumerate(cursor.description or ())}
            return lambda values: Row(values, names)

        self._url, self._schema, self._rows = url, schema, rows
        super().__init__(self._connect())
        self.errors = (psycopg.Error,)
        self._denied = psycopg.errors.InsufficientPrivilege

    def _connect(self) -> Any:
        import psycopg

        conn = psycopg.connect(
            self._url, autocommit=True, row_factory=self._rows, connect_timeout=10
        )
        conn.execute(f'SET search_path TO "{self._schema}"')
        return conn

    def reconnect(self) -> None:
        self.conn.close()
        self.conn = self._connect()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        try:
            return self.conn.execute(self.placeholders(sql), params)
        except self._denied as exc:
            raise self.denied(exc) from None

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            with self.conn.cursor() as cur:
                cur.executemany(self.placeholders(sql), list(rows))
        except self._denied as exc:
            raise self.denied(exc) from None

    def insert_rows(self, head: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:  # psycopg pipelines executemany's rows already
            self.executemany(f"{head} VALUES ({','.join('?' * len(rows[0]))})", rows)

    def tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        from psycopg.rows import tuple_row

        try:
            with self.conn.cursor(row_factory=tuple_row) as cur:
                return cur.execute(self.placeholders(sql), params).fetchall()
        except self._denied as exc:
            raise self.denied(exc) from None

    def json_field(self, column: str, name: str) -> str:
        return f"({column}::json ->> '{name}')"

    @staticmethod
    def placeholders(sql: str) -> str:
        """psycopg's placeholders for ``?``; a literal ``%`` (``LIKE 'game %'``)
        doubled so that psycopg keeps it."""
        return sql.replace("%", "%%").replace("?", "%s")

    def denied(self, exc: Any) -> Denied:
        """A refused privilege as the command's error (a reader that tries
        to write, a referee that tries to drop a view table)."""
        return Denied(
            Message(
                "role {user!r} may not do this: {message_primary} (see the README's "
                "PostgreSQL roles)",
                user=self.conn.info.user,
                message_primary=exc.diag.message_primary,
            )
        )

    def may_write(self, tables: Iterable[str]) -> bool:
        """Whether this role may insert, update and delete rows of ``tables``."""
        names = list(tables)
        row = self.conn.execute(
            "SELECT bool_and(has_table_privilege(t, 'INSERT') AND has_table_privilege(t, "
            "'UPDATE') AND has_table_privilege(t, 'DELETE')) FROM unnest(%s::text[]) AS t "
            "WHERE to_regclass(t) IS NOT NULL",
            (names,),
        ).fetchone()
        return row[0] is not False

    def owner(self) -> str | None:
        row = self.conn.execute(
            "SELECT pg_get_userbyid(nspowner), pg_has_role(nspowner, 'USAGE') "
            "FROM pg_namespace WHERE nspname = current_schema()"
        ).fetchone()
        return None if row is None or row[1] else row[0]

    def ddl(self, statement: str) -> str:
        for pattern, replacement in self._TYPES:
            statement = pattern.sub(replacement, statement)
        return statement

    def table_exists(self, name: str) -> bool:
        return self.conn.execute("SELECT to_regclass(%s)", (name,)).fetchone()[0] is not None

    def _events_name(self) -> str:
        # Named with its schema: a rebuild built aside reads it from there.
        return f'"{self._schema}".{self.events_table}'

    def begin_exclusive(self) -> None:
        self.conn.execute("BEGIN")
        self.lock_catch_ups()

    def lock_catch_ups(self) -> None:
        """Hold, until the transaction ends, the lock every catch-up of this
        schema takes: one at a time; others wait, then see its work (a
        rebuild's swap takes it too: ``views.swap``)."""
        self.conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema()))")


#: Rows a server-side cursor fetches at a time (PostgreSQL).
STREAM_BATCH = 5_000

_names = itertools.count()


def stream(conn: Database, sql: str, params: Sequence[Any] = ()) -> Iterator[Any]:
    """The rows of a SELECT, read a batch at a time: SQLite's cursor is lazy;
    on PostgreSQL a plain ``execute`` holds the whole result in the client,
    so this reads through a server-side cursor (``WITH HOLD``: it outlives
    the autocommit transaction, so other queries may run while it is read).
    Close the generator (or read it to the end) to free the server's cursor."""
    if conn.kind != "postgres":
        # Plain tuples (callers index them): no ``sqlite3.Row`` a row.
        cursor = conn.conn.cursor()
        cursor.row_factory = None
        try:
            yield from cursor.execute(sql, params)
        finally:
            cursor.close()
        return
    cursor = conn.conn.cursor(name=f"ledger_stream_{next(_names)}", withhold=True)
    cursor.itersize = STREAM_BATCH
    try:
        cursor.execute(conn.placeholders(sql), params)
        yield from cursor
    finally:
        cursor.close()
