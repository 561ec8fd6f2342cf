"""Generic Elo family: every parameter of docs/rules/elo.md with an exact value."""

from __future__ import annotations

import math
from datetime import date
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.families.base import (
    Change,
    FamilyError,
    Game,
    Outcome,
    PlayerState,
    Season,
)
from ledger.families.battletech import BattleTechFamily, BattleTechResult
from ledger.families.bga import BgaFamily, BgaResult
from ledger.families.elo import EloFamily
from ledger.families.registry import BUILT_IN, load_family
from ledger.families.weng_lin import Ranking


def family(**params: Any) -> EloFamily:
    return EloFamily(EloFamily.parse_params(params))


def game(result: str = "a", margin: str | None = None, neutral: bool = False) -> Game:
    return Game(
        id="g1",
        date=date(2025, 3, 1),
        sides=(("a",), ("b",)),
        result=Outcome(result=result, margin=margin),  # type: ignore[arg-type]
        neutral=neutral,
    )


def rate(
    fam: EloFamily,
    a: float | PlayerState,
    b: float | PlayerState,
    result: str = "a",
    margin: str | None = None,
    neutral: bool = False,
) -> tuple[Change, Change]:
    sa = a if isinstance(a, PlayerState) else PlayerState(rating=a)
    sb = b if isinstance(b, PlayerState) else PlayerState(rating=b)
    changes = fam.rate(game(result, margin, neutral), [[sa], [sb]])
    return changes[0][0], changes[1][0]


def deltas(fam: EloFamily, a: Any, b: Any, **kw: Any) -> tuple[float, float]:
    ca, cb = rate(fam, a, b, **kw)
    return ca.delta, cb.delta


# -- defaults ---------------------------------------------------------------------


def test_defaults() -> None:
    fam = family()
    assert fam.initial_rating() == 1500
    assert fam.integer_ratings is False
    assert fam.per_event is False
    assert fam.params.k == 20
    assert fam.params.divisor == 400
    assert deltas(fam, 1500, 1500) == (10, -10)
    assert deltas(fam, 1500, 1500, result="b") == (-10, 10)
    assert deltas(fam, 1500, 1500, result="draw") == (0, 0)


def test_default_changes_are_fractional() -> None:
    a, b = rate(family(), 1600, 1500)
    p = 1 / (1 + 10 ** (-100 / 400))
    assert a.p == pytest.approx(p, abs=1e-12)
    assert a.delta == pytest.approx(20 * (1 - p), abs=1e-12)  # 7.1987
    assert a.delta != round(a.delta)
    assert b.delta == pytest.approx(-20 * (1 - p), abs=1e-12)
    # No season rule by default.
    idle = PlayerState(rating=2000, last_played=date(2020, 1, 1), rated_since=date(2020, 1, 1))
    season = Season("2025", date(2025, 1, 1), date(2025, 12, 31))
    assert family().close_season(season, {"p": idle}) == {}


def test_initial_and_divisor() -> None:
    assert family(initial=1200).initial_rating() == 1200
    # Divisor 100: 100 points apart gives P = 10/11; 22 x (1 - 10/11) = 2.
    a, b = rate(family(divisor=100, k=22), 1600, 1500)
    assert a.p == pytest.approx(10 / 11, abs=1e-12)
    assert a.delta == pytest.approx(2, abs=1e-9)
    assert b.delta == pytest.approx(-2, abs=1e-9)


def test_k() -> None:
    assert deltas(family(k=32), 1500, 1500) == (16, -16)


# -- K schedule -----------------------------------------------------------------

K_RULES = [{"k": 40, "games_below": 30}, {"k": 10, "rating_at_least": 2400}]


