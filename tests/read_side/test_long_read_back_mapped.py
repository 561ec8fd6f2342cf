"""A replay reading many games back (a correction far back) reads their
events through a memory map while it reads, and only then: a game recorded
at the end reads one page as it always did, and a process that goes on (a
follower) is left as it was, even when the read stops half-way."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from projections import views
from projections.db import MMAP_BYTES, SQLiteDatabase
from projections.views import store
from tests.read_side.ledger_builder import Builder


def _views_on_file(b: Builder, path: Path) -> SQLiteDatabase:
    conn = SQLiteDatabase(str(path))
    views.connect(conn)
    views.catch_up(conn, b.recorder)
    return conn


def _mapped(conn: SQLiteDatabase) -> int:
    return conn.execute("PRAGMA mmap_size").fetchone()[0]


@pytest.fixture
def club(tmp_path: Path) -> Iterator[tuple[SQLiteDatabase, int]]:
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Club")
    for i in range(10):
        b.game("Club", date(2025, 1, 1) + timedelta(days=i), "Ann", "Ben", sequence=1)
    conn = _views_on_file(b, tmp_path / "views.db")
    ladder = conn.execute("SELECT n FROM view_ladders WHERE name='Club'").fetchone()[0]
    yield conn, ladder
    conn.close()


def test_a_long_read_back_maps_the_file_past_its_first_page_and_unmaps_after(
    club: tuple[SQLiteDatabase, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, ladder = club
    monkeypatch.setattr(store, "ENTRY_PAGE", 3)
    assert _mapped(conn) == 0
    seen = []
    for _entry in store.ladder_entries(conn, ladder, None):
        seen.append(_mapped(conn))
    games = len(seen) - 1  # (the ruleset entry first)
    assert games == 10
    # The ruleset and the first page's three games as before; the rest mapped.
    assert seen[:4] == [0, 0, 0, 0]
    assert set(seen[4:]) == {MMAP_BYTES}
    assert _mapped(conn) == 0


def test_a_short_read_back_maps_nothing(
    club: tuple[SQLiteDatabase, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, ladder = club
    monkeypatch.setattr(store, "ENTRY_PAGE", 20)
    seen = [_mapped(conn) for _ in store.ladder_entries(conn, ladder, None)]
    assert len(seen) == 11 and set(seen) == {0}


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_read_back_left_half_way_leaves_the_connection_as_it_was(
    club: tuple[SQLiteDatabase, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, ladder = club
    monkeypatch.setattr(store, "ENTRY_PAGE", 3)
    entries = store.ladder_entries(conn, ladder, None)
    for _ in range(6):
        next(entries)
    assert _mapped(conn) == MMAP_BYTES
    entries.close()  # (a replay stopped by a family's error)
    assert _mapped(conn) == 0
    # A query connection mapped for good stays so.
    conn.for_scattered_reads()
    list(store.ladder_entries(conn, ladder, None))
    assert _mapped(conn) == MMAP_BYTES
    # And a reader left unfinished until after the close ends quietly.
    entries = store.ladder_entries(conn, ladder, None)
    for _ in range(6):
        next(entries)
    conn.close()
    entries.close()
