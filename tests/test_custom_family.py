"""The README's worked example: a community's own family, loaded by path."""

from tests.conftest import Cli

FAMILY = "tests.example_family:PointsShareElo"


def test_custom_family_rates_by_points_and_regresses(cli: Cli) -> None:
    cli.ok("ladder", "open", "Skirmish", "--family", FAMILY, "--set", "home_advantage=0")
    cli.ok("player", "add", "Ann", "Ben")
    cli.ok("record", "Skirmish", "--date", "2025-05-01", "--side", "Ann", "--side", "Ben",
           "--field", "points_a=15", "--field", "points_b=5")  # fmt: skip
    # Equal ratings: P = 0.5; S = 15/20 = 0.75 -> 32 x 0.25 = +8.
    rows = {r["player"]: r["rating"] for r in cli.json("standings", "Skirmish")}
    assert rows == {"Ann": 1508.0, "Ben": 1492.0}
    cli.ok("season", "close", "Skirmish", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    rows = {r["player"]: r["rating"] for r in cli.json("standings", "Skirmish")}
    assert rows == {"Ann": 1508.0 - 0.8, "Ben": 1492.0 + 0.8}
    show = cli.json("ladder", "show", "Skirmish")
    assert show["family"] == FAMILY
    assert show["params"]["regression"] == 0.1


def test_custom_family_home_advantage_and_neutral(cli: Cli) -> None:
    cli.ok("ladder", "open", "Skirmish", "--family", FAMILY)
    cli.ok("player", "add", "Ann", "Ben", "Cid", "Dee")
    cli.ok("record", "Skirmish", "--date", "2025-05-01", "--side", "Ann", "--side", "Ben",
           "--field", "points_a=10", "--field", "points_b=10")  # fmt: skip
    cli.ok("record", "Skirmish", "--date", "2025-05-01", "--side", "Cid", "--side", "Dee",
           "--field", "points_a=10", "--field", "points_b=10", "--neutral")  # fmt: skip
    rows = {r["player"]: r["rating"] for r in cli.json("standings", "Skirmish")}
    # Home side expected 1/(1+10^(-50/400)) = 0.5719: a drawn share costs it.
    assert round(rows["Ann"], 2) == round(1500 + 32 * (0.5 - 1 / (1 + 10 ** (-50 / 400))), 2)
    assert rows["Ann"] < 1500 < rows["Ben"]
    assert rows["Cid"] == rows["Dee"] == 1500.0


def test_unknown_custom_family_is_refused(cli: Cli) -> None:
    out = cli.fails("ladder", "open", "X", "--family", "tests.example_family:Nope")
    assert "cannot load family" in out
    out = cli.fails("ladder", "open", "X", "--family", "tests.conftest:Cli")
    assert "not a rating family" in out
    assert cli.event_count() == 0
