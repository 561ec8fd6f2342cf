"""Tests of the bga family against docs/rules/bga.md (seed 004)."""

from __future__ import annotations

from datetime import date
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.families.base import FamilyError, Game, PlayerState
from ledger.families.bga import NOT_RATED, BgaFamily, BgaParams, BgaResult

EXPERIENCED = 40  # docs/rules examples: "experienced players, 40 or more games"


def family(**params: Any) -> BgaFamily:
    return BgaFamily(BgaFamily.parse_params(params))


def game(ranks: list[int], quit: int | None = None, team_sizes: list[int] | None = None) -> Game:
    sizes = team_sizes or [1] * len(ranks)
    sides = tuple(tuple(f"p{i}.{j}" for j in range(size)) for i, size in enumerate(sizes))
    return Game(
        id="g1",
        date=date(2025, 3, 1),
        sides=sides,
        result=BgaResult(ranks=ranks, quit=quit),
    )


def solo(ratings: list[float], games: int = EXPERIENCED) -> list[list[PlayerState]]:
    """One player per side."""
    return [[PlayerState(rating=r, games=games)] for r in ratings]


def deltas(fam: BgaFamily, g: Game, states: list[list[PlayerState]]) -> list[float]:
    """Changes of one-player sides, in side order."""
    return [side[0].delta for side in fam.rate(g, states)]


# -- docs/rules example table: every row is a required test ---------------------


@pytest.mark.parametrize(
    ("advised", "ratings", "games", "ranks", "quit", "expected"),
    [
        pytest.param(None, [1500, 1500], EXPERIENCED, [1, 2], None, [20, -20], id="2p-equal"),
        pytest.param(None, [1500, 1500], 0, [1, 2], None, [30, -30], id="2p-both-new"),
        pytest.param(4, [1500] * 4, EXPERIENCED, [1, 2, 3, 4], None, [40, 13, -13, -40], id="4p"),
        pytest.param(
            4,
            [1500] * 5,
            EXPERIENCED,
            [1, 2, 3, 4, 5],
            None,
            [40, 20, 0, -20, -40],
            id="5p-cap4",
        ),
        pytest.param(
            4,
            [1500, 1600, 1400],
            EXPERIENCED,
            [1, 1, 3],
            None,
            [15, 3, -18],
            id="3p-tie",
        ),
        pytest.param(
            None,
            [2400, 1500],
            EXPERIENCED,
            [1, 2],
            None,
            [1, -1],
            id="clamped-fav-wins",
        ),
        pytest.param(
            None,
            [2400, 1500],
            EXPERIENCED,
            [2, 1],
            None,
            [-39, 39],
            id="clamped-underdog-wins",
        ),
        pytest.param(4, [1500] * 4, EXPERIENCED, [1, 2, 3, 4], 3, [0, 0, -50, 0], id="quit"),
    ],
)
def test_rules_examples(
    advised: int | None,
    ratings: list[float],
    games: int,
    ranks: list[int],
    quit: int | None,
    expected: list[int],
) -> None:
    fam = family(advised_players=advised)
    assert deltas(fam, game(ranks, quit), solo(ratings, games)) == expected


# -- K and the N/2 multiplier -------------------------------------------------


@pytest.mark.parametrize(("games", "k", "delta"), [(29, 60, 30), (30, 40, 20)])
def test_k_boundary_at_new_games(games: int, k: float, delta: int) -> None:
    states = [[PlayerState(1500, games=games)], [PlayerState(1500, games=games)]]
    winner = family().rate(game([1, 2]), states)[0][0]
    assert (winner.delta, winner.k) == (delta, k)


def test_each_player_applies_own_k() -> None:
    states = [[PlayerState(1500, games=29)], [PlayerState(1500, games=30)]]
    assert deltas(family(), game([1, 2]), states) == [30, -20]