@pytest.mark.parametrize(
    ("rating", "games", "k"),
    [
        (1500, 0, 40),
        (1500, 29, 40),
        (1500, 30, 20),
        (2399, 30, 20),
        (2400, 30, 10),
        (2400, 29, 40),  # the first rule that applies wins
    ],
)
def test_k_rules(rating: float, games: int, k: float) -> None:
    fam = family(k_rules=K_RULES)
    a, _ = rate(fam, PlayerState(rating, games), PlayerState(rating, games))
    assert a.k == k
    assert a.delta == k / 2


def test_k_rule_with_both_conditions() -> None:
    fam = family(k_rules=[{"k": 5, "games_below": 10, "rating_at_least": 2000}])
    assert rate(fam, PlayerState(2000, 9), PlayerState(2000, 9))[0].k == 5
    assert rate(fam, PlayerState(2000, 10), PlayerState(2000, 10))[0].k == 20
    assert rate(fam, PlayerState(1999, 9), PlayerState(1999, 9))[0].k == 20


def test_k_rules_from_text() -> None:
    fam = family(k_rules='[{"k": 40, "games_below": 30}]')
    assert rate(fam, PlayerState(1500, 0), PlayerState(1500, 0))[0].k == 40


# -- score table and margins --------------------------------------------------------

SCORES = {"win": 1.0, "big": 1.5, "draw": 0.5, "loss": 0.0}


def test_scores_with_margins() -> None:
    fam = family(scores=SCORES)
    a, b = rate(fam, 1500, 1500, margin="big")
    assert (a.s, b.s) == (1.5, 0.0)
    assert (a.delta, b.delta) == (20, -10)
    # No margin given: the default margin ("win").
    a, b = rate(fam, 1500, 1500, result="b")
    assert (a.s, b.s) == (0.0, 1.0)
    assert (a.delta, b.delta) == (-10, 10)


def test_margins_are_checked() -> None:
    fam = family(scores=SCORES)
    assert fam.margins() == ["win", "big"]
    assert fam.parse_result({"result": "a", "margin": "big"}, n_sides=2) == Outcome("a", "big")
    with pytest.raises(FamilyError) as exc:
        fam.parse_result({"result": "a", "margin": "huge"}, n_sides=2)
    assert exc.value.field == "margin"
    assert "huge" in str(exc.value)
    with pytest.raises(FamilyError) as exc:
        fam.parse_result({"result": "draw", "margin": "big"}, n_sides=2)
    assert exc.value.field == "margin"


def test_no_default_margin_requires_one() -> None:
    fam = family(scores=SCORES, default_margin=None)
    with pytest.raises(FamilyError) as exc:
        fam.parse_result({"result": "a"}, n_sides=2)
    assert exc.value.field == "margin"


def test_custom_draw_and_loss_scores() -> None:
    fam = family(scores={"win": 3, "draw": 1, "loss": 0}, k=10)
    # P = 0.5: winner 10 x (3 - 0.5) = 25, loser 10 x (0 - 0.5) = -5.
    assert deltas(fam, 1500, 1500) == (25, -5)
    assert deltas(fam, 1500, 1500, result="draw") == (5, 5)


# -- probability rounding ------------------------------------------------------------


def test_probability_places() -> None:
    a, b = rate(family(probability_places=2, k=100), 1600, 1500)
    assert (a.p, b.p) == (0.64, 0.36)
    assert a.delta == pytest.approx(36, abs=1e-9)
    assert b.delta == pytest.approx(-36, abs=1e-9)
    unrounded, _ = rate(family(k=100), 1600, 1500)
    assert unrounded.delta == pytest.approx(35.9935, abs=1e-4)


def test_probability_rounds_half_up() -> None:
    # Divisor 100, 1500 vs 1500 + 100 x log10(3): P = 1/4, which at 1 place
    # rounds half up to 0.3 (round-half-even would give 0.2).
    fam = family(divisor=100, probability_places=1)
    b_rating = 1500 + 100 * math.log10(3)
    a, _ = rate(fam, 1500, b_rating)
    assert a.p == 0.3


