"""Properties of the replay and its incremental views, fed events straight
(no write side, no CLI): games with recorded sequences, corrections and
voids, caught up after every event with checkpoints every few games.

(a) the incremental views equal views rebuilt from nothing;
(b) the same final games recorded in any order give identical standings
    and histories (the order of play is the recorded sequence).
"""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections import verify, views
from projections.db import Database
from tests.read_side.ledger_builder import Builder

NAMES = ("Ann", "Ben", "Cat", "Dan")
DAYS = (date(2025, 1, 5), date(2025, 2, 9), date(2025, 3, 1))
EVENTS = {"Cup": date(2025, 2, 9)}
SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

pairs = st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)).filter(lambda p: p[0] != p[1])
games = st.lists(
    st.tuples(
        st.sampled_from(DAYS),
        st.sampled_from((None, "Cup")),
        st.integers(1, 2),
        pairs,
        st.sampled_from(("a", "b", "draw")),
    ),
    min_size=1,
    max_size=12,
)
edits = st.lists(
    st.tuples(st.integers(0, 50), st.sampled_from(("void", "result", "date"))), max_size=4
)


def play(
    family: str, drawn: list[Any], changes: list[Any], order: list[int]
) -> tuple[Builder, Database]:
    """Record the drawn games in ``order`` (catching up after each), then
    the edits; returns the builder and its incremental views."""
    b = Builder()
    b.ladder("Club", family)
    b.player(*NAMES)
    conn = b.views()
    ids = [uuid.UUID(int=i + 1) for i in range(len(drawn))]
    for index in order:
        on, event, round_, (a, bb), result = drawn[index]
        b.game(
            "Club",
            EVENTS.get(event or "", on),
            a,
            bb,
            {"result": result},
            game_id=ids[index],
            event=event,
            round=round_ if event else None,
            sequence=index + 1,  # unique in every round
        )
        views.catch_up(conn, b.recorder)
    voided: set[uuid.UUID] = set()
    for pick, what in changes:
        live = [g for g in ids if g not in voided]
        if not live:
            break
        gid = live[pick % len(live)]
        if what == "void":
            b.void(gid)
            voided.add(gid)
        elif what == "result":
            old = b.facts[gid].result["result"]
            b.correct(gid, result={"result": "draw" if old != "draw" else "a"})
        elif b.facts[gid].event is None:
            b.correct(gid, date=DAYS[(DAYS.index(b.facts[gid].date) + 1) % len(DAYS)])
        views.catch_up(conn, b.recorder)
    return b, conn


@pytest.fixture(autouse=True)
def small_checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views.ladder_replay, "CHECKPOINT_EVERY", 2)


@pytest.mark.parametrize("family", ["elo", "adlg"])
@SETTINGS
@given(drawn=games, changes=edits)
def test_incremental_views_equal_a_rebuild(family: str, drawn: list[Any], changes: Any) -> None:
    b, conn = play(family, drawn, changes, list(range(len(drawn))))
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert views.rebuild(conn, b.recorder) == b.recorder.max_notification_id()
    assert verify.checksum(conn) == verify.checksum(fresh)


@pytest.mark.parametrize("family", ["elo", "adlg"])
@SETTINGS
@given(drawn=games, data=st.data())
def test_any_recording_order_gives_identical_ratings(
    family: str, drawn: list[Any], data: st.DataObject
) -> None:
    order = data.draw(st.permutations(range(len(drawn))), label="order")
    _, first = play(family, drawn, [], list(range(len(drawn))))
    _, second = play(family, drawn, [], order)
    assert verify.rows(first, "view_history")  # something was rated
    for table in ("view_history", "view_standings", "view_entries"):
        assert verify.rows(first, table) == verify.rows(second, table)
