"""Issue 27: ``ledger evaluate`` on the fixture ladders, against an
independent computation from ``ledger history``; other rules through
``--set`` and ``--family``; ``--as-known-at``; a family of one's own."""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.conftest import Cli

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
#: The fixture ladders as ``fixtures/demo.sh`` opens them.
LADDERS = {
    "Chess Club": ("elo-chess-club.csv", ["--family", "elo", "--set", "k=24",
                                          "--set", "home_advantage=20"]),
    "BGA Carcassonne": ("bga-carcassonne-2025.csv", ["--family", "bga",
                                                     "--set", "advised_players=5"]),
    "AdlG Championship": ("adlg-2025.csv", ["--family", "adlg"]),
    "BattleTech League": ("battletech-2025.csv", ["--family", "battletech"]),
}  # fmt: skip


def load(cli: Cli, ladder: str) -> None:
    sheet, options = LADDERS[ladder]
    cli.ok("ladder", "open", ladder, *options)
    cli.ok("import", str(FIXTURES / sheet))


def deviance(p: float, o: float) -> float:
    p = min(0.99, max(0.01, p))
    return -(o * math.log10(p) + (1 - o) * math.log10(1 - p))


def by_game(cli: Cli, ladder: str) -> dict[str, list[dict]]:
    games: dict[str, list[dict]] = defaultdict(list)
    for row in cli.json("history", ladder):
        if row["kind"] == "game":
            games[row["game"]].append(row)
    return games


def by_rules(report: dict) -> dict[str, dict]:
    return {line["rules"]: line for line in report["lines"]}


@pytest.mark.parametrize("ladder", ["Chess Club", "AdlG Championship"])
def test_two_sided_ladders_match_a_computation_from_the_history(cli: Cli, ladder: str) -> None:
    load(cli, ladder)
    losses, squares = [], []
    for rows in by_game(cli, ladder).values():
        first, second = rows  # one player a side: either side's view scores alike
        o = 1.0 if first["s"] > second["s"] else 0.5 if first["s"] == second["s"] else 0.0
        losses.append(deviance(first["p"], o))
        squares.append((first["p"] - o) ** 2)
    lines = by_rules(cli.json("evaluate", ladder))
    ours = lines["rules in force"]
    assert ours["games"] == ours["comparisons"] == len(losses)
    assert ours["log_loss"] == pytest.approx(sum(losses) / len(losses), abs=1e-12)
    assert ours["brier"] == pytest.approx(sum(squares) / len(squares), abs=1e-12)
    assert lines["always ½"]["log_loss"] == pytest.approx(math.log10(2))


def test_the_first_player_baseline_is_the_home_advantage_alone(cli: Cli) -> None:
    load(cli, "Chess Club")
    home = 1 / (1 + 10 ** (-20 / 400))
    with (FIXTURES / "elo-chess-club.csv").open(encoding="utf-8") as sheet:
        sheet_rows = list(csv.DictReader(sheet))
    first = {(r["date"], r["side_a"]): r["neutral"] == "yes" for r in sheet_rows}
    losses = []
    for rows in by_game(cli, "Chess Club").values():
        a, b = sorted(rows, key=lambda r: (r["date"], r["player"]) not in first)  # side A first
        o = 1.0 if a["s"] > b["s"] else 0.5 if a["s"] == b["s"] else 0.0
        losses.append(deviance(0.5 if first[a["date"], a["player"]] else home, o))
    assert len(losses) == len(sheet_rows) and any(first.values())  # neutral games: ½
    want = sum(losses) / len(losses)
    lines = by_rules(cli.json("evaluate", "Chess Club"))
    assert lines["first-player advantage alone"]["log_loss"] == pytest.approx(want, abs=1e-12)
    # A family with no first-player advantage gets no such line.
    load(cli, "AdlG Championship")
    assert "first-player advantage alone" not in by_rules(cli.json("evaluate", "AdlG Championship"))


