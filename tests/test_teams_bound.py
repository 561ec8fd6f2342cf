"""The relaxation over windows of camp values (projections.teams.bound):
never rules out a gap some split has (against brute force, with
constraints and unequal sizes), is exact on the roster that was out of
reach, and with gaps under a point counted as ties fractional ratings are
proven without the MIP."""

from __future__ import annotations

import random

import pytest

import projections.teams.balance as teams
import projections.teams.cover as teams_cover
from projections.teams.balance import Entrant, _Problem, balance, camp_sizes, check_constraints
from projections.teams.bound import gap_ruled_out
from tests.test_teams_solver import MEAN, SUM, brute_force, instance
from tests.test_teams_solver import club as bench_roster


def problem(people: list[Entrant], camps: int, aggregate: str, options: dict) -> _Problem:
    """The solver's model of an instance, as ``balance`` builds it."""
    ordered = sorted(people, key=lambda e: (-e.rating, e.key))
    keys = [e.key for e in ordered]
    size = camp_sizes(len(ordered), camps, options.get("sizes"))
    together = [[keys.index(k) for k in g] for g in options.get("together", [])]
    apart = [[keys.index(k) for k in g] for g in options.get("apart", [])]
    root = check_constraints(len(ordered), size, together, apart, [e.name for e in ordered])
    top = teams.top_grade_set(ordered, camps)
    return _Problem(ordered, size, aggregate, root, together, apart, top)  # type: ignore[arg-type]


def test_the_relaxation_never_rules_out_a_gap_a_split_has() -> None:
    rng = random.Random(41)
    exact = checked = 0
    for _ in range(60):
        people, camps, options = instance(rng)
        strength = rng.choice([MEAN, MEAN, SUM])
        every = brute_force(people, camps, strength, **options)  # type: ignore[arg-type]
        if not every:
            continue
        best = min(gap for gap, _ in every.values())
        p = problem(people, camps, strength.aggregate, options)
        assert not gap_ruled_out(p.cover, best * p.step)  # sound: the optimum fits
        if best > 1:
            checked += 1
            p.cover.reset()
            exact += gap_ruled_out(p.cover, (best - 1) * p.step)
    # Not a proof of tightness, but the relaxation must be worth running.
    assert checked >= 10
    assert exact >= checked * 0.7


@pytest.fixture
def relaxation_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No exact cover search and no MIP: only the swaps and the relaxation."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("only the relaxation may prove the gap")

    monkeypatch.setattr(teams_cover.Cover, "find", refused)
    monkeypatch.setattr(teams, "_Mip", refused)


def test_the_roster_out_of_reach_is_proven_by_the_relaxation(relaxation_only: None) -> None:
    """20 players in 6 camps (4, 4, 3, 3, 3, 3), three of them ~300 points
    below the mean: the best gap is 16 points (15.08); the exact cover took
    6 s to rule out 15 and HiGHS did not within 10 s."""
    result = balance(bench_roster(20, 7), 6, MEAN, time_limit=60)
    assert result.status == "optimal"
    assert result.splits[0].gap_points == 16


def test_fractional_ratings_are_proven_within_a_point(relaxation_only: None) -> None:
    """Ratings in hundredths (an elo ladder): an exact tie is a subset-sum
    question the solver need not answer, as gaps under a point are ties."""
    rng = random.Random(60_000)
    people = [Entrant(f"P{i}", f"p{i}", round(rng.gauss(1000, 180), 2)) for i in range(60)]
    result = balance(people, 3, MEAN, time_limit=60)
    assert result.status == "optimal"
    split = result.splits[0]
    assert split.gap_points == 1 and 0 < split.gap <= 1


def test_past_its_budget_the_relaxation_leaves_the_question_to_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import projections.teams.bound as teams_bound

    p = problem(bench_roster(20, 1), 6, "mean", {})
    monkeypatch.setattr(teams_bound, "MAX_WORK", 0)
    with pytest.raises(teams_cover.Budget):
        gap_ruled_out(p.cover, 3 * p.step)
    monkeypatch.setattr(teams_bound, "MAX_WORK", 10**6)
    p.cover.reset()
    assert gap_ruled_out(p.cover, 3 * p.step)  # the best gap is 4 points
    result = balance(bench_roster(20, 1), 6, MEAN)
    assert result.splits[0].gap_points == 4
