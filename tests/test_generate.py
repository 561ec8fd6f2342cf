"""The synthetic sheet generator (fixtures/generate.py): deterministic, every
game a distinct identity, family-appropriate results, late rows, and sheets
that ``ledger import`` takes as they are."""

from __future__ import annotations

import csv
import itertools
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest

from fixtures.generate import (
    BASE,
    DEFAULT_LADDERS,
    FAMILIES,
    columns,
    generate,
    main,
    player_names,
)
from ledger.families.base import Family, ResultColumn
from ledger.families.registry import BUILT_IN
from ledger.kernel.identity import name_key
from tests.conftest import Cli


def sides_of(row: dict[str, str]) -> list[list[str]]:
    return [
        [name_key(n) for n in row[c].split(";")] for c in row if c.startswith("side_") and row[c]
    ]


def identity(row: dict[str, str]) -> tuple[object, ...]:
    """What makes a game distinct (importer/identity): ladder, date, event,
    round, table and the set of players."""
    players = frozenset(p for side in sides_of(row) for p in side)
    return (row["ladder"], row["date"], row["event"], row["round"], row["table"], players)


def late_rows(rows: list[dict[str, str]]) -> int:
    """Rows dated before some row above them."""
    newest, late = "", 0
    for row in rows:
        if row["date"] < newest:
            late += 1
        newest = max(newest, row["date"])
    return late


# -- determinism ---------------------------------------------------------------------
@pytest.mark.parametrize("family", FAMILIES)
def test_same_seed_same_rows_other_seed_other_rows(family: str) -> None:
    first = list(generate(1500, 40, 2, family, 7))
    assert first == list(generate(1500, 40, 2, family, 7))
    assert first != list(generate(1500, 40, 2, family, 8))
    assert len(first) == 1500
    assert all(list(row) == list(columns(family)) for row in first)


def test_the_command_writes_what_generate_yields(tmp_path: Path) -> None:
    out, fixes, seasons = tmp_path / "s.csv", tmp_path / "c.csv", tmp_path / "seasons.csv"
    args = ["--games", "800", "--players", "30", "--years", "3", "--family", "battle-empire"]
    args += ["--seed", "5", "--out", str(out), "--corrections", str(fixes)]
    assert main([*args, "--seasons", str(seasons)]) == 0
    with out.open(encoding="utf-8", newline="") as f:
        written = list(csv.DictReader(f))
    assert written == list(generate(800, 30, 3, "battle-empire", 5))
    first_bytes = out.read_bytes()
    assert main(args) == 0
    assert out.read_bytes() == first_bytes

    with fixes.open(encoding="utf-8", newline="") as f:
        corrections = list(csv.DictReader(f))
    assert 1 <= len(corrections) <= 30
    for fix in corrections:
        row = written[int(fix["game_row"]) - 2]  # the header is row 1
        assert (fix["new_result"], fix["new_margin"]) != (row["result"], row["margin"])
        assert fix["new_result"] in ("a", "b", "draw")
        assert (fix["new_margin"] == "") == (fix["new_result"] == "draw")

    with seasons.open(encoding="utf-8", newline="") as f:
        closes = list(csv.DictReader(f))
    assert [c["label"] for c in closes] == ["2023", "2024", "2025"]
    assert closes[0] == {
        "ladder": DEFAULT_LADDERS["battle-empire"],
        "label": "2023",
        "from": "2023-01-01",
        "to": "2023-12-31",
    }


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    assert main(["--games", "10", "--players", "1", "--out", str(tmp_path / "x.csv")]) == 2
    with pytest.raises(ValueError, match="unknown family"):
        next(generate(10, 10, 1, "chess", 1))


def test_rows_stream() -> None:
    """A billion games cost nothing until they are read."""
    rows = generate(10**9, 100, 10, "elo", 1)
    assert next(rows)["date"] == "2016-01-01"


# -- identities, dates, late rows ----------------------------------------------------------
@pytest.mark.parametrize("family", FAMILIES)
def test_every_game_has_a_distinct_identity(family: str) -> None:
    rows = list(generate(6000, 60, 4, family, 11))
    identities = Counter(identity(row) for row in rows)
    assert max(identities.values()) == 1
    for row in rows:
        players = [p for side in sides_of(row) for p in side]
        assert len(players) == len(set(players)), row
        assert "2022-01-01" <= row["date"] <= "2025-12-31"
        assert row["ladder"] == DEFAULT_LADDERS[family]


