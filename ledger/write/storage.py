"""Where the ledger lives: ``--db`` / ``LEDGER_DB`` to an event store and views.

A path means SQLite (default ``./ledger.db``, created on first use); a
``postgresql://`` URL means PostgreSQL.
"""

from __future__ import annotations

import os
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import unquote, urlparse

from ledger.kernel.errors import Denied, Invalid, LedgerError, NotFound
from ledger.kernel.translation import Message

DEFAULT_DB = "ledger.db"
#: A new SQLite ledger's page size (bytes). An event is about 500 bytes: in
#: pages of 16 KiB rather than SQLite's 4 KiB, its B-trees have fewer levels
#: and splits, and an import writes a quarter of the pages, each written to
#: the log and then to the file (100,000 games: the store takes 11% less
#: room, 727 -> 650 bytes an event, and its append ~15% less time). A ledger
#: keeps the page size it was made with.
SQLITE_PAGE_SIZE = 16384
#: Seconds a PostgreSQL writer waits for another's append (``LEDGER_LOCK_TIMEOUT``)
#: before it gives up with a clear error; long enough for a large import.
DEFAULT_LOCK_TIMEOUT = 60


def lock_timeout() -> int:
    """``LEDGER_LOCK_TIMEOUT`` (whole seconds, at least 1), else the default."""
    text = os.environ.get("LEDGER_LOCK_TIMEOUT", "").strip()
    if not text:
        return DEFAULT_LOCK_TIMEOUT
    if not text.isdigit() or not 1 <= int(text) <= 86400:
        raise Invalid(
            Message("LEDGER_LOCK_TIMEOUT {text!r}: give whole seconds from 1 to 86400", text=text)
        )
    return int(text)


