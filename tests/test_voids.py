"""Voiding the other entries of a ladder's timeline, like games (issue:
hardening, item 8): a season close, a rating adjustment and a rule change
can each be voided with a reason. The voided entry stays in the audit log,
stops counting, and the ladder is replayed from its date; a rebuild gives
the same views."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Cli

pytestmark = pytest.mark.conformance


def ratings(cli: Cli, ladder: str = "Club") -> dict[str, float]:
    return {r["player"]: r["rating"] for r in cli.json("standings", ladder)}


def printed_id(output: str, kind: str) -> str:
    found = re.search(rf"\({kind} ([0-9a-f]{{8}})\)", output)
    assert found, output
    return found.group(1)


@pytest.fixture
def club(battle_empire_club: Cli) -> Cli:
    return battle_empire_club


def play_2026(cli: Cli) -> None:
    cli.ok("record", "Club", "--date", "2026-02-01", "--side", "Bob", "--side", "Ann",
           "--result", "a", "--margin", "marginal")  # fmt: skip


def assert_views_match_a_rebuild(cli: Cli, ladder: str = "Club") -> None:
    shown = ratings(cli, ladder)
    assert "OK" in cli.ok("verify")
    cli.ok("rebuild")
    assert ratings(cli, ladder) == shown


@pytest.fixture
def elo(cli: Cli) -> Cli:
    cli.ok("ladder", "open", "Elo", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob")
    return cli


def play_elo(cli: Cli) -> None:
    for day, result in (("2024-03-01", "a"), ("2025-03-01", "b"), ("2026-02-01", "a")):
        cli.ok("record", "Elo", "--date", day, "--side", "Ann", "--side", "Bob",
               "--result", result)  # fmt: skip


def test_a_voided_season_close_no_longer_decays_and_can_be_closed_again(club: Cli) -> None:
    # Above 1300 and idle in 2025: the close takes 100 (docs/rules/battle-empire.md).
    club.ok("adjust", "Club", "Ann", "--to", "1400", "--date", "2024-06-01",
            "--reason", "a known strong player")  # fmt: skip
    assert ratings(club)["Ann"] == 1400
    out = club.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    assert ratings(club)["Ann"] == 1300
    play_2026(club)
    decayed = ratings(club)

    club.ok("season", "void", "Club", "2025", "--reason", "closed by mistake")
    undecayed = ratings(club)
    assert undecayed["Ann"] > decayed["Ann"]  # the 2026 game is replayed from 1400
    assert_views_match_a_rebuild(club)

    # Refused, and nothing appended: voided twice, by label or by id.
    events = club.event_count()
    assert "already voided" in club.fails("season", "void", "Club", "2025", "--reason", "again")
    assert "already voided" in club.fails("void", printed_id(out, "season close"), "--reason", "x")
    assert "was never closed" in club.fails("season", "void", "Club", "1999", "--reason", "x")
    assert club.event_count() == events

    # Closed again (the same label): the decay counts again, exactly as before.
    club.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    assert ratings(club) == decayed
    audit = club.ok("audit", "Club")
    assert "season voided" in audit and "closed by mistake" in audit


def test_a_voided_season_frees_its_dates_for_another_close(club: Cli) -> None:
    club.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    club.ok("season", "void", "Club", "2025", "--reason", "wrong dates")
    club.ok("season", "close", "Club", "Season 2025", "--from", "2025-01-01", "--to", "2025-12-31")


def test_a_voided_adjustment_no_longer_counts(club: Cli) -> None:
    play_2026(club)
    unadjusted = ratings(club)
    out = club.ok("adjust", "Club", "Ann", "--to", "1700", "--date", "2025-06-01",
                  "--reason", "typed the wrong player")  # fmt: skip
    adjusted = ratings(club)
    assert adjusted["Ann"] != unadjusted["Ann"]
    aid = printed_id(out, "adjustment")

    assert f"Voided adjustment {aid}" in club.ok("void", aid, "--reason", "wrong player")
    assert ratings(club) == unadjusted
    assert_views_match_a_rebuild(club)

    events = club.event_count()
    assert "already voided" in club.fails("void", aid[:6], "--reason", "again")
    assert "unknown game, adjustment or season close" in club.fails(
        "void", "00000000", "--reason", "x"
    )
    assert club.event_count() == events
    audit = club.ok("audit", "Club")
    assert "rating adjustment of 'Ann' (set to 1700) voided" in audit

    # Made again after its void: it counts again.
    club.ok("adjust", "Club", "Ann", "--to", "1700", "--date", "2025-06-01",
            "--reason", "typed the wrong player")  # fmt: skip
    assert ratings(club) == adjusted


def test_a_voided_rule_change_gives_back_the_rules_before_it(elo: Cli) -> None:
    play_elo(elo)
    before = ratings(elo, "Elo")
    elo.ok("ladder", "rules", "Elo", "--set", "k=60", "--effective", "2025-01-01",
            "--reason", "tournament K")  # fmt: skip
    changed = ratings(elo, "Elo")
    assert changed != before

    out = elo.ok("ladder", "void-rules", "Elo", "--effective", "2025-01-01",
                  "--reason", "voted down")  # fmt: skip
    assert "Voided the elo rules of 'Elo' from 2025-01-01" in out
    assert ratings(elo, "Elo") == before
    assert_views_match_a_rebuild(elo, "Elo")
    shown = elo.json("ladder", "show", "Elo")
    # The voided change stays in the rule history, marked (issue 26).
    assert [(r["effective"], r["voided"] is not None) for r in shown["rules"]] == [
        ("from the start", False), ("2025-01-01", True),
    ]  # fmt: skip
    assert "(voted down)" in shown["rules"][1]["voided"]

    events = elo.event_count()
    assert "no rule change of ladder 'Elo' takes effect on 2025-01-01" in elo.fails(
        "ladder", "void-rules", "Elo", "--effective", "2025-01-01", "--reason", "again"
    )
    assert "first rules of ladder 'Elo' cannot be voided" in elo.fails(
        "ladder", "void-rules", "Elo", "--effective", "0001-01-01", "--reason", "x"
    )
    assert elo.event_count() == events


def test_of_two_rule_changes_for_one_date_the_later_is_voided(elo: Cli) -> None:
    play_elo(elo)
    elo.ok("ladder", "rules", "Elo", "--set", "k=60", "--effective", "2025-01-01",
            "--reason", "first try")  # fmt: skip
    first = ratings(elo, "Elo")
    elo.ok("ladder", "rules", "Elo", "--set", "k=10", "--effective", "2025-01-01",
            "--reason", "second try")  # fmt: skip
    assert ratings(elo, "Elo") != first
    elo.ok("ladder", "void-rules", "Elo", "--effective", "2025-01-01", "--reason", "undo")
    assert ratings(elo, "Elo") == first
    assert_views_match_a_rebuild(elo, "Elo")