@pytest.mark.parametrize("family", ["elo", "battle-empire", "adlg", "battletech"])
def test_a_player_plays_at_most_once_per_round(family: str) -> None:
    rows = list(generate(6000, 60, 4, family, 12))
    seen: set[tuple[str, str, str]] = set()
    events = 0
    for row in rows:
        if not row["event"]:
            continue
        events += 1
        for side in sides_of(row):
            for player in side:
                key = (row["event"], row["round"], player)
                assert key not in seen, row
                seen.add(key)
    assert events >= (6000 if family == "adlg" else 3000)


def test_late_rows_exist_and_are_about_two_percent() -> None:
    rows = list(generate(20000, 200, 5, "elo", 3))
    assert 0.01 * len(rows) <= late_rows(rows) <= 0.03 * len(rows)
    on_time = list(generate(20000, 200, 5, "elo", 3, late=0))
    assert late_rows(on_time) == 0
    # The same games, only in another order.
    assert sorted(map(identity, rows)) == sorted(map(identity, on_time))


@pytest.mark.parametrize("family", FAMILIES)
def test_small_sheets_have_late_rows_too(family: str) -> None:
    assert late_rows(list(generate(300, 30, 2, family, 1))) > 0


def test_player_names_are_distinct_people() -> None:
    names = player_names(3000)
    assert len({name_key(n) for n in names}) == 3000


# -- family-appropriate results -------------------------------------------------------
def test_two_sided_results_have_about_ten_percent_draws() -> None:
    rows = list(generate(20000, 100, 3, "elo", 4))
    results = Counter(row["result"] for row in rows)
    assert set(results) == {"a", "b", "draw"}
    assert 0.08 <= results["draw"] / len(rows) <= 0.12


def test_battle_empire_victories_have_margins_and_some_team_games() -> None:
    rows = list(generate(20000, 100, 3, "battle-empire", 4))
    margins = Counter(row["margin"] for row in rows if row["result"] != "draw")
    assert set(margins) == {"marginal", "decisive", "overwhelming"}
    assert all(row["margin"] == "" for row in rows if row["result"] == "draw")
    teams = [row for row in rows if ";" in row["side_a"]]
    assert teams and all(len(s) == 2 for row in teams for s in sides_of(row))


def test_adlg_games_are_all_in_events() -> None:
    rows = list(generate(5000, 80, 2, "adlg", 4))
    assert all(row["event"] and row["round"] and row["table"] for row in rows)
    days = {ev: {r["date"] for r in group} for ev, group in _by_event(rows)}
    assert max(len(d) for d in days.values()) == 2  # some events span two days
    assert min(len(d) for d in days.values()) == 1


def _by_event(rows: list[dict[str, str]]) -> list[tuple[str, list[dict[str, str]]]]:
    ordered = sorted(rows, key=lambda r: r["event"])
    return [(ev, list(group)) for ev, group in itertools.groupby(ordered, lambda r: r["event"])]


def test_battletech_results_are_bv_totals() -> None:
    rows = list(generate(5000, 60, 2, "battletech", 4))
    for row in rows:
        a_s, a_e, b_s, b_e = map(int, row["bv"].split(","))
        assert a_s > 0 and b_s > 0 and 0 <= a_e <= a_s and 0 <= b_e <= b_s


def test_bga_tables_of_two_to_five_with_ties_and_rare_quits() -> None:
    rows = list(generate(20000, 200, 3, "bga", 4))
    sizes = Counter(len(sides_of(row)) for row in rows)
    assert set(sizes) == {2, 3, 4, 5}
    ties = quits = 0
    for row in rows:
        ranks = [int(r) for r in row["ranks"].split(",")]
        assert len(ranks) == len(sides_of(row))
        assert min(ranks) == 1 and max(ranks) <= len(ranks)
        ties += len(set(ranks)) < len(ranks)
        if row["quit"]:
            quits += 1
            assert name_key(row["quit"]) in [s[0] for s in sides_of(row)]
    assert 0.05 * len(rows) <= ties <= 0.15 * len(rows)
    assert 0 < quits <= 0.03 * len(rows)


