"""The ``weng-lin`` family through the command line: ratings equal the
openskill library's own over random histories, corrections and voids
replayed from their date included; teams and multiplayer ranks with ties;
explain and the ranking."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openskill.models import BradleyTerryFull, PlackettLuce

from tests.conftest import Cli
from tests.families.test_seed_cli import explained, history, standing

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")


@dataclass
class Played:
    """A game as recorded: its day (each game its own), sides and ranks."""

    day: str
    sides: list[list[str]]
    ranks: list[int]
    game: str = ""
    voided: bool = False


def competition_ranks(order: list[int]) -> list[int]:
    """The valid ("1224") ranks of sides placed in ``order``."""
    return [1 + sum(1 for other in order if other < mine) for mine in order]


@st.composite
def games(draw: st.DrawFn, day: int) -> Played:
    n = draw(st.integers(2, 4))
    size = draw(st.sampled_from([1, 1, 2])) if n <= 3 else 1
    players = draw(st.permutations(NAMES))[: n * size]
    sides = [list(players[i * size : (i + 1) * size]) for i in range(n)]
    ranks = draw(st.lists(st.integers(1, n), min_size=n, max_size=n).map(competition_ranks))
    return Played(f"2025-{1 + day // 28:02d}-{1 + day % 28:02d}", sides, ranks)


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Played], list[int], list[tuple[int, list[int]]]]:
    """Games (recorded in a random order), the ones voided afterwards and
    the ones corrected (new ranks)."""
    count = draw(st.integers(2, 8))
    days = draw(st.lists(st.integers(0, 300), min_size=count, max_size=count, unique=True))
    played = [draw(games(day)) for day in days]
    voids = draw(st.lists(st.integers(0, count - 1), max_size=2, unique=True))
    fixes = [
        (i, draw(st.permutations(played[i].ranks)))
        for i in draw(st.lists(st.integers(0, count - 1), max_size=2, unique=True))
        if i not in voids
    ]
    return played, voids, fixes


def openskill_ratings(model: object, played: list[Played]) -> dict[str, tuple[float, float]]:
    """Every player's (μ, σ) by openskill alone, on the games that count,
    in date order."""
    ratings: dict[str, object] = {}
    for game in sorted((g for g in played if not g.voided), key=lambda g: g.day):
        teams = [[ratings.get(p) or model.rating() for p in side] for side in game.sides]
        for side, new in zip(game.sides, model.rate(teams, ranks=game.ranks), strict=True):
            for player, rating in zip(side, new, strict=True):
                ratings[player] = rating
    return {p: (r.mu, r.sigma) for p, r in ratings.items()}


def record(cli: Cli, game: Played) -> str:
    args = ["record", "WL", "--date", game.day, "--ranks", ",".join(map(str, game.ranks))]
    for side in game.sides:
        args += ["--side", ";".join(side)]
    out = cli.ok(*args)
    return out.split("Recorded game ", 1)[1].split(".", 1)[0]


def ledger_ratings(cli: Cli) -> dict[str, tuple[float, float]]:
    rows = cli.json("standings", "WL")
    assert isinstance(rows, list)
    return {r["player"]: (r["rating"], r["deviation"]) for r in rows}


@pytest.mark.parametrize(("model", "cls"), [("plackett-luce", PlackettLuce),
                                            ("bradley-terry-full", BradleyTerryFull)])  # fmt: skip
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history_=histories())
def test_ratings_equal_openskills_own(
    tmp_path_factory: pytest.TempPathFactory,
    model: str,
    cls: type,
    history_: tuple[list[Played], list[int], list[tuple[int, list[int]]]],
) -> None:
    played, voids, fixes = history_
    cli = Cli(str(tmp_path_factory.mktemp("wl") / "ledger.db"))
    cli.ok("ladder", "open", "WL", "--family", "weng-lin", "--set", f"model={model}")
    cli.ok("player", "add", *NAMES)
    for game in played:  # recorded in a random order: late results replay from their date
        game.game = record(cli, game)
    for i in voids:
        cli.ok("void", played[i].game, "--reason", "test")
        played[i].voided = True
    for i, ranks in fixes:
        if list(ranks) == played[i].ranks:
            continue  # (a correction that changes nothing is refused)
        played[i].ranks = list(ranks)
        cli.ok("correct", played[i].game, "--ranks", ",".join(map(str, ranks)),
               "--reason", "test")  # fmt: skip
    expected = openskill_ratings(cls(), played)
    got = ledger_ratings(cli)
    assert got.keys() == expected.keys()
    for player, (mu, sigma) in expected.items():
        assert got[player][0] == pytest.approx(mu, rel=1e-9, abs=1e-9), player
        assert got[player][1] == pytest.approx(sigma, rel=1e-9, abs=1e-9), player


def test_a_table_of_three_with_a_tie_explained(cli: Cli) -> None:
    cli.ok("ladder", "open", "WL", "--family", "weng-lin")
    cli.ok("player", "add", "Ann", "Ben", "Cat", "Dan")
    cli.ok("record", "WL", "--date", "2025-03-01", "--side", "Ann", "--side", "Ben;Dan",
           "--side", "Cat", "--ranks", "1,1,3")  # fmt: skip
    model = PlackettLuce()
    a, b, c, d = (model.rating() for _ in range(4))
    new = model.rate([[a], [b, d], [c]], ranks=[1, 1, 3])
    rows = history(cli, "WL", "Ann")
    assert rows[0]["after"] == pytest.approx(new[0][0].mu)
    win = model.predict_win([[a], [b, d], [c]])
    assert rows[0]["p"] == pytest.approx(win[0])
    assert rows[0]["s"] == 0.5  # first place shared by two sides
    assert history(cli, "WL", "Cat")[0]["s"] == 0.0
    x = explained(cli, rows[0]["game"])
    assert x["Dan"]["values"]["σ after"] == pytest.approx(new[1][1].sigma)
    assert x["Ann"]["values"]["μ before"] == 25.0
    assert "draw probability (predict_draw)" in x["Ann"]["values"]
    ann = standing(cli, "WL", "Ann")
    assert ann["deviation"] == pytest.approx(new[0][0].sigma)
    assert ann["provisional"] is True and ann["state"] == {"sigma": ann["deviation"]}


def test_a_two_sided_result_is_kept_as_its_ranks(cli: Cli) -> None:
    """``--result a`` on two sides is ranks 1,2; on three sides, or beside
    ranks, it is refused and nothing is recorded."""
    cli.ok("ladder", "open", "WL", "--family", "weng-lin")
    cli.ok("player", "add", "Ann", "Ben", "Cat")
    cli.ok("record", "WL", "--date", "2025-03-01", "--side", "Ann", "--side", "Ben",
           "--result", "b")  # fmt: skip
    model = PlackettLuce()
    a, b = model.rating(), model.rating()
    new = model.rate([[a], [b]], ranks=[2, 1])
    assert history(cli, "WL", "Ben")[0]["after"] == pytest.approx(new[1][0].mu)
    before = cli.event_count()
    three = cli.fails("record", "WL", "--date", "2025-03-02", "--side", "Ann", "--side", "Ben",
                      "--side", "Cat", "--result", "a")  # fmt: skip
    assert "two sides" in three and "ranks" in three
    both = cli.fails("record", "WL", "--date", "2025-03-02", "--side", "Ann", "--side", "Ben",
                     "--result", "a", "--ranks", "1,2")  # fmt: skip
    assert "not both" in both
    assert cli.event_count() == before


def test_an_elo_ladder_is_evaluated_under_weng_lin(cli: Cli) -> None:
    """A ladder kept by elo (results a, b, draw) replays under weng-lin as
    its ranks: ``evaluate --family weng-lin`` scores openskill's own
    predictions."""
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Ben")
    for day, result in (("01", "a"), ("02", "draw"), ("03", "a")):
        cli.ok("record", "Club", "--date", f"2025-03-{day}", "--side", "Ann", "--side", "Ben",
               "--result", result)  # fmt: skip
    report = cli.json("evaluate", "Club", "--family", "weng-lin")
    model = PlackettLuce()
    ann, ben = model.rating(), model.rating()
    squares = []
    for ranks, outcome in (([1, 2], 1.0), ([1, 1], 0.5), ([1, 2], 1.0)):
        squares.append((model.predict_win([[ann], [ben]])[0] - outcome) ** 2)
        [[ann], [ben]] = model.rate([[ann], [ben]], ranks=ranks)
    assert isinstance(report, dict), report
    (tried,) = [line for line in report["lines"] if line["rules"] == "weng-lin"]
    assert tried["games"] == 3 and tried["comparisons"] == 3
    assert tried["brier"] == pytest.approx(sum(squares) / 3)


def test_bad_ranks_are_refused_and_change_nothing(cli: Cli) -> None:
    cli.ok("ladder", "open", "WL", "--family", "weng-lin")
    cli.ok("player", "add", "Ann", "Ben")
    before = cli.event_count()
    out = cli.fails("record", "WL", "--date", "2025-03-01", "--side", "Ann", "--side", "Ben",
                    "--ranks", "1,2,3")  # fmt: skip
    assert "ranks" in out and "one per side" in out
    assert cli.event_count() == before


def test_conservative_order_ranks_by_mu_minus_three_sigma(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "ledger.db"))
    cli.ok("ladder", "open", "WL", "--family", "weng-lin", "--set", "order=conservative")
    cli.ok("player", "add", "Sure", "Lucky", "Opp")
    cli.ok("adjust", "WL", "Sure", "--to", "27", "--state", "sigma=1", "--date", "2025-01-01",
           "--reason", "seed")  # fmt: skip
    cli.ok("record", "WL", "--date", "2025-03-01", "--side", "Lucky", "--side", "Opp",
           "--ranks", "1,2")  # fmt: skip
    rows = cli.json("standings", "WL")
    assert isinstance(rows, list)
    by = {r["player"]: r for r in rows}
    assert by["Lucky"]["rating"] > by["Sure"]["rating"]
    assert [r["player"] for r in rows][0] == "Sure"
