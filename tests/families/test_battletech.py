"""BattleTech family: docs/rules/battletech.md examples, unit lists, objectives."""

from __future__ import annotations

from datetime import date
from fractions import Fraction
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.families.base import FamilyError, Game, PlayerState
from ledger.families.battletech import (
    BattleTechFamily,
    Objective,
    Unit,
    battle_totals,
    ending_bv,
)

FAMILY = BattleTechFamily(BattleTechFamily.default_params())

# docs/rules/battletech.md Examples: R_A, R_B, [A_s, A_e, B_s, B_e], A's, B's change.
EXAMPLES = [
    (1000, 1000, [5000, 3000, 5000, 1000], 100, -100),
    (1200, 1000, [4000, 2000, 5000, 2500], -61, 72),
    (1000, 1000, [4000, 4000, 6000, 6000], 50, -50),
]

# The same three games as unit lists whose states and flights give those totals.
EXAMPLE_UNITS: list[list[list[dict[str, Any]]]] = [
    [
        [
            {"name": "Atlas", "bv": 3000, "state": "critical-damage"},  # 2000
            {"name": "Hunchback", "bv": 1000},  # 1000
            {"name": "Locust", "bv": 1000, "state": "destroyed"},  # 0
        ],
        [
            {"name": "King Crab", "bv": 3000, "state": "crippled"},  # 1000
            {"name": "Marauder", "bv": 2000, "state": "destroyed"},  # 0
        ],
    ],
    [
        [
            {"name": "Warhammer", "bv": 2400, "state": "crippled", "fled": True},
            {"name": "Wolverine", "bv": 1600},  # 400 + 1600
        ],
        [
            {"name": "Catapult", "bv": 3000, "fled": True},  # 1500
            {"name": "Jenner", "bv": 1500, "state": "critical-damage"},  # 1000
            {"name": "Commando", "bv": 500, "state": "destroyed"},  # 0
        ],
    ],
    [
        [{"name": "Awesome", "bv": 4000}],
        [{"name": "Stalker", "bv": 3000}, {"name": "Thunderbolt", "bv": 3000}],
    ],
]


def make_game(result: Any, sides: tuple[tuple[str, ...], ...] = (("a",), ("b",))):
    return Game(id="g1", date=date(2025, 3, 1), sides=sides, result=result)


def rate(
    raw: dict[str, Any],
    ratings: tuple[list[float], list[float]],
    family: BattleTechFamily = FAMILY,
    explain: bool = False,
):
    result = family.parse_result(raw, n_sides=2)
    sides = tuple(tuple(f"p{s}{i}" for i in range(len(r))) for s, r in enumerate(ratings))
    states = [[PlayerState(rating=r) for r in side] for side in ratings]
    return family.rate(make_game(result, sides), states, explain=explain)


def deltas(changes) -> list[list[float]]:
    return [[c.delta for c in side] for side in changes]


# -- docs/rules examples ------------------------------------------------------


@pytest.mark.parametrize(("r_a", "r_b", "bv", "change_a", "change_b"), EXAMPLES)
def test_rules_examples_bv_form(r_a, r_b, bv, change_a, change_b):
    changes = rate({"bv": bv}, ([r_a], [r_b]))
    assert deltas(changes) == [[change_a], [change_b]]
    for side in changes:
        assert side[0].delta == int(side[0].delta)


@pytest.mark.parametrize(("example", "units"), list(zip(EXAMPLES, EXAMPLE_UNITS, strict=True)))
def test_rules_examples_unit_form(example, units):
    r_a, r_b, bv, change_a, change_b = example
    result = FAMILY.parse_result({"units": units}, n_sides=2)
    t = battle_totals(result)
    assert [t.a_s, t.a_e, t.b_s, t.b_e] == bv
    changes = rate({"units": units}, ([r_a], [r_b]))
    assert deltas(changes) == [[change_a], [change_b]]


