"""Dates and season closes a careful referee gets wrong (issue: hardening,
item 8 and the low list): a season closed twice under another label, a year
mistyped into the future, a moment at the end of the calendar."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import Cli

pytestmark = pytest.mark.conformance


@pytest.fixture
def club(battle_empire_club: Cli) -> Cli:
    return battle_empire_club


@pytest.mark.parametrize(
    ("label", "start", "end"),
    [
        ("Season 2025", "2025-01-01", "2025-12-31"),  # the same year, another label
        ("2025b", "2025-06-01", "2025-06-30"),  # inside it
        ("2024-25", "2024-07-01", "2025-06-30"),  # across its start
    ],
)
def test_an_overlapping_season_close_is_refused(
    club: Cli, label: str, start: str, end: str
) -> None:
    club.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    decayed = {r["player"]: r["rating"] for r in club.json("standings", "Club")}
    before = club.event_count()
    out = club.fails("season", "close", "Club", label, "--from", start, "--to", end)
    assert f"season '2025' of ladder 'Club' (2025-01-01 to 2025-12-31) is already closed and " \
           f"overlaps {start} to {end}" in out  # fmt: skip
    assert club.event_count() == before
    assert {r["player"]: r["rating"] for r in club.json("standings", "Club")} == decayed


def test_seasons_that_touch_but_do_not_overlap_close_in_turn(club: Cli) -> None:
    club.ok("season", "close", "Club", "2024", "--from", "2024-01-01", "--to", "2024-12-31")
    club.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    club.ok("ladder", "open", "Other", "--family", "battle-empire")
    # Another ladder's seasons are its own.
    club.ok("season", "close", "Other", "2025", "--from", "2025-01-01", "--to", "2025-12-31")


def test_a_game_or_close_more_than_a_day_ahead_needs_allow_future(club: Cli) -> None:
    today = datetime.now(UTC).date()
    ahead = (today + timedelta(days=3)).isoformat()
    tomorrow = (today + timedelta(days=1)).isoformat()
    game = ("record", "Club", "--side", "Ann", "--side", "Bob", "--result", "a",
            "--margin", "marginal")  # fmt: skip
    before = club.event_count()
    out = club.fails(*game, "--date", ahead)
    assert (
        f"the game's date {ahead} is in the future (today is {today}); give --allow-future" in out
    )
    out = club.fails("season", "close", "Club", "next", "--from", today.isoformat(), "--to", ahead)
    assert f"the season's end {ahead} is in the future" in out
    assert club.event_count() == before
    club.ok(*game, "--date", tomorrow)  # a day ahead: time zones, not a typo
    club.ok(*game, "--date", ahead, "--allow-future")
    ref = club.json("history", "Club", "Ann")[-1]["game"]
    far = (today + timedelta(days=400)).isoformat()
    assert "is in the future" in club.fails("correct", ref, "--date", far, "--reason", "x")
    club.ok("correct", ref, "--date", far, "--reason", "x", "--allow-future")


def test_the_end_of_the_calendar_is_a_moment_like_any_other(club: Cli) -> None:
    now = club.json("standings", "Club")
    assert club.json("standings", "Club", "--as-known-at", "9999-12-31") == now


def test_a_game_inside_a_closed_season_says_the_close_is_replayed(club: Cli) -> None:
    club.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    game = ("record", "Club", "--side", "Ann", "--side", "Bob", "--result", "a",
            "--margin", "marginal")  # fmt: skip
    note = (
        "note: the game of 2025-05-04 is inside season '2025' of 'Club' (2025-01-01 to 2025-12-31), "
        "already closed: the close was replayed with it"
    )
    late = club.ok(*game, "--date", "2025-05-04")
    assert [line for line in late.splitlines() if line.startswith("note:")] == [note]
    later = club.ok(*game, "--date", "2026-01-02")
    assert "note:" not in later  # after the season: nothing replayed
    short_id = later.split()[2].rstrip(".")
    moved = club.ok("correct", short_id, "--date", "2025-05-04", "--reason", "misdated")
    assert moved.splitlines()[1:] == [note]


def test_an_import_inside_a_closed_season_says_how_many_games_replay_it(
    club: Cli, tmp_path: Path
) -> None:
    club.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    path = tmp_path / "late.csv"
    path.write_text(
        "ladder,date,side_a,side_b,result,margin\n"
        "Club,2025-03-01,Ann,Bob,a,marginal\n"
        "Club,2025-04-01,Bob,Ann,a,decisive\n"
        "Club,2026-01-03,Ann,Bob,b,marginal\n",
        encoding="utf-8",
    )
    assert club.json("import", str(path))["warnings"] == [
        f"{path}: 2 games of this import are inside season '2025' of 'Club' (2025-01-01 to "
        "2025-12-31), already closed: the close was replayed with them"
    ]
