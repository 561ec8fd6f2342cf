"""The team-balancing solver's ways to an answer (a draft improved by swaps,
the relaxation, the exact listing of small camps, the MIP) each give the optimum that
brute force finds, alone or together; the referee-sized rosters of the
2-second target are proven without the MIP's clock; the time limit still
ends in "best found" with a proven bound."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

import projections.teams.cover as teams_cover
import projections.teams.search as teams_search
from projections.teams.balance import (
    Entrant,
    Strength,
    balance,
    camp_sizes,
    elo_expected,
    gap_points,
    top_grade_set,
)

MEAN = Strength("mean", elo_expected(500))
SUM = Strength("sum", elo_expected(500))

Key = tuple[int, int]


def grade(rating: float) -> str:
    return "Marshal" if rating >= 1400 else "General" if rating >= 1200 else "Colonel"


def splits(n: int, sizes: list[int]) -> Iterator[list[int]]:
    """Every assignment of n players to camps of exactly these sizes."""
    room = list(sizes)
    out = [0] * n

    def place(i: int) -> Iterator[list[int]]:
        if i == n:
            yield list(out)
            return
        for k in range(len(sizes)):
            if room[k]:
                room[k] -= 1
                out[i] = k
                yield from place(i + 1)
                room[k] += 1

    yield from place(0)


def brute_force(
    people: list[Entrant],
    camps: int,
    strength: Strength,
    sizes: list[int] | None = None,
    together: list[list[str]] = (),  # type: ignore[assignment]
    apart: list[list[str]] = (),  # type: ignore[assignment]
) -> dict[frozenset[frozenset[str]], Key]:
    """(gap points, top-grade spread) of every distinct split, by enumeration."""
    size = camp_sizes(len(people), camps, sizes)
    top = top_grade_set(people, camps)
    out: dict[frozenset[frozenset[str]], Key] = {}
    for assignment in splits(len(people), size):
        where = {p.key: k for p, k in zip(people, assignment, strict=True)}
        if any(len({where[k] for k in g}) != 1 for g in together):
            continue
        if any(len({where[k] for k in g}) != len(g) for g in apart):
            continue
        members = [
            [p for p, a in zip(people, assignment, strict=True) if a == k] for k in range(camps)
        ]
        sides = [sum(p.rating for p in m) for m in members]
        if strength.aggregate == "mean":
            sides = [s / len(m) for s, m in zip(sides, members, strict=True)]
        tops = [sum(p.grade in top for p in m) for m in members]
        split = frozenset(frozenset(p.key for p in m) for m in members)
        out[split] = (gap_points(max(sides) - min(sides)), max(tops) - min(tops) if top else 0)
    return out


def instance(rng: random.Random) -> tuple[list[Entrant], int, dict[str, object]]:
    """A small random roster: spread or tied ratings (newcomers at 1000),
    sometimes unequal sizes, together and apart groups."""
    camps = rng.choice([2, 3, 3, 4])
    n = rng.randint(camps + 2, {2: 13, 3: 11, 4: 9}[camps])
    tied = rng.random() < 0.4
    people = []
    for i in range(n):
        if tied and rng.random() < 0.6:
            rating = 1000
        else:
            rating = rng.choice([rng.randint(700, 1500), rng.randint(950, 1050)])
        people.append(Entrant(f"P{i}", f"p{i}", rating, grade(rating)))
    keys = [p.key for p in people]
    rng.shuffle(keys)
    options: dict[str, object] = {}
    if rng.random() < 0.4:
        options["together"] = [keys[:2]]
    if rng.random() < 0.4:
        options["apart"] = [keys[2:4]]
    if rng.random() < 0.3 and n >= camps * 2 + 1:
        sizes = camp_sizes(n, camps, None)
        sizes[0] += 1
        sizes[-1] -= 1
        options["sizes"] = sizes
    return people, camps, options


def key_of(split: object) -> frozenset[frozenset[str]]:
    names = {f"P{i}": f"p{i}" for i in range(20)}
    return frozenset(frozenset(names[p.player] for p in c.players) for c in split.camps)  # type: ignore[attr-defined]


@pytest.fixture(
    params=["all", "mip only", "listing, then mip", "swaps, then mip", "relaxation, then mip"]
)
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Which ways the solver may use: each alone must still be exact."""
    if request.param == "relaxation, then mip":

        def no_cover(*args: object, **kwargs: object) -> None:
            raise teams_cover.Budget

        monkeypatch.setattr(teams_cover.Cover, "find", no_cover)
    if request.param in ("mip only", "listing, then mip", "relaxation, then mip"):
        # The draft alone: no swaps.
        monkeypatch.setattr(teams_search, "ROUNDS_PER_PLAYER", 0)
        monkeypatch.setattr(teams_search, "ROUNDS_PER_PLAYER_ANY", 0)
    if request.param in ("mip only", "swaps, then mip"):
        monkeypatch.setattr(teams_cover, "MAX_NODES", 0)
    return request.param


