"""Reads are cheap: views of the current version run no DDL when opened,
and a catch-up with nothing new takes no lock, writes nothing and builds no
projector."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from projections import views
from projections.db import SQLiteDatabase
from projections.views import games, schema
from tests.read_side.ledger_builder import Builder


@contextmanager
def statements(db: SQLiteDatabase) -> Iterator[list[str]]:
    """Every SQL statement ``db`` runs inside the block."""
    seen: list[str] = []
    db.conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        db.conn.set_trace_callback(None)


def ddl(seen: list[str]) -> list[str]:
    return [s for s in seen if s.lstrip().upper().startswith(("CREATE", "DROP", "ALTER"))]


def test_opening_current_views_runs_no_ddl(tmp_path: Path) -> None:
    path = str(tmp_path / "views.db")
    with statements(first := SQLiteDatabase(path)) as seen:
        views.connect(first)
    assert len(ddl(seen)) > len(schema.TABLES)  # created: tables and indexes
    with statements(again := SQLiteDatabase(path)) as seen:
        views.connect(again)
    assert ddl(seen) == []
    assert len(seen) == 2  # does the version table exist, and which version


def test_views_of_another_version_are_dropped_and_rebuilt(tmp_path: Path) -> None:
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Club")
    b.game("Club", date(2025, 1, 1), "Ann", "Ben")
    path = str(tmp_path / "views.db")
    db = views.connect(SQLiteDatabase(path))
    views.catch_up(db, b.recorder)
    db.execute("UPDATE view_version SET version = version - 1")
    with statements(db) as seen:
        views.connect(db)
    assert "DROP TABLE view_history_chunks" in ddl(seen)
    assert schema.stored_version(db) == schema.VERSION
    assert views.position(db) == 0  # emptied: the next catch-up rebuilds them
    assert views.catch_up(db, b.recorder) == b.recorder.max_notification_id()


def test_views_of_a_version_whose_history_was_a_table_are_replaced(tmp_path: Path) -> None:
    """Up to version 9 ``view_history`` was a table (a SQL view up to 12);
    history is packed in ``view_history_chunks`` now."""
    path = str(tmp_path / "views.db")
    db = SQLiteDatabase(path)
    db.execute("CREATE TABLE view_history (ladder TEXT, key TEXT)")
    db.execute("CREATE TABLE view_version (version INTEGER NOT NULL)")
    db.execute("INSERT INTO view_version VALUES (9)")
    with statements(db) as seen:
        views.connect(db)
    assert "DROP TABLE view_history" in ddl(seen)
    assert db.execute("SELECT type FROM sqlite_master WHERE name='view_history'").fetchone() is None
    assert db.table_exists("view_history_chunks")
    assert schema.stored_version(db) == schema.VERSION


def test_catch_up_with_nothing_new_takes_no_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Club")
    b.game("Club", date(2025, 1, 1), "Ann", "Ben")
    db = b.views()

    def no_projector(*args: Any) -> None:
        raise AssertionError("a projector was built with nothing to project")

    monkeypatch.setattr(views.runner, "Projector", no_projector)
    with statements(db) as seen:
        assert views.catch_up(db, b.recorder) == 0
    assert seen == ["SELECT position FROM view_tracking WHERE name='views'"]

    # Something new: the lock is taken and the projector built.
    monkeypatch.undo()
    b.game("Club", date(2025, 1, 2), "Ben", "Ann")
    with statements(db) as seen:
        assert views.catch_up(db, b.recorder) == 1
    assert seen[1] == "BEGIN IMMEDIATE" and seen[-1] == "COMMIT"


def test_a_failed_catch_up_rolls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Club")
    db = b.views()
    before = views.position(db)
    b.game("Club", date(2025, 1, 1), "Ann", "Ben")

    def crash(*args: Any) -> list[str]:
        raise RuntimeError("power cut")

    monkeypatch.setattr(views.runner, "replay_ladders", crash)
    with pytest.raises(RuntimeError, match="power cut"):
        views.catch_up(db, b.recorder)
    assert views.position(db) == before
    assert not games.holds_any(db)