@pytest.mark.parametrize(
    ("advised", "multiplier", "first"),
    [(None, 2.5, 50), (8, 2.5, 50), (5, 2.5, 50), (4, 2.0, 40), (2, 1.0, 20)],
)
def test_n_over_2_cap(advised: int | None, multiplier: float, first: int) -> None:
    # 5 players all 1500, the winner's mean (S - P) is 0.5.
    changes = family(advised_players=advised).rate(game([1, 2, 3, 4, 5]), solo([1500] * 5))
    assert changes[0][0].delta == first
    assert changes[0][0].k == 40 * multiplier


def test_difference_cap_is_a_parameter() -> None:
    # Unclamped, 2400 vs 1500: P = 1 / (1 + 10^(-900/400)) -> 40 × (1 - P) ≈ 0.22.
    assert deltas(family(difference_cap=1000), game([1, 2]), solo([2400, 1500])) == [
        0,
        0,
    ]


# -- ties, quits, teams --------------------------------------------------------


def test_tied_sides_score_half() -> None:
    # 3 players all 1500, advised none, 1 and 1 tie: (0.5 + 1 - 2 × 0.5) / 2 × 60.
    assert deltas(family(), game([1, 1, 3]), solo([1500] * 3)) == [15, 15, -30]


@pytest.mark.parametrize(
    ("ranks", "expected"), [([1, 1, 3], [23, 23, -45]), ([1, 2, 2], [45, -23, -23])]
)
def test_halves_round_away_from_zero(ranks: list[int], expected: list[int]) -> None:
    # 3 new players all 1500: K 60 × 3/2 = 90, and 90 × ±0.25 = ±22.5 exactly.
    assert deltas(family(), game(ranks), solo([1500] * 3, games=0)) == expected


def test_quitter_scores_zero_even_against_those_tied_last() -> None:
    # 3 players all 1500, ranks 1, 2, 2, the third quit: S = 0 against both,
    # so 60 × (0 - 0.5) - 10 = -40 (not 60 × (-0.25) - 10 = -25).
    assert deltas(family(), game([1, 2, 2], quit=3), solo([1500] * 3)) == [0, 0, -40]


def test_quit_penalty_is_a_parameter() -> None:
    assert deltas(family(quit_penalty=0), game([1, 2], quit=1), solo([1500, 1500])) == [
        -20,
        0,
    ]


def test_not_rated_players_keep_k_zero_and_say_why() -> None:
    changes = family().rate(game([1, 2], quit=2), solo([1500, 1500]), explain=True)
    other = changes[0][0]
    assert (other.delta, other.k) == (0, 0.0)
    assert other.detail is not None and other.detail["reason"] == NOT_RATED


def test_team_side_uses_mean_rating_and_own_k() -> None:
    # Side 1 is 1400 + 1600 (mean 1500) against a single 1500.
    states = [
        [PlayerState(1400, games=0), PlayerState(1600, games=EXPERIENCED)],
        [PlayerState(1500, games=EXPERIENCED)],
    ]
    changes = family().rate(game([1, 2], team_sizes=[2, 1]), states)
    assert [[c.delta for c in side] for side in changes] == [[30, 20], [-20]]


def test_change_reports_mean_s_p_and_effective_k() -> None:
    # The 3-player tie example: the 1600 player has S 0.5 and 1, K 40 × 3/2.
    change = family(advised_players=4).rate(game([1, 1, 3]), solo([1500, 1600, 1400]))[1][0]
    assert change.s == 0.75
    assert change.p == pytest.approx((1 / (1 + 10**-0.25) + 1 / (1 + 10**-0.5)) / 2)
    assert change.k == 60


def test_explain_detail() -> None:
    fam = family()
    assert fam.rate(game([1, 2]), solo([2400, 1500]))[0][0].detail is None
    detail = fam.rate(game([1, 2]), solo([2400, 1500]), explain=True)[0][0].detail
    assert detail is not None
    keys = list(detail)
    order = [
        "N",
        "N_capped",
        "K",
        "multiplier",
        "virtual games",
        "mean (S - P)",
        "change",
    ]
    assert [k for k in keys if k in order] == order
    assert (detail["N"], detail["N_capped"], detail["K"], detail["multiplier"]) == (
        2,
        2,
        40,
        1.0,
    )
    (vg,) = detail["virtual games"]
    assert (vg["opponent"], vg["difference"], vg["clamped difference"], vg["S"]) == (
        2,
        -900,
        -600,
        1.0,
    )
    assert vg["P"] == pytest.approx(1 / (1 + 10**-1.5))
    assert vg["S - P"] == pytest.approx(1 - vg["P"])
    assert detail["change"] == 1


