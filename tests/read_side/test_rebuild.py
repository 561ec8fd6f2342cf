"""A rebuild is one transaction: a write that fails (a full disk) fails the
rebuild, which leaves the views as they were; the views it builds (timeline
in memory, indexes last) are those a catch-up from nothing gives."""

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


def test_a_write_failing_fails_the_rebuild_and_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b = ledger()
    conn = b.views()
    before = verify.checksum(conn)
    insert_rows = Database.insert_rows

    def full_disk(self: Database, head: str, rows: Any) -> None:
        if "view_history_chunks" in head:
            raise sqlite3.OperationalError("database or disk is full")
        insert_rows(self, head, rows)

    monkeypatch.setattr(Database, "insert_rows", full_disk)
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        views.rebuild(conn, b.recorder)
    assert verify.checksum(conn) == before
    monkeypatch.undo()
    assert views.rebuild(conn, b.recorder) == b.recorder.max_notification_id()
    assert verify.checksum(conn) == before


def test_a_rebuild_builds_what_a_catch_up_from_nothing_builds() -> None:
    b = ledger()
    rebuilt = views.in_memory(b.recorder)  # timeline in memory, indexes last
    caught_up = b.views()  # a catch-up from nothing: timeline written, read back
    assert verify.rows(rebuilt, "view_history")
    assert verify.checksum(rebuilt) == verify.checksum(caught_up)


def test_a_rebuild_tells_its_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """Events read so far, page by page up to every event, then the
    replay (a stage of unknown length)."""
    monkeypatch.setattr(views.runner, "PAGE", 10)
    b = ledger()
    conn = b.views()
    heard: list[tuple[str, int, int]] = []
    views.rebuild_report(conn, b.recorder, lambda *told: heard.append(told))
    events = b.recorder.max_notification_id()
    reading = [h for h in heard if h[0] == "reading events"]
    assert [done for _, done, _ in reading] == [*range(10, events, 10), events]
    assert {total for _, _, total in reading} == {events}
    assert heard[len(reading) :] == [("rating games", 0, 0)]


def test_a_rebuild_fills_with_a_small_cache_and_sorts_on_disk_then_restores(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """A rebuild appends rows and builds its indexes at the end: it runs
    with a small page cache and its sorts in files (what held a 1M-game
    rebuild some 200 MB higher), set before its transaction, and leaves the
    connection's own settings as they were."""
    from projections import db as views_db

    b = ledger()
    conn = views_db.SQLiteDatabase(str(tmp_path / "views.db"))
    views.rebuild(conn, b.recorder)
    seen: list[tuple[int, int, bool]] = []
    transaction = views_db.SQLiteDatabase.transaction

    def watched(self: Any) -> Any:
        pragma = self.conn.execute
        seen.append(
            (pragma("PRAGMA cache_size").fetchone()[0], pragma("PRAGMA temp_store").fetchone()[0],
             self.conn.in_transaction)
        )  # fmt: skip
        return transaction(self)

    monkeypatch.setattr(views_db.SQLiteDatabase, "transaction", watched)
    before = verify.checksum(conn)
    views.rebuild(conn, b.recorder)
    assert seen[0] == (-views_db.FILL_CACHE_KIB, 1, False)  # 1: FILE
    assert conn.execute("PRAGMA cache_size").fetchone()[0] == -65536
    assert conn.execute("PRAGMA temp_store").fetchone()[0] == 2  # MEMORY, as opened
    assert verify.checksum(conn) == before


def test_a_rebuild_past_what_it_holds_reads_its_games_back_and_builds_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rebuild of more events than it holds the timelines of fills the
    views as a long catch-up does (games read back, memory bounded): the
    same views."""
    from projections.views import projector, runner

    b = ledger()
    held = views.in_memory(b.recorder)
    holding: list[bool] = []
    init = projector.Projector.__init__

    def spied(self: Any, conn: Any, timeline: bool = False) -> None:
        holding.append(timeline)
        init(self, conn, timeline)

    monkeypatch.setattr(projector.Projector, "__init__", spied)
    monkeypatch.setattr(runner, "REBUILD_HOLDS_UP_TO", 10)
    read_back = views.in_memory(b.recorder)
    assert holding == [False]
    assert verify.rows(read_back, "view_history")
    assert verify.checksum(read_back) == verify.checksum(held)
    conn = b.views()
    holding.clear()
    views.rebuild(conn, b.recorder)
    assert holding == [False]
    assert verify.checksum(conn) == verify.checksum(held)
    # Its indexes built once its tables were filled (before its replay read
    # its games back along them): every one there, as after a held rebuild.
    every = "SELECT name FROM sqlite_master WHERE type='index' AND name LIKE 'view%' ORDER BY 1"
    assert conn.execute(every).fetchall() == held.execute(every).fetchall()
    assert len(conn.execute(every).fetchall()) >= 5