# -- through the CLI ------------------------------------------------------------------
@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_imports_cleanly(cli: Cli, tmp_path: Path, family: str) -> None:
    path = tmp_path / f"{family}.csv"
    assert main(["--games", "300", "--players", "40", "--years", "2", "--family", family,
                 "--seed", "9", "--out", str(path)]) == 0  # fmt: skip
    ladder = DEFAULT_LADDERS[family]
    cli.ok("ladder", "open", ladder, "--family", family)
    report = cli.json("import", str(path))
    assert (report["rows"], report["added"], report["skipped"]) == (300, 300, 0)
    standings = cli.json("standings", ladder)
    assert 2 <= len(standings) <= 40
    # Importing the same sheet again records nothing new.
    again = cli.json("import", str(path))
    assert (again["added"], again["skipped"]) == (0, 300)


def test_corrections_apply_with_ledger_correct(cli: Cli, tmp_path: Path) -> None:
    """A correction names a sheet row; the audit log says which game that row
    recorded (its source), and ``ledger correct`` takes the new result."""
    path, fixes = tmp_path / "be.csv", tmp_path / "fix.csv"
    assert main(["--games", "400", "--players", "30", "--years", "1", "--family",
                 "battle-empire", "--seed", "2", "--out", str(path),
                 "--corrections", str(fixes)]) == 0  # fmt: skip
    ladder = DEFAULT_LADDERS["battle-empire"]
    cli.ok("ladder", "open", ladder, "--family", "battle-empire")
    cli.ok("import", str(path))
    game_of_row = {}
    for line in cli.json("audit", ladder):
        if line["kind"] == "game recorded":
            row = int(line["source"].rpartition(":")[2])
            game_of_row[row] = line["summary"].split()[1].rstrip(":")
    with fixes.open(encoding="utf-8", newline="") as f:
        corrections = list(csv.DictReader(f))
    assert corrections
    for fix in corrections:
        args = ["correct", game_of_row[int(fix["game_row"])], "--result", fix["new_result"]]
        if fix["new_margin"]:
            args += ["--margin", fix["new_margin"]]
        cli.ok(*args, "--reason", "generated correction")


# -- the vocabulary comes from the family ------------------------------------------------
@pytest.mark.parametrize("family", FAMILIES)
def test_result_columns_are_the_family_s_own(family: str) -> None:
    cls = BUILT_IN[family]
    result_columns = [c for c in columns(family) if c not in BASE and not c.startswith("side_")]
    assert result_columns == [c.name for c in cls.result_columns() if c.name in result_columns]
    filled = {c for row in cls.example_rows() for c, text in row.items() if text}
    assert result_columns and set(result_columns) <= filled
    fam = cls(cls.default_params())
    for row in generate(300, 30, 1, family, 2):
        for column in result_columns:
            fam.parse_cell(column, row[column])  # every cell is in the family's words


class Bout(msgspec.Struct, forbid_unknown_fields=True):
    winner: str
    touches: str | None = None


class Fencing(Family):
    """A sixth family: its own column names and codes, declared once."""

    name = "fencing"
    Params = msgspec.defstruct("FencingParams", [], forbid_unknown_fields=True)
    Result = Bout

    @classmethod
    def result_columns(cls, params: Any = None) -> tuple[ResultColumn, ...]:
        return (
            ResultColumn("winner", "a, b or draw", "a", ("a", "b", "draw"), True, "code"),
            ResultColumn("touches", "by how much", "by-5", ("by-1", "by-5"), False, "code"),
        )


def test_a_new_family_needs_nothing_but_its_own_module() -> None:
    family = f"{__name__}:Fencing"
    assert columns(family) == (*BASE, "side_a", "side_b", "winner", "touches")
    rows = list(generate(2000, 30, 1, family, 3))
    assert {row["winner"] for row in rows} == {"a", "b", "draw"}
    assert {row["touches"] for row in rows if row["winner"] != "draw"} == {"by-1", "by-5"}
    assert all(row["touches"] == "" for row in rows if row["winner"] == "draw")