def test_change_carries_score_expected_and_scale():
    a, b = rate({"bv": [5000, 3000, 5000, 1000]}, ([1000], [1000]))
    # S_A = (5000/5000)(3000 + 5000 - 1000); E_A = 10000 / 2.
    assert (a[0].s, a[0].p, a[0].k) == (7000, 5000, 20)
    assert (b[0].s, b[0].p, b[0].k) == (3000, 5000, 20)


def test_unequal_ratings_expected_scores():
    a, b = rate({"bv": [4000, 2000, 5000, 2500]}, ([1200], [1000]))
    assert a[0].s == 5625  # (5000/4000)(2000 + 5000 - 2500)
    assert b[0].s == 3600  # (4000/5000)(2500 + 4000 - 2000)
    assert a[0].p == pytest.approx(9000 / (1 + 10**-0.5))
    assert b[0].p == pytest.approx(9000 / (1 + 10**0.5))


def test_halves_round_upward():
    # S_A - E_A = A_e - B_e = -250 -> -12.5 -> -12; B: +12.5 -> +13.
    assert deltas(rate({"bv": [1000, 500, 1000, 750]}, ([1000], [1000]))) == [
        [-12],
        [13],
    ]


def test_params_scale_and_divisor():
    family = BattleTechFamily(BattleTechFamily.parse_params({"scale": "10"}))
    assert deltas(rate({"bv": [5000, 3000, 5000, 1000]}, ([1000], [1000]), family)) == [
        [200],
        [-200],
    ]
    # A larger divisor shrinks the rating gap: E_A = 9000 / (1 + 10^-0.25).
    family = BattleTechFamily(BattleTechFamily.parse_params({"divisor": 800}))
    a, b = rate({"bv": [4000, 2000, 5000, 2500]}, ([1200], [1000]), family)
    assert a[0].p == pytest.approx(9000 / (1 + 10**-0.25))
    assert (a[0].delta, b[0].delta) == (-7, 18)
    assert FAMILY.initial_rating() == 1000
    assert FAMILY.grade(PlayerState(rating=1500)) is None


def test_unknown_param_is_rejected():
    with pytest.raises(FamilyError) as err:
        BattleTechFamily.parse_params({"k": 32})
    assert err.value.field == "k"


# -- ending BV of units -----------------------------------------------------


@pytest.mark.parametrize(
    ("state", "fled", "expected"),
    [
        ("intact", False, 1200),
        ("critical-damage", False, 800),
        ("crippled", False, 400),
        ("destroyed", False, 0),
        ("intact", True, 600),
        ("critical-damage", True, 400),
        ("crippled", True, 200),  # 1/3 then halved: 1/6
        ("destroyed", True, 0),
    ],
)
def test_ending_bv(state, fled, expected):
    assert ending_bv(Unit(name="Griffin", bv=1200, state=state, fled=fled)) == expected


def test_ending_bv_is_the_exact_fraction_rounded_once():
    # 10 * (2/3) would round twice (66.66...66 vs the nearest float to 20/3).
    assert ending_bv(Unit(name="Atlas", bv=10, state="critical-damage")) == float(Fraction(20, 3))
    assert ending_bv(Unit(name="Atlas", bv=5, state="crippled", fled=True)) == float(Fraction(5, 6))
    assert ending_bv(Unit(name="Atlas", bv=3000, state="crippled")) == 1000


# -- objectives -------------------------------------------------------------

# Without objectives: A_s 3000, A_e 2000, B_s 3000, B_e 1000.
BASE_UNITS = [
    [{"name": "Atlas", "bv": 3000, "state": "critical-damage"}],
    [{"name": "King Crab", "bv": 3000, "state": "crippled"}],
]


def totals_with(*objectives: dict[str, Any], **k: float) -> list[float]:
    result = FAMILY.parse_result(
        {"units": BASE_UNITS, "objectives": list(objectives), **k}, n_sides=2
    )
    t = battle_totals(result)
    return [t.a_s, t.a_e, t.b_s, t.b_e, t.k_a, t.k_b, t.k_star]


