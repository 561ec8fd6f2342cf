"""The ``glicko2`` family through the command line: Glickman's worked example
("Example of the Glicko-2 system"), rating periods, inactivity and the
explanation of every intermediate value."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.families.test_seed_cli import explained, history, record, standing

SEED_DAY = "2025-01-01"


def glickman_ladder(cli: Cli, *sets: str) -> None:
    """The paper's four players: the hero a newcomer at 1500/200/0.06, the
    opponents set by adjustments (rating, RD) on the day before."""
    cli.ok("ladder", "open", "G2", "--family", "glicko2", "--set", "tau=0.5",
           "--set", "initial_rd=200", "--set", "period=month", *sets)  # fmt: skip
    cli.ok("player", "add", "Hero", "P1400", "P1550", "P1700")
    for name, rating, rd in (("P1400", 1400, 30), ("P1550", 1550, 100), ("P1700", 1700, 300)):
        cli.ok("adjust", "G2", name, "--to", str(rating), "--state", f"rd={rd}",
               "--date", SEED_DAY, "--reason", "Glickman's example")  # fmt: skip


def test_glickmans_worked_example(cli: Cli) -> None:
    glickman_ladder(cli)
    record(cli, "G2", "2025-01-05", "Hero", "P1400", result="a")
    record(cli, "G2", "2025-01-12", "Hero", "P1550", result="b")
    record(cli, "G2", "2025-01-19", "Hero", "P1700", result="b")
    hero = standing(cli, "G2", "Hero")
    assert hero["rating"] == pytest.approx(1464.05, abs=0.01)
    assert hero["deviation"] == pytest.approx(151.52, abs=0.01)
    assert hero["state"]["volatility"] == pytest.approx(0.05999, abs=0.01)
    assert hero["state"]["volatility"] == pytest.approx(0.059996, abs=1e-6)
    # Each game's row: E (the paper's table) and the actual score.
    rows = [r for r in history(cli, "G2", "Hero") if r["kind"] == "game"]
    assert [r["s"] for r in rows] == [1.0, 0.0, 0.0]
    assert [round(r["p"], 3) for r in rows] == [0.639, 0.432, 0.303]
    assert sum(r["change"] for r in rows) == pytest.approx(1464.05 - 1500, abs=0.01)

    x = explained(cli, rows[2]["game"])["Hero"]["values"]
    for name in ("g(φj)", "E", "v", "Δ", "new σ (σ′)", "φ*", "φ′", "μ′"):
        assert name in x, name
    # The paper's values over the whole period (its step 3 to 7).
    assert x["v"] == pytest.approx(1.7785, abs=1e-3)
    assert x["Δ"] == pytest.approx(-0.4834, abs=1e-3)
    assert x["φ′"] == pytest.approx(0.8722, abs=1e-4)
    assert x["μ′"] == pytest.approx(-0.2069, abs=1e-4)
    assert x["g(φj)"] == pytest.approx(0.7242, abs=1e-4)
    assert x["rating after"] == pytest.approx(1464.05, abs=0.01)


def test_a_period_per_game_rates_each_game_alone(cli: Cli) -> None:
    """Per-game periods: the second game starts from the first's result
    (not from the period's start), so the example ends elsewhere."""
    cli.ok("ladder", "open", "G1", "--family", "glicko2", "--set", "period=game",
           "--set", "initial_rd=200", "--set", "ageing=none")  # fmt: skip
    cli.ok("player", "add", "Hero", "Opp")
    cli.ok("adjust", "G1", "Opp", "--to", "1400", "--state", "rd=30", "--date", SEED_DAY,
           "--reason", "seed")  # fmt: skip
    record(cli, "G1", "2025-01-05", "Hero", "Opp", result="a")
    first = standing(cli, "G1", "Hero")
    record(cli, "G1", "2025-01-06", "Hero", "Opp", result="a")
    second = standing(cli, "G1", "Hero")
    assert second["rating"] > first["rating"]
    assert second["deviation"] < first["deviation"]


def test_rd_grows_for_each_month_sat_out(cli: Cli) -> None:
    """Months away make RD grow (√(φ² + σ²) per month, capped at max_rd);
    a player who keeps playing has a smaller RD after the same game."""
    cli.ok("ladder", "open", "GM", "--family", "glicko2", "--set", "period=month")
    cli.ok("player", "add", "Away", "Here", "Opp")
    record(cli, "GM", "2025-01-05", "Away", "Opp", result="a")
    record(cli, "GM", "2025-01-05", "Here", "Opp", result="b")
    before = standing(cli, "GM", "Away")["deviation"]
    for month in range(2, 8):
        record(cli, "GM", f"2025-{month:02d}-05", "Here", "Opp", result="draw")
    game = record(cli, "GM", "2025-08-05", "Away", "Here", result="draw")
    rows = [r for r in history(cli, "GM", "Away") if r["kind"] == "game"]
    x = explained(cli, rows[-1]["game"])["Away"]["values"]
    assert x["periods sat out (RD grown)"] == 6
    sigma = x["σ"]
    grown = math.sqrt((before / 173.7178) ** 2 + 6 * sigma**2) * 173.7178
    assert x["RD at the period's start"] == pytest.approx(grown)
    assert standing(cli, "GM", "Away")["deviation"] > standing(cli, "GM", "Here")["deviation"]
    assert game


def test_a_season_close_changes_nothing(cli: Cli) -> None:
    cli.ok("ladder", "open", "GS", "--family", "glicko2")
    cli.ok("player", "add", "A", "B")
    record(cli, "GS", "2025-01-05", "A", "B", result="a")
    before = cli.json("standings", "GS")
    cli.ok("season", "close", "GS", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    assert cli.json("standings", "GS") == before


def test_state_adjustment_names_the_familys_values(cli: Cli) -> None:
    cli.ok("ladder", "open", "GE", "--family", "glicko2")
    cli.ok("ladder", "open", "EE", "--family", "elo")
    cli.ok("player", "add", "A")
    out = cli.fails("adjust", "GE", "A", "--state", "sigma=3", "--date", SEED_DAY,
                    "--reason", "x")  # fmt: skip
    assert "no state value 'sigma'" in out and "rd, volatility" in out
    out = cli.fails("adjust", "EE", "A", "--state", "rd=3", "--date", SEED_DAY, "--reason", "x")
    assert "elo family has no state value 'rd'" in out
    out = cli.fails("adjust", "GE", "A", "--state", "rd=x", "--date", SEED_DAY, "--reason", "x")
    assert "not a number" in out


def test_ranking_shows_deviation_provisional_and_a_conservative_order(cli: Cli) -> None:
    """Standings give rating ± RD and mark ratings whose RD is above the
    ladder's threshold; ``order=conservative`` ranks by rating − 2 RD."""
    cli.ok("ladder", "open", "GC", "--family", "glicko2", "--set", "period=game",
           "--set", "order=conservative", "--set", "provisional_rd=120")  # fmt: skip
    cli.ok("player", "add", "Steady", "Lucky", "Opp")
    cli.ok("adjust", "GC", "Steady", "--to", "1600", "--state", "rd=40", "--date", SEED_DAY,
           "--reason", "seed")  # fmt: skip
    cli.ok("adjust", "GC", "Opp", "--to", "1500", "--state", "rd=40", "--date", SEED_DAY,
           "--reason", "seed")  # fmt: skip
    record(cli, "GC", "2025-01-05", "Lucky", "Opp", result="a")
    rows = cli.json("standings", "GC")
    by_name = {r["player"]: r for r in rows}
    lucky, steady = by_name["Lucky"], by_name["Steady"]
    assert lucky["rating"] > steady["rating"]  # a newcomer's win: a big gain...
    assert lucky["provisional"] is True and steady["provisional"] is False
    assert lucky["rating"] - 2 * lucky["deviation"] < steady["rating"] - 2 * steady["deviation"]
    assert [r["player"] for r in rows][0] == "Steady"  # ...ranked below the steady player
    table = cli.ok("standings", "GC")
    assert "deviation" in table and "provisional" in table
    csv = cli.ok("standings", "GC", "--format", "csv")
    assert csv.splitlines()[0].startswith("rank,player,rating,grade,games,last_played,deviation")


def test_export_gives_each_change_the_state_after_it(cli: Cli, tmp_path: Path) -> None:
    glickman_ladder(cli)
    record(cli, "G2", "2025-01-05", "Hero", "P1400", result="a")
    out = tmp_path / "out"
    cli.ok("export", "G2", "--format", "csv", "--output", str(out))
    with (out / "changes.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    hero = [r for r in rows if r["player"] == "Hero" and r["kind"] == "game"]
    assert float(hero[0]["state_rd"]) == pytest.approx(standing(cli, "G2", "Hero")["deviation"])
    assert "state_volatility" in rows[0]


def test_standings_as_of_a_date_give_the_deviation_then(cli: Cli) -> None:
    """Time travel reads each player's state from their history rows."""
    glickman_ladder(cli)
    record(cli, "G2", "2025-01-05", "Hero", "P1400", result="a")
    then = standing(cli, "G2", "Hero")
    record(cli, "G2", "2025-02-12", "Hero", "P1550", result="b")
    rows = cli.json("standings", "G2", "--as-of", "2025-01-31")
    assert isinstance(rows, list)
    (past,) = [r for r in rows if r["player"] == "Hero"]
    assert past["deviation"] == pytest.approx(then["deviation"])
    assert past["state"] == then["state"]
    assert standing(cli, "G2", "Hero")["deviation"] != then["deviation"]
