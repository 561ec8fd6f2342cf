"""Issue 27: ``ledger tune``: its best grid point is the best of separate
``evaluate --set`` replays; its bootstrap is deterministic for a seed; the
command it prints adopts the point; a family of one's own tunes too."""

from __future__ import annotations

import random
import shlex

import pytest

from projections.evidence import bootstrap
from tests.conftest import Cli
from tests.evidence.test_evaluate import by_rules, load


def test_the_best_point_is_the_best_of_separate_evaluations(cli: Cli) -> None:
    load(cli, "Chess Club")
    report = cli.json("tune", "Chess Club", "--vary", "k=10:40:6", "--vary",
                      "divisor=300:500:100", "--train-until", "2025-02-01")  # fmt: skip
    assert [g["point"] for g in report["grid"]][:4] == [
        "k=10 divisor=300",
        "k=10 divisor=400",
        "k=10 divisor=500",
        "k=16 divisor=300",
    ]
    assert len(report["grid"]) == 6 * 3
    separate = {}
    for k in range(10, 41, 6):
        for divisor in (300, 400, 500):
            label = f"k={k} divisor={divisor}"
            lines = by_rules(cli.json("evaluate", "Chess Club", "--from", "2025-02-01",
                                      "--set", f"k={k}", "--set", f"divisor={divisor}"))  # fmt: skip
            separate[label] = lines[label]["log_loss"]
    assert {g["point"]: g["log_loss"] for g in report["grid"]} == pytest.approx(separate)
    best = min(separate, key=separate.get)
    assert report["best"]["point"] == best
    in_force = by_rules(cli.json("evaluate", "Chess Club", "--from", "2025-02-01"))
    assert report["in_force"] == pytest.approx(in_force["rules in force"]["log_loss"])
    assert report["gain"] == pytest.approx(report["in_force"] - separate[best])
    low, high = report["interval"]["low"], report["interval"]["high"]
    assert low <= report["gain"] <= high


def test_the_rules_in_force_on_the_grid_are_scored_as_evaluate_scores_them(cli: Cli) -> None:
    # K 24 and divisor 400 (the club's rules) are a point of this grid: tune
    # takes their predictions from the grid's replay rather than replaying
    # them again, and must take that point's, not another's.
    load(cli, "Chess Club")
    report = cli.json("tune", "Chess Club", "--vary", "k=10:40:2", "--vary",
                      "divisor=300:500:100", "--train-until", "2025-02-01")  # fmt: skip
    in_force = by_rules(cli.json("evaluate", "Chess Club", "--from", "2025-02-01"))
    assert report["in_force"] == pytest.approx(in_force["rules in force"]["log_loss"], abs=1e-12)
    grid = {g["point"]: g["log_loss"] for g in report["grid"]}
    assert report["in_force"] == pytest.approx(grid["k=24 divisor=400"], abs=1e-12)
    assert report["in_force"] != pytest.approx(grid["k=10 divisor=300"], abs=1e-6)


def test_the_printed_command_adopts_the_best_point(cli: Cli) -> None:
    load(cli, "Chess Club")
    out = cli.ok("tune", "Chess Club", "--vary", "k=10:40:2", "--effective", "2025-01-01")
    assert "16 grid points" in out
    command = out.strip().splitlines()[-1].strip()
    words = shlex.split(command)
    assert words[:4] == ["ledger", "ladder", "rules", "Chess Club"]
    best = cli.json("tune", "Chess Club", "--vary", "k=10:40:2")["best"]
    cli.ok(*words[1:])  # as the user pastes it
    show = cli.json("ladder", "show", "Chess Club")
    assert show["params"]["k"] == best["values"]["k"]
    # Adopted from the first day, the rules in force now predict as the best point did.
    now = by_rules(cli.json("evaluate", "Chess Club"))["rules in force"]["log_loss"]
    assert now == pytest.approx(best["log_loss"])


def test_csv_gives_the_whole_grid(cli: Cli) -> None:
    load(cli, "Chess Club")
    lines = cli.ok("tune", "Chess Club", "--vary", "k=10:40:2", "--format", "csv").splitlines()
    assert lines[0].startswith("point,values,log_loss")
    assert len(lines) == 1 + 16


def test_the_bootstrap_is_deterministic_for_a_seed_and_the_order_of_games() -> None:
    rng = random.Random(5)
    a = [rng.random() for _ in range(200)]
    b = [x - 0.01 + rng.random() * 0.01 for x in a]
    clusters = [f"event {i % 37}" for i in range(200)]
    one = bootstrap.gain_interval(a, clusters, b, clusters, seed=3)
    assert one == bootstrap.gain_interval(a, clusters, b, clusters, seed=3)
    order = list(range(200))
    rng.shuffle(order)
    shuffled = bootstrap.gain_interval(
        [a[i] for i in order], [clusters[i] for i in order],
        [b[i] for i in order], [clusters[i] for i in order], seed=3,
    )  # fmt: skip
    assert shuffled.low == pytest.approx(one.low) and shuffled.high == pytest.approx(one.high)
    other = bootstrap.gain_interval(a, clusters, b, clusters, seed=4)
    assert (other.low, other.high) != (one.low, one.high)
    mean_gain = sum(a) / 200 - sum(b) / 200
    assert one.low < mean_gain < one.high


def test_the_cli_bootstrap_is_the_same_run_after_run(cli: Cli) -> None:
    load(cli, "Chess Club")
    runs = [cli.json("tune", "Chess Club", "--vary", "k=10:40:10")["interval"] for _ in "ab"]
    assert runs[0] == runs[1] and runs[0]["seed"] == 27
    assert (
        cli.json("tune", "Chess Club", "--vary", "k=10:40:10", "--seed", "8")["interval"] != runs[0]
    )


