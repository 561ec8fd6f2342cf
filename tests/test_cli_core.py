"""Every command of the CLI end to end on the generic ``elo`` family.

Expected ratings are worked out by hand from the Elo formula with the family's
defaults (initial 1500, divisor 400, K = 20, fractional ratings, no rounding):
P(A) = 1 / (1 + 10^((R_B - R_A) / 400)), change = K x (S - P).

Values used below (P for the first-named rating):
- 1500 vs 1500: P = 0.5, K = 20 -> winner +10, loser -10.
- 1510 vs 1490: P = 0.5287506 -> a win is +9.4249887, a loss -10.5750113.
- 1500 vs 1490: P = 0.5143872 -> a win is +9.7122563; 1490 vs 1500: +10.2877437.
- 1505 vs 1495 (team means): P = 0.5143872 -> a draw is -0.2877437.
- 1600 vs 1500: P = 0.6400650 -> a win is +7.1987000.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from projections.db import Database
from tests.conftest import Cli


def approx(value: float) -> object:
    return pytest.approx(value, abs=1e-6)


def open_club(cli: Cli, *sets: str) -> None:
    args = [a for s in sets for a in ("--set", s)]
    cli.ok("ladder", "open", "Club", "--family", "elo", *args)


def record(cli: Cli, on: str, side_a: str, side_b: str, result: str, *extra: str) -> str:
    """Record a game of Club; returns the id printed by ``record``."""
    out = cli.ok(
        "record", "Club", "--date", on, "--side", side_a, "--side", side_b, "--result", result,
        *extra,
    )  # fmt: skip
    # A game inside a closed season adds a note line (the close is replayed).
    match = re.fullmatch(r"Recorded game ([0-9a-f]{8})\.\n(  .*\n)*(note: .*\n)*", out)
    assert match, out
    return match.group(1)


def table(cli: Cli, *extra: str) -> list[tuple[str, object, int]]:
    """Standings of Club as (player, rating, games)."""
    rows = cli.json("standings", "Club", *extra)
    assert isinstance(rows, list)
    return [(r["player"], r["rating"], r["games"]) for r in rows]


def history(cli: Cli, player: str) -> list[dict]:
    rows = cli.json("history", "Club", player)
    assert isinstance(rows, list)
    return rows


def games_of(cli: Cli, player: str) -> list[str]:
    return [h["game"] for h in history(cli, player) if h["kind"] == "game"]


# -- ladders --------------------------------------------------------------------
def test_ladder_open_and_list(cli: Cli) -> None:
    assert cli.ok("ladder", "open", "Club", "--family", "elo", "--set", "k=32") == (
        "Opened ladder 'Club' (elo).\n"
    )
    cli.ok("ladder", "open", "Ancients", "--family", "elo")
    rows = cli.json("ladder", "list")
    assert [(r["name"], r["family"], r["params"]["k"]) for r in rows] == [
        ("Ancients", "elo", 20.0),
        ("Club", "elo", 32.0),
    ]


def test_ladder_show_lists_family_parameters_and_rule_history(cli: Cli) -> None:
    open_club(cli, "k=32", "divisor=500")
    cli.ok("ladder", "rules", "Club", "--set", "k=40", "--effective", "2025-03-01",
           "--reason", "bigger swings for the new season")  # fmt: skip
    info = cli.json("ladder", "show", "Club")
    assert info["name"] == "Club"
    assert info["family"] == "elo"
    assert info["params"]["k"] == 40.0
    assert info["params"]["divisor"] == 500.0
    assert info["params"]["initial"] == 1500.0
    rules = info["rules"]
    assert [
        (r["effective"], r["family"], r["params"]["k"], r["reason"], r["by"]) for r in rules
    ] == [
        ("from the start", "elo", 32, None, "tester"),
        ("2025-03-01", "elo", 40, "bigger swings for the new season", "tester"),
    ]
    assert rules[1]["params"]["divisor"] == 500  # the change keeps the other parameters
    text = cli.ok("ladder", "show", "Club")
    assert "Family:   elo" in text
    assert "  k = 40\n" in text
    assert "  divisor = 500\n" in text
    lines = text.splitlines()
    at = lines.index("  2025-03-01: elo: k 32 → 40")  # what the change changed, not its JSON
    assert lines[at + 1].endswith("(bigger swings for the new season)")
    assert " by tester at " in lines[at + 1]


def test_rule_change_applies_only_from_its_date(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    first = record(cli, "2025-02-01", "Alice", "Bob", "a")
    second = record(cli, "2025-02-28", "Bob", "Alice", "a")
    third = record(cli, "2025-03-01", "Bob", "Alice", "a")
    before = history(cli, "Alice")
    assert [h["k"] for h in before] == [20.0, 20.0, 20.0]
    # Recorded after the games: history is replayed under the new K from 1 March.
    out = cli.ok("ladder", "rules", "Club", "--set", "k=40", "--effective", "2025-03-01",
                 "--reason", "bigger swings")  # fmt: skip
    assert out == "Rules of 'Club' changed from 2025-03-01.\n"
    after = history(cli, "Alice")
    assert [h["game"] for h in after] == [first, second, third]
    assert [h["k"] for h in after] == [20.0, 20.0, 40.0]
    assert after[:2] == before[:2]  # games before the date are untouched
    # 2025-02-01: 1500 v 1500, Alice wins: +10.  2025-02-28: Bob (1490) beats
    # Alice (1510): Alice -10.5750113.  2025-03-01 with K = 40: Alice 1499.4249887
    # v Bob 1500.5750113, Bob wins: P(Alice) = 0.4983450, Alice -19.9337996.
    assert after[0]["after"] == approx(1510.0)
    assert after[1]["after"] == approx(1499.4249887221547)
    assert after[2]["change"] == approx(-19.93379962193684)
    assert after[2]["after"] == approx(1479.4911891002178)
    assert table(cli) == [("Bob", approx(1520.5088108997822), 3),
                          ("Alice", approx(1479.4911891002178), 3)]  # fmt: skip
    explained = cli.json("explain", third)
    assert explained["params"]["k"] == 40.0
    assert [p["values"]["K"] for p in explained["players"]] == [40.0, 40.0]
    assert cli.json("explain", second)["params"]["k"] == 20


def test_ladder_show_parameters_in_force_ignore_a_future_rule_change(cli: Cli) -> None:
    """Regression: a rule change announced for 2099 was shown as in force."""
    open_club(cli)
    cli.ok("ladder", "rules", "Club", "--set", "k=40", "--effective", "2099-01-01",
           "--reason", "announced for later")  # fmt: skip
    info = cli.json("ladder", "show", "Club")
    assert [r["effective"] for r in info["rules"]] == ["from the start", "2099-01-01"]
    assert info["params"]["k"] == 20.0


def test_rule_change_with_k_you_set_at_opening(cli: Cli) -> None:
    open_club(cli, "k=32")
    cli.ok("player", "add", "Alice", "Bob")
    record(cli, "2025-01-05", "Alice", "Bob", "b")
    assert table(cli) == [("Bob", approx(1516.0), 1), ("Alice", approx(1484.0), 1)]
    assert [h["k"] for h in history(cli, "Alice")] == [32.0]


# -- players ---------------------------------------------------------------------
def test_player_add_rename_and_list(cli: Cli) -> None:
    open_club(cli)
    assert cli.ok("player", "add", "Alice", "Bob", "Carol") == "Added 3 players.\n"
    record(cli, "2025-01-05", "Alice", "Bob", "a")
    assert cli.ok("player", "rename", "Bob", "Robert", "--reason", "typo") == (
        "Renamed 'Bob' to 'Robert'.\n"
    )
    players = cli.json("player", "list")
    assert [(p["name"], p["merged_into"]) for p in players] == [
        ("Alice", None),
        ("Carol", None),
        ("Robert", None),
    ]
    assert table(cli) == [("Alice", approx(1510.0), 1), ("Robert", approx(1490.0), 1)]
    # The renamed player keeps their history and plays under the new name.
    record(cli, "2025-01-06", "Robert", "Carol", "a")
    assert [h["opponents"] for h in history(cli, "Robert")] == ["Alice", "Carol"]
    assert [h["opponents"] for h in history(cli, "Alice")] == ["Robert"]
    audit = cli.json("audit")
    renamed = [a for a in audit if a["kind"] == "player renamed"]
    assert [(a["summary"], a["reason"]) for a in renamed] == [
        ("player 'Bob' renamed 'Robert'", "typo")
    ]


def test_player_merge_replays_games_as_the_target(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob", "Al")
    g1 = record(cli, "2025-01-01", "Alice", "Bob", "a")
    g2 = record(cli, "2025-01-02", "Al", "Bob", "a")
    # Before the merge Al is a separate new player: 1500 v 1490.
    assert len(table(cli)) == 3
    out = cli.ok("player", "merge", "Al", "Alice", "--reason", "same person, two spellings")
    assert out == "Merged 'Al' into 'Alice'.\n"
    # Al's win is now Alice's second game: 1510 v 1490 -> +9.4249887.
    assert table(cli) == [
        ("Alice", approx(1519.4249887221547), 2),
        ("Bob", approx(1480.5750112778453), 2),
    ]
    alice = history(cli, "Alice")
    assert [(h["game"], h["opponents"], h["before"], h["after"]) for h in alice] == [
        (g1, "Bob", approx(1500.0), approx(1510.0)),
        (g2, "Bob", approx(1510.0), approx(1519.4249887221547)),
    ]
    assert history(cli, "Al") == alice  # the old name leads to the merged player
    assert [h["opponents"] for h in history(cli, "Bob")] == ["Alice", "Alice"]
    players = {p["name"]: p for p in cli.json("player", "list")}
    assert players["Al"]["merged_into"] == players["Alice"]["id"]
    assert players["Alice"]["merged_into"] is None


# -- recording -----------------------------------------------------------------
def test_record_two_sides_then_team_sides_with_event_round_table(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob", "Carol", "Dan")
    g1 = record(cli, "2025-01-05", "Alice", "Bob", "a")
    g2 = record(cli, "2025-01-06", "Alice;Carol", "Bob; Dan", "draw",
                "--event", "Cup", "--round", "2", "--table", "3")  # fmt: skip
    assert g1 != g2
    alice = history(cli, "Alice")
    assert alice[0] == {
        "date": "2025-01-05", "kind": "game", "game": g1, "event": None, "round": None,
        "opponents": "Bob", "s": 1.0, "p": 0.5, "k": 20.0, "before": 1500.0,
        "after": 1510.0, "change": 10.0, "note": "", "table": None, "result": "won",
        "margin": None,
    }  # fmt: skip
    # Team sides: means 1505 (Alice 1510, Carol 1500) v 1495 (Bob 1490, Dan 1500).
    line = alice[1]
    assert (line["date"], line["game"], line["event"], line["round"]) == ("2025-01-06", g2,
                                                                        "Cup", 2)  # fmt: skip
    assert line["opponents"] == "Bob, Dan"
    assert (line["s"], line["p"], line["k"]) == (0.5, approx(0.5143871841659987), 20.0)
    assert line["change"] == approx(-0.28774368331997424)
    assert table(cli) == [
        ("Alice", approx(1509.71225631668), 2),
        ("Dan", approx(1500.28774368332), 1),
        ("Carol", approx(1499.71225631668), 1),
        ("Bob", approx(1490.28774368332), 2),
    ]
    carol = history(cli, "Carol")
    assert [(h["opponents"], h["p"], h["before"]) for h in carol] == [
        ("Bob, Dan", approx(0.5143871841659987), 1500.0)
    ]
    dan = history(cli, "Dan")
    assert [(h["opponents"], h["p"], h["s"]) for h in dan] == [
        ("Alice, Carol", approx(0.4856128158340013), 0.5)
    ]
    summaries = [a["summary"] for a in cli.json("audit") if a["kind"] == "game recorded"]
    assert summaries == [
        f"game {g1}: 2025-01-05: Alice vs Bob (result=a)",
        f"game {g2}: 2025-01-06 Cup r2: Alice & Carol vs Bob & Dan (result=draw)",
    ]


def test_table_distinguishes_and_orders_games_of_one_round(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    on_table_2 = record(cli, "2025-01-05", "Alice", "Bob", "a",
                        "--event", "Cup", "--round", "1", "--table", "2")  # fmt: skip
    on_table_1 = record(cli, "2025-01-05", "Alice", "Bob", "b",
                        "--event", "Cup", "--round", "1", "--table", "1")  # fmt: skip
    assert on_table_1 != on_table_2
    # Table 1 takes effect first (Bob wins), then table 2 (Alice, at 1490, wins).
    alice = history(cli, "Alice")
    assert [(h["game"], h["after"]) for h in alice] == [
        (on_table_1, approx(1490.0)),
        (on_table_2, approx(1500.5750112778453)),
    ]


# -- corrections, voids ----------------------------------------------------------
def test_correct_changes_the_result_and_recomputes_later_games(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    g1 = record(cli, "2025-01-05", "Alice", "Bob", "a")
    g2 = record(cli, "2025-01-10", "Alice", "Bob", "b")
    # As recorded: Alice 1510, then Bob (1490) beats Alice (1510): Bob +10.5750113.
    assert table(cli) == [("Bob", approx(1500.5750112778453), 2),
                          ("Alice", approx(1499.4249887221547), 2)]  # fmt: skip
    out = cli.ok("correct", g1, "--result", "b", "--reason", "the sheet said B won")
    assert out == f"Corrected game {g1}.\n"
    # Corrected: Bob 1510, then Bob (1510) beats Alice (1490): Bob +9.4249887.
    assert table(cli) == [("Bob", approx(1519.4249887221547), 2),
                          ("Alice", approx(1480.5750112778453), 2)]  # fmt: skip
    alice = history(cli, "Alice")
    assert [(h["game"], h["s"], h["p"], h["after"]) for h in alice] == [
        (g1, 0.0, 0.5, approx(1490.0)),
        (g2, 0.0, approx(0.4712493861), approx(1480.5750112778453)),
    ]
    explained = cli.json("explain", g1)
    assert explained["status"] == "corrected"
    assert explained["result"]["result"] == "b"
    corrected = [a for a in cli.json("audit") if a["kind"] == "game corrected"]
    assert [(a["summary"], a["reason"]) for a in corrected] == [
        (f"game {g1} corrected: 2025-01-05: Alice vs Bob (result=b)", "the sheet said B won")
    ]


def test_correct_the_date_moves_the_game_in_the_order_of_effect(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob", "Carol")
    g1 = record(cli, "2025-01-05", "Alice", "Bob", "a")
    g2 = record(cli, "2025-01-10", "Alice", "Carol", "a")
    cli.ok("correct", g1, "--date", "2025-01-20", "--reason", "played later than written")
    # Now Alice (1500) beats Carol (1500) first, then Alice (1510) beats Bob (1500).
    alice = history(cli, "Alice")
    assert [(h["date"], h["game"], h["after"]) for h in alice] == [
        ("2025-01-10", g2, approx(1510.0)),
        ("2025-01-20", g1, approx(1519.7122563166801)),
    ]
    assert table(cli, "--as-of", "2025-01-15") == [
        ("Alice", approx(1510.0), 1),
        ("Carol", approx(1490.0), 1),
    ]


def test_void_removes_the_game_and_its_games_played(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob", "Carol")
    g1 = record(cli, "2025-02-01", "Alice", "Bob", "a")
    g2 = record(cli, "2025-02-02", "Alice", "Carol", "a")
    g3 = record(cli, "2025-02-03", "Bob", "Carol", "a")
    assert [(p, g) for p, _, g in table(cli)] == [("Alice", 2), ("Bob", 2), ("Carol", 2)]
    assert cli.json("ladder", "show", "Club")["games"] == 3
    out = cli.ok("void", g1, "--reason", "played outside the ladder")
    assert out == f"Voided game {g1}.\n"
    # Without g1: Alice beats Carol (1510 / 1490), Bob (1500) beats Carol (1490).
    assert table(cli) == [
        ("Alice", approx(1510.0), 1),
        ("Bob", approx(1509.71225631668), 1),
        ("Carol", approx(1480.28774368332), 2),
    ]
    assert games_of(cli, "Alice") == [g2]
    assert games_of(cli, "Bob") == [g3]
    assert history(cli, "Bob")[0]["before"] == 1500.0
    assert cli.json("ladder", "show", "Club")["games"] == 2
    explained = cli.json("explain", g1)
    assert explained["status"] == "voided"
    assert explained["players"] == []
    assert "voided" in explained["note"]
    voided = [a for a in cli.json("audit") if a["kind"] == "game voided"]
    assert [(a["summary"], a["reason"]) for a in voided] == [
        (f"game {g1} voided", "played outside the ladder")
    ]


def test_a_voided_game_can_be_recorded_again(cli: Cli) -> None:
    """Regression: 'record' refused it ('already recorded ... use ledger correct')
    and 'correct' refuses a voided game, a dead end."""
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    g = record(cli, "2025-01-05", "Alice", "Bob", "a")
    cli.ok("void", g, "--reason", "voided by mistake")
    assert cli.json("standings", "Club") == []
    # Recording it again is an explicit act (a re-import never brings it back).
    assert "pass --again" in cli.fails(
        "record", "Club", "--date", "2025-01-05", "--side", "Alice", "--side", "Bob",
        "--result", "a",
    )  # fmt: skip
    record(cli, "2025-01-05", "Alice", "Bob", "a", "--again")
    assert table(cli) == [("Alice", approx(1510.0), 1), ("Bob", approx(1490.0), 1)]


def test_a_game_moved_by_a_correction_frees_its_old_identity(cli: Cli) -> None:
    """Regression: the moved game kept its old identity and blocked a new game."""
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    g = record(cli, "2025-01-06", "Alice", "Bob", "a")
    cli.ok("correct", g, "--date", "2025-01-07", "--reason", "played on the 7th")
    # A game on the old date is a new fact only when said so (--again): the
    # misread game is otherwise refused, naming the correction.
    other = record(cli, "2025-01-06", "Alice", "Bob", "b", "--again")
    assert other != g
    assert [h["date"] for h in history(cli, "Alice")] == ["2025-01-06", "2025-01-07"]


# -- season close and adjustments -----------------------------------------------------
PENALTY = 'season_penalties=[{"above":1500,"penalty":50}]'


def test_season_close_penalises_inactive_rated_players(cli: Cli) -> None:
    open_club(cli, PENALTY)
    cli.ok("player", "add", "Alice", "Bob", "Carol", "Dan", "Eve", "Frank")
    record(cli, "2024-06-01", "Alice", "Bob", "a")  # Alice 1510, Bob 1490
    record(cli, "2024-06-02", "Carol", "Dan", "a")  # Carol 1510, Dan 1490
    record(cli, "2025-03-01", "Carol", "Eve", "a")  # Carol 1519.71, Eve 1490.29
    cli.ok("adjust", "Club", "Frank", "--to", "1600", "--date", "2025-02-01",
           "--reason", "rated elsewhere")  # fmt: skip
    out = cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    assert re.fullmatch(r"Closed season '2025' of 'Club' \(season close [0-9a-f]{8}\)\.\n"
                        r"  Alice: 1510 → 1460 \(-50\)\n  Frank: 1600 → 1550 \(-50\)\n", out)  # fmt: skip
    # Alice: rated before 2025, no 2025 game, above 1500 -> -50.  Bob, Dan: not
    # above 1500.  Carol: played in 2025.  Eve: first rated in 2025 and played.
    # Frank: rated by an adjustment inside the season and no game: for elo a
    # rating held at the end date counts (docs/rules/README.md, Season closes) -> -50.
    assert table(cli) == [
        ("Frank", approx(1550.0), 0),
        ("Carol", approx(1519.71225631668), 2),
        ("Eve", approx(1490.28774368332), 1),
        ("Bob", approx(1490.0), 1),
        ("Dan", approx(1490.0), 1),
        ("Alice", approx(1460.0), 1),
    ]
    last = history(cli, "Alice")[-1]
    assert (last["date"], last["kind"], last["before"], last["change"], last["after"]) == (
        "2025-12-31",
        "season",
        1510.0,
        -50.0,
        1460.0,
    )
    assert "season 2025" in last["note"]
    assert [h["kind"] for h in history(cli, "Carol")] == ["game", "game"]
    assert [h["kind"] for h in history(cli, "Frank")] == ["adjust", "season"]
    # The close takes effect at the end date, after that date's games.
    assert ("Alice", approx(1510.0), 1) in table(cli, "--as-of", "2025-12-30")


def test_season_close_is_replayed_when_games_inside_it_change(cli: Cli) -> None:
    open_club(cli, PENALTY)
    cli.ok("player", "add", "Alice", "Bob", "Carol", "Dan", "Eve")
    record(cli, "2024-06-01", "Alice", "Bob", "a")
    record(cli, "2024-06-02", "Carol", "Dan", "a")
    in_season = record(cli, "2025-03-01", "Carol", "Eve", "a")
    cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    assert [p for p, r, _ in table(cli) if r == approx(1460.0)] == ["Alice"]
    # Carol's only 2025 game is voided: she turns out inactive and is penalised.
    cli.ok("void", in_season, "--reason", "not a ladder game")
    # Alice's 2025 game is recorded late: she turns out active and is not.
    # Alice (1510) beats Bob (1490): +9.4249887.
    record(cli, "2025-05-01", "Alice", "Bob", "a")
    assert table(cli) == [
        ("Alice", approx(1519.4249887221547), 2),
        ("Dan", approx(1490.0), 1),
        ("Bob", approx(1480.5750112778453), 2),
        ("Carol", approx(1460.0), 1),
    ]
    assert [h["kind"] for h in history(cli, "Alice")] == ["game", "game"]
    assert [(h["kind"], h["change"]) for h in history(cli, "Carol")] == [
        ("game", 10.0),
        ("season", -50.0),
    ]


def test_adjust_to_and_by_appear_in_history_with_reason(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Carol", "Dan")
    out = cli.ok("adjust", "Club", "Carol", "--to", "1600", "--date", "2025-01-01",
                 "--reason", "known strong player")  # fmt: skip
    assert re.fullmatch(r"Adjusted 'Carol' in 'Club' \(adjustment [0-9a-f]{8}\)\.\n", out)
    g = record(cli, "2025-01-05", "Carol", "Dan", "a")  # 1600 v 1500: +7.1987
    cli.ok("adjust", "Club", "Dan", "--shift", "-25", "--date", "2025-01-10",
           "--reason", "appeal lost")  # fmt: skip
    carol = history(cli, "Carol")
    assert [(h["date"], h["kind"], h["game"], h["before"], h["change"], h["after"],
             h["note"]) for h in carol] == [
        ("2025-01-01", "adjust", None, 1500.0, 100.0, 1600.0, "known strong player"),
        ("2025-01-05", "game", g, 1600.0, approx(7.198700003942287),
         approx(1607.1987000039423), ""),
    ]  # fmt: skip
    dan = history(cli, "Dan")
    assert [(h["kind"], h["change"], h["after"], h["note"]) for h in dan] == [
        ("game", approx(-7.198700003942287), approx(1492.8012999960577), ""),
        ("adjust", -25.0, approx(1467.8012999960577), "appeal lost"),
    ]
    assert table(cli) == [("Carol", approx(1607.1987000039423), 1),
                          ("Dan", approx(1467.8012999960577), 1)]  # fmt: skip
    adjusted = [a for a in cli.json("audit") if a["kind"] == "rating adjusted"]
    assert [(a["summary"], a["reason"]) for a in adjusted] == [
        ("rating of 'Carol' set to 1600 from 2025-01-01", "known strong player"),
        ("rating of 'Dan' shifted by -25 from 2025-01-10", "appeal lost"),
    ]


# -- queries ------------------------------------------------------------------------
def test_standings_as_of_a_date(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob", "Carol")
    record(cli, "2025-01-05", "Alice", "Bob", "a")
    record(cli, "2025-01-10", "Bob", "Carol", "a")  # 1490 v 1500
    record(cli, "2025-01-20", "Carol", "Alice", "a")  # 1490.29 v 1510
    assert table(cli, "--as-of", "2025-01-04") == []
    assert table(cli, "--as-of", "2025-01-05") == [("Alice", approx(1510.0), 1),
                                                   ("Bob", approx(1490.0), 1)]  # fmt: skip
    assert table(cli, "--as-of", "2025-01-19") == [
        ("Alice", approx(1510.0), 1),
        ("Bob", approx(1500.28774368332), 2),
        ("Carol", approx(1489.71225631668), 1),
    ]
    rows = cli.json("standings", "Club", "--as-of", "2025-01-19")
    assert [(r["rank"], r["last_played"]) for r in rows] == [
        (1, "2025-01-05"),
        (2, "2025-01-10"),
        (3, "2025-01-10"),
    ]
    assert cli.json("standings", "Club", "--as-of", "2025-12-31") == cli.json("standings", "Club")


def test_history_lists_every_field(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob", "Carol")
    g = record(cli, "2025-01-05", "Alice", "Bob;Carol", "b", "--event", "Open", "--round", "3")
    rows = history(cli, "Alice")
    assert rows == [
        {
            "date": "2025-01-05", "kind": "game", "game": g, "event": "Open", "round": 3,
            "opponents": "Bob, Carol", "s": 0.0, "p": 0.5, "k": 20.0, "before": 1500.0,
            "after": 1490.0, "change": -10.0, "note": "", "table": None, "result": "lost",
            "margin": None,
        }
    ]  # fmt: skip
    text = cli.ok("history", "Club", "Alice")
    header = next(line for line in text.splitlines() if "date" in line)
    for column in ("date", "event", "round", "opponents", "s", "p", "k", "before", "after",
                   "change"):  # fmt: skip
        assert re.search(rf"\b{column}\b", header), column
    assert "Bob, Carol" in text
    assert "Open" in text


def test_explain_shows_each_players_values(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob", "Carol", "Dan")
    record(cli, "2025-01-05", "Alice", "Bob", "a")
    g = record(cli, "2025-01-06", "Alice;Carol", "Bob;Dan", "draw", "--event", "Cup",
               "--round", "1")  # fmt: skip
    x = cli.json("explain", g)
    assert (x["game"], x["ladder"], x["date"], x["event"], x["round"], x["status"]) == (
        g,
        "Club",
        "2025-01-06",
        "Cup",
        1,
        "recorded",
    )
    assert x["family"] == "elo"
    assert x["params"]["k"] == 20
    assert x["result"]["result"] == "draw"
    assert [(p["player"], p["side"]) for p in x["players"]] == [
        ("Alice", "A"), ("Carol", "A"), ("Bob", "B"), ("Dan", "B"),
    ]  # fmt: skip
    alice = x["players"][0]
    assert alice["before"] == 1510.0
    assert alice["change"] == approx(-0.28774368331997424)
    v = alice["values"]
    assert v["P"] == approx(0.5143871841659987)
    assert v["S"] == 0.5
    assert v["K"] == 20.0
    assert v["rating before"] == 1510.0
    assert v["games played"] == 1
    assert v["side rating"] == 1505.0
    assert v["opponent side rating"] == 1495.0
    assert v["change"] == approx(-0.28774368331997424)
    dan = x["players"][3]["values"]
    assert (dan["P"], dan["S"], dan["K"], dan["games played"]) == (
        approx(0.4856128158340013),
        0.5,
        20.0,
        0,
    )
    text = cli.ok("explain", g)
    assert f"Game {g} in Club: 2025-01-06, Cup round 1 [recorded]" in text
    assert "Alice (side A): 1510 -> 1509.71 (-0.287744)" in text


def test_audit_log(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    g = record(cli, "2025-01-05", "Alice", "Bob", "a")
    cli.ok("correct", g, "--result", "draw", "--reason", "misread")
    cli.ok("adjust", "Club", "Bob", "--shift", "5", "--date", "2025-01-06", "--reason", "bonus")
    cli.ok("ladder", "rules", "Club", "--set", "k=30", "--effective", "2025-02-01",
           "--reason", "more movement")  # fmt: skip
    cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    cli.ok("void", g, "--reason", "wrong ladder")
    rows = cli.json("audit")
    assert [r["seq"] for r in rows] == list(range(1, cli.event_count() + 1))
    assert {r["by"] for r in rows} == {"tester"}
    for r in rows:
        assert datetime.fromisoformat(r["recorded_at"]).tzinfo is not None
    assert [(r["kind"], r["reason"]) for r in rows] == [
        ("ladder opened", None),
        ("ruleset adopted", None),
        ("player registered", None),
        ("player registered", None),
        ("game recorded", None),
        ("game corrected", "misread"),
        ("rating adjusted", "bonus"),
        ("ruleset adopted", "more movement"),
        ("season closed", None),
        ("game voided", "wrong ladder"),
    ]
    stamps = [r["recorded_at"] for r in rows]
    assert stamps == sorted(stamps)
    assert rows[4]["summary"] == f"game {g}: 2025-01-05: Alice vs Bob (result=a)"
    assert rows[8]["summary"] == "season 2025 closed (2025-01-01 to 2025-12-31)"
    assert rows[2]["summary"] == "player 'Alice' registered"
    # A ladder's audit leaves out events of no ladder (player registrations).
    club = cli.json("audit", "Club")
    assert [r["seq"] for r in club] == [1, 2, 5, 6, 7, 8, 9, 10]
    assert {r["ladder"] for r in club} == {"Club"}
    text = cli.ok("audit", "Club")
    assert "tester" in text and "wrong ladder" in text


def _snapshot(cli: Cli, players: list[str]) -> dict[str, object]:
    return {
        "standings": cli.json("standings", "Club"),
        "as_of": cli.json("standings", "Club", "--as-of", "2025-01-31"),
        "histories": {p: cli.json("history", "Club", p) for p in players},
        "audit": cli.json("audit"),
        "ladder": cli.json("ladder", "show", "Club"),
        "players": cli.json("player", "list"),
    }


def test_rebuild_gives_identical_views(cli: Cli) -> None:
    open_club(cli, PENALTY)
    cli.ok("player", "add", "Alice", "Bob", "Carol", "Dan", "Al")
    g1 = record(cli, "2024-12-01", "Alice", "Bob", "a")
    record(cli, "2025-01-05", "Carol", "Dan", "b")
    record(cli, "2025-01-06", "Al", "Carol", "a")
    g4 = record(cli, "2025-01-07", "Alice;Bob", "Carol;Dan", "draw", "--event", "Cup",
                "--round", "1")  # fmt: skip
    record(cli, "2024-11-01", "Dan", "Bob", "a")  # late
    cli.ok("correct", g1, "--result", "b", "--reason", "typo")
    cli.ok("void", g4, "--reason", "unfinished")
    cli.ok("adjust", "Club", "Carol", "--shift", "12.5", "--date", "2025-01-06", "--reason", "x")
    cli.ok("ladder", "rules", "Club", "--set", "k=24", "--effective", "2025-01-06",
           "--reason", "tweak")  # fmt: skip
    cli.ok("player", "merge", "Al", "Alice", "--reason", "same")
    cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    players = ["Alice", "Bob", "Carol", "Dan"]
    before = _snapshot(cli, players)
    assert len(before["standings"]) == 4
    assert cli.ok("rebuild") == f"Rebuilt the views from {cli.event_count()} events.\n"
    assert _snapshot(cli, players) == before


@pytest.mark.parametrize("views", ["of an older version", "behind the events"])
def test_rebuild_projects_every_event_once(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, views: str
) -> None:
    """A rebuild reads the views as they are stored: it never catches them
    up (or upgrades them) first, which would project every event twice."""
    from projections.views import runner

    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    record(cli, "2025-01-05", "Alice", "Bob", "a")
    if views == "of an older version":
        cli.sql("UPDATE view_version SET version = version - 1")
    else:  # appended, the views not told
        from ledger.write.application import LedgerApplication
        from ledger.write.commands import Commands
        from ledger.write.storage import resolve

        app = LedgerApplication(env=resolve(cli.db, cli.schema).app_env())
        try:
            Commands(app, "referee").add_players(["Late Comer"])
        finally:
            app.close()
    applied: list[int] = []
    project = runner._project

    def counted(*args: object, **kwargs: object) -> runner.CatchUp:
        report = project(*args, **kwargs)  # type: ignore[arg-type]
        applied.append(report.applied)
        return report

    monkeypatch.setattr(runner, "_project", counted)
    assert cli.ok("rebuild") == f"Rebuilt the views from {cli.event_count()} events.\n"
    assert applied == [cli.event_count()]


# -- output formats ----------------------------------------------------------------
def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_query_formats_json_csv_and_table(cli: Cli) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    g = record(cli, "2025-01-05", "Alice", "Bob", "a")
    text = cli.ok("standings", "Club", "--format", "csv")
    assert text.splitlines()[0] == "rank,player,rating,grade,games,last_played"
    assert _csv(text) == [
        {"rank": "1", "player": "Alice", "rating": "1510", "grade": "", "games": "1",
         "last_played": "2025-01-05"},
        {"rank": "2", "player": "Bob", "rating": "1490", "grade": "", "games": "1",
         "last_played": "2025-01-05"},
    ]  # fmt: skip
    hist = _csv(cli.ok("history", "Club", "Bob", "--format", "csv"))
    assert [(h["game"], h["opponents"], h["s"], h["p"], h["k"], h["change"]) for h in hist] == [
        (g, "Alice", "0", "0.5", "20", "-10")
    ]
    for args in (("audit",), ("player", "list"), ("ladder", "list"), ("history", "Club", "Alice")):
        as_json = cli.json(*args)
        as_csv = _csv(cli.ok(*args, "--format", "csv"))
        assert len(as_csv) == len(as_json) > 0, args
        assert list(as_csv[0]) == list(as_json[0]), args
    players = _csv(cli.ok("player", "list", "--format", "csv"))
    assert [p["name"] for p in players] == ["Alice", "Bob"]
    shown = cli.ok("standings", "Club", "--format", "table")
    assert shown == cli.ok("standings", "Club")  # table is the default
    lines = shown.splitlines()  # piped: plain aligned columns
    assert lines[0] == "Club"
    assert lines[1].split() == ["rank", "player", "rating", "grade", "games", "last", "played"]
    assert set(lines[2]) == {"-", " "}
    alice = next(line for line in lines if "Alice" in line)
    assert re.search(r"\b1\b.*Alice.*\b1510\b.*\b1\b.*2025-01-05", alice)
    assert "Bob" in next(line for line in lines if "1490" in line)


def test_empty_query_in_csv_still_has_its_header(cli: Cli) -> None:
    open_club(cli)
    assert cli.ok("standings", "Club", "--format", "csv") == (
        "rank,player,rating,grade,games,last_played\n"
    )
    assert cli.json("standings", "Club") == []


def test_csv_numbers_are_the_same_values_as_json(cli: Cli) -> None:
    """Regression: CSV rounded numbers (1509.71225631668 -> 1509.7123 or 1510)."""
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob", "Carol", "Dan")
    record(cli, "2025-01-05", "Alice", "Bob", "a")
    record(cli, "2025-01-06", "Alice;Carol", "Bob;Dan", "draw")
    as_json = cli.json("standings", "Club")
    as_csv = _csv(cli.ok("standings", "Club", "--format", "csv"))
    assert [float(r["rating"]) for r in as_csv] == [r["rating"] for r in as_json]
    hist_json = cli.json("history", "Club", "Alice")
    hist_csv = _csv(cli.ok("history", "Club", "Alice", "--format", "csv"))
    assert [float(r["p"]) for r in hist_csv] == [r["p"] for r in hist_json]


# -- determinism --------------------------------------------------------------------
DETERMINISM_PLAYERS = ["Alice", "Bob", "Carol", "Dan", "Eve", "Frank"]
DETERMINISM_FACTS: list[tuple[str, ...]] = [
    ("record", "Club", "--date", "2024-11-01", "--side", "Alice", "--side", "Bob",
     "--result", "a"),
    ("adjust", "Club", "Frank", "--to", "1580", "--date", "2025-01-03", "--reason", "elsewhere"),
    ("record", "Club", "--date", "2025-01-05", "--side", "Alice", "--side", "Bob",
     "--result", "a", "--table", "1"),
    ("record", "Club", "--date", "2025-01-05", "--side", "Carol", "--side", "Dan",
     "--result", "draw", "--table", "2"),
    ("record", "Club", "--date", "2025-01-05", "--side", "Eve", "--side", "Carol",
     "--result", "b", "--table", "3"),
    ("record", "Club", "--date", "2025-01-12", "--side", "Alice;Carol", "--side", "Bob;Dan",
     "--result", "b", "--event", "Cup", "--round", "1", "--table", "1"),
    ("record", "Club", "--date", "2025-01-12", "--side", "Eve", "--side", "Frank",
     "--result", "a", "--event", "Cup", "--round", "1", "--table", "2"),
    ("record", "Club", "--date", "2025-01-12", "--side", "Alice", "--side", "Eve",
     "--result", "draw", "--event", "Cup", "--round", "2"),
    ("season", "close", "Club", "Jan", "--from", "2025-01-20", "--to", "2025-01-31"),
    ("record", "Club", "--date", "2025-02-01", "--side", "Bob", "--side", "Frank",
     "--result", "a", "--table", "1"),
    ("record", "Club", "--date", "2025-02-01", "--side", "Dan", "--side", "Eve",
     "--result", "b", "--table", "2"),
]  # fmt: skip
# The order of play within a date is itself a fact: given here as table
# numbers (without them, games replay in the order entered).


def _ledger(make_cli: Callable[[str], Cli], name: str, facts: list[tuple[str, ...]]) -> Cli:
    led = make_cli(name)
    led.ok("ladder", "open", "Club", "--family", "elo", "--set", PENALTY)
    led.ok("player", "add", *DETERMINISM_PLAYERS)
    for args in facts:
        led.ok(*args)
    return led


def _views(led: Cli) -> dict[str, object]:
    return {
        "standings": led.json("standings", "Club"),
        "as_of": led.json("standings", "Club", "--as-of", "2025-01-12"),
        "histories": {p: led.json("history", "Club", p) for p in DETERMINISM_PLAYERS},
    }


def test_the_same_facts_in_any_recording_order_give_the_same_views(
    make_cli: Callable[[str], Cli],
) -> None:
    in_order = _ledger(make_cli, "in_order", DETERMINISM_FACTS)
    reversed_ = _ledger(make_cli, "reversed", list(reversed(DETERMINISM_FACTS)))
    shuffled = [DETERMINISM_FACTS[i] for i in (6, 2, 9, 0, 10, 4, 8, 1, 5, 3, 7)]
    assert sorted(shuffled) == sorted(DETERMINISM_FACTS)
    mixed = _ledger(make_cli, "mixed", shuffled)
    expected = _views(in_order)
    # Something happened: 6 rated players, a season penalty, distinct ratings.
    assert len(expected["standings"]) == 6
    assert len({r["rating"] for r in expected["standings"]}) == 6
    kinds = {h["kind"] for rows in expected["histories"].values() for h in rows}
    assert kinds == {"game", "adjust", "season"}
    assert _views(reversed_) == expected
    assert _views(mixed) == expected


def test_a_late_recorded_game_takes_effect_at_its_date(make_cli: Callable[[str], Cli]) -> None:
    late = make_cli("late")
    timely = make_cli("timely")
    for led in (late, timely):
        led.ok("ladder", "open", "Club", "--family", "elo")
        led.ok("player", "add", "Alice", "Bob", "Carol")
    g10 = record(late, "2025-01-10", "Bob", "Carol", "a")
    g20 = record(late, "2025-01-20", "Carol", "Alice", "a")
    g05 = record(late, "2025-01-05", "Alice", "Bob", "a")  # recorded last
    record(timely, "2025-01-05", "Alice", "Bob", "a")
    record(timely, "2025-01-10", "Bob", "Carol", "a")
    record(timely, "2025-01-20", "Carol", "Alice", "a")
    bob = history(late, "Bob")
    assert [(h["date"], h["game"]) for h in bob] == [("2025-01-05", g05), ("2025-01-10", g10)]
    # 01-05 Alice beats Bob (1510 / 1490); 01-10 Bob (1490) beats Carol (1500):
    # +10.2877437; 01-20 Carol (1489.71) beats Alice (1510): +10.5832654.
    assert bob[1]["before"] == approx(1490.0)
    assert bob[1]["after"] == approx(1500.28774368332)
    assert [h["game"] for h in history(late, "Alice")] == [g05, g20]
    assert _views_simple(late) == _views_simple(timely)
    assert table(late) == [
        ("Carol", approx(1500.2955217453048), 2),
        ("Bob", approx(1500.28774368332), 2),
        ("Alice", approx(1499.4167345713752), 2),
    ]


def _views_simple(led: Cli) -> dict[str, object]:
    return {
        "standings": led.json("standings", "Club"),
        "histories": {p: led.json("history", "Club", p) for p in ("Alice", "Bob", "Carol")},
    }


def test_late_games_around_closed_seasons_match_timely_recording(
    make_cli: Callable[[str], Cli],
) -> None:
    """Late games land after a season close (the replay restarts from the state
    the close left) and before one (the close is replayed)."""
    players = ["Alice", "Bob", "Carol", "Dan"]
    s2024 = ("season", "close", "Club", "2024", "--from", "2024-01-01", "--to", "2024-12-31")
    s2025 = ("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")

    def game(on: str, a: str, b: str, result: str) -> tuple[str, ...]:
        return ("record", "Club", "--date", on, "--side", a, "--side", b, "--result", result)

    timely_facts = [
        game("2023-05-01", "Alice", "Bob", "a"),
        game("2023-05-02", "Carol", "Dan", "a"),
        game("2024-03-01", "Carol", "Bob", "a"),
        s2024,
        game("2025-01-15", "Dan", "Alice", "b"),
        game("2025-02-01", "Bob", "Dan", "a"),
        game("2025-03-01", "Carol", "Bob", "draw"),
        s2025,
    ]
    # Late: the 2025-01-15 game after the later 2025 games (behind the 2024
    # close), then the 2024 game after the 2024 close was recorded.
    late_facts = [timely_facts[i] for i in (0, 1, 3, 5, 6, 4, 2, 7)]
    ledgers = []
    for name, facts in (("timely", timely_facts), ("late", late_facts)):
        led = make_cli(name)
        led.ok("ladder", "open", "Club", "--family", "elo", "--set", PENALTY)
        led.ok("player", "add", *players)
        for args in facts:
            led.ok(*args)
        ledgers.append(led)
    timely, late = ledgers
    expected = {
        "standings": timely.json("standings", "Club"),
        "histories": {p: timely.json("history", "Club", p) for p in players},
    }
    # 2024 close: Alice (1510, rated since 2023, idle in 2024) -50.
    alice = expected["histories"]["Alice"]
    assert [(h["date"], h["kind"], h["change"]) for h in alice][:2] == [
        ("2023-05-01", "game", 10.0),
        ("2024-12-31", "season", -50.0),
    ]
    late_views = {
        "standings": late.json("standings", "Club"),
        "histories": {p: late.json("history", "Club", p) for p in players},
    }
    assert late_views == expected
    late.ok("rebuild")
    assert late.json("standings", "Club") == expected["standings"]


def _columns(table: str) -> list[list[str]]:
    """The cells of a plain table (its title, its header, the dashes that
    give each column's width, its rows): the header's then each row's."""
    _title, header, dashes, *rows = table.splitlines()
    spans = [m.span() for m in re.finditer("-+", dashes)]
    return [[line[a:b].strip() for a, b in spans] for line in (header, *rows)]


def test_a_table_is_boxed_on_a_terminal_and_plain_when_piped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from projections import formats as output

    def table(terminal: bool) -> str:
        monkeypatch.setattr(output.sys.stdout, "isatty", lambda: terminal, raising=False)
        return "".join(output.table_lines(["rank", "last_played"], [["1", "2025-01-05"]], "T"))

    assert table(False) == "T\nrank  last played\n----  -----------\n1     2025-01-05\n"
    assert "".join(output.table_lines(["rank"], [], "")) == "rank\n----\n"  # no rows
    boxed = table(True)
    assert "┃ rank ┃ last played ┃" in boxed
    assert "│ 1    │ 2025-01-05  │" in boxed


@given(
    st.lists(
        st.one_of(
            st.none(),
            st.integers(-(10**20), 10**20),
            st.floats(allow_nan=False, allow_infinity=False),
            st.sampled_from([0.0, -0.0, 1500.0, 1512.30005, -0.00001, 2.5e-5]),
        )
    ),
    st.lists(st.one_of(st.none(), st.text())),
)
def test_a_column_is_shown_as_its_cells_would_be(
    numbers: list[float | int | None], texts: list[str | None]
) -> None:
    """A ranking or history formats whole columns at once: the same text as
    ``shown`` gives each cell."""
    from projections.formats import shown, shown_numbers, shown_texts

    assert shown_numbers(numbers) == [shown(v) for v in numbers]
    assert shown_texts(texts) == [shown(v) for v in texts]


def _views_of(cli: Cli) -> Database:
    """The views of ``cli``'s ledger, on its backend."""
    from projections.db import PostgresDatabase, SQLiteDatabase

    return PostgresDatabase(cli.db, cli.schema) if cli.schema else SQLiteDatabase(cli.db)


def _full_table(cli: Cli, ladder: str, lang: str = "en") -> str:
    """The ranking as ``projections.queries.standings`` gives it, rendered
    as a table (what ``standings`` printed before its plain read)."""
    from ledger.kernel.translation import translator
    from projections import queries
    from projections.formats import render

    conn = _views_of(cli)
    try:
        rows = queries.standings(conn, ladder, None, lang)
        return render(rows, "table", ladder, t=translator(lang)) + "\n"
    finally:
        conn.close()


@pytest.mark.conformance
@pytest.mark.parametrize("family", ["elo", "adlg"])
def test_the_ranking_table_is_the_full_querys(cli: Cli, family: str) -> None:
    """``standings`` as a table reads plain rows (no msgspec, the family
    only when it grades): the same text as the full query's, ties and grades
    included, whatever the case of the name typed."""
    cli.ok("ladder", "open", "Club", "--family", family)
    games = [("Alice", "Bob", "draw"), ("Carol", "Dan", "a"), ("Eve", "Carol", "b")]
    for day, (a, b, result) in enumerate(games, start=1):
        cli.ok("record", "Club", "--date", f"2025-01-0{day}", "--side", a, "--side", b,
               "--result", result, "--add-players")  # fmt: skip
    for lang in ("fr", "en"):
        shown = cli.ok("standings", "club", "--lang", lang)
        assert shown == _full_table(cli, "club", lang)
    header, *cells = _columns(shown)
    assert header == ["rank", "player", "rating", "grade", "games", "last played"]
    ranks = {row[1]: row[0] for row in cells}
    assert ranks["Alice"] == ranks["Bob"] != "1"  # a draw between equals: one rank, shared
    assert all(row[3] for row in cells) == (family == "adlg")  # adlg grades every player


def test_a_large_ranking_is_plain_columns_and_a_large_import_summarised(
    cli: Cli, tmp_path: Path
) -> None:
    """Past rich's cells, the ranking is plain aligned columns, the same as
    the full query's; the import line names the first ten new players and
    counts the rest (JSON keeps every name)."""
    open_club(cli)
    names = [f"Player {i:03d}" for i in range(180)]
    rows = [f"Club,2025-02-{1 + i % 28:02d},,,,{names[i]},{names[i + 90]},a" for i in range(90)]
    path = tmp_path / "big.csv"
    path.write_text("ladder,date,event,round,table,side_a,side_b,result\n" + "\n".join(rows))
    report = cli.json("import", str(path), "--dry-run")
    assert sorted(report["new_players"]) == names
    out = cli.ok("import", str(path))
    first = report["new_players"][:10]
    assert out == (
        f"{path}: 90 rows: added 90 games, skipped 0 already recorded, 180 new players: "
        f"{', '.join(first)} and 170 more.\n"
    )
    shown = cli.ok("standings", "Club")
    assert shown == _full_table(cli, "Club")
    lines = shown.splitlines()
    assert lines[:3] == [
        "Club",
        "rank  player      rating  grade  games  last played",
        "----  ----------  ------  -----  -----  -----------",
    ]
    assert len(lines) == 3 + 180
    assert re.fullmatch(r"1     Player \d{3}  1510\s+1      2025-02-\d\d", lines[3])


def _full_history(cli: Cli, ladder: str, player: str) -> str:
    """A player's history as ``projections.queries.history`` gives it,
    rendered as a table (what ``history`` printed before its plain read)."""
    from projections import queries
    from projections.formats import render

    conn = _views_of(cli)
    try:
        lines = queries.history(conn, ladder, player)
        who = queries.player_name(conn, queries.player_by_name(conn, player))
        title = f"{who} in {queries.ladder_row(conn, ladder)['name']}"
        return render(lines, "table", title) + "\n"
    finally:
        conn.close()


@pytest.mark.conformance
@pytest.mark.parametrize(
    ("family", "results"),
    [
        ("elo", [("--result", "a"), ("--result", "draw"), ("--result", "b")]),
        ("battle-empire", [("--result", "a", "--margin", "decisive"), ("--result", "draw"),
                           ("--result", "b", "--margin", "marginal")]),
        ("bga", [("--ranks", "1,2"), ("--ranks", "1,1"), ("--ranks", "2,1")]),
    ],
)  # fmt: skip
def test_the_history_table_is_the_full_querys(
    cli: Cli, family: str, results: list[tuple[str, ...]]
) -> None:
    """``history LADDER PLAYER`` as a table reads plain rows: the same text
    as the full query's, for games (won, lost, drew, margins, a result that
    names no winner), adjustments, season penalties and a merged name."""
    cli.ok("ladder", "open", "Club", "--family", family)
    for day, result in enumerate(results, start=1):
        cli.ok("record", "Club", "--date", f"2025-01-0{day}", "--side", "Al",
               "--side", "Bob", "--table", "3", *result, "--add-players")  # fmt: skip
    cli.ok("player", "add", "Alice")
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Alice", "--side", "Bob",
           *results[0])  # fmt: skip
    cli.ok("player", "merge", "Al", "Alice", "--reason", "same person")
    cli.ok("adjust", "Club", "Alice", "--shift", "-25", "--date", "2025-02-01", "--reason", "r")
    cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    for name in ("al", "Alice", "Bob"):
        shown = cli.ok("history", "Club", name)
        assert shown == _full_history(cli, "club", name), name
    assert shown.splitlines()[0].strip() == "Bob in Club"
    assert ("won" in shown and "lost" in shown) == (family != "bga")
    assert "adjust" in cli.ok("history", "Club", "al")
