"""Shared fixtures: a CLI runner on a fresh ledger per test, on SQLite, and
on PostgreSQL too for the backend conformance suite (``conformance`` marker).

The PostgreSQL runs use a throwaway schema each, dropped afterwards. Where no
server answers they skip with the reason, unless LEDGER_TEST_POSTGRES=require
(set by .ci/run), where they fail instead.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result
from hypothesis import settings

from ledger.cli import main

# Property tests assert what is computed, never how fast: no per-example
# deadline (a loaded machine or CI would fail them at random).
settings.register_profile("ledger", deadline=None)
settings.load_profile("ledger")

# The tests' own families (tests.example_family...) are trusted code: the
# ledger imports a family outside the registered ones only when told to.
os.environ.setdefault("LEDGER_TRUST_FAMILIES", "tests")

PG_URL = os.environ.get("LEDGER_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


def postgres_unavailable() -> str | None:
    """Why PostgreSQL cannot be used for tests, or None when it can."""
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 - any failure means "no server"
        return f"no PostgreSQL server answers at {PG_URL}: {exc}"
    return None


def require_postgres() -> None:
    reason = postgres_unavailable()
    if reason is None:
        return
    if os.environ.get("LEDGER_TEST_POSTGRES") == "require":
        pytest.fail(f"LEDGER_TEST_POSTGRES=require but {reason}")
    pytest.skip(reason)


def drop_schema(schema: str) -> None:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


class Cli:
    """Runs ``ledger`` commands against one ledger, as a user would."""

    def __init__(self, db: str, schema: str | None = None) -> None:
        self.db = db
        self.schema = schema
        self.runner = CliRunner()

    @property
    def postgres(self) -> bool:
        return self.schema is not None

    def run(self, *args: str) -> Result:
        """Run a command; returns the click Result whatever the exit code."""
        where = ["--db", self.db] + (["--schema", self.schema] if self.schema else [])
        return self.runner.invoke(main, [*where, "--by", "tester", *args])

    def ok(self, *args: str) -> str:
        """Run a command that must succeed; returns its output."""
        result = self.run(*args)
        assert result.exit_code == 0, f"{args}: {result.output}\n{result.exception!r}"
        return result.output

    def fails(self, *args: str) -> str:
        """Run a command that must be refused; returns its message."""
        result = self.run(*args)
        assert result.exit_code != 0, f"{args} should have failed: {result.output}"
        return result.output

    def json(self, *args: str) -> object:
        return msgspec.json.decode(self.ok(*args, "--format", "json"))

    def sql(self, query: str) -> list[tuple]:
        """Run SQL on the ledger's database (to inspect or tamper with it)."""
        if self.postgres:
            import psycopg

            with psycopg.connect(PG_URL, autocommit=True) as conn:
                conn.execute(f'SET search_path TO "{self.schema}"')
                cur = conn.execute(query)
                return cur.fetchall() if cur.description else []
        with sqlite3.connect(self.db) as conn:
            return conn.execute(query).fetchall()

    @property
    def events_table(self) -> str:
        return "ledger_events" if self.postgres else "stored_events"

    def event_count(self) -> int:
        """Events stored so far (to prove a refused command appended none)."""
        try:
            return self.sql(f"SELECT COUNT(*) FROM {self.events_table}")[0][0]
        except Exception:  # noqa: BLE001 - no table yet: nothing was ever stored
            return 0


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "conformance: run on every backend (SQLite and PostgreSQL); other CLI tests "
        "run on SQLite only",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The backend conformance suite (tests marked ``conformance``) runs on
    SQLite and PostgreSQL; every other CLI test runs once, on SQLite."""
    if "backend" in metafunc.fixturenames:
        both = metafunc.definition.get_closest_marker("conformance") is not None
        params = ["sqlite", "postgres"] if both else ["sqlite"]
        metafunc.parametrize("backend", params, indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[str], Cli]]:
    """Makes ledgers on one backend; PostgreSQL schemas are dropped after."""
    schemas: list[str] = []
    if request.param == "postgres":
        require_postgres()

    def make(name: str) -> Cli:
        if request.param == "sqlite":
            return Cli(str(tmp_path / f"{name}.db"))
        schema = f"test_{name}_{uuid.uuid4().hex[:10]}"
        schemas.append(schema)
        return Cli(PG_URL, schema)

    yield make
    for schema in schemas:
        drop_schema(schema)


@pytest.fixture
def cli(backend: Callable[[str], Cli]) -> Cli:
    return backend("ledger")


@pytest.fixture
def battle_empire_club(cli: Cli) -> Cli:
    """A Battle Empire ladder "Club" where Ann beat Bob on 2024-03-01."""
    cli.ok("ladder", "open", "Club", "--family", "battle-empire")
    cli.ok("player", "add", "Ann", "Bob")
    cli.ok("record", "Club", "--date", "2024-03-01", "--side", "Ann", "--side", "Bob",
           "--result", "a", "--margin", "decisive")  # fmt: skip
    return cli


@pytest.fixture
def make_cli(backend: Callable[[str], Cli]) -> Callable[[str], Cli]:
    """Several independent ledgers in one test (e.g. to compare orders)."""
    return backend


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[object]:
    """A PostgreSQL server this test session owns (``tests.pg_cluster``),
    started once per worker: a test may restart or kill it. Skips with the
    reason where none can be started, unless LEDGER_TEST_POSTGRES=require."""
    from tests.pg_cluster import Cluster, Unavailable

    try:
        cluster = Cluster()
    except Unavailable as exc:
        if os.environ.get("LEDGER_TEST_POSTGRES") == "require":
            pytest.fail(f"LEDGER_TEST_POSTGRES=require but no test-owned cluster: {exc}")
        pytest.skip(f"no test-owned PostgreSQL cluster: {exc}")
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()
