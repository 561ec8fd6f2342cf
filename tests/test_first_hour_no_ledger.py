"""Issue 26, "A query never creates a ledger": a query on a missing ledger
(no ``./ledger.db``, a mistyped ``--db``, a PostgreSQL schema holding no
ledger) says so in one line, exits non-zero and creates nothing; only a
command that writes creates a ledger."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli import main
from tests.conftest import PG_URL, drop_schema, require_postgres

QUERIES = [
    ["standings", "Club"],
    ["history", "Club", "Ann"],
    ["explain", "1234abcd"],
    ["audit", "Club"],
    ["export", "Club", "--format", "json"],
    ["verify"],
    ["ladder", "list"],
    ["ladder", "show", "Club"],
    ["player", "list"],
    ["player", "duplicates"],
    ["whatif", "Club", "--family", "elo"],
    ["diff", "Club", "--from-known-at", "2025-01-01"],
    ["teams", "Club", "--camps", "2", "Ann", "Bob"],
    ["site", "build", "site-out"],
]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize("query", QUERIES, ids=lambda q: " ".join(q[:2]))
def test_a_query_on_a_mistyped_db_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_DB", raising=False)
    code, out = run("--db", "clb.db", *query)
    assert code != 0
    if "No such option" in out:  # a query whose options differ: still nothing created
        pytest.fail(f"{query}: {out}")
    assert out.strip().splitlines()[-1] == "Error: no ledger at ./clb.db", out
    assert len(out.strip().splitlines()) == 1, out
    assert sorted(os.listdir(tmp_path)) == []


def test_the_default_ledger_is_not_created_by_a_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LEDGER_DB", raising=False)
    code, out = run("standings", "X")
    assert code == 1
    assert out == "Error: no ledger at ./ledger.db\n"
    assert not (tmp_path / "ledger.db").exists()


def test_an_empty_file_is_no_ledger_and_stays_empty(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    db.touch()
    code, out = run("--db", str(db), "history", "Club", "Ann")
    assert code == 1
    assert out == f"Error: no ledger at {db} (the file holds no ledger yet)\n"
    assert db.stat().st_size == 0


def test_commands_that_write_still_create_the_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = run("--db", "club.db", "ladder", "open", "Club", "--family", "elo")
    assert code == 0, out
    assert (tmp_path / "club.db").exists()
    code, out = run("--db", "club.db", "standings", "Club")
    assert code == 0, out
    code, out = run("--db", "new.db", "project")
    assert code == 0, out
    assert (tmp_path / "new.db").exists()


def test_migrate_from_a_missing_ledger_creates_nothing(tmp_path: Path) -> None:
    code, out = run("migrate", "--from", str(tmp_path / "typo.db"), "--to", str(tmp_path / "b.db"))
    assert code == 1
    assert "no ledger at" in out
    assert not (tmp_path / "typo.db").exists()


@pytest.mark.parametrize("query", [["standings", "Club"], ["history", "Club", "Ann"], ["verify"]])
def test_postgres_schema_without_a_ledger(query: list[str]) -> None:
    require_postgres()
    import psycopg

    missing = f"test_missing_{uuid.uuid4().hex[:10]}"
    empty = f"test_empty_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{empty}"')
    try:
        for schema in (missing, empty):
            code, out = run("--db", PG_URL, "--schema", schema, *query)
            assert code == 1
            assert out == f"Error: no ledger in schema {schema!r} at {PG_URL}\n"
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            found = conn.execute(
                "SELECT nspname FROM pg_namespace WHERE nspname = %s", (missing,)
            ).fetchall()
            tables = conn.execute(
                "SELECT COUNT(*) FROM pg_tables WHERE schemaname = %s", (empty,)
            ).fetchone()[0]
        assert found == []
        assert tables == 0
    finally:
        drop_schema(missing)
        drop_schema(empty)


def test_an_import_dry_run_creates_no_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "games.csv").write_text("ladder,date,side_a,side_b,result\nClub,2025-01-05,A,B,a\n")
    code, out = run("--db", "clb.db", "import", "--dry-run", "games.csv")
    assert code == 1
    assert out == "Error: no ledger at ./clb.db\n"
    assert sorted(os.listdir(tmp_path)) == ["games.csv"]
