"""One bad game must not brick the ledger: an entry a family cannot apply
makes its ladder alone a problem; the catch-up advances, other ladders
replay normally, queries on that ladder say what is wrong and what to do,
and the problem clears once the ladder replays again."""

from __future__ import annotations

from datetime import date
from typing import Any

import msgspec
import pytest

from ledger.families.base import Change, FamilyError, Game, PlayerState
from ledger.families.elo import EloFamily
from ledger.kernel.errors import LedgerError
from ledger.kernel.identity import short
from projections import queries, verify, views
from tests.read_side.ledger_builder import Builder

POINTS = {"points_a": 15.0, "points_b": 5.0}


class PointsElo(EloFamily):
    """Elo that needs the points of each side as game attributes (as
    ``tests/example_family.py`` once did): a game recorded without them
    cannot be rated. Side A wins when it scored more."""

    def rate(self, game: Game, states: Any, explain: bool = False) -> list[list[Change]]:
        try:
            a, b = game.attributes["points_a"], game.attributes["points_b"]
        except KeyError as missing:
            raise FamilyError(f"needs --attr {missing.args[0]}=N", field="attributes") from None
        result = self.load_result({"result": "a" if a > b else "b" if b > a else "draw"})
        return super().rate(msgspec.structs.replace(game, result=result), states, explain)


SKIRMISH = f"{__name__}:PointsElo"


class FragileElo(EloFamily):
    """Elo with a bug: a game on 13 March raises (as a plugin might)."""

    def rate(self, game: Game, states: Any, explain: bool = False) -> list[list[Change]]:
        if game.date == date(2025, 3, 13):
            raise ZeroDivisionError("division by zero")
        return super().rate(game, states, explain)


def two_ladders() -> tuple[Builder, Any]:
    """Skirmish (points share) with one game lacking its points, and Club
    (elo) with a sound game."""
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Skirmish", SKIRMISH)
    b.ladder("Club", "elo", {"k": 32})
    b.game("Skirmish", date(2025, 5, 1), "Ann", "Ben", attributes=POINTS)
    bad = b.game("Skirmish", date(2025, 5, 2), "Ben", "Ann")  # no --attr points_a
    b.game("Club", date(2025, 5, 3), "Ann", "Ben")
    return b, bad


def test_a_failing_game_is_a_problem_of_its_ladder_alone() -> None:
    b, bad = two_ladders()
    conn = b.views()
    # The catch-up went through every event.
    assert views.position(conn) == b.recorder.max_notification_id()
    problem = conn.execute("SELECT problem FROM view_ladders WHERE name='Skirmish'").fetchone()[0]
    assert "'Skirmish'" in problem
    assert f"game {short(bad)}" in problem
    assert "needs --attr points_a=N" in problem
    assert f"ledger void {short(bad)}" in problem
    # The other ladder is replayed as usual.
    assert [r.player for r in queries.standings(conn, "Club")] == ["Ann", "Ben"]
    assert queries.ladder_info(conn, "Club").problem is None
    # Queries on the broken ladder say why, and what to do.
    for query in (
        lambda: queries.standings(conn, "Skirmish"),
        lambda: queries.history(conn, "Skirmish", "Ann"),
        lambda: queries.explain(conn, short(bad)),
    ):
        with pytest.raises(LedgerError) as refused:
            query()
        assert str(refused.value) == problem
    # Listing ladders and the audit keep working, and show the problem.
    listed = {i.name: i.problem for i in queries.ladders(conn)}
    assert listed == {"Club": None, "Skirmish": problem}
    assert len(queries.audit(conn, "Skirmish")) == 4


def test_catch_up_reports_the_problem_as_a_warning() -> None:
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Skirmish", SKIRMISH)
    conn = b.views()
    bad = b.game("Skirmish", date(2025, 5, 2), "Ben", "Ann")
    report = views.catch_up_report(conn, b.recorder)
    assert report.applied == 1
    assert len(report.warnings) == 1 and short(bad) in report.warnings[0]