# -- change rounding ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("rounding", "half", "point_seven"),
    [
        # K = 5 at P = 0.5: +2.5 / -2.5;  K = 5.4: +2.7 / -2.7.
        ("none", (2.5, -2.5), (2.7, -2.7)),
        ("half-up", (3, -2), (3, -3)),
        ("half-away", (3, -3), (3, -3)),
        ("truncate", (2, -2), (2, -2)),
        ("floor", (2, -3), (2, -3)),
    ],
)
def test_rounding_modes(
    rounding: str, half: tuple[float, float], point_seven: tuple[float, float]
) -> None:
    got = deltas(family(k=5, rounding=rounding), 1500, 1500)
    assert got == pytest.approx(half, abs=1e-9)
    got = deltas(family(k=5.4, rounding=rounding), 1500, 1500)
    assert got == pytest.approx(point_seven, abs=1e-9)


def test_integer_ratings() -> None:
    fam = family(integer=True, rounding="half-away")
    assert fam.integer_ratings is True
    assert deltas(fam, 1600, 1500) == (7, -7)
    with pytest.raises(FamilyError) as exc:
        family(integer=True)
    assert exc.value.field == "rounding"
    assert "integer" in str(exc.value)


# -- difference cap ---------------------------------------------------------------


def test_difference_cap() -> None:
    fam = family(difference_cap=400, k=22)
    (a,), (b,) = fam.rate(game("a"), [[PlayerState(2400)], [PlayerState(1500)]], explain=True)
    # 900 apart, clamped to 400: P = 10/11, 22 x (1 - 10/11) = 2.
    assert a.p == pytest.approx(10 / 11, abs=1e-12)
    assert a.delta == pytest.approx(2, abs=1e-9)
    assert b.delta == pytest.approx(-2, abs=1e-9)
    assert a.detail is not None and b.detail is not None
    assert a.detail["difference used (opp - own)"] == -400
    assert b.detail["difference used (opp - own)"] == 400
    # Without the cap: 22 x (1 - P(900)) = 0.123.
    assert rate(family(k=22), 2400, 1500)[0].delta == pytest.approx(0.12302, abs=1e-5)


# -- gain cap ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strict", "a_rating", "a_gain"),
    [
        (False, 1999, 1),  # 20 x (1 - P) = 1.07
        (False, 2000, 0),  # 500 or more above: nothing
        (True, 2000, 1),  # 20 x (1 - P) = 1.06; strict: only more than 500
        (True, 2001, 0),
    ],
)
def test_gain_cap(strict: bool, a_rating: float, a_gain: float) -> None:
    fam = family(gain_cap=500, gain_cap_strict=strict, rounding="half-away")
    assert rate(fam, a_rating, 1500)[0].delta == a_gain


def test_gain_cap_keeps_losses() -> None:
    fam = family(gain_cap=500, rounding="half-away")
    # The capped player loses: 20 x (0 - 0.9468) = -18.9 -> -19; the other gains 19.
    assert deltas(fam, 2000, 1500, result="b") == (-19, 19)
    # The other player's loss when the capped player wins: 20 x -0.0532 -> -1.
    assert rate(fam, 2000, 1500)[1].delta == -1


def test_no_gain_cap_by_default() -> None:
    assert rate(family(), 2000, 1500)[0].delta == pytest.approx(1.0648, abs=1e-4)


# -- teams ------------------------------------------------------------------------


def team_rate(fam: EloFamily, side_a: list[PlayerState], side_b: list[PlayerState]):
    g = Game(
        id="t",
        date=date(2025, 3, 1),
        sides=(tuple(f"a{i}" for i in range(len(side_a))), tuple("b" for _ in side_b)),
        result=Outcome("a"),
    )
    return fam.rate(g, [side_a, side_b])


def test_team_mean() -> None:
    # Means 200 vs 400: P = 1 / (1 + 10^0.5) = 0.2403; 20 x 0.7597 = 15.19.
    changes = team_rate(family(), [PlayerState(100), PlayerState(300)], [PlayerState(400)])
    p = 1 / (1 + 10**0.5)
    assert [c.p for c in changes[0]] == pytest.approx([p, p], abs=1e-12)
    assert [c.delta for c in changes[0]] == pytest.approx([20 * (1 - p)] * 2, abs=1e-12)