def test_a_family_of_ones_own_tunes_with_no_special_code(cli: Cli) -> None:
    cli.ok("ladder", "open", "Skirmish", "--family", "tests.example_family:PointsShareElo")
    cli.ok("player", "add", "Ann", "Ben", "Cid")
    results = [("Ann", "Ben", 15, 5), ("Ben", "Cid", 9, 11), ("Cid", "Ann", 4, 16),
               ("Ann", "Ben", 12, 8), ("Ben", "Cid", 6, 14)]  # fmt: skip
    for day, (a, b, pa, pb) in enumerate(results, start=1):
        cli.ok("record", "Skirmish", "--date", f"2025-05-0{day}", "--side", a, "--side", b,
               "--field", f"points_a={pa}", "--field", f"points_b={pb}")  # fmt: skip
    report = cli.json("tune", "Skirmish", "--vary", "k=8:64:8", "--vary", "home_advantage=0:100:50")
    assert len(report["grid"]) == 8 * 3
    best = report["best"]
    label = best["point"]
    sets = [w for kv in label.split() for w in ("--set", kv)]
    again = by_rules(cli.json("evaluate", "Skirmish", *sets))[label]["log_loss"]
    assert again == pytest.approx(best["log_loss"])


@pytest.mark.parametrize(
    ("vary", "message"),
    [
        ("k", "expected NAME=START:STOP:STEP"),
        ("k=10:x:2", "'x' is not a number"),
        ("k=10:40:0", "the step must be more than 0"),
        ("k=40:10:2", "the stop is below the start"),
    ],
)
def test_a_bad_vary_is_refused_naming_the_option(cli: Cli, vary: str, message: str) -> None:
    load(cli, "Chess Club")
    before = cli.event_count()
    out = cli.fails("tune", "Chess Club", "--vary", vary)
    assert "--vary" in out and message in out
    assert cli.event_count() == before


def test_an_unknown_parameter_is_refused(cli: Cli) -> None:
    load(cli, "Chess Club")
    out = cli.fails("tune", "Chess Club", "--vary", "kay=1:2:1")
    assert "unknown parameter 'kay' for family elo" in out
    out = cli.fails("tune", "Chess Club", "--vary", "k=10:20:5", "--train-until", "2030-01-01")
    assert "no game of 'Chess Club' to score from 2030-01-01" in out


def _grid_against_separate(cli: Cli, ladder: str, varies: list[str]) -> dict:
    args = [w for v in varies for w in ("--vary", v)]
    report = cli.json("tune", ladder, *args)
    for point in report["grid"]:
        sets = [w for kv in point["point"].split() for w in ("--set", kv)]
        alone = by_rules(cli.json("evaluate", ladder, *sets))[point["point"]]
        assert point["log_loss"] == pytest.approx(alone["log_loss"], rel=1e-12), point["point"]
        assert point["brier"] == pytest.approx(alone["brier"], rel=1e-12), point["point"]
    return report


def test_one_replay_for_the_grid_gives_what_a_replay_per_point_gives(cli: Cli) -> None:
    """The elo maths on arrays (``Family.with_values``): every parameter a
    grid may vary, the gain cap and the difference cap element by element."""
    load(cli, "Chess Club")
    report = _grid_against_separate(cli, "Chess Club", ["k=16:32:8", "difference_cap=100:300:200"])
    assert report["at_once"] is True
    report = _grid_against_separate(
        cli, "Chess Club", ["gain_cap=20:60:40", "home_advantage=0:60:30"]
    )
    assert report["at_once"] is True
    report = _grid_against_separate(
        cli, "Chess Club", ["divisor=200:600:200", "initial=1000:2000:1000"]
    )
    assert report["at_once"] is True


def test_maths_that_serves_numbers_only_falls_back_to_a_replay_per_point(cli: Cli) -> None:
    """Integer ratings round every change (the rounding wants a number),
    BGA and a family of one's own offer no arrays: one replay per point,
    the same answers."""
    load(cli, "Chess Club")
    cli.ok("ladder", "rules", "Chess Club", "--set", "integer=true", "--set", "rounding=half-up",
           "--effective", "2025-02-01", "--reason", "whole points")  # fmt: skip
    assert _grid_against_separate(cli, "Chess Club", ["k=16:32:16"])["at_once"] is False
    load(cli, "BGA Carcassonne")
    assert _grid_against_separate(cli, "BGA Carcassonne", ["k=20:40:20"])["at_once"] is False


def test_a_replay_per_point_tells_its_progress() -> None:
    """Maths that serves numbers only (integer ratings rounded) replays
    each grid point on its own, each told to ``progress``; one replay for
    the whole grid tells nothing."""
    from datetime import date

    from projections.evidence.tune import score_grid
    from projections.whatif import history_of
    from tests.read_side.ledger_builder import Builder

    def scored(params: dict[str, object]) -> tuple[bool, list[tuple[int, int]]]:
        b = Builder()
        b.ladder("Club", "elo", params)
        b.player("Ann", "Ben", "Cat")
        for day in range(1, 7):
            pair = (("Ann", "Ben"), ("Ben", "Cat"), ("Cat", "Ann"))[day % 3]
            b.game("Club", date(2025, 1, day), *pair)
        told: list[tuple[int, int]] = []
        points = [{"k": k} for k in (10, 20, 30)]
        grid = score_grid(history_of(b.views(), "Club"), points, progress=lambda *a: told.append(a))
        return grid.at_once, told

    assert scored({"integer": True, "rounding": "half-up"}) == (False, [(1, 3), (2, 3), (3, 3)])
    assert scored({}) == (True, [])
