"""AdlG family: docs/rules/adlg.md examples, K schedule, ranks, yearly downgrade."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.families.adlg import AdlgFamily
from ledger.families.base import (
    Change,
    FamilyError,
    Game,
    Outcome,
    PlayerState,
    Season,
)

ADLG = AdlgFamily(AdlgFamily.parse_params({}))

# docs/rules examples: A = 1000 with 0 rounds (K = 50), B = 1200 with 40 rounds (K = 30).
A = PlayerState(rating=1000, games=0)
B = PlayerState(rating=1200, games=40)
P_A = 1 / (1 + 10 ** (200 / 500))  # 0.28474..., not rounded


def game(result: str) -> Game:
    return Game(
        id="g1",
        date=date(2025, 3, 1),
        sides=(("a",), ("b",)),
        result=Outcome(result=result),  # type: ignore[arg-type]
    )


def rate(result: str, a: PlayerState, b: PlayerState) -> tuple[Change, Change]:
    changes = ADLG.rate(game(result), [[a], [b]])
    return changes[0][0], changes[1][0]


# -- docs/rules example table -----------------------------------------------------


@pytest.mark.parametrize(
    ("result", "change_a", "change_b"),
    [("a", 35, -21), ("draw", 10, -6), ("b", -14, 8)],
    ids=["A wins", "draw", "B wins"],
)
def test_rules_examples(result: str, change_a: int, change_b: int) -> None:
    a, b = rate(result, A, B)
    assert (a.delta, b.delta) == (change_a, change_b)
    assert (a.k, b.k) == (50, 30)
    # P is not rounded.
    assert a.p == pytest.approx(P_A, abs=1e-12)
    assert b.p == pytest.approx(1 - P_A, abs=1e-12)
    assert a.p != round(a.p, 2)


def test_change_is_truncated_toward_zero() -> None:
    # 50 x (1 - 0.28474) = 35.76 -> 35; 30 x 0.28474 = 8.54 -> 8;
    # 30 x (0 - 0.71526) = -21.46 -> -21 (not -22).
    (a,), (b,) = ADLG.rate(game("a"), [[A], [B]], explain=True)
    assert a.detail is not None and b.detail is not None
    assert a.detail["K x (S - P)"] == pytest.approx(35.763, abs=1e-3)
    assert a.delta == 35
    assert b.detail["K x (S - P)"] == pytest.approx(-21.458, abs=1e-3)
    assert b.delta == -21


# -- K schedule -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "rounds", "k"),
    [
        (1000, 0, 50),
        (1000, 9, 50),
        (1000, 10, 30),
        (1399, 10, 30),
        (1400, 10, 15),
        (1400, 9, 50),
        (1800, 5, 50),
        (1399, 40, 30),
        (1400, 40, 15),
    ],
)
def test_k_boundaries(rating: float, rounds: int, k: int) -> None:
    me = PlayerState(rating=rating, games=rounds)
    a, _ = rate("a", me, PlayerState(rating=rating, games=rounds))
    assert a.k == k
    assert a.delta == k // 2  # P = 0.5, S = 1, truncated


# -- more-than-500 rule ------------------------------------------------------------


def test_more_than_500_gains_nothing() -> None:
    high = PlayerState(rating=1501, games=40)  # K = 15
    low = PlayerState(rating=1000, games=40)  # K = 30
    h, lo = rate("a", high, low)
    assert h.delta == 0
    # The lower player loses as usual: 30 x (0 - 0.0905) = -2.7 -> -2.
    assert lo.delta == -2


def test_exactly_500_still_gains() -> None:
    high = PlayerState(rating=1500, games=40)  # K = 15
    low = PlayerState(rating=1000, games=40)
    # P = 1 / (1 + 10^-1) = 0.90909; 15 x 0.0909 = 1.36 -> 1.
    assert rate("a", high, low)[0].delta == 1


def test_more_than_500_keeps_a_loss() -> None:
    high = PlayerState(rating=1600, games=40)  # K = 15
    low = PlayerState(rating=1000, games=40)
    h, lo = rate("b", high, low)
    # P(high) = 1 / (1 + 10^-1.2) = 0.9406; 15 x -0.9406 = -14.1 -> -14.
    assert h.delta == -14
    assert lo.delta == 28  # 30 x 0.9406 = 28.2


# -- ranks ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "rounds", "rank"),
    [
        (0, 0, "Quartermaster"),
        (699, 50, "Quartermaster"),
        (700, 0, "Militiaman"),
        (799, 0, "Militiaman"),
        (800, 0, "Reservist"),
        (899, 0, "Reservist"),
        (900, 0, "Soldier"),
        (1099, 0, "Soldier"),
        (1100, 0, "Knight"),
        (1199, 0, "Knight"),
        (1200, 0, "Champion"),
        (1299, 50, "Champion"),
        (1300, 10, "Master"),
        (1300, 9, "Seneschal"),
        (1399, 10, "Master"),
        (1399, 0, "Seneschal"),
        (1400, 20, "Great Master"),
        (1400, 19, "Master"),
        (1450, 15, "Master"),
        (1450, 5, "Seneschal"),
        (1500, 20, "Great Master"),
        (1599, 20, "Great Master"),
        (1599, 100, "Great Master"),
        (1600, 30, "Strategist"),
        (1600, 29, "Great Master"),
        (1600, 25, "Great Master"),
        (1600, 12, "Master"),
        (1600, 5, "Seneschal"),
        (2000, 30, "Strategist"),
    ],
)
def test_ranks(rating: float, rounds: int, rank: str) -> None:
    state = PlayerState(rating=rating, games=rounds)
    assert ADLG.grade(state) == rank
    assert ADLG.grade(state, "fr") == rank


# -- yearly downgrade ------------------------------------------------------------

SEASON = Season(label="2025", start=date(2025, 1, 1), end=date(2025, 12, 31))
BEFORE = date(2024, 3, 1)


def inactive(rating: float) -> PlayerState:
    return PlayerState(rating=rating, games=20, last_played=BEFORE, rated_since=BEFORE)


@pytest.mark.parametrize(
    ("rating", "delta"),
    [
        (1300, -100),
        (1101, -100),
        (1100, -100),
        (1050, -50),
        (1001, -1),
        (1000, None),
        (900, None),
    ],
)
def test_season_downgrade_with_floor(rating: float, delta: int | None) -> None:
    changes = ADLG.close_season(SEASON, {"p": inactive(rating)})
    if delta is None:
        assert changes == {}
    else:
        assert changes["p"].delta == delta
        assert rating + changes["p"].delta >= 1000


def test_season_spares_players_who_played() -> None:
    states = {
        "played": PlayerState(
            rating=1300, games=30, last_played=date(2025, 5, 4), rated_since=BEFORE
        ),
        "idle": inactive(1300),
    }
    changes = ADLG.close_season(SEASON, states)
    assert sorted(changes) == ["idle"]
    assert changes["idle"].delta == -100


# -- parameters, results, per-event ------------------------------------------------


def test_adlg_has_no_parameters() -> None:
    with pytest.raises(FamilyError) as exc:
        AdlgFamily.parse_params({"k": 30})
    assert exc.value.field == "k"
    assert "'k'" in str(exc.value)


def test_margin_does_not_belong_to_adlg() -> None:
    with pytest.raises(FamilyError) as exc:
        ADLG.parse_result({"result": "a", "margin": "decisive"}, n_sides=2)
    assert exc.value.field == "margin"
    assert ADLG.parse_result({"result": "a"}, n_sides=2) == Outcome(result="a")


def test_rated_per_event_with_integer_ratings() -> None:
    assert ADLG.per_event is True
    assert ADLG.integer_ratings is True
    assert ADLG.initial_rating() == 1000


# -- properties -----------------------------------------------------------------

ratings = st.integers(min_value=0, max_value=3000)
rounds = st.integers(min_value=0, max_value=100)
SWAP = {"a": "b", "b": "a", "draw": "draw"}


@given(rating=ratings, played=rounds)
def test_draw_between_equals_changes_nothing(rating: int, played: int) -> None:
    a, b = rate("draw", PlayerState(rating=rating, games=played), PlayerState(rating, played))
    assert (a.delta, b.delta) == (0, 0)


@given(
    r_a=ratings,
    r_b=ratings,
    g_a=rounds,
    g_b=rounds,
    result=st.sampled_from(["a", "b", "draw"]),
)
def test_swapping_sides_swaps_changes(r_a: int, r_b: int, g_a: int, g_b: int, result: str) -> None:
    a_state = PlayerState(rating=r_a, games=g_a)
    b_state = PlayerState(rating=r_b, games=g_b)
    a, b = rate(result, a_state, b_state)
    b2, a2 = rate(SWAP[result], b_state, a_state)
    assert (a.delta, b.delta) == (a2.delta, b2.delta)
    assert (a.k, a.p, a.s) == (a2.k, a2.p, a2.s)
