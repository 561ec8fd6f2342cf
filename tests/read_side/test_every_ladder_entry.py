"""A whole ladder read at once (``every_ladder_entry``: ``whatif``,
``tune``, a projector holding timelines) gives the entries the paged read
in effective order gives (``ladder_entries``), though it reads its games in
the order they were recorded: games recorded out of order, corrected into
another date, voided, among rule changes and in two ladders."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from projections.replay import Duel
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


def test_a_timeline_read_holds_each_player_id_and_result_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read whole or a page at a time, every duel of a player holds the one
    string of their id, and equal results one dict, across pages: a ladder
    of 1M games held whole holds 10,000 ids, not 2M (``replay.Shared``)."""
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Club")
    for i in range(6):
        on = date(2025, 1, 1) + timedelta(days=i)
        result = {"result": "a" if i % 2 else "b"}
        b.game("Club", on, "Ann", "Ben", result, event="Open", round=1, sequence=1)
    conn = b.views()
    club = conn.execute("SELECT n FROM view_ladders WHERE name='Club'").fetchone()[0]
    monkeypatch.setattr(store, "WHOLE_PAGE", 4)  # (pages end inside the ladder)
    monkeypatch.setattr(store, "ENTRY_PAGE", 4)
    for read in (
        store.every_ladder_entry(conn, club),
        list(store.ladder_entries(conn, club, None)),
    ):
        duels = [e for e in read if type(e) is Duel]
        assert len(duels) == 6
        assert len({id(d.a) for d in duels}) == len({id(d.b) for d in duels}) == 1
        assert len({id(d.result) for d in duels}) == 2
        assert sorted(d.result["result"] for d in duels) == ["a", "a", "a", "b", "b", "b"]