def test_team_sum() -> None:
    # Sums 400 vs 400: P = 0.5.
    changes = team_rate(
        family(team="sum"), [PlayerState(100), PlayerState(300)], [PlayerState(400)]
    )
    assert [c.p for c in changes[0]] == [0.5, 0.5]
    assert [c.delta for c in changes[0]] == [10, 10]
    assert changes[1][0].delta == -10


def test_team_players_apply_their_own_k() -> None:
    fam = family(team="sum", k_rules=[{"k": 40, "games_below": 10}])
    changes = team_rate(fam, [PlayerState(100, 0), PlayerState(300, 20)], [PlayerState(400, 20)])
    assert [c.k for c in changes[0]] == [40, 20]
    assert [c.delta for c in changes[0]] == [20, 10]


def test_team_rejects_other_values() -> None:
    with pytest.raises(FamilyError) as exc:
        EloFamily.parse_params({"team": "max"})
    assert exc.value.field == "team"


# -- first-player advantage -------------------------------------------------------


def test_home_advantage() -> None:
    fam = family(home_advantage=100, probability_places=2, k=100)
    a, b = rate(fam, 1500, 1500)
    assert (a.p, b.p) == (0.64, 0.36)
    assert a.delta == pytest.approx(36, abs=1e-9)
    assert b.delta == pytest.approx(-36, abs=1e-9)
    # Side B wins at home-disadvantage: 100 x (1 - 0.36) = 64.
    assert rate(fam, 1500, 1500, result="b")[1].delta == pytest.approx(64, abs=1e-9)


def test_home_advantage_not_in_neutral_games() -> None:
    fam = family(home_advantage=100, probability_places=2, k=100)
    a, b = rate(fam, 1500, 1500, neutral=True)
    assert (a.p, b.p) == (0.5, 0.5)
    assert (a.delta, b.delta) == (50, -50)


# -- per-event updates ---------------------------------------------------------------


def test_update_per_event() -> None:
    assert family(update="event").per_event is True
    assert family(update="game").per_event is False
    with pytest.raises(FamilyError) as exc:
        EloFamily.parse_params({"update": "tournament"})
    assert exc.value.field == "update"


# -- season close ----------------------------------------------------------------

SEASON = Season(label="S1", start=date(2025, 1, 1), end=date(2025, 12, 31))
BEFORE = date(2024, 5, 1)


def idle(rating: float) -> PlayerState:
    return PlayerState(rating=rating, games=10, last_played=BEFORE, rated_since=BEFORE)


def test_season_penalties_and_floor() -> None:
    fam = family(
        season_penalties=[{"above": 2000, "penalty": 100}, {"above": 1600, "penalty": 50}],
        season_floor=1580,
    )
    states = {
        "2100": idle(2100),
        "2000": idle(2000),
        "1620": idle(1620),
        "1600": idle(1600),
        "1590": idle(1590),
        "active": PlayerState(
            rating=2100, games=11, last_played=date(2025, 4, 1), rated_since=BEFORE
        ),
    }
    changes = fam.close_season(SEASON, states)
    assert {p: c.delta for p, c in changes.items()} == {
        "2100": -100,
        "2000": -50,  # not strictly above 2000
        "1620": -40,  # floor 1580
    }
    assert "S1" in changes["2100"].reason


def test_season_penalties_without_floor() -> None:
    fam = family(season_penalties=[{"above": 1600, "penalty": 50}])
    assert fam.close_season(SEASON, {"p": idle(1620)})["p"].delta == -50