def test_voiding_or_correcting_the_game_clears_the_problem() -> None:
    b, bad = two_ladders()
    conn = b.views()
    assert queries.ladder_info(conn, "Skirmish").problem is not None

    b.correct(bad, attributes={"points_a": 2.0, "points_b": 8.0}, result={"result": "a"})
    assert views.catch_up_report(conn, b.recorder).warnings == []
    assert queries.ladder_info(conn, "Skirmish").problem is None
    rows = queries.standings(conn, "Skirmish")
    assert sorted((r.player, r.games) for r in rows) == [("Ann", 2), ("Ben", 2)]
    assert rows[0].player == "Ann"  # she scored more in both games

    b.void(bad)
    views.catch_up(conn, b.recorder)
    assert [(r.player, r.games) for r in queries.standings(conn, "Skirmish")] == [
        ("Ann", 1),
        ("Ben", 1),
    ]


def test_a_broken_ladder_replays_identically_incrementally_and_from_nothing() -> None:
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Skirmish", SKIRMISH)
    conn = b.views()
    # Games one at a time (appends after the frontier), then a bad one in the middle.
    for day in (1, 3, 5):
        b.game("Skirmish", date(2025, 5, day), "Ann", "Ben", attributes=POINTS)
        views.catch_up(conn, b.recorder)
    bad = b.game("Skirmish", date(2025, 5, 2), "Ben", "Ann")
    views.catch_up(conn, b.recorder)
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)
    # Nothing of the ladder is kept but its problem (as a rebuild holds).
    assert conn.execute("SELECT COUNT(*) FROM view_history_chunks").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM view_standings").fetchone()[0] == 0
    problems, warnings = verify.ladder_findings(fresh)
    assert len(problems) == 1 and short(bad) in problems[0]
    assert warnings == []
    # Fixed, the ladder comes back exactly as a rebuild gives it.
    b.void(bad)
    views.catch_up(conn, b.recorder)
    assert verify.compare_views(conn, views.in_memory(b.recorder)) == []
    assert [r.games for r in queries.standings(conn, "Skirmish")] == [3, 3]


def test_a_family_that_cannot_be_loaded_is_a_problem_of_its_ladder() -> None:
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Gone", "tests.read_side.no_such_module:Family", {"k": 10})
    b.ladder("Club", "elo")
    b.game("Gone", date(2025, 1, 1), "Ann", "Ben")
    b.game("Club", date(2025, 1, 1), "Ann", "Ben")
    conn = b.views()
    info = queries.ladder_info(conn, "Gone")
    assert info.problem is not None
    assert "'Gone'" in info.problem and "no_such_module" in info.problem
    assert "ruleset from the start" in info.problem
    assert info.params == {"k": 10}  # as recorded: the family cannot read them
    assert len(queries.standings(conn, "Club")) == 2
    with pytest.raises(LedgerError, match="no_such_module"):
        queries.standings(conn, "Gone")


def test_a_bug_in_a_family_names_the_error_and_the_game() -> None:
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Club", f"{__name__}:FragileElo")
    b.game("Club", date(2025, 3, 12), "Ann", "Ben")
    bad = b.game("Club", date(2025, 3, 13), "Ann", "Ben")
    conn = b.views()
    problem = queries.ladder_info(conn, "Club").problem
    assert problem is not None
    assert f"game {short(bad)} of 2025-03-13" in problem
    assert "ZeroDivisionError: division by zero" in problem


def test_rebuild_keeps_working_with_a_broken_ladder() -> None:
    b, bad = two_ladders()
    conn = b.views()
    report = views.rebuild_report(conn, b.recorder)
    assert report.applied == b.recorder.max_notification_id()
    assert any(short(bad) in w for w in report.warnings)
    assert len(queries.standings(conn, "Club")) == 2


def test_a_database_error_is_not_taken_for_a_ladder_problem(monkeypatch: Any) -> None:
    import sqlite3

    from projections.views import store

    b, _ = two_ladders()
    conn = b.views()

    def broken(self: Any, key: str, pos: int, states: dict[str, PlayerState], *_: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store.LadderStore, "save_checkpoint", broken)
    monkeypatch.setattr(views.ladder_replay, "CHECKPOINT_EVERY", 1)
    b.game("Club", date(2025, 6, 1), "Ben", "Ann")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        views.catch_up(conn, b.recorder)
    # Nothing was applied: the views still stand where they were.
    assert views.position(conn) == b.recorder.max_notification_id() - 1
