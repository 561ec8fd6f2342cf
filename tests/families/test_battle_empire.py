"""Battle Empire family: docs/rules/battle-empire.md examples, K, grades, seasons."""

from __future__ import annotations

from datetime import date

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
from ledger.families.battle_empire import BattleEmpireFamily

FR = BattleEmpireFamily(BattleEmpireFamily.parse_params({}))
EN = BattleEmpireFamily(BattleEmpireFamily.parse_params({"variant": "en"}))

# docs/rules examples: A = 1000 with 0 games played (K = 30), B = 1200 with 20
# games played (K = 60).
A = PlayerState(rating=1000, games=0)
B = PlayerState(rating=1200, games=20)


def game(result: str, margin: str | None = None) -> Game:
    return Game(
        id="g1",
        date=date(2025, 3, 1),
        sides=(("a",), ("b",)),
        result=Outcome(result=result, margin=margin),  # type: ignore[arg-type]
    )


def rate(
    result: str,
    margin: str | None,
    a: PlayerState,
    b: PlayerState,
    family: BattleEmpireFamily = FR,
) -> tuple[Change, Change]:
    changes = family.rate(game(result, margin), [[a], [b]])
    return changes[0][0], changes[1][0]


# -- docs/rules example table: each row is that player's own result -------------

# (own result, A's change, B's change)
TABLE = [
    ("defeat", -8, -43),
    ("draw", 7, -13),
    ("marginal", 22, 17),
    ("decisive", 29, 32),
    ("overwhelming", 37, 47),
]


def own_result(side: str, own: str) -> tuple[str, str | None]:
    """The game result that gives ``side`` (``a`` or ``b``) the result ``own``."""
    other = "b" if side == "a" else "a"
    if own == "draw":
        return "draw", None
    if own == "defeat":
        # The loser scores 0 whatever the winner's margin.
        return other, "marginal"
    return side, own


@pytest.mark.parametrize(("own", "change_a", "change_b"), TABLE, ids=[r[0] for r in TABLE])
def test_rules_example_a(own: str, change_a: int, change_b: int) -> None:
    result, margin = own_result("a", own)
    a, _ = rate(result, margin, A, B)
    assert a.delta == change_a
    assert a.p == 0.28
    assert a.k == 30


@pytest.mark.parametrize(("own", "change_a", "change_b"), TABLE, ids=[r[0] for r in TABLE])
def test_rules_example_b(own: str, change_a: int, change_b: int) -> None:
    result, margin = own_result("b", own)
    _, b = rate(result, margin, A, B)
    assert b.delta == change_b
    assert b.p == 0.72
    assert b.k == 60


@pytest.mark.parametrize(
    ("margin", "s"), [("marginal", 1.0), ("decisive", 1.25), ("overwhelming", 1.5)]
)
def test_scores_of_margins_and_loser_scores_zero(margin: str, s: float) -> None:
    a, b = rate("a", margin, A, B)
    assert (a.s, b.s) == (s, 0.0)
    # The loser's change does not depend on the winner's margin.
    assert b.delta == -43


def test_a_beats_b_decisively() -> None:
    a, b = rate("a", "decisive", A, B)
    assert (a.delta, b.delta) == (29, -43)


def test_draw_scores_half() -> None:
    a, b = rate("draw", None, A, B)
    assert (a.s, b.s) == (0.5, 0.5)
    assert (a.delta, b.delta) == (7, -13)


# -- the 500-point rule ---------------------------------------------------------

MARSHAL = PlayerState(rating=1600, games=20)  # K = 30 (1400 or more)
LOW = PlayerState(rating=1050, games=20)  # K = 60


def test_500_point_rule_fr_gains_nothing() -> None:
    winner, loser = rate("a", "marginal", MARSHAL, LOW, FR)
    assert winner.delta == 0
    assert winner.k == 30
    assert winner.p == 0.93
    # The lower player's loss stays: 60 x (0 - 0.07) = -4.2 -> -4.
    assert loser.delta == -4


def test_500_point_rule_en_has_no_cap() -> None:
    winner, loser = rate("a", "marginal", MARSHAL, LOW, EN)
    assert winner.p == 0.93
    assert winner.delta == 2  # 30 x (1 - 0.93) = 2.1
    assert loser.delta == -4


def test_fr_is_the_default_variant() -> None:
    assert BattleEmpireFamily.default_params().variant == "fr"
    winner, _ = rate("a", "marginal", MARSHAL, LOW, BattleEmpireFamily(FR.default_params()))
    assert winner.delta == 0


def test_500_point_rule_keeps_negative_change() -> None:
    # The Marshal loses: 30 x (0 - 0.93) = -27.9 -> -28, in both variants.
    for family in (FR, EN):
        marshal, low = rate("b", "marginal", MARSHAL, LOW, family)
        assert marshal.delta == -28
        assert low.delta == 56  # 60 x (1 - 0.07) = 55.8