def test_a_multiplayer_game_counts_every_pair_of_players(cli: Cli) -> None:
    load(cli, "BGA Carcassonne")
    losses = []
    games = 0
    for rows in by_game(cli, "BGA Carcassonne").values():
        if any(r["note"] for r in rows):  # someone quit: not rated for the others
            continue
        games += 1
        for i, a in enumerate(rows):
            for b in rows[i + 1 :]:
                diff = max(-600, min(600, b["before"] - a["before"]))
                p = 1 / (1 + 10 ** (diff / 400))
                o = 1.0 if a["s"] > b["s"] else 0.5 if a["s"] == b["s"] else 0.0
                losses.append(deviance(p, o))
    ours = by_rules(cli.json("evaluate", "BGA Carcassonne"))["rules in force"]
    assert (ours["games"], ours["comparisons"]) == (games, len(losses))
    assert ours["log_loss"] == pytest.approx(sum(losses) / len(losses), abs=1e-12)


def test_battletech_is_scored_on_the_rating_curve_not_on_battle_value(cli: Cli) -> None:
    load(cli, "BattleTech League")
    losses = []
    for rows in by_game(cli, "BattleTech League").values():
        sides = defaultdict(list)  # a side's players share its S and E
        for row in rows:
            sides[row["s"], row["p"]].append(row["before"])
        (s_a, a), (s_b, b) = ((s, sum(v) / len(v)) for (s, _), v in sides.items())
        p = 1 / (1 + 10 ** ((b - a) / 400))
        o = 1.0 if s_a > s_b else 0.5 if s_a == s_b else 0.0
        losses.append(deviance(p, o))
    report = cli.json("evaluate", "BattleTech League")
    assert by_rules(report)["rules in force"]["log_loss"] == pytest.approx(
        sum(losses) / len(losses), abs=1e-12
    )
    assert all(0 <= r["predicted"] <= 1 for r in report["calibration"] if r["count"])


def test_the_window_and_the_calibration(cli: Cli) -> None:
    load(cli, "Chess Club")
    spring = [g for g in by_game(cli, "Chess Club").values() if g[0]["date"] >= "2025-03-01"]
    report = cli.json("evaluate", "Chess Club", "--from", "2025-03-01", "--to", "2099-01-01")
    ours = by_rules(report)["rules in force"]
    assert ours["games"] == len(spring) > 0
    table = [r for r in report["calibration"] if r["rules"] == "rules in force"]
    assert len(table) == 10 and sum(r["count"] for r in table) == len(spring)


def test_other_rules_side_by_side_and_nothing_recorded(cli: Cli) -> None:
    load(cli, "Chess Club")
    before = cli.event_count()
    lines = by_rules(cli.json("evaluate", "Chess Club", "--set", "k=40"))
    assert list(lines) == ["rules in force", "k=40", "always ½", "first-player advantage alone"]
    assert lines["k=40"]["log_loss"] != lines["rules in force"]["log_loss"]
    # The same rules as a recorded rule change: the same measures.
    cli.ok("ladder", "rules", "Chess Club", "--set", "k=40", "--effective", "2025-01-01",
           "--reason", "test")  # fmt: skip
    assert before + 1 == cli.event_count()
    after = by_rules(cli.json("evaluate", "Chess Club"))["rules in force"]
    assert after["log_loss"] == pytest.approx(lines["k=40"]["log_loss"], abs=1e-15)
    other = by_rules(cli.json("evaluate", "Chess Club", "--family", "adlg"))
    assert "adlg" in other and other["adlg"]["comparisons"] == after["comparisons"]


def test_as_known_at_scores_the_ledger_as_it_stood(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob")
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Bob",
           "--result", "a")  # fmt: skip
    moment = datetime.now(UTC).isoformat()
    cli.ok("record", "Club", "--date", "2025-01-06", "--side", "Ann", "--side", "Bob",
           "--result", "b")  # fmt: skip
    now = by_rules(cli.json("evaluate", "Club"))["rules in force"]
    then = by_rules(cli.json("evaluate", "Club", "--as-known-at", moment))["rules in force"]
    assert (now["games"], then["games"]) == (2, 1)
    assert then["log_loss"] == pytest.approx(math.log10(2))  # equal ratings: P = ½