def test_protect_survived_adds_to_start_and_end():
    obj = {"kind": "protect", "value": 1000, "side": "a", "survived": True}
    assert totals_with(obj) == [4000, 3000, 3000, 1000, 0, 0, 0]
    # S_A = 3000 (3000 + 3000 - 1000) / 4000 = 3750, E_A = 3500: +12.5 -> +13.
    # S_B = 4000 (1000 + 4000 - 3000) / 3000 = 2666.67: -41.67 -> -42.
    changes = rate({"units": BASE_UNITS, "objectives": [obj]}, ([1000], [1000]))
    assert deltas(changes) == [[13], [-42]]


def test_protect_lost_adds_to_start_only():
    obj = {"kind": "protect", "value": 1000, "side": "b", "survived": False}
    assert totals_with(obj) == [3000, 2000, 4000, 1000, 0, 0, 0]


def test_guard_held_by_other_side():
    obj = {"kind": "guard", "value": 600, "side": "a", "holder": "b"}
    assert totals_with(obj) == [3600, 2000, 3000, 1600, 0, 0, 0]
    kept = {"kind": "guard", "value": 600, "side": "a", "holder": "a"}
    assert totals_with(kept) == [3600, 2600, 3000, 1000, 0, 0, 0]
    lost = {"kind": "guard", "value": 600, "side": "a"}
    assert totals_with(lost) == [3600, 2000, 3000, 1000, 0, 0, 0]


def test_contested_taken_counts_in_k_star():
    obj = {"kind": "contested", "value": 500, "holder": "b", "name": "cache"}
    assert totals_with(obj) == [3000, 2000, 3000, 1500, 0, 0, 500]
    # E = (6000 + 500/2) / 2 = 3125; S_A = 3500 -> +18.75 -> +19;
    # S_B = 2500 -> -31.25 -> -31.
    a, b = rate({"units": BASE_UNITS, "objectives": [obj]}, ([1000], [1000]))
    assert (a[0].p, b[0].p) == (3125, 3125)
    assert (a[0].delta, b[0].delta) == (19, -31)


def test_one_sided_objective_counts_in_that_sides_k():
    obj = {"kind": "contested", "value": 400, "side": "a", "holder": "a"}
    assert totals_with(obj) == [3000, 2400, 3000, 1000, 400, 0, 0]
    a, b = rate({"units": BASE_UNITS, "objectives": [obj]}, ([1000], [1000]))
    assert (a[0].p, b[0].p) == (3200, 3000)


def test_explicit_k_terms_add_to_objective_terms():
    obj = {"kind": "contested", "value": 500}
    assert totals_with(obj, k_a=100, k_b=50, k_star=20) == [
        3000,
        2000,
        3000,
        1000,
        100,
        50,
        520,
    ]
    a, b = rate({"bv": [3000, 2000, 3000, 1000], "k_a": 100, "k_star": 200}, ([1000], [1000]))
    assert (a[0].p, b[0].p) == ((6000 + 100 + 100) / 2, (6000 + 100) / 2)


# -- team sides -------------------------------------------------------------


def test_team_sides_share_the_side_change():
    # Side A's mean is 1200, as in the second example row.
    changes = rate({"bv": [4000, 2000, 5000, 2500]}, ([1100, 1300], [1000]))
    assert deltas(changes) == [[-61, -61], [72]]
    changes = rate({"bv": [5000, 3000, 5000, 1000]}, ([900, 1100], [1200, 800, 1000]))
    assert deltas(changes) == [[100, 100], [-100, -100, -100]]