def test_500_point_rule_applies_from_exactly_500() -> None:
    high = PlayerState(rating=1500, games=20)  # K = 30
    low = PlayerState(rating=1000, games=20)
    assert rate("a", "marginal", high, low, FR)[0].delta == 0
    # 499 above still gains: K = 30 (1400 or more), P = 0.91, 30 x 0.09 = 2.7 -> 3.
    high = PlayerState(rating=1499, games=20)
    assert rate("a", "marginal", high, low, FR)[0].delta == 3


def test_500_point_rule_compares_own_rating_with_opposing_mean() -> None:
    # Side A: 1700 and 1300 (mean 1500) against 1000. The 1700 player is 700
    # above the opposing mean and gains nothing; the 1300 player is only 300
    # above it and gains as usual (docs/rules/README.md, team sides). P(A) from the side
    # means: 1 / (1 + 10^(-500/500)) = 0.909 -> 0.91; K 30 (1400+) and 60.
    changes = FR.rate(
        Game(
            id="g",
            date=date(2025, 3, 1),
            sides=(("a1", "a2"), ("b",)),
            result=Outcome(result="a", margin="marginal"),
        ),
        [
            [PlayerState(rating=1700, games=20), PlayerState(rating=1300, games=20)],
            [PlayerState(rating=1000, games=20)],
        ],
    )
    # 60 x (1 - 0.91) = 5.4 -> 5.
    assert [c.delta for c in changes[0]] == [0, 5]


# -- K boundaries -------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "games", "k"),
    [
        (1000, 0, 30),
        (1000, 7, 30),
        (1000, 8, 60),
        (1399, 20, 60),
        (1400, 20, 30),
        (1400, 0, 30),
    ],
)
def test_k_boundaries(rating: float, games: int, k: int) -> None:
    me = PlayerState(rating=rating, games=games)
    opp = PlayerState(rating=rating, games=games)
    a, _ = rate("a", "marginal", me, opp)
    assert a.k == k
    assert a.delta == k // 2  # P = 0.5, S = 1


# -- grades ------------------------------------------------------------------

GRADES = [
    (699, "Adjudant", "Warrant Officer"),
    (700, "Lieutenant", "Lieutenant"),
    (799, "Lieutenant", "Lieutenant"),
    (800, "Capitaine", "Captain"),
    (899, "Capitaine", "Captain"),
    (900, "Chef de bataillon", "Battalion Chief"),
    (999, "Chef de bataillon", "Battalion Chief"),
    (1000, "Colonel", "Colonel"),
    (1099, "Colonel", "Colonel"),
    (1100, "Général de brigade", "Brigadier General"),
    (1199, "Général de brigade", "Brigadier General"),
    (1200, "Général de division", "Division General"),
    (1299, "Général de division", "Division General"),
    (1300, "Général en chef", "General in Chief"),
    (1399, "Général en chef", "General in Chief"),
    (1400, "Maréchal d'Empire", "Marshal of the Empire"),
    (2000, "Maréchal d'Empire", "Marshal of the Empire"),
]


@pytest.mark.parametrize(("rating", "fr", "en"), GRADES)
def test_grades(rating: float, fr: str, en: str) -> None:
    state = PlayerState(rating=rating, games=30)
    assert FR.grade(state, "fr") == fr
    assert FR.grade(state, "en") == en
    assert FR.grade(state) == en


# -- year-end adjustment -------------------------------------------------------

SEASON = Season(label="2025", start=date(2025, 1, 1), end=date(2025, 12, 31))
BEFORE = date(2024, 3, 1)


def inactive(rating: float) -> PlayerState:
    return PlayerState(rating=rating, games=20, last_played=BEFORE, rated_since=BEFORE)


@pytest.mark.parametrize(
    ("rating", "delta"),
    [
        (1500, -100),
        (1301, -100),
        (1300, -50),
        (1250, -50),
        (1101, -50),
        (1100, None),
        (1000, None),
        (800, None),
    ],
)
def test_season_brackets(rating: float, delta: int | None) -> None:
    changes = FR.close_season(SEASON, {"p": inactive(rating)})
    if delta is None:
        assert changes == {}
    else:
        assert changes["p"].delta == delta
        assert "2025" in changes["p"].reason


def test_season_has_no_floor() -> None:
    # 1320 - 100 = 1220: below the 1300 bracket, no floor holds it.
    assert FR.close_season(SEASON, {"p": inactive(1320)})["p"].delta == -100
    assert FR.close_season(SEASON, {"p": inactive(1120)})["p"].delta == -50