class Storage(NamedTuple):
    """A resolved ``--db``: the kind, the SQLite path or the PostgreSQL URL
    (a plain tuple: every command resolves one, and msgspec is not loaded
    for it)."""

    kind: str  # "sqlite" or "postgres"
    target: str
    schema: str = "ledger"
    #: A SQLite ledger this process may not write (a read-only file or
    #: folder: an archived or published copy): the ``file:`` URI that opens
    #: it read-only. Queries and ``verify`` run on it; writes are refused.
    uri: str | None = None

    @property
    def read_only(self) -> bool:
        return self.uri is not None

    def app_env(self, create_tables: bool = False) -> dict[str, str]:
        """The eventsourcing environment for the event store. PostgreSQL
        tables are created once, by ``prepare`` (creating them on every
        command races when two commands start together)."""
        from eventsourcing.utils import get_topic

        if self.kind == "sqlite":
            from ledger.write.sqlite_recorder import SQLiteLedgerRecorder

            return {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "APPLICATION_RECORDER_TOPIC": get_topic(SQLiteLedgerRecorder),
                "SQLITE_DBNAME": self.uri or self.target,
                "SQLITE_LOCK_TIMEOUT": "30",
                # A read-only ledger's tables are there: creating them would write.
                "CREATE_TABLE": "n" if self.read_only else "y",
            }
        from ledger.write.postgres_recorder import PostgresLedgerRecorder

        url = urlparse(self.target)
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "APPLICATION_RECORDER_TOPIC": get_topic(PostgresLedgerRecorder),
            "POSTGRES_DBNAME": url.path.lstrip("/") or "postgres",
            "POSTGRES_HOST": url.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(url.port or 5432),
            "POSTGRES_USER": unquote(url.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(url.password or ""),
            "POSTGRES_SCHEMA": self.schema,
            # A writer waiting for another's table lock gives up after this
            # (``Busy``) instead of waiting for ever.
            "POSTGRES_LOCK_TIMEOUT": str(lock_timeout()),
            "CREATE_TABLE": "y" if create_tables else "n",
        }

    def prepare(self, create: bool = True) -> None:
        """Create or upgrade the PostgreSQL schema, event store, chain, write
        index and append-only triggers when they are missing or of an older
        version (``recorders.STORE_VERSION``); otherwise only read that
        version. The DDL needs the schema's owner (a referee's or reader's
        role gets ``Denied``) and runs one process at a time (DDL run by two
        processes at once fails with "tuple concurrently updated"). The views
        are the read side's to create. Without ``create`` (a query), a schema
        holding no ledger is refused with ``NotFound`` and nothing is created."""
        if self.kind != "postgres":
            return
        import psycopg

        from ledger.write.recorders import STORE_VERSION

        with psycopg.connect(self.target, autocommit=True) as conn:
            try:
                version = self._store_version(conn)
                if version == STORE_VERSION:
                    return
                if not create and version is None and not self._has_events(conn):
                    raise NotFound(
                        Message(
                            "no ledger in schema {schema!r} at {target}",
                            schema=self.schema,
                            target=_redact(self.target),
                        )
                    )
                key = "ledger-setup:" + self.schema
                conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (key,))
                try:
                    if self._store_version(conn) == STORE_VERSION:
                        return
                    if self._may_set_up(conn):
                        conn.execute(f'CREATE SCHEMA "{self.schema}"')
                    from ledger.write.application import LedgerApplication

                    app = LedgerApplication(env=self.app_env(create_tables=True))
                    try:
                        app.ensure_index()
                    finally:
                        app.close()
                finally:
                    conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (key,))
            except Exception as exc:
                denied = permission_denied(exc)
                if denied is None:
                    raise
                state = "of an older version" if self._has_events(conn) else "not set up"
                raise Denied(
                    Message(
                        "the ledger in schema {schema!r} is {state} and role {user!r} may not "
                        "set it up ({denied}): run 'ledger project' once as the schema's owner "
                        "(see the README's PostgreSQL roles)",
                        schema=self.schema,
                        state=state,
                        user=conn.info.user,
                        denied=denied,
                    )
                ) from None

    def _may_set_up(self, conn: Any) -> bool:
        """Whether the schema must be created; refuses a role that may not
        create or upgrade it before any DDL is attempted."""
        user = conn.info.user
        row = conn.execute(
            "SELECT pg_get_userbyid(nspowner), pg_has_role(nspowner, 'USAGE') "
            "FROM pg_namespace WHERE nspname = %s",
            (self.schema,),
        ).fetchone()
        if row is None:
            if conn.execute(
                "SELECT has_database_privilege(current_database(), 'CREATE')"
            ).fetchone()[0]:
                return True
            raise Denied(
                Message(
                    "the ledger in schema {schema!r} is not set up and role {user!r} may not "
                    "create the schema: a superuser creates it (CREATE SCHEMA {schema} "
                    "AUTHORIZATION <owner>), then its owner runs 'ledger project' once (see "
                    "the README's PostgreSQL roles)",
                    schema=self.schema,
                    user=user,
                )
            )
        owner, owned = row
        if not owned:
            state = "of an older version" if self._has_events(conn) else "not set up"
            raise Denied(
                Message(
                    "the ledger in schema {schema!r} is {state} and only its owner {owner!r} "
                    "may set it up (this is {user!r}): run 'ledger project' once as {owner!r}",
                    schema=self.schema,
                    state=state,
                    owner=owner,
                    user=user,
                )
            )
        return False

    def _store_version(self, conn: Any) -> int | None:
        table = f'"{self.schema}".ledger_store_version'
        if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is None:
            return None
        return conn.execute(f"SELECT MAX(version) FROM {table}").fetchone()[0]

    def _has_events(self, conn: Any) -> bool:
        try:
            events = f'"{self.schema}".ledger_events'
            return conn.execute("SELECT to_regclass(%s)", (events,)).fetchone()[0] is not None
        except Exception:  # noqa: BLE001 - no access to the schema at all
            return False


def permission_denied(exc: BaseException) -> str | None:
    """PostgreSQL's words when ``exc`` (or one of its causes) is a refused
    privilege ("permission denied for table ...", "must be owner of ..."),
    else None."""
    import psycopg

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, psycopg.errors.InsufficientPrivilege):
            return seen.diag.message_primary or str(seen)
        seen = seen.__cause__ or seen.__context__
    return None