# -- parse_result errors ----------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "field", "words"),
    [
        ({}, "bv", "either"),
        ({"bv": [1, 1, 1, 1], "units": BASE_UNITS}, "units", "not both"),
        ({"bv": [5000, 3000, 5000]}, "bv", "four"),
        ({"bv": [5000, -1, 5000, 1000]}, "bv", "non-negative"),
        ({"bv": [0, 0, 5000, 1000]}, "bv", "starting BV"),
        ({"bv": "5000,x,5000,1000"}, "bv", "bv"),
        ({"units": [BASE_UNITS[0]]}, "units", "2 lists"),
        ({"units": [BASE_UNITS[0], []]}, "units", "empty"),
        (
            {
                "units": [
                    [{"name": "Atlas", "bv": 3000, "state": "wrecked"}],
                    BASE_UNITS[1],
                ]
            },
            "units",
            "units",
        ),
        (
            {"units": [[{"name": "Atlas", "bv": 0}], BASE_UNITS[1]]},
            "units",
            "starting BV",
        ),
        ({"units": BASE_UNITS, "k_a": -5}, "k_a", "non-negative"),
        ({"bv": [5000, 3000, 5000, 1000], "margin": "major"}, "margin", "margin"),
        (
            {
                "bv": [5000, 3000, 5000, 1000],
                "objectives": [{"kind": "contested", "value": 1}],
            },
            "objectives",
            "units",
        ),
        (
            {
                "units": BASE_UNITS,
                "objectives": [{"kind": "protect", "value": 100, "side": "a"}],
            },
            "objectives",
            "survived",
        ),
        (
            {"units": BASE_UNITS, "objectives": [{"kind": "guard", "value": 100}]},
            "objectives",
            "side",
        ),
        (
            {
                "units": BASE_UNITS,
                "objectives": [{"kind": "contested", "value": 1, "side": "a", "holder": "b"}],
            },
            "objectives",
            "open only",
        ),
        (
            {"units": BASE_UNITS, "objectives": [{"kind": "raid", "value": 100}]},
            "objectives",
            "objectives",
        ),
    ],
)
def test_parse_result_errors_name_the_field(raw, field, words):
    with pytest.raises(FamilyError) as err:
        FAMILY.parse_result(raw, n_sides=2)
    assert err.value.field == field
    assert words in str(err.value)


# -- BV never grows in play (docs/rules/battletech.md "Checks") ------------


@pytest.mark.parametrize(
    ("bv", "side", "words"),
    [
        ([1000, 2000, 1000, 500], "A", "A_e (2000) is more than its starting BV A_s (1000)"),
        ([1000, 500, 1000, 1001], "B", "B_e (1001) is more than its starting BV B_s (1000)"),
    ],
)
def test_totals_ending_above_starting_are_refused_naming_the_side(bv, side, words):
    with pytest.raises(FamilyError) as err:
        FAMILY.parse_result({"bv": bv}, n_sides=2)
    assert err.value.field == "bv"
    assert f"side {side}'s ending BV" in str(err.value)
    assert words in str(err.value)
    assert "BV never grows in play" in str(err.value)


@pytest.mark.parametrize("bv", [[1000, -1, 1000, 500], [1000, 500, 1000, -0.5]])
def test_a_negative_bv_is_refused(bv):
    with pytest.raises(FamilyError, match="non-negative") as err:
        FAMILY.parse_result({"bv": bv}, n_sides=2)
    assert err.value.field == "bv"


def test_totals_ending_at_starting_or_lower_are_accepted():
    result = FAMILY.parse_result({"bv": [1000, 1000, 1000, 0]}, n_sides=2)
    assert result.bv == [1000, 1000, 1000, 0]


def test_totals_may_end_above_starting_by_the_objective_points_a_side_can_take():
    # A may take K_A (100) and K* (200): ending up to 1300 is accepted.
    raw = {"bv": [1000, 1300, 1000, 1200], "k_a": 100, "k_star": 200}
    assert FAMILY.parse_result(raw, n_sides=2).bv == [1000, 1300, 1000, 1200]
    with pytest.raises(FamilyError) as err:
        FAMILY.parse_result({**raw, "bv": [1000, 1301, 1000, 1000]}, n_sides=2)
    assert "side A's ending BV A_e (1301)" in str(err.value)
    assert "k_a + k_star = 300" in str(err.value)
    # B can take K* only (K_B is 0): 1201 is beyond it.
    with pytest.raises(FamilyError, match="side B's ending BV B_e \\(1201\\)"):
        FAMILY.parse_result({**raw, "bv": [1000, 1000, 1000, 1201]}, n_sides=2)