def test_season_spares_players_who_played_in_it() -> None:
    states = {
        "played": PlayerState(
            rating=1500, games=21, last_played=date(2025, 6, 1), rated_since=BEFORE
        ),
        "first day": PlayerState(
            rating=1500, games=21, last_played=date(2025, 1, 1), rated_since=BEFORE
        ),
        "last day": PlayerState(
            rating=1500, games=21, last_played=date(2025, 12, 31), rated_since=BEFORE
        ),
        "idle": inactive(1500),
    }
    assert sorted(FR.close_season(SEASON, states)) == ["idle"]


def test_season_spares_players_rated_during_it() -> None:
    states = {
        # Given a rating (an adjustment) during the season, never played.
        "new": PlayerState(rating=1500, games=0, rated_since=date(2025, 2, 1)),
        "new on day one": PlayerState(rating=1500, games=0, rated_since=date(2025, 1, 1)),
        # Rated the day before the season began, never played: penalised.
        "old": PlayerState(rating=1500, games=0, rated_since=date(2024, 12, 31)),
    }
    changes = FR.close_season(SEASON, states)
    assert sorted(changes) == ["old"]
    assert changes["old"].delta == -100


def test_season_same_in_en_variant() -> None:
    assert EN.close_season(SEASON, {"p": inactive(1200)})["p"].delta == -50


# -- parameters and results -------------------------------------------------------


def test_unknown_variant_names_the_key() -> None:
    with pytest.raises(FamilyError) as exc:
        BattleEmpireFamily.parse_params({"variant": "de"})
    assert exc.value.field == "variant"
    assert "variant" in str(exc.value)


def test_elo_keys_are_not_battle_empire_params() -> None:
    with pytest.raises(FamilyError) as exc:
        BattleEmpireFamily.parse_params({"k": 40})
    assert exc.value.field == "k"


def test_victory_needs_a_known_margin() -> None:
    with pytest.raises(FamilyError) as exc:
        FR.parse_result({"result": "a"}, n_sides=2)
    assert exc.value.field == "margin"
    with pytest.raises(FamilyError) as exc:
        FR.parse_result({"result": "a", "margin": "crushing"}, n_sides=2)
    assert exc.value.field == "margin"
    with pytest.raises(FamilyError) as exc:
        FR.parse_result({"result": "draw", "margin": "decisive"}, n_sides=2)
    assert exc.value.field == "margin"
    assert FR.parse_result({"result": "b", "margin": "overwhelming"}, n_sides=2) == Outcome(
        result="b", margin="overwhelming"
    )


def test_ranks_do_not_belong_to_battle_empire() -> None:
    with pytest.raises(FamilyError) as exc:
        FR.parse_result({"result": "a", "margin": "decisive", "ranks": "1,2"}, n_sides=2)
    assert exc.value.field == "ranks"


def test_integer_ratings_and_initial() -> None:
    assert FR.integer_ratings is True
    assert FR.initial_rating() == 1000
    assert FR.per_event is False


def test_explain_detail() -> None:
    (a,), (b,) = FR.rate(game("a", "decisive"), [[A], [B]], explain=True)
    assert a.detail is not None and b.detail is not None
    assert a.detail["P"] == 0.28
    assert a.detail["S"] == 1.25
    assert a.detail["K"] == 30
    assert a.detail["change"] == 29
    assert b.detail["P"] == 0.72
    assert b.detail["K"] == 60
    assert b.detail["change"] == -43


# -- properties -------------------------------------------------------------

ratings = st.integers(min_value=0, max_value=3000)
games = st.integers(min_value=0, max_value=100)
results = st.sampled_from(
    [
        ("a", "marginal"),
        ("a", "decisive"),
        ("a", "overwhelming"),
        ("b", "marginal"),
        ("b", "decisive"),
        ("b", "overwhelming"),
        ("draw", None),
    ]
)
SWAP = {"a": "b", "b": "a", "draw": "draw"}


@given(rating=ratings, played=games, variant=st.sampled_from([FR, EN]))
def test_draw_between_equals_changes_nothing(
    rating: int, played: int, variant: BattleEmpireFamily
) -> None:
    state = PlayerState(rating=rating, games=played)
    a, b = rate("draw", None, state, PlayerState(rating=rating, games=played), variant)
    assert (a.delta, b.delta) == (0, 0)


@given(
    r_a=ratings,
    r_b=ratings,
    g_a=games,
    g_b=games,
    result=results,
    variant=st.sampled_from([FR, EN]),
)
def test_swapping_sides_swaps_changes(
    r_a: int,
    r_b: int,
    g_a: int,
    g_b: int,
    result: tuple[str, str | None],
    variant: BattleEmpireFamily,
) -> None:
    a_state = PlayerState(rating=r_a, games=g_a)
    b_state = PlayerState(rating=r_b, games=g_b)
    a, b = rate(result[0], result[1], a_state, b_state, variant)
    b2, a2 = rate(SWAP[result[0]], result[1], b_state, a_state, variant)
    assert (a.delta, b.delta) == (a2.delta, b2.delta)
    assert (a.p, a.k, a.s) == (a2.p, a2.k, a2.s)
