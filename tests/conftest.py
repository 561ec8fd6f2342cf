"""Shared fixtures: a CLI runner on a fresh SQLite ledger per test."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result

from ledger.cli import main


class Cli:
    """Runs ``ledger`` commands against one SQLite file, as a user would."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.runner = CliRunner()

    def run(self, *args: str) -> Result:
        """Run a command; returns the click Result whatever the exit code."""
        return self.runner.invoke(main, ["--db", str(self.db), "--by", "tester", *args])

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

    def event_count(self) -> int:
        """Events stored so far (to prove a refused command appended none)."""
        with sqlite3.connect(self.db) as conn:
            return conn.execute("SELECT COUNT(*) FROM stored_events").fetchone()[0]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "ledger.db")


@pytest.fixture
def make_cli(tmp_path: Path) -> Callable[[str], Cli]:
    """Several independent ledgers in one test (e.g. to compare orders)."""

    def make(name: str) -> Cli:
        return Cli(tmp_path / f"{name}.db")

    return make