def test_season_regression() -> None:
    fam = family(season_regression=0.5)
    states = {
        "high": idle(1700),
        "low": idle(1300),
        "mean": idle(1500),
        # Regression applies to every rated player, active or not.
        "active": PlayerState(
            rating=1900, games=11, last_played=date(2025, 4, 1), rated_since=BEFORE
        ),
    }
    changes = fam.close_season(SEASON, states)
    assert {p: c.delta for p, c in changes.items()} == {
        "high": -100,
        "low": 100,
        "active": -200,
    }


def test_season_regression_mean_and_rounding() -> None:
    fam = family(season_regression=0.25, season_mean=1000)
    # 1000 x 0.25 + 1700 x 0.75 = 1525.
    assert fam.close_season(SEASON, {"p": idle(1700)})["p"].delta == -175
    fam = family(season_regression=0.3, season_mean=1000, integer=True, rounding="half-away")
    # 1000 x 0.3 + 1705 x 0.7 = 1493.5 -> change -211.5 -> -212.
    assert fam.close_season(SEASON, {"p": idle(1705)})["p"].delta == -212


def test_season_regression_is_a_fraction() -> None:
    with pytest.raises(FamilyError) as exc:
        family(season_regression=1.5)
    assert exc.value.field == "season_regression"


# -- bad parameters -------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"foo": 1}, "foo"),
        ({"k": "abc"}, "k"),
        ({"rounding": "bogus"}, "rounding"),
        ({"divisor": "x"}, "divisor"),
        ({"k_rules": [{"k": 10, "games_under": 5}]}, "k_rules"),
        ({"probability_places": "two"}, "probability_places"),
    ],
)
def test_bad_params_name_the_key(raw: dict[str, Any], key: str) -> None:
    with pytest.raises(FamilyError) as exc:
        EloFamily.parse_params(raw)
    assert exc.value.field == key
    assert key in str(exc.value)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"divisor": 0}, "divisor"),
        ({"scores": {"win": 1, "loss": 0}}, "scores"),
        ({"scores": {"win": 1, "draw": 0.5}}, "scores"),
        ({"default_margin": "big"}, "default_margin"),
    ],
)
def test_incoherent_params_name_the_key(raw: dict[str, Any], key: str) -> None:
    with pytest.raises(FamilyError) as exc:
        family(**raw)
    assert exc.value.field == key


def test_params_from_text() -> None:
    params = EloFamily.parse_params({"k": "32", "integer": "true", "rounding": "truncate"})
    assert (params.k, params.integer, params.rounding) == (32, True, "truncate")


def test_bv_does_not_belong_to_elo() -> None:
    with pytest.raises(FamilyError) as exc:
        family().parse_result({"result": "a", "bv": [1, 2, 3, 4]}, n_sides=2)
    assert exc.value.field == "bv"


def test_elo_is_two_sided() -> None:
    with pytest.raises(FamilyError):
        family().parse_result({"result": "a"}, n_sides=3)


def test_explain_detail() -> None:
    fam = family(home_advantage=100, probability_places=2, k=100, rounding="half-away")
    (a,), (b,) = fam.rate(game("a"), [[PlayerState(1500, 3)], [PlayerState(1500)]], explain=True)
    assert a.detail is not None and b.detail is not None
    assert a.detail["P"] == 0.64
    assert a.detail["S"] == 1.0
    assert a.detail["K"] == 100
    assert a.detail["games played"] == 3
    assert a.detail["first-player advantage"] == 100
    assert b.detail["first-player advantage"] == -100
    assert a.detail["change"] == 36
    assert b.detail["change"] == -36
    assert rate(fam, 1500, 1500)[0].detail is None


# -- properties -------------------------------------------------------------------

ratings = st.integers(min_value=0, max_value=3000)
games_played = st.integers(min_value=0, max_value=60)
elo_params = st.fixed_dictionaries(
    {
        "k": st.integers(min_value=1, max_value=80),
        "rounding": st.sampled_from(["none", "half-up", "half-away", "truncate", "floor"]),
        "probability_places": st.sampled_from([None, 2, 3]),
        "difference_cap": st.sampled_from([None, 400, 600]),
        "gain_cap": st.sampled_from([None, 400, 500]),
        "gain_cap_strict": st.booleans(),
        "k_rules": st.sampled_from([[], K_RULES]),
    }
)