def test_units_may_end_above_their_bv_by_objectives_the_side_holds():
    # B holds A's guarded item (600) and a contested objective (200): B ends
    # with 800 more than its units' BV, which is within what it can hold.
    objectives = [
        {"kind": "guard", "value": 600, "side": "a", "holder": "b"},
        {"kind": "contested", "value": 200, "holder": "b"},
    ]
    units = [
        [{"name": "Atlas", "bv": 3000, "state": "destroyed"}],
        [{"name": "King Crab", "bv": 3000}],
    ]
    t = battle_totals(FAMILY.parse_result({"units": units, "objectives": objectives}, n_sides=2))
    assert (t.b_s, t.b_e) == (3000, 3800)


def test_units_cannot_end_with_an_objective_the_side_cannot_hold():
    # Open only to A: B holding it would end B beyond its units' BV plus what
    # it can hold.
    objectives = [{"kind": "contested", "value": 200, "side": "a", "holder": "b"}]
    with pytest.raises(FamilyError, match="open only to side 'a'") as err:
        FAMILY.parse_result({"units": BASE_UNITS, "objectives": objectives}, n_sides=2)
    assert err.value.field == "objectives"


def test_three_sides_are_rejected():
    with pytest.raises(FamilyError, match="2 sides"):
        FAMILY.parse_result({"bv": [1, 1, 1, 1]}, n_sides=3)


def test_text_forms_parse():
    result = FAMILY.parse_result(
        {"bv": "5000, 3000, 5000, 1000", "units": "", "k_star": "150"}, n_sides=2
    )
    assert result.bv == [5000, 3000, 5000, 1000]
    assert result.units is None
    assert result.k_star == 150
    result = FAMILY.parse_result(
        {
            "units": '[[{"name": "Atlas", "bv": 3000, "state": "crippled", "fled": true}],'
            ' [{"name": "Locust", "bv": 500}]]',
            "objectives": '[{"kind": "contested", "value": 100, "holder": "a"}]',
        },
        n_sides=2,
    )
    assert result.units[0][0] == Unit(name="Atlas", bv=3000, state="crippled", fled=True)
    assert result.objectives == [Objective(kind="contested", value=100, holder="a")]


# -- explain ----------------------------------------------------------------


def test_explain_lists_units_and_every_total():
    units = EXAMPLE_UNITS[1]
    a, b = rate({"units": units}, ([1200], [1000]), explain=True)
    detail = a[0].detail
    assert detail is not None
    assert detail["units A"][0] == {
        "name": "Warhammer",
        "bv": 2400,
        "state": "crippled",
        "fled": True,
        "fraction": "1/6",
        "ending_bv": 400,
    }
    assert [u["ending_bv"] for u in detail["units B"]] == [1500, 1000, 0]
    assert [u["fraction"] for u in detail["units B"]] == ["1/2", "2/3", "0"]
    for key, value in {
        "A_s": 4000,
        "A_e": 2000,
        "B_s": 5000,
        "B_e": 2500,
        "K_A": 0,
        "K_B": 0,
        "K*": 0,
        "R_A": 1200,
        "R_B": 1000,
        "S": 5625,
        "change": -61,
    }.items():
        assert detail[key] == value, key
    assert detail["(S-E)/scale"] == pytest.approx((5625 - detail["E"]) / 20)
    assert b[0].detail["side"] == "B"
    assert b[0].detail["change"] == 72
    assert rate({"units": units}, ([1200], [1000]))[0][0].detail is None


def test_explain_shows_objective_terms():
    obj = {"kind": "guard", "value": 600, "side": "a", "holder": "b", "name": "HPG"}
    a, _ = rate({"units": BASE_UNITS, "objectives": [obj]}, ([1000], [1000]), explain=True)
    assert a[0].detail["objectives"][0]["adds"] == {"A_s": 600, "B_e": 600}