def test_a_family_of_ones_own_is_scored_with_no_special_code(cli: Cli) -> None:
    cli.ok("ladder", "open", "Skirmish", "--family", "tests.example_family:PointsShareElo",
           "--set", "home_advantage=0")  # fmt: skip
    cli.ok("player", "add", "Ann", "Ben")
    for day, (a, b) in enumerate([(15, 5), (8, 12), (10, 10)], start=1):
        cli.ok("record", "Skirmish", "--date", f"2025-05-0{day}", "--side", "Ann", "--side",
               "Ben", "--field", f"points_a={a}", "--field", f"points_b={b}")  # fmt: skip
    # Game 1: P ½, Ann won. Game 2: Ann +8 (P = ½, S = .75): 1508 v 1492, Ann lost.
    p2 = 1 / (1 + 10 ** (-16 / 400))
    want = [deviance(0.5, 1), deviance(p2, 0)]
    report = cli.json("evaluate", "Skirmish", "--to", "2025-05-02")
    ours = by_rules(report)["rules in force"]
    assert ours["log_loss"] == pytest.approx(sum(want) / 2, abs=1e-12)
    assert "k=16" in by_rules(cli.json("evaluate", "Skirmish", "--set", "k=16"))


def test_bad_input_is_refused_naming_what_is_wrong(cli: Cli) -> None:
    load(cli, "Chess Club")
    before = cli.event_count()
    assert "unknown parameter 'kk'" in cli.fails("evaluate", "Chess Club", "--set", "kk=3")
    assert "unknown ladder 'Chess Clob'" in cli.fails("evaluate", "Chess Clob")
    assert cli.event_count() == before


def test_a_multiplayer_family_of_ones_own_counts_pairs_by_the_default_curve(cli: Cli) -> None:
    """No family code for pairs: the default ``pairwise_expected`` (the Elo
    curve on side means, divisor 400) scores every pair of a game."""
    cli.ok("ladder", "open", "Meeples", "--family", "tests.evidence.placing_family:Placing")
    cli.ok("player", "add", "Ann", "Bob", "Cid")
    for day, places in ((1, "1,2,3"), (2, "3,1,2")):
        cli.ok("record", "Meeples", "--date", f"2025-05-0{day}", "--side", "Ann", "--side",
               "Bob", "--side", "Cid", "--field", f"places={places}")  # fmt: skip
    # Game 1 at 1500 each: three pairs at ½, Ann > Bob > Cid. Then Ann +20, Bob 0, Cid -20.
    losses = [deviance(0.5, 1)] * 3

    def elo(a: float, b: float) -> float:
        return 1 / (1 + 10 ** ((b - a) / 400))

    # Game 2, places 3,1,2: Ann < Bob, Ann < Cid, Bob > Cid.
    losses += [deviance(elo(1520, 1500), 0), deviance(elo(1520, 1480), 0),
               deviance(elo(1500, 1480), 1)]  # fmt: skip
    ours = by_rules(cli.json("evaluate", "Meeples"))["rules in force"]
    assert (ours["games"], ours["comparisons"]) == (2, 6)
    assert ours["log_loss"] == pytest.approx(sum(losses) / 6, abs=1e-12)
    tuned = cli.json("tune", "Meeples", "--vary", "k=20:60:20")
    assert tuned["at_once"] is False and len(tuned["grid"]) == 3


def test_a_ladder_with_no_game_says_so(cli: Cli) -> None:
    cli.ok("ladder", "open", "Empty", "--family", "elo")
    assert cli.ok("evaluate", "Empty") == "No rated game to score in Empty: predictions.\n"
    assert "no rated game of 'Empty' to score yet" in cli.fails(
        "tune", "Empty", "--vary", "k=8:16:8"
    )