@given(params=elo_params, rating=ratings, played=games_played)
def test_draw_between_equals_changes_nothing(
    params: dict[str, Any], rating: int, played: int
) -> None:
    fam = family(**params)
    a, b = rate(fam, PlayerState(rating, played), PlayerState(rating, played), result="draw")
    assert (a.delta, b.delta) == (0, 0)


@given(
    params=elo_params,
    r_a=ratings,
    r_b=ratings,
    g_a=games_played,
    g_b=games_played,
    result=st.sampled_from(["a", "b", "draw"]),
)
def test_swapping_sides_swaps_changes(
    params: dict[str, Any], r_a: int, r_b: int, g_a: int, g_b: int, result: str
) -> None:
    fam = family(**params)
    sa, sb = PlayerState(r_a, g_a), PlayerState(r_b, g_b)
    a, b = rate(fam, sa, sb, result=result)
    b2, a2 = rate(fam, sb, sa, result={"a": "b", "b": "a", "draw": "draw"}[result])
    assert (a.delta, b.delta) == (a2.delta, b2.delta)


# Every two-sided game of every built-in family: swapping sides swaps changes.
TWO_SIDED_RESULTS: dict[str, Any] = {
    "elo": st.sampled_from([Outcome("a"), Outcome("b"), Outcome("draw")]),
    "battle-empire": st.sampled_from(
        [Outcome("a", "marginal"), Outcome("b", "overwhelming"), Outcome("draw")]
    ),
    "adlg": st.sampled_from([Outcome("a"), Outcome("b"), Outcome("draw")]),
    "glicko2": st.sampled_from([Outcome("a"), Outcome("b"), Outcome("draw")]),
    "bga": st.sampled_from([BgaResult([1, 2]), BgaResult([2, 1]), BgaResult([1, 1])]),
    "weng-lin": st.sampled_from([Ranking([1, 2]), Ranking([2, 1]), Ranking([1, 1])]),
    "battletech": st.lists(st.integers(min_value=1, max_value=8000), min_size=4, max_size=4).map(
        lambda bv: BattleTechResult(bv=[float(v) for v in bv])
    ),
}


def swapped(result: Any) -> Any:
    if isinstance(result, Outcome):
        return Outcome({"a": "b", "b": "a", "draw": "draw"}[result.result], result.margin)
    if isinstance(result, BgaResult | Ranking):
        return type(result)(list(reversed(result.ranks)))
    a_s, a_e, b_s, b_e = result.bv
    return BattleTechResult(bv=[b_s, b_e, a_s, a_e])


def test_every_two_sided_family_is_covered() -> None:
    assert set(TWO_SIDED_RESULTS) == set(BUILT_IN)
    assert BgaFamily.min_sides == 2 and BattleTechFamily.max_sides == 2


@pytest.mark.parametrize("name", sorted(TWO_SIDED_RESULTS))
@given(data=st.data(), r_a=ratings, r_b=ratings, g_a=games_played, g_b=games_played)
def test_every_family_swapping_sides_swaps_changes(
    name: str, data: st.DataObject, r_a: int, r_b: int, g_a: int, g_b: int
) -> None:
    fam = load_family(name, {})
    result = data.draw(TWO_SIDED_RESULTS[name])
    sa, sb = PlayerState(r_a, g_a), PlayerState(r_b, g_b)

    def run(res: Any, first: PlayerState, second: PlayerState) -> list[float]:
        g = Game(id="g", date=date(2025, 3, 1), sides=(("x",), ("y",)), result=res)
        return [side[0].delta for side in fam.rate(g, [[first], [second]])]

    assert run(result, sa, sb) == list(reversed(run(swapped(result), sb, sa)))
