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


def test_a_rebuild_past_what_it_holds_spills_its_games_and_builds_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rebuild of more games than it holds writes them out in sorted runs
    and replays them merged (memory bounded whatever the ledger): the same
    views, corrections and voids of games already written out included."""
    from projections.views import held as holding

    b = ledger()
    first = list(b.facts)  # (each written out before it changed)
    b.correct(first[0], result={"result": "b"})
    b.correct(first[2], date=date(2025, 2, 1))  # another key
    b.void(first[1])
    b.game("Club", date(2025, 1, 2), "Cat", "Ben", sequence=2)
    whole = views.in_memory(b.recorder)
    spills: list[int] = []
    spill_if_over = holding.Held.spill_if_over

    def counted(self: holding.Held) -> None:
        runs = sum(map(len, self._runs.values()))
        spill_if_over(self)
        spills.append(sum(map(len, self._runs.values())) - runs)

    monkeypatch.setattr(holding, "BUDGET", 3)
    monkeypatch.setattr(holding, "CHUNK", 2)
    monkeypatch.setattr(holding.Held, "spill_if_over", counted)
    monkeypatch.setattr(views.runner, "PAGE", 4)
    spilled = views.in_memory(b.recorder)
    assert sum(spills) >= 5  # written out in several runs
    assert verify.rows(spilled, "view_history")
    assert verify.checksum(spilled) == verify.checksum(whole)
    conn = b.views()
    views.rebuild(conn, b.recorder)
    assert verify.checksum(conn) == verify.checksum(whole)


def test_a_game_held_whole_weighs_more_than_a_duel(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game held whole (no event and round: not a ``Duel``; a game of
    several players) counts as ``OTHER_WEIGHT`` duels against the budget:
    24 of them spill where 24 duels do not."""
    from projections.views import held as holding

    spilled: list[bool] = []
    spill_if_over = holding.Held.spill_if_over

    def noted(self: holding.Held) -> None:
        spill_if_over(self)
        spilled.append(bool(self._runs))

    monkeypatch.setattr(holding, "BUDGET", 30)
    monkeypatch.setattr(holding.Held, "spill_if_over", noted)
    whole = ledger()  # 24 games with no event
    duels = Builder()
    duels.player("Ann", "Ben", "Cat")
    duels.ladder("Club")
    for day in range(1, 25):
        pair = (("Ann", "Ben"), ("Ben", "Cat"), ("Cat", "Ann"))[day % 3]
        duels.game("Club", date(2025, 1, day), *pair, event="Cup", round=day)
    views.in_memory(duels.recorder)
    assert spilled and not any(spilled)
    spilled.clear()
    views.in_memory(whole.recorder)
    assert any(spilled)