def test_every_path_finds_the_brute_force_optimum(path: str) -> None:
    rng = random.Random(14)
    for _ in range(25):
        people, camps, options = instance(rng)
        strength = rng.choice([MEAN, MEAN, SUM])
        every = brute_force(people, camps, strength, **options)  # type: ignore[arg-type]
        if not every:
            continue
        result = balance(people, camps, strength, **options)  # type: ignore[arg-type]
        split = result.splits[0]
        assert result.status == "optimal"
        assert split.gap_points == min(every.values())[0]
        if result.spread_proven:
            assert (split.gap_points, split.top_spread) == min(every.values())
        assert every[key_of(split)] == (split.gap_points, split.top_spread)
        if path != "mip only":
            # Listing or swaps settle the spread too on rosters this small.
            assert result.spread_proven


def test_alternatives_are_the_k_best_splits_with_tied_ratings() -> None:
    """Ten players, six of them newcomers at the same rating: the listing
    takes interchangeable players in order, but an excluded split must not
    hide its permutations from the next alternative."""
    ratings = [1400, 1210, 1000, 1000, 1000, 1000, 1000, 1000, 920, 870]
    people = [Entrant(f"P{i}", f"p{i}", r, grade(r)) for i, r in enumerate(ratings)]
    every = brute_force(people, 2, MEAN)
    result = balance(people, 2, MEAN, alternatives=6)
    assert result.status == "optimal" and result.spread_proven
    got = [(s.gap_points, s.top_spread) for s in result.splits]
    assert got == sorted(every.values())[:6]
    assert len({key_of(s) for s in result.splits}) == 6
    for s in result.splits:
        assert every[key_of(s)] == (s.gap_points, s.top_spread)


def club(n: int, seed: int) -> list[Entrant]:
    """bench/teams.py's rosters: ratings ~N(1000, 180), whole points."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rating = max(500, min(1700, round(rng.gauss(1000, 180))))
        out.append(Entrant(f"P{i}", f"p{i:03d}", rating, grade(rating)))
    return out


@pytest.mark.parametrize(
    ("n", "camps", "seed"),
    [(20, 6, 1), (20, 5, 5), (20, 4, 1), (40, 6, 0), (60, 6, 2), (60, 4, 0), (36, 6, 3)],
)
def test_referee_rosters_are_proven_well_within_two_seconds(n: int, camps: int, seed: int) -> None:
    """The rosters the old MIP-only solver took 2-9 s to prove (or did not
    prove in 2 s): proven now whatever the clock does, as the swaps reach
    a split within a point or the relaxation or the listing proves the gap
    without the MIP."""
    people = club(n, seed)
    result = balance(people, camps, MEAN, time_limit=2.0)
    assert result.status == "optimal"
    assert result.spread_proven
    again = balance(list(reversed(people)), camps, MEAN, time_limit=2.0)
    assert [key_of_names(s) for s in again.splits] == [key_of_names(s) for s in result.splits]


def key_of_names(split: object) -> list[list[str]]:
    return [[p.player for p in c.players] for c in split.camps]  # type: ignore[attr-defined]


def test_a_gap_above_a_point_is_proven_without_the_mip(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """20 players in 6 camps of 3-4: the best gap is above the bound the
    swaps aim at; the relaxation and the listing prove it without the MIP,
    and the MIP alone
    (given minutes, not the listing) agrees."""
    import projections.teams.balance as teams

    people = club(20, 1)
    with monkeypatch.context() as patch:
        patch.setattr(teams_cover, "MAX_NODES", 0)
        by_mip = balance(people, 6, MEAN, time_limit=120.0)
    assert by_mip.status == "optimal"

    def no_mip(*args: object, **kwargs: object) -> None:
        raise AssertionError("the MIP was needed")

    monkeypatch.setattr(teams, "_Mip", no_mip)
    result = balance(people, 6, MEAN)
    assert result.status == "optimal"
    assert result.splits[0].gap_points == by_mip.splits[0].gap_points
    assert result.splits[0].gap_points > 1  # above the floor: the swaps alone are no proof


def test_time_limit_gives_the_best_found_with_a_proven_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(teams_cover, "MAX_NODES", 0)
    result = balance(club(20, 1), 6, MEAN, time_limit=0.05)
    split = result.splits[0]
    assert result.status == "best found"
    assert 0 <= result.bound_points <= split.gap_points
    assert sorted(len(c.players) for c in split.camps) == [3, 3, 3, 3, 4, 4]


def test_same_camps_whatever_the_order_with_ties_and_constraints() -> None:
    rng = random.Random(7)
    people = [Entrant(f"P{i}", f"p{i}", rng.choice([1000, 1000, rng.randint(800, 1300)]), None)
              for i in range(24)]  # fmt: skip
    options = {"together": [["p3", "p17"]], "apart": [["p1", "p2", "p5"]]}
    first = balance(people, 4, MEAN, alternatives=3, **options)  # type: ignore[arg-type]
    shuffled = list(people)
    rng.shuffle(shuffled)
    again = balance(shuffled, 4, MEAN, alternatives=3, **options)  # type: ignore[arg-type]
    assert [key_of_names(s) for s in first.splits] == [key_of_names(s) for s in again.splits]