def resolve(db: str | None, schema: str | None = None, create: bool = True) -> Storage:
    """Resolve ``--db`` (or ``LEDGER_DB``, or the default) and check that it
    can be used, so a bad path fails before anything is attempted.

    Only a command that writes may ``create`` a ledger: without it (a query),
    a missing file, a SQLite file holding no ledger or a PostgreSQL schema
    holding none is refused with one line (``NotFound``: "no ledger at
    ./clb.db") and nothing is created."""
    target = db or os.environ.get("LEDGER_DB") or DEFAULT_DB
    schema = schema or os.environ.get("LEDGER_SCHEMA") or "ledger"
    if target.startswith(("postgresql://", "postgres://")):
        check_schema_name(schema)
        lock_timeout()  # a bad setting is refused before anything is attempted
        storage = Storage("postgres", target, schema)
        try:
            storage.prepare(create)
        except LedgerError:
            raise
        except Exception as exc:  # noqa: BLE001 - psycopg raises many kinds
            said = " ".join(str(exc).split())  # the driver's hint lines, on one line
            raise Invalid(
                Message("cannot connect to {target}: {said}", target=_redact(target), said=said)
            ) from None
        return storage
    path = Path(target)
    if path.is_dir():
        raise Invalid(Message("database path {target!r} is a directory, not a file", target=target))
    if path.exists() and not path.is_file():
        raise Invalid(
            Message(
                "database path {target!r} is not a regular file (a device, a pipe?)", target=target
            )
        )
    if not path.parent.exists():
        raise Invalid(
            Message(
                "cannot create database {target!r}: folder {parent!r} does not exist",
                target=target,
                parent=str(path.parent),
            )
        )
    if not create and not path.exists():
        raise NotFound(Message("no ledger at {path}", path=shown_path(target)))
    uri = None
    try:
        # Probe for write access with SQLite itself, and close the probe:
        # opening and closing the file any other way drops this process's
        # SQLite locks, and another process may then delete the WAL in use.
        with closing(sqlite3.connect(target)) as probe:
            # Before the first transaction, which fixes it: a new file's
            # page size (an existing database keeps its own).
            probe.execute(f"PRAGMA page_size = {SQLITE_PAGE_SIZE}")
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            tables = {r[0] for r in probe.execute("SELECT name FROM sqlite_master")}
            if not tables and create:
                # Its first write, which sets the page size (the event
                # store's WAL mode, as eventsourcing would set it).
                probe.execute("PRAGMA journal_mode = WAL")
    except (OSError, sqlite3.Error) as exc:
        opened = read_only(path) if path.is_file() else None
        if opened is None:
            raise Invalid(
                Message(
                    "cannot open database {target!r} for writing: {exc}", target=target, exc=exc
                )
            ) from None
        uri, tables = opened
    if tables and "stored_events" not in tables:
        # Never add the ledger's tables to another application's database.
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise Invalid(
            Message(
                "{target!r} is a SQLite database of another application (tables: "
                "{shown}), not a ledger: give a new file or a ledger's",
                target=target,
                shown=shown,
            )
        )
    if not create and "stored_events" not in tables:
        raise NotFound(
            Message(
                "no ledger at {target} (the file holds no ledger yet)", target=shown_path(target)
            )
        )
    return Storage("sqlite", str(path), uri=uri)


def shown_path(target: str) -> str:
    """A ledger's path as a person reads it: ``./clb.db`` for ``clb.db``."""
    if Path(target).is_absolute() or target.startswith("."):
        return target
    return f"./{target}"


def read_only(path: Path) -> tuple[str, set[str]] | None:
    """A SQLite file this process may read but not write (a file or folder
    without write permission): the URI that opens it read-only and its
    tables, or None when it cannot be read either. A ledger in WAL mode in a
    read-only folder can only be opened as immutable (SQLite cannot create
    the shared-memory file beside it): fine for an archived or published
    copy, which nobody writes."""
    base = path.resolve().as_uri()
    for uri in (f"{base}?mode=ro", f"{base}?mode=ro&immutable=1"):
        try:
            with closing(sqlite3.connect(uri, uri=True)) as probe:
                return uri, {r[0] for r in probe.execute("SELECT name FROM sqlite_master")}
        except sqlite3.Error:
            continue
    return None


#: A PostgreSQL schema name the ledger will use: a plain lower-case identifier.
_SCHEMA_NAME = r"[a-z_][a-z0-9_]{0,62}"


def check_schema_name(schema: str) -> None:
    """Refuse a schema name that needs quoting, or one of PostgreSQL's own."""
    if not re.fullmatch(_SCHEMA_NAME, schema):
        raise Invalid(
            Message(
                "schema {schema!r}: use lower-case letters, digits and underscores (not "
                "first), at most 63 characters",
                schema=schema,
            )
        )
    if schema.startswith("pg_") or schema == "information_schema":
        raise Invalid(
            Message("schema {schema!r} is PostgreSQL's own: choose another name", schema=schema)
        )


def _redact(url: str) -> str:
    parsed = urlparse(url)
    if parsed.password:
        return url.replace(f":{parsed.password}@", ":***@")
    return url
