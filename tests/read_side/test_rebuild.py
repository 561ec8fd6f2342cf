"""A rebuild is one transaction, its writes on a writer thread: a write that
fails there fails the rebuild, which leaves the views as they were; the
rebuilt views are those a catch-up from nothing gives, in line or not."""

from __future__ import annotations

import sqlite3
from datetime import date
from typing import Any

import pytest

from projections import verify, views
from projections.db import Database
from tests.read_side.ledger_builder import Builder


def ledger() -> Builder:
    b = Builder()
    b.player("Ann", "Ben", "Cat")
    b.ladder("Club")
    for day in range(1, 25):
        b.game(
            "Club", date(2025, 1, day), *(("Ann", "Ben"), ("Ben", "Cat"), ("Cat", "Ann"))[day % 3]
        )
    return b


def test_a_write_failing_on_the_writer_thread_fails_the_rebuild(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b = ledger()
    conn = b.views()
    before = verify.checksum(conn)
    executemany = Database.executemany

    def full_disk(self: Database, sql: str, rows: Any) -> None:
        if "view_history_rows" in sql:
            raise sqlite3.OperationalError("database or disk is full")
        executemany(self, sql, rows)

    monkeypatch.setattr(Database, "executemany", full_disk)
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        views.rebuild(conn, b.recorder)
    assert verify.checksum(conn) == before
    monkeypatch.undo()
    assert views.rebuild(conn, b.recorder) == b.recorder.max_notification_id()
    assert verify.checksum(conn) == before


def test_writes_in_line_or_on_the_writer_build_the_same_views(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b = ledger()
    on_writer = views.in_memory(b.recorder)
    monkeypatch.setenv("LEDGER_VIEWS_WRITER", "0")
    in_line = views.in_memory(b.recorder)
    caught_up = b.views()  # a catch-up from nothing: no rebuild at all
    assert verify.rows(on_writer, "view_history")
    assert verify.checksum(on_writer) == verify.checksum(in_line) == verify.checksum(caught_up)
