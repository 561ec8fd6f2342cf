"""A whole ladder read at once (``every_ladder_entry``: ``whatif``,
``tune``, a projector holding timelines) gives the entries the paged read
in effective order gives (``ladder_entries``), though it reads its games in
the order they were recorded: games recorded out of order, corrected into
another date, voided, among rule changes and in two ladders."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from projections.views import store
from tests.read_side.ledger_builder import Builder


def test_a_whole_ladder_read_at_once_is_the_paged_read_in_effective_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b = Builder()
    b.player("Ann", "Ben", "Cat", "Dan")
    b.ladder("Club")
    b.ladder("Other")
    start = date(2025, 1, 1)
    ids = []
    for i in range(40):  # recorded latest first, every other one in the other ladder
        on = start + timedelta(days=40 - i)
        pair = (("Ann", "Ben"), ("Cat", "Dan"), ("Ann", "Dan"))[i % 3]
        ids.append(b.game("Club" if i % 2 else "Other", on, *pair, sequence=1))
    b.rules("Club", "elo", {"k": 32}, start + timedelta(days=20))
    b.correct(ids[1], date=start + timedelta(days=2))  # moved to the front
    b.void(ids[3])
    conn = b.views()
    club = conn.execute("SELECT n FROM view_ladders WHERE name='Club'").fetchone()[0]
    monkeypatch.setattr(store, "WHOLE_PAGE", 7)  # (pages end inside the ladder)
    whole = store.every_ladder_entry(conn, club)
    paged = list(store.ladder_entries(conn, club, None))
    assert whole == paged
    assert [e.key for e in whole] == sorted(e.key for e in whole)
    assert len([e for e in whole if getattr(e, "kind", "game") == "game"]) == 19  # 20, one voided
    assert any(getattr(e, "kind", "game") == "ruleset" for e in whole)


def test_a_whole_ladder_is_read_with_the_cyclic_collector_paused_then_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Club")
    for i in range(5):
        b.game("Club", date(2025, 1, 1) + timedelta(days=i), "Ann", "Ben", sequence=1)
    conn = b.views()
    club = conn.execute("SELECT n FROM view_ladders WHERE name='Club'").fetchone()[0]
    read_pages = store._game_entries
    collecting: list[bool] = []

    def page(*args: object) -> object:
        collecting.append(gc.isenabled())
        return read_pages(*args)

    monkeypatch.setattr(store, "_game_entries", page)
    assert gc.isenabled()
    assert len(store.every_ladder_entry(conn, club)) == 6  # the ruleset and five games
    assert collecting == [False]
    assert gc.isenabled()  # (as it was)
    gc.disable()
    try:
        store.every_ladder_entry(conn, club)
        assert not gc.isenabled()  # (a caller's own pause stands)
    finally:
        gc.enable()
