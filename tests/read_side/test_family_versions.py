"""Versioned maths: a ruleset records the version of its family's maths;
when the code's version differs, catch-up, ``ladder_info`` and verify say so
(a warning: the views are still correct for the code that replays them)."""

from __future__ import annotations

from datetime import date
from typing import ClassVar

from ledger.families.elo import EloFamily
from projections import queries, verify, views
from tests.read_side.ledger_builder import Builder


class BumpedElo(EloFamily):
    """Elo whose maths moved on to version 2."""

    version: ClassVar[int] = 2


BUMPED = f"{__name__}:BumpedElo"


def ledger(recorded_version: int) -> Builder:
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Club", BUMPED, {"k": 20}, family_version=recorded_version)
    b.ladder("Other", "elo")
    b.game("Club", date(2025, 1, 1), "Ann", "Ben")
    return b


def test_a_ruleset_of_older_maths_is_a_warning_everywhere() -> None:
    b = ledger(recorded_version=1)
    conn = views.connect(b.views())
    b.game("Club", date(2025, 1, 2), "Ben", "Ann")
    report = views.catch_up_report(conn, b.recorder)
    assert report.applied == 1
    assert len(report.warnings) == 1
    warning = report.warnings[0]
    assert warning.startswith("ladder 'Club': the ")
    assert "version 1 of the family's maths, this installation has version 2" in warning

    info = queries.ladder_info(conn, "Club")
    assert info.version_warnings == [warning.removeprefix("ladder 'Club': ")]
    assert info.problem is None
    assert queries.ladder_info(conn, "Other").version_warnings == []
    # Still rated: a warning, not a problem.
    assert len(queries.standings(conn, "Club")) == 2

    problems, warnings = verify.ladder_findings(views.in_memory(b.recorder))
    assert problems == [] and warnings == [warning]


def test_the_same_version_warns_nothing() -> None:
    b = ledger(recorded_version=2)
    conn = b.views()
    b.game("Club", date(2025, 1, 2), "Ben", "Ann")
    assert views.catch_up_report(conn, b.recorder).warnings == []
    assert queries.ladder_info(conn, "Club").version_warnings == []
    assert verify.ladder_findings(conn) == ([], [])


def test_a_newer_recorded_version_warns_too() -> None:
    b = ledger(recorded_version=3)
    info = queries.ladder_info(b.views(), "Club")
    assert len(info.version_warnings) == 1
    assert (
        "version 3 of the family's maths, this installation has version 2"
        in (info.version_warnings[0])
    )
