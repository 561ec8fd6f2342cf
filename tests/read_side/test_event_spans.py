"""A ladder rated per event (AdlG) keeps its events' spans, so that a change
looks only at the games after it to find where to restart: a game recorded
late into an event that had closed before some checkpoints must still
restart the replay before the event began, and the spans kept must be those
a rebuild finds."""

from __future__ import annotations

from datetime import date

import pytest

from projections import verify, views
from projections.db import Database
from projections.views import games, ladder_replay, store
from tests.read_side.ledger_builder import Builder

DAY = [date(2025, 3, d) for d in range(1, 8)]


@pytest.fixture(autouse=True)
def small_checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ladder_replay, "CHECKPOINT_EVERY", 2)
    # A restart looks through the checkpoints a page at a time: one a page
    # here, so that going back past several is going through pages.
    monkeypatch.setattr(store, "CHECKPOINT_PAGE", 1)


def _club() -> Builder:
    b = Builder()
    b.ladder("Club", "adlg")
    b.player("Ann", "Ben", "Cat", "Dan")
    return b


def _same_as_a_rebuild(b: Builder, conn: Database) -> None:
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []


def test_a_late_game_of_a_closed_event_restarts_before_the_event() -> None:
    b = _club()
    conn = b.views()
    b.game("Club", DAY[0], "Ann", "Ben", event="Cup", round=1, sequence=1)
    b.game("Club", DAY[0], "Cat", "Dan", event="Cup", round=1, sequence=2)
    views.catch_up(conn, b.recorder)
    for seq, day in enumerate(DAY[1:5], start=1):  # checkpoints after the Cup closed
        b.game("Club", day, "Ann", "Cat", sequence=seq)
        b.game("Club", day, "Ben", "Dan", sequence=seq + 10)
        views.catch_up(conn, b.recorder)
    assert conn.execute("SELECT COUNT(*) FROM view_checkpoints").fetchone()[0] >= 2
    # A Cup result from day 6, recorded now: the Cup spans every checkpoint
    # saved since day 1, and is rated from the states before it began.
    b.game("Club", DAY[5], "Ann", "Dan", event="Cup", round=2, sequence=1)
    views.catch_up(conn, b.recorder)
    _same_as_a_rebuild(b, conn)
    ((first, last),) = games.kept_spans(conn, 1, ["Cup"]).values()
    assert first.startswith("2025-03-01") and last.startswith("2025-03-06")


def test_a_void_and_a_correction_at_an_events_edge_keep_its_span_exact() -> None:
    b = _club()
    conn = b.views()
    cup = [
        b.game("Club", DAY[d], "Ann", "Ben", event="Cup", round=d + 1, sequence=1) for d in range(3)
    ]
    for seq, day in enumerate(DAY[3:6], start=1):
        b.game("Club", day, "Cat", "Dan", sequence=seq)
    views.catch_up(conn, b.recorder)
    b.void(cup[-1])  # the Cup now ends on day 2
    views.catch_up(conn, b.recorder)
    _same_as_a_rebuild(b, conn)
    b.correct(cup[0], event="Shield")  # and begins on day 2, the Shield on day 1
    views.catch_up(conn, b.recorder)
    _same_as_a_rebuild(b, conn)
    kept = games.kept_spans(conn, 1, ["Cup", "Shield"])
    assert kept["Cup"][0].startswith("2025-03-02") and kept["Cup"][1].startswith("2025-03-02")
    assert kept["Shield"][0].startswith("2025-03-01")


def test_an_elo_ladder_keeps_no_spans() -> None:
    b = Builder()
    b.ladder("Club", "elo")
    b.player("Ann", "Ben")
    b.game("Club", DAY[0], "Ann", "Ben", event="Cup", round=1, sequence=1)
    conn = b.views()
    assert conn.execute("SELECT COUNT(*) FROM view_event_spans").fetchone()[0] == 0


def test_a_restart_looks_through_every_checkpoint_a_page_at_a_time() -> None:
    b = _club()
    for seq, day in enumerate(DAY, start=1):
        b.game("Club", day, "Ann", "Cat", sequence=seq)
        b.game("Club", day, "Ben", "Dan", sequence=seq + 10)
    conn = b.views()
    every = conn.execute("SELECT key, pos FROM view_checkpoints ORDER BY key DESC").fetchall()
    assert len(every) >= 3
    ladder = store.LadderStore(conn, 1, store.PlayerNumbers(conn))
    assert list(ladder.checkpoints_before("\x7f")) == [tuple(r) for r in every]
    assert list(ladder.checkpoints_before(every[1][0])) == [tuple(r) for r in every[2:]]
