"""ledger teams: optimality against brute force, constraints, errors,
determinism and the camp sheet's round trip into an imported result sheet."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import openpyxl
import pytest

from projections.teams.balance import (
    Entrant,
    Strength,
    balance,
    camp_sizes,
    elo_expected,
    gap_points,
    top_grade_set,
)
from tests.conftest import Cli

STRENGTH = Strength("mean", elo_expected(500))


def grade(rating: float) -> str:
    return "Marshal" if rating >= 1400 else "General" if rating >= 1200 else "Colonel"


def brute_force(
    people: list[Entrant], camps: int, together: list[list[str]], apart: list[list[str]]
) -> tuple[int, int]:
    """The least (gap points, top-grade spread) over every split, by enumeration."""
    sizes = camp_sizes(len(people), camps, None)
    top = top_grade_set(people, camps)
    best = None
    for assignment in itertools.product(range(camps), repeat=len(people)):
        where = {p.key: k for p, k in zip(people, assignment, strict=True)}
        if any(assignment.count(k) != sizes[k] for k in range(camps)):
            continue
        if any(len({where[k] for k in g}) != 1 for g in together):
            continue
        if any(len({where[k] for k in g}) != len(g) for g in apart):
            continue
        sides, tops = [], []
        for k in range(camps):
            members = [p for p, a in zip(people, assignment, strict=True) if a == k]
            sides.append(sum(p.rating for p in members) / len(members))
            tops.append(sum(p.grade in top for p in members))
        value = (gap_points(max(sides) - min(sides)), max(tops) - min(tops) if top else 0)
        best = value if best is None else min(best, value)
    assert best is not None
    return best


def test_solver_matches_brute_force_on_random_small_instances() -> None:
    rng = random.Random(2024)
    checked = 0
    for _ in range(40):
        camps = rng.choice([2, 3])
        n = rng.randint(camps + 2, 10 if camps == 3 else 14)
        people = []
        for i in range(n):
            rating = rng.choice([rng.randint(700, 1500), rng.randint(950, 1050)])
            people.append(Entrant(f"P{i}", f"p{i}", rating, grade(rating)))
        keys = [p.key for p in people]
        rng.shuffle(keys)
        together = [keys[:2]] if rng.random() < 0.5 else []
        apart = [keys[2:4]] if rng.random() < 0.5 else []
        result = balance(people, camps, STRENGTH, together=together, apart=apart)
        split = result.splits[0]
        assert result.status == "optimal"
        expected = brute_force(people, camps, together, apart)
        assert split.gap_points == expected[0]
        if result.spread_proven:
            assert split.top_spread == expected[1]
        where = {p.player: c.camp for c in split.camps for p in c.players}
        names = {p.key: p.name for p in people}
        for g in together:
            assert len({where[names[k]] for k in g}) == 1
        for g in apart:
            assert len({where[names[k]] for k in g}) == len(g)
        checked += 1
    assert checked == 40


def test_alternatives_are_distinct_and_in_order() -> None:
    people = [
        Entrant(f"P{i}", f"p{i}", r, grade(r))
        for i, r in enumerate([1500, 1300, 1100, 1000, 950, 900])
    ]
    result = balance(people, 2, STRENGTH, alternatives=4)
    splits = [
        frozenset(frozenset(p.player for p in c.players) for c in s.camps) for s in result.splits
    ]
    assert len(splits) == 4 and len(set(splits)) == 4
    keys = [(s.gap_points, s.top_spread) for s in result.splits]
    assert keys == sorted(keys)


def test_unequal_sizes_compare_means() -> None:
    people = [Entrant(f"P{i}", f"p{i}", r) for i, r in enumerate([1200, 1000, 1000, 1000, 800])]
    result = balance(people, 2, STRENGTH, sizes=[2, 3])
    split = result.splits[0]
    assert [len(c.players) for c in split.camps] == [3, 2]
    assert split.gap == 0  # {1200, 800} and {1000, 1000, 1000}: both mean 1000


@pytest.fixture
def club(tmp_path: Path) -> Cli:
    """A Battle Empire club on SQLite with rated players."""
    cli = Cli(str(tmp_path / "ledger.db"))
    cli.ok("ladder", "open", "BE Club", "--family", "battle-empire")
    cli.ok("player", "add", "Anne", "Bob", "Carl", "Dora", "Émile", "Fanny")
    for date, a, b, margin in [
        ("2025-03-01", "Anne", "Bob", "overwhelming"),
        ("2025-03-02", "Carl", "Dora", "decisive"),
        ("2025-03-03", "Anne", "Carl", "marginal"),
        ("2025-03-04", "Émile", "Fanny", "marginal"),
    ]:
        cli.ok("record", "BE Club", "--date", date, "--side", a, "--side", b, "--result", "a",
               "--margin", margin)  # fmt: skip
    return cli


def camps_of(cli: Cli, *args: str) -> list[set[str]]:
    data = cli.json("teams", "BE Club", *args)
    return [{p["player"] for p in c["players"]} for c in data["splits"][0]["camps"]]


def test_teams_cli_constraints_and_new_players(club: Cli) -> None:
    players = ["Anne", "Bob", "Carl", "Dora", "emile", "Fanny", "Newcomer"]
    camps = camps_of(
        club, *players, "--camps", "2", "--together", "Anne;Bob", "--apart", "Carl;Dora"
    )
    assert any({"Anne", "Bob"} <= c for c in camps)
    assert not any({"Carl", "Dora"} <= c for c in camps)
    assert "Émile" in set().union(*camps)  # matched without case or accents
    out = club.ok("teams", "BE Club", *players, "--camps", "2")
    assert "Newcomer" in out and "new player, initial rating" in out
    assert "proven optimum" in out


def test_teams_is_deterministic_whatever_the_order(club: Cli) -> None:
    players = ["Anne", "Bob", "Carl", "Dora", "Émile", "Fanny"]
    first = club.ok("teams", "BE Club", *players, "--camps", "3", "--format", "json")
    again = club.ok("teams", "BE Club", *reversed(players), "--camps", "3", "--format", "json")
    assert first == again


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["Anne", "Bob", "Carl", "Dora", "--camps", "2", "--together", "Anne;Bob", "--apart", "Bob;Anne"],
         "must be both together and apart"),
        (["Anne", "Bob", "Carl", "--camps", "2", "--sizes", "2,2"], "--sizes add up to 4 but there are 3"),
        (["Anne", "Bob", "anne", "Carl", "--camps", "2"], "listed twice"),
        (["Anne", "--camps", "2"], "cannot make 2 camps"),
        (["Anne", "Bob", "Carl", "Dora", "--camps", "2", "--apart", "Anne;Bob;Carl"],
         "cannot be kept apart in 2 camps"),
        (["Anne", "Bob", "Carl", "Dora", "--camps", "2", "--together", "Anne;Bob;Carl"],
         "largest camp holds 2"),
        (["Anne", "Bob", "Carl", "Dora", "--camps", "2", "--apart", "Anne;Bob", "--apart", "Bob;Carl",
          "--apart", "Anne;Carl"], "no split satisfies the --together/--apart constraints"),
    ],
)  # fmt: skip
def test_teams_errors_write_no_file(
    club: Cli, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "camps.xlsx"
    text = club.fails("teams", "BE Club", *args, "--format", "xlsx", "-o", str(out))
    assert message in text
    assert not out.exists()


def test_teams_unknown_ladder(club: Cli, tmp_path: Path) -> None:
    out = tmp_path / "camps.csv"
    text = club.fails(
        "teams", "Nope", "Anne", "Bob", "--camps", "2", "--format", "csv", "-o", str(out)
    )
    assert "unknown ladder 'Nope'" in text
    assert not out.exists()


def test_players_from_sheet_and_xlsx_round_trip_into_import(club: Cli, tmp_path: Path) -> None:
    sheet = tmp_path / "registered.csv"
    sheet.write_text("player\nAnne\nBob\nCarl\nDora\nÉmile\nFanny\n", encoding="utf-8")
    out = tmp_path / "camps.xlsx"
    club.ok("teams", "BE Club", "--from", str(sheet), "--camps", "2", "--format", "xlsx",
            "-o", str(out), "--date", "2025-04-01")  # fmt: skip
    wb = openpyxl.load_workbook(out)
    columns = list(wb["Camps"].iter_cols(values_only=True))
    camp_a = [v for v in columns[0][1:] if v]
    camp_b = [v for v in columns[1][1:] if v]
    assert len(camp_a) == len(camp_b) == 3
    result = wb["Result"]
    headers = [c.value for c in result[1]]
    assert result.cell(2, headers.index("side_a") + 1).value == ";".join(camp_a)
    result.cell(2, headers.index("result") + 1).value = "a"
    result.cell(2, headers.index("margin") + 1).value = "marginal"
    wb.save(out)
    club.ok("import", str(out), "--sheet", "Result")
    history = club.json("history", "BE Club", camp_b[0])
    last = history[-1]
    assert last["date"] == "2025-04-01"
    assert set(last["opponents"].split(", ")) == set(camp_a)