def test_explain_quitter_shows_penalty() -> None:
    detail = family().rate(game([1, 2], quit=2), solo([1500, 1500]), explain=True)[1][0].detail
    assert detail is not None
    assert (detail["quit penalty"], detail["change"]) == (10, -30)


# -- levels ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "level"),
    [
        (1500, None),
        (1600, None),
        (1601, "Good player"),
        (1800, "Good player"),
        (1801, "Expert"),
        (2000, "Expert"),
        (2001, "Master"),
    ],
)
def test_levels(rating: float, level: str | None) -> None:
    assert family().grade(PlayerState(rating)) == level


# -- results and parameters ---------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ({"ranks": "1,1,3"}, BgaResult([1, 1, 3])),
        ({"ranks": " 1, 2 ,3 ", "quit": "2"}, BgaResult([1, 2, 3], quit=2)),
        ({"ranks": ["3", "2", "1"], "quit": ""}, BgaResult([3, 2, 1])),
        ({"ranks": [1, 2, 3], "quit": None}, BgaResult([1, 2, 3])),
    ],
)
def test_parse_result_accepts(raw: dict[str, Any], parsed: BgaResult) -> None:
    assert family().parse_result(raw, n_sides=3) == parsed


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"ranks": "1,2"}, "ranks"),  # 2 ranks for 3 sides
        ({"ranks": [1, 2, 3, 4]}, "ranks"),
        ({"ranks": [0, 1, 2]}, "ranks"),
        ({"ranks": "1,x,3"}, "ranks"),
        ({}, "ranks"),
        ({"ranks": "1,2,3", "quit": 0}, "quit"),
        ({"ranks": "1,2,3", "quit": "4"}, "quit"),
        ({"ranks": "1,2,3", "quit": "first"}, "quit"),
        ({"ranks": "1,2,3", "margin": "major"}, "margin"),
    ],
)
def test_parse_result_errors_name_the_field(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(FamilyError) as err:
        family().parse_result(raw, n_sides=3)
    assert err.value.field == field


@pytest.mark.parametrize(
    ("ranks", "n_sides", "words"),
    [
        ("1,3", 2, "side 2 has rank 3, but 1 side ranks better, so its rank is 2"),
        ("2,2", 2, "side 1 has rank 2, but no side ranks better, so its rank is 1"),
        ("1,1,2", 3, "side 3 has rank 2, but 2 sides rank better, so its rank is 3"),
        ("1,2,2,3", 4, "side 4 has rank 3, but 3 sides rank better, so its rank is 4"),
    ],
)
def test_ranks_must_be_competition_ranks(ranks: str, n_sides: int, words: str) -> None:
    with pytest.raises(FamilyError) as err:
        family().parse_result({"ranks": ranks}, n_sides=n_sides)
    assert err.value.field == "ranks"
    assert "competition ranks" in str(err.value)
    assert words in str(err.value)


@pytest.mark.parametrize(
    "ranks", [[1, 2, 2, 4], [1, 1, 3], [1, 1], [2, 1], [3, 1, 2], [1, 3, 2, 4], [4, 1, 1, 1]]
)
def test_competition_ranks_are_accepted(ranks: list[int]) -> None:
    result = family().parse_result({"ranks": ranks}, n_sides=len(ranks))
    assert result.ranks == ranks


@pytest.mark.parametrize("n_sides", [1, 65])
def test_parse_result_side_count(n_sides: int) -> None:
    with pytest.raises(FamilyError):
        family().parse_result({"ranks": [1] * n_sides}, n_sides=n_sides)


def test_result_round_trips_through_storage() -> None:
    fam = family()
    result = fam.parse_result({"ranks": "2,1", "quit": "1"}, n_sides=2)
    assert fam.load_result(msgspec.to_builtins(result)) == result


def test_params_defaults_and_text_values() -> None:
    assert BgaFamily.default_params() == BgaParams(
        initial=1500,
        divisor=400,
        advised_players=None,
        difference_cap=600,
        k_new=60,
        k=40,
        new_games=30,
        quit_penalty=10,
    )
    assert BgaFamily.parse_params({"advised_players": "4"}).advised_players == 4
    assert family().initial_rating() == 1500


@pytest.mark.parametrize(
    ("raw", "field"),
    [({"advised": "4"}, "advised"), ({"advised_players": "1"}, "advised_players")],
)
def test_params_errors_name_the_key(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(FamilyError) as err:
        BgaFamily.parse_params(raw)
    assert err.value.field == field


# -- properties -----------------------------------------------------------------

ratings = st.integers(min_value=100, max_value=3000)
advised = st.none() | st.integers(min_value=2, max_value=10)


def competition_ranks(order: list[int]) -> list[int]:
    """The valid ("1224") ranks of sides placed in ``order`` (lower is better)."""
    return [1 + sum(1 for other in order if other < mine) for mine in order]


@given(
    n=st.integers(min_value=2, max_value=12),
    rating=ratings,
    games=st.lists(st.integers(min_value=0, max_value=100), min_size=12, max_size=12),
    advised_players=advised,
)
def test_all_tied_at_equal_ratings_changes_nothing(
    n: int, rating: int, games: list[int], advised_players: int | None
) -> None:
    states = [[PlayerState(rating, games=g)] for g in games[:n]]
    changes = family(advised_players=advised_players).rate(game([1] * n), states)
    assert [side[0].delta for side in changes] == [0] * n


@given(
    ranks=st.lists(st.integers(min_value=1, max_value=8), min_size=2, max_size=12).map(
        competition_ranks
    ),
    rating=ratings,
    advised_players=advised,
)
def test_equal_ratings_equal_k_sum_to_zero(
    ranks: list[int], rating: int, advised_players: int | None
) -> None:
    # Each virtual game's S − P is mirrored by the opponent's, so the unrounded
    # changes cancel; each rounding moves a change by at most 0.5.
    n = len(ranks)
    changes = family(advised_players=advised_players).rate(game(ranks), solo([rating] * n))
    total = sum(side[0].delta for side in changes)
    assert abs(total) <= n / 2


@given(
    ratings_=st.lists(ratings, min_size=2, max_size=12),
    data=st.data(),
    advised_players=advised,
)
def test_equal_k_unrounded_changes_cancel_for_any_ratings(
    ratings_: list[int], data: st.DataObject, advised_players: int | None
) -> None:
    # P(a beats b) + P(b beats a) = 1 even when clamped, so with one K for all
    # the unrounded changes sum to 0 whatever the ratings.
    n = len(ratings_)
    ranks = data.draw(st.lists(st.integers(1, n), min_size=n, max_size=n).map(competition_ranks))
    changes = family(advised_players=advised_players).rate(game(ranks), solo(ratings_))
    unrounded = [side[0].k * (side[0].s - side[0].p) for side in changes]
    assert sum(unrounded) == pytest.approx(0, abs=1e-9)
    assert abs(sum(side[0].delta for side in changes)) <= n / 2


@given(
    ratings_=st.lists(ratings, min_size=2, max_size=12),
    data=st.data(),
)
def test_only_the_quitter_moves_and_loses_at_least_the_penalty(
    ratings_: list[int], data: st.DataObject
) -> None:
    n = len(ratings_)
    ranks = data.draw(st.lists(st.integers(1, n), min_size=n, max_size=n).map(competition_ranks))
    quit = data.draw(st.integers(1, n))
    got = deltas(family(), game(ranks, quit=quit), solo(ratings_))
    assert [d for i, d in enumerate(got) if i != quit - 1] == [0] * (n - 1)
    assert got[quit - 1] <= -10