# -- properties -------------------------------------------------------------

start_value = st.integers(min_value=1, max_value=20000)
rating = st.integers(min_value=400, max_value=2400)
k_value = st.integers(min_value=0, max_value=2000)


@given(
    a_s=start_value,
    b_s=start_value,
    r_a=rating,
    r_b=rating,
    k_a=k_value,
    k_b=k_value,
    k_star=k_value,
    data=st.data(),
)
def test_swapping_sides_swaps_changes(a_s, b_s, r_a, r_b, k_a, k_b, k_star, data):
    # Each side ends with at most its starting BV plus the objective points it
    # can take (BV never grows in play).
    a_e = data.draw(st.integers(min_value=0, max_value=a_s + k_a + k_star), label="a_e")
    b_e = data.draw(st.integers(min_value=0, max_value=b_s + k_b + k_star), label="b_e")
    forward = rate(
        {"bv": [a_s, a_e, b_s, b_e], "k_a": k_a, "k_b": k_b, "k_star": k_star},
        ([r_a], [r_b]),
    )
    backward = rate(
        {"bv": [b_s, b_e, a_s, a_e], "k_a": k_b, "k_b": k_a, "k_star": k_star},
        ([r_b], [r_a]),
    )
    assert deltas(forward) == deltas(backward)[::-1]


unit = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["Atlas", "Locust", "Jenner", "Marauder"]),
        "bv": st.integers(min_value=1, max_value=3000),
        "state": st.sampled_from(["intact", "critical-damage", "crippled", "destroyed"]),
        "fled": st.booleans(),
    }
)
objective = st.one_of(
    st.fixed_dictionaries(
        {
            "kind": st.just("protect"),
            "value": k_value,
            "side": st.sampled_from(["a", "b"]),
            "survived": st.booleans(),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("guard"),
            "value": k_value,
            "side": st.sampled_from(["a", "b"]),
            "holder": st.sampled_from(["a", "b", None]),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("contested"),
            "value": k_value,
            "holder": st.sampled_from(["a", "b", None]),
        }
    ),
)
OTHER = {"a": "b", "b": "a", None: None}


@given(
    units_a=st.lists(unit, min_size=1, max_size=5),
    units_b=st.lists(unit, min_size=1, max_size=5),
    objectives=st.lists(objective, max_size=3),
    r_a=rating,
    r_b=rating,
)
def test_swapping_sides_swaps_changes_with_units(units_a, units_b, objectives, r_a, r_b):
    swapped = [
        {k: OTHER[v] if k in ("side", "holder") else v for k, v in o.items()} for o in objectives
    ]
    forward = rate({"units": [units_a, units_b], "objectives": objectives}, ([r_a], [r_b]))
    backward = rate({"units": [units_b, units_a], "objectives": swapped}, ([r_b], [r_a]))
    assert deltas(forward) == deltas(backward)[::-1]


@given(
    units_a=st.lists(unit, min_size=1, max_size=6),
    units_b=st.lists(unit, min_size=1, max_size=6),
    r_a=rating,
    r_b=rating,
)
def test_unit_form_equals_bv_form_of_its_totals(units_a, units_b, r_a, r_b):
    t = battle_totals(FAMILY.parse_result({"units": [units_a, units_b]}, n_sides=2))
    by_units = rate({"units": [units_a, units_b]}, ([r_a], [r_b]))
    by_totals = rate({"bv": [t.a_s, t.a_e, t.b_s, t.b_e]}, ([r_a], [r_b]))
    assert deltas(by_units) == deltas(by_totals)
    assert t.a_e <= t.a_s and t.b_e <= t.b_s


def test_stored_result_round_trips():
    raw = {
        "units": EXAMPLE_UNITS[1],
        "objectives": [{"kind": "guard", "value": 600, "side": "a", "holder": "b"}],
        "k_star": 40,
    }
    result = FAMILY.parse_result(raw, n_sides=2)
    assert FAMILY.load_result(msgspec.to_builtins(result)) == result
