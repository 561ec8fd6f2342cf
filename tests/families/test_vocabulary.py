"""Each family owns its vocabulary: result columns, cell parsing, example rows,
documented parameters and messages that list what is allowed."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import pytest

from ledger.families.adlg import AdlgFamily
from ledger.families.base import Family, FamilyError, ResultColumn
from ledger.families.battle_empire import BattleEmpireFamily
from ledger.families.bga import BgaFamily
from ledger.families.elo import EloFamily
from ledger.families.registry import BUILT_IN, load_family


def family(name: str, **params: Any) -> Family:
    return load_family(name, params)


# -- parse_cell -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "column", "text", "value"),
    [
        ("elo", "result", "A", "a"),
        ("elo", "result", " Draw ", "draw"),
        ("battle-empire", "margin", "Decisive", "decisive"),
        ("adlg", "result", "b", "b"),
        ("bga", "ranks", "1,2,2,4", [1, 2, 2, 4]),
        ("bga", "ranks", " 1 , 3 ,2", [1, 3, 2]),
        ("bga", "ranks", "[2, 1]", [2, 1]),
        ("bga", "quit", "2", 2),
        ("bga", "quit", "Anne Martin", "Anne Martin"),
        ("bga", "quit", "-", None),
        ("bga", "quit", "", None),
        ("battletech", "bv", "5000,3000,5000,1000", [5000.0, 3000.0, 5000.0, 1000.0]),
        ("battletech", "bv", "5000 3000;5000 1000", [5000.0, 3000.0, 5000.0, 1000.0]),
        ("battletech", "k_star", "150", 150.0),
        (
            "battletech",
            "units",
            '[[{"name": "Atlas", "bv": 1}], []]',
            [[{"name": "Atlas", "bv": 1}], []],
        ),
        ("battletech", "units", "  ", None),
    ],
)
def test_parse_cell(name: str, column: str, text: str, value: Any) -> None:
    parsed = family(name).parse_cell(column, text)
    assert parsed == value
    assert type(parsed) is type(value)


@pytest.mark.parametrize(
    ("name", "column", "text", "words"),
    [
        ("elo", "result", "x", "result: 'x' is not one of a, b, draw"),
        ("battle-empire", "margin", "crushing", "not one of marginal, decisive, overwhelming"),
        (
            "bga",
            "ranks",
            "1,x,3",
            "ranks: expected whole numbers separated by commas, e.g. 1,3,2,4",
        ),
        ("battletech", "bv", "5000,x", "bv: expected numbers"),
        ("battletech", "units", "[[{", "units: expected JSON"),
        ("battletech", "k_a", "lots", "k_a: expected a number"),
        (
            "elo",
            "ranks",
            "1,2",
            "'ranks' does not belong to a elo result (it takes: result, margin)",
        ),
        ("adlg", "margin", "decisive", "it takes: result)"),
    ],
)
def test_parse_cell_errors_name_the_column_and_what_was_expected(
    name: str, column: str, text: str, words: str
) -> None:
    with pytest.raises(FamilyError) as err:
        family(name).parse_cell(column, text)
    assert err.value.field == column
    assert words in str(err.value)


def test_an_elo_ladder_s_margins_come_from_its_score_table() -> None:
    fam = family("elo", scores={"win": 1, "rout": 1.3, "draw": 0.5, "loss": 0})
    margin = fam.column("margin")
    assert margin.choices == ("win", "rout")
    assert fam.parse_cell("margin", "ROUT") == "rout"
    # The names never depend on the parameters.
    assert [c.name for c in fam.columns()] == list(EloFamily.result_fields)


def test_parse_result_reads_text_with_parse_cell() -> None:
    assert family("battle-empire").parse_result(
        {"result": "A", "margin": "Overwhelming"}, n_sides=2
    ) == family("battle-empire").parse_result({"result": "a", "margin": "overwhelming"}, n_sides=2)
    with pytest.raises(FamilyError) as err:
        family("elo").parse_result({"margin": "win"}, n_sides=2)
    assert err.value.field == "result"
    assert "needs result" in str(err.value)


# -- the columns and example rows of every family ----------------------------------------


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_columns_are_documented_and_result_fields_derive_from_them(name: str) -> None:
    cls = BUILT_IN[name]
    columns = cls.result_columns()
    assert columns and all(isinstance(c, ResultColumn) for c in columns)
    assert cls.result_fields == tuple(c.name for c in columns)
    for column in columns:
        assert column.help.strip(), column.name
        assert bool(column.choices) == (column.kind == "code"), column.name


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_example_rows_are_valid_games_and_cells_round_trip(name: str) -> None:
    fam = family(name)
    rows = type(fam).example_rows()
    assert 1 <= len(rows) <= 2
    for row in rows:
        sides = [row[c] for c in row if c.startswith("side_") and row[c]]
        raw = {}
        for column in fam.columns():
            text = row.get(column.name, "")
            value = fam.parse_cell(column.name, text)
            if value is None:
                continue
            assert fam.format_cell(column.name, value) == text.strip()
            if column.kind == "player" and isinstance(value, str):
                value = sides.index(value) + 1  # what the caller does with a name
            raw[column.name] = value
        assert raw, row
        fam.parse_result(raw, len(sides))


@pytest.mark.parametrize(("n_sides", "ranks"), [(2, [1, 2]), (3, [1, 3, 2]), (5, [1, 3, 2, 4, 5])])
def test_bga_example_rows_follow_the_number_of_sides(n_sides: int, ranks: list[int]) -> None:
    row = BgaFamily.example_rows(n_sides)[0]
    assert [c for c in row if c.startswith("side_")] == [f"side_{c}" for c in "abcde"[:n_sides]]
    assert family("bga").parse_cell("ranks", row["ranks"]) == ranks


def test_a_family_with_a_plain_result_fields_tuple_still_works() -> None:
    class Points(msgspec.Struct, forbid_unknown_fields=True):
        points: list[int] = []

    class Legacy(Family):
        name = "legacy"
        Params = msgspec.defstruct("NoParams", [], forbid_unknown_fields=True)
        Result = Points
        result_fields = ("points",)

    fam = Legacy(Legacy.default_params())
    assert [c.name for c in fam.columns()] == ["points"]
    assert fam.parse_cell("points", "[3, 4]") == [3, 4]
    assert fam.parse_result({"points": "[3, 4]"}, n_sides=2) == Points([3, 4])


# -- parameters ---------------------------------------------------------------------------


def test_every_elo_parameter_is_documented_with_sub_fields_and_allowed_values() -> None:
    docs = {d.name: d for d in EloFamily.describe_params()}
    assert list(docs) == list(EloFamily.Params.__struct_fields__)
    assert all(d.help for d in docs.values())
    assert docs["rounding"].choices == ("none", "half-up", "half-away", "truncate", "floor")
    assert docs["update"].choices == ("game", "event")
    assert docs["team"].choices == ("mean", "sum")
    k_rule = {f.name: f for f in docs["k_rules"].fields}
    assert list(k_rule) == ["k", "games_below", "rating_at_least"]
    assert k_rule["k"].required and not k_rule["games_below"].required
    assert all(f.help for f in k_rule.values())
    bracket = {f.name: f for f in docs["season_penalties"].fields}
    assert list(bracket) == ["above", "penalty"] and all(f.help for f in bracket.values())
    assert docs["k"].default == 20 and docs["scores"].default == {"win": 1, "draw": 0.5, "loss": 0}


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_every_built_in_parameter_has_help(name: str) -> None:
    for doc in BUILT_IN[name].describe_params():
        assert doc.help, (name, doc.name)


def test_params_help_names_every_parameter_sub_field_and_allowed_value() -> None:
    text = EloFamily.params_help()
    for doc in EloFamily.describe_params():
        assert re.search(rf"^  {doc.name} \(", text, re.M), doc.name
    for sub in ("k", "games_below", "rating_at_least", "above", "penalty"):
        assert re.search(rf"^ {{10}}{sub} \(", text, re.M), sub
    assert "one of none, half-up, half-away, truncate, floor; default none" in text
    assert "bga parameters" in BgaFamily.params_help()
    assert "one of fr, en; default fr" in BattleEmpireFamily.params_help()
    assert AdlgFamily.params_help() == "adlg has no parameters: its rules are fixed."


def test_a_bad_enum_value_lists_the_allowed_values() -> None:
    with pytest.raises(FamilyError) as err:
        EloFamily.parse_params({"rounding": "up"})
    assert (
        "'rounding' of family elo: 'up' is not one of none, half-up, half-away, truncate, floor"
        in str(err.value)
    )
    assert err.value.field == "rounding"
    with pytest.raises(
        FamilyError, match="'variant' of family battle-empire: 'de' is not one of fr, en"
    ):
        BattleEmpireFamily.parse_params({"variant": "de"})


# -- messages never end a list with nothing ----------------------------------------------------


def _no_empty_listing(message: str) -> None:
    assert not re.search(r"(allowed|takes|one of|expected)[^a-z0-9'\"]*(\)|$)", message), message


def test_a_family_without_parameters_says_so() -> None:
    with pytest.raises(FamilyError) as err:
        AdlgFamily.parse_params({"k": 30})
    assert "takes no parameters" in str(err.value)
    _no_empty_listing(str(err.value))


def test_a_family_without_result_columns_says_so() -> None:
    class Bare(Family):
        name = "bare"
        Params = msgspec.defstruct("NoParams", [], forbid_unknown_fields=True)
        Result = msgspec.defstruct("NoResult", [], forbid_unknown_fields=True)

    with pytest.raises(FamilyError) as err:
        Bare(Bare.default_params()).parse_result({"result": "a"}, n_sides=2)
    assert "takes no result fields" in str(err.value)
    _no_empty_listing(str(err.value))


def test_a_score_table_without_margins_is_named() -> None:
    fam = family("elo", scores={"draw": 0.5, "loss": 0}, default_margin=None)
    assert fam.column("margin").choices == ()
    for raw in ({"result": "a"}, {"result": "a", "margin": "win"}):
        with pytest.raises(FamilyError) as err:
            fam.parse_result(raw, n_sides=2)
        _no_empty_listing(str(err.value))
    with pytest.raises(FamilyError) as err:
        fam.parse_cell("margin", "win")
    _no_empty_listing(str(err.value))
