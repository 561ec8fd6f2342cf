"""Team balancing: split registered players into camps of equal strength.

Pure: the model, the solvers and the result Structs; no I/O. Four ways to
the proven optimum, cheapest first (each exact, deterministic, and checked
against brute force in tests/test_teams_solver.py):

- a draft improved by swaps (``projections.teams.search``): a split within
  one point is optimal by definition (below), and the swaps find one on most
  referee rosters in milliseconds;
- a relaxation (``projections.teams.bound``): the set-partition LP of the
  camps that fit, one window of camp values at a time, proves that no split
  has a gap one point below the split found (small camps with a few players
  far from the rest, where the best gap is well above a point);
- an exact listing of the camps that fit a gap, covered by an exact-cover
  search (``projections.teams.cover``), when the relaxation cannot tell;
- HiGHS (``highspy``), given the best split found as a start, for the rest,
  within the time limit; past it the best split found is said as such.

Objective, lexicographic:
1. the gap: the largest difference between two camps' side ratings (as the
   family aggregates a side: the mean, or the sum), rounded UP to whole rating
   points, and at least 1: gaps under one point are ties. The family's
   expected score is monotone in that difference, so this also minimises the
   largest pairwise gap in expected score. Whole points are the resolution:
   a finer one only separates splits a referee cannot tell apart (a point
   moves an expected score by about 0.001), and made the proof slow or out
   of reach: telling an exact tie from a fraction of a point is a
   subset-sum question (seconds at 40 players in 5 camps, and beyond the
   time limit with fractional ratings);
2. the spread of the top grades: max minus min, over camps, of the players
   holding the top grades (the highest grades, taken from the top until they
   hold at least one player per camp);
3. ties: every way is deterministic (seeded swaps and node budgets, never the
   clock; HiGHS with one thread and a fixed seed) and starts from a canonical
   order (rating descending, then name key), so the same input always gives
   the same camps (unless the time limit cuts the MIP short).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from math import ceil, isclose, isfinite, lcm
from typing import Literal

import msgspec

from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Message
from projections.teams.bound import gap_ruled_out
from projections.teams.cover import Budget, Cover
from projections.teams.highs import silent_highs
from projections.teams.search import good_split

Aggregate = Literal["mean", "sum"]
CAMP_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Branch-and-bound nodes for the top-grade spread (the second objective).
SPREAD_NODES = 300


class Entrant(msgspec.Struct, frozen=True):
    """A registered player: ``new`` when the ladder has no rating for them
    (they enter at the family's initial rating)."""

    name: str
    key: str
    rating: float
    grade: str | None = None
    new: bool = False


class Strength(msgspec.Struct, frozen=True):
    """How the family rates a side: ``aggregate`` combines the players'
    ratings; ``expected(own, opponent)`` is the family's expected score."""

    aggregate: Aggregate
    expected: Callable[[float, float], float]


class CampPlayer(msgspec.Struct):
    player: str
    rating: float
    grade: str | None
    new: bool


class Camp(msgspec.Struct):
    camp: str
    players: list[CampPlayer]
    side_rating: float
    #: The family's expected score of this camp against each other camp.
    expected: dict[str, float]
    top_grades: int


class Split(msgspec.Struct):
    camps: list[Camp]
    #: The objective: the side-rating gap rounded up to whole rating points.
    gap_points: int
    #: The exact largest side-rating difference between two camps.
    gap: float
    #: The largest E(i, j) - E(j, i) over pairs of camps.
    expected_gap: float
    #: Max minus min of top-grade players per camp.
    top_spread: int


class Balance(msgspec.Struct):
    """The answer: the best split first, then the alternatives."""

    camps: int
    sizes: list[int]
    top_grades: list[str]
    #: The gap: ``optimal`` (proven), or ``best found`` within the time limit.
    status: str
    #: Whether the top-grade spread is proven the least for that gap (it is
    #: searched within a fixed node budget).
    spread_proven: bool
    #: With ``best found``: proven lower bound on ``gap_points`` (no split
    #: has a gap of ``bound_points - 1`` points or less).
    bound_points: int
    splits: list[Split]


def camp_sizes(players: int, camps: int, sizes: Sequence[int] | None) -> list[int]:
    """The size of each camp: as given, or nearly equal (larger camps first)."""
    if camps < 2:
        raise Invalid(
            Message("--camps must be at least 2, got {camps}", camps=camps), field="camps"
        )
    if players < camps:
        raise Invalid(
            Message(
                "{players} player(s) cannot make {camps} camps: need at least one per camp",
                players=players,
                camps=camps,
            ),
            field="camps",
        )
    if sizes is None:
        base, extra = divmod(players, camps)
        return [base + (1 if k < extra else 0) for k in range(camps)]
    if len(sizes) != camps:
        raise Invalid(
            Message("--sizes gives {count} sizes for {camps} camps", count=len(sizes), camps=camps),
            field="sizes",
        )
    if any(s < 1 for s in sizes):
        raise Invalid(Message("--sizes: every camp needs at least one player"), field="sizes")
    if sum(sizes) != players:
        raise Invalid(
            Message(
                "--sizes add up to {total} but there are {players} players",
                total=sum(sizes),
                players=players,
            ),
            field="sizes",
        )
    return sorted(sizes, reverse=True)


def top_grade_set(entrants: Sequence[Entrant], camps: int) -> list[str]:
    """The highest grades (ordered by their best rating), taken from the top
    until they hold at least one player per camp; none without grades."""
    best: dict[str, float] = {}
    count: dict[str, int] = {}
    for e in entrants:
        if e.grade is None:
            continue
        best[e.grade] = max(best.get(e.grade, e.rating), e.rating)
        count[e.grade] = count.get(e.grade, 0) + 1
    chosen: list[str] = []
    held = 0
    for grade in sorted(best, key=lambda g: (-best[g], g)):
        if held >= camps:
            break
        chosen.append(grade)
        held += count[grade]
    return chosen


def _groups(keys: list[str], groups: Sequence[Sequence[str]], option: str) -> list[list[int]]:
    index = {k: i for i, k in enumerate(keys)}
    out = []
    for group in groups:
        members = []
        for key in group:
            if key not in index:
                raise Invalid(
                    Message("{option}: {key!r} is not among the players", option=option, key=key),
                    field=option,
                )
            if index[key] in members:
                raise Invalid(
                    Message(
                        "{option}: {key!r} is named twice in one group", option=option, key=key
                    ),
                    field=option,
                )
            members.append(index[key])
        if len(members) < 2:
            raise Invalid(
                Message(
                    "{option} needs at least two players, got {group}",
                    option=option,
                    group=list(group),
                ),
                field=option,
            )
        out.append(members)
    return out


def check_constraints(
    n: int, sizes: list[int], together: list[list[int]], apart: list[list[int]], names: list[str]
) -> list[int]:
    """Raise on contradictions a referee can fix; return each player's
    together-group root."""
    root = list(range(n))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for group in together:
        for i in group[1:]:
            root[find(i)] = find(group[0])
    members: dict[int, list[int]] = {}
    for i in range(n):
        members.setdefault(find(i), []).append(i)
    for group in members.values():
        if len(group) > sizes[0]:
            raise Invalid(
                Message(
                    "--together keeps {count} players together ({names}) but the largest "
                    "camp holds {sizes}",
                    count=len(group),
                    names=", ".join(names[i] for i in group),
                    sizes=sizes[0],
                ),
                field="together",
            )
    for group in apart:
        if len(group) > len(sizes):
            raise Invalid(
                Message(
                    "--apart: {count} players cannot be kept apart in {camps} camps",
                    count=len(group),
                    camps=len(sizes),
                ),
                field="apart",
            )
        for a in range(len(group)):
            for b in range(a + 1, len(group)):
                i, j = group[a], group[b]
                if find(i) == find(j):
                    raise Invalid(
                        Message(
                            "{first} and {second} must be both together and apart",
                            first=names[i],
                            second=names[j],
                        ),
                        field="apart",
                    )
    return [find(i) for i in range(n)]


def _scaled(ratings: list[float]) -> tuple[list[int], int]:
    """Integer ratings and the scale: whole ratings as they are, else hundredths."""
    if all(isclose(r, round(r), abs_tol=1e-9) for r in ratings):
        return [round(r) for r in ratings], 1
    return [round(r * 100) for r in ratings], 100


def balance(
    entrants: Sequence[Entrant],
    camps: int,
    strength: Strength,
    sizes: Sequence[int] | None = None,
    together: Sequence[Sequence[str]] = (),
    apart: Sequence[Sequence[str]] = (),
    alternatives: int = 1,
    time_limit: float = 10.0,
) -> Balance:
    """The split(s) of ``entrants`` into ``camps`` with the smallest gap.

    ``together``/``apart`` groups name players by key. Raises Invalid for a
    player listed twice, sizes that do not add up, contradictory constraints,
    and constraints no split satisfies.
    """
    seen: set[str] = set()
    for e in entrants:
        if e.key in seen:
            raise Invalid(Message("player {name!r} is listed twice", name=e.name), field="player")
        seen.add(e.key)
    if alternatives < 1:
        raise Invalid(Message("--alternatives must be at least 1"), field="alternatives")
    # Canonical order: the model (and so the solver's path) never depends on
    # the order players were given in.
    people = sorted(entrants, key=lambda e: (-e.rating, e.key))
    n = len(people)
    size = camp_sizes(n, camps, sizes)
    keys = [e.key for e in people]
    names = [e.name for e in people]
    tog = _groups(keys, together, "together")
    apa = _groups(keys, apart, "apart")
    root = check_constraints(n, size, tog, apa, names)
    top = top_grade_set(people, camps)
    problem = _Problem(people, size, strength.aggregate, root, tog, apa, top)
    deadline = time.monotonic() + time_limit
    splits: list[Split] = []
    found: list[tuple[int, ...]] = []
    status = "optimal"
    spread_proven = True
    bound_points = 0
    for _ in range(alternatives):
        answer = problem.next_split(found, deadline)
        if answer is None:
            if splits:
                break  # fewer distinct splits than asked
            if problem.infeasible:
                raise Invalid(
                    Message(
                        "no split satisfies the --together/--apart constraints with these camp "
                        "sizes"
                    ),
                    field="apart",
                )
            raise Invalid(
                Message(
                    "no split found within --time-limit {time_limit:g}s", time_limit=time_limit
                ),
                field="time-limit",
            )
        assignment, gap_proven, spread_ok, bound = answer
        if not gap_proven:
            status = "best found"
            bound_points = max(bound_points, bound)
        spread_proven = spread_proven and spread_ok
        found.append(assignment)
        splits.append(evaluate(people, assignment, size, strength, top))
    return Balance(
        camps=camps, sizes=size, top_grades=top, status=status, spread_proven=spread_proven,
        bound_points=max(bound_points, 0), splits=splits,
    )  # fmt: skip


class _Problem:
    """One balancing problem in the solver's integers, and the ways to answer
    it, cheapest first: a draft improved by swaps (enough when it is within a
    point), the relaxation and an exact search by listing camps (small
    camps), and the MIP (HiGHS) for the rest, within the time limit.

    A camp's value is its side rating scaled to an integer: the rating sum
    times lcm(sizes)/size for a mean (camps of different sizes compare), the
    sum itself for a sum; ``step`` is one rating point in those units.
    """

    def __init__(
        self,
        people: Sequence[Entrant],
        size: list[int],
        aggregate: Aggregate,
        root: list[int],
        together: list[list[int]],
        apart: list[list[int]],
        top: list[str],
    ) -> None:
        self.n = len(people)
        self.size = size
        self.camps = len(size)
        self.together = together
        self.apart = apart
        self.root = root
        self.is_top = [int(e.grade in top) for e in people]
        self.ratings, scale = _scaled([e.rating for e in people])
        mult = lcm(*size) if aggregate == "mean" else 1
        self.weight = [mult // s if aggregate == "mean" else 1 for s in size]
        self.step = mult * scale
        # Every split has camps on both sides of this value (num / den): the
        # mean of all players for a mean, the mean camp for a sum.
        total = sum(self.ratings)
        self.center = (total * mult, self.n) if aggregate == "mean" else (total, self.camps)
        # Gaps under one point are ties (the objective's resolution), so a
        # split within a point is optimal whatever the ratings' arithmetic.
        self.gap_floor = 1
        tops = sum(self.is_top)
        self.spread_floor = int(tops % self.camps != 0) if tops else 0
        self.cover = Cover(self.ratings, size, self.weight, root, apart, self.is_top, self.center)
        self.mip: _Mip | None = None
        self.infeasible = False

    def gap(self, split: Sequence[int]) -> int:
        """The gap in whole rating points, at least 1 (the first objective)."""
        values = [0] * self.camps
        for i, k in enumerate(split):
            values[k] += self.ratings[i] * self.weight[k]
        return max(1, -(-(max(values) - min(values)) // self.step))

    def spread(self, split: Sequence[int]) -> int:
        counts = [0] * self.camps
        for i, k in enumerate(split):
            counts[k] += self.is_top[i]
        return max(counts) - min(counts)

    def next_split(
        self, found: list[tuple[int, ...]], deadline: float
    ) -> tuple[tuple[int, ...], bool, bool, int] | None:
        """The best split not in ``found``: (camp per player, gap proven,
        spread proven, proven lower bound on the gap); None when there is
        none (or none was found in time)."""
        best = good_split(
            self.ratings, self.weight, self.size, self.root, self.apart, self.is_top,
            self.center, self.step, self.gap_floor * self.step, exclude=found,
        )  # fmt: skip
        gap_proven = best is not None and self.gap(best) <= self.gap_floor
        # The least gap not ruled out yet: each narrower gap the listing rules
        # out is proven impossible.
        bound = self.gap_floor
        self.cover.reset()
        # The relaxation first, one point below the split found: the swaps
        # usually found the optimum, and the relaxation is usually exact.
        if best is not None and not gap_proven and self._ruled_out(self.gap(best) - 1):
            bound, gap_proven = self.gap(best), True
        if best is not None and not gap_proven:
            try:
                # The bound first (the cheapest question), then halving.
                probe = bound
                while bound < self.gap(best):
                    if self._ruled_out(probe):
                        bound = probe + 1
                    else:
                        better = self.cover.find(probe * self.step, exclude=found)
                        if better is None:
                            bound = probe + 1
                        else:
                            best = better
                    probe = (bound + self.gap(best) - 1) // 2
                gap_proven = True
            except Budget:
                pass
        if not gap_proven:
            solved = self._mip(found).gap(best, bound, deadline)
            if solved is None:
                self.infeasible = self._mip(found).infeasible
                return None if best is None else (best, False, False, bound)
            best, gap_proven, bound = solved
        assert best is not None
        spread_proven = self.spread(best) <= self.spread_floor
        if not spread_proven:
            try:
                while True:
                    better = self.cover.find(
                        self.gap(best) * self.step, spread_below=self.spread(best), exclude=found
                    )
                    if better is None:
                        break
                    best = better
                spread_proven = True
            except Budget:
                best, spread_proven = self._mip(found).spread(best, self.gap(best), deadline)
        return best, gap_proven, spread_proven, bound

    def _ruled_out(self, points: int) -> bool:
        """Whether the relaxation proves no split has a gap of ``points`` or
        less (False also when it could not tell within its budget)."""
        try:
            return gap_ruled_out(self.cover, points * self.step)
        except Budget:
            return False

    def _mip(self, found: list[tuple[int, ...]]) -> _Mip:
        """The MIP, built when first needed, excluding the splits found."""
        if self.mip is None:
            self.mip = _Mip(self)
        self.mip.exclude(found)
        return self.mip


class _Mip:
    """The exact model in HiGHS: x[i][k] = player i in camp k; the gap (in
    whole points) bounds the largest minus the smallest camp value; camps of
    equal size ordered by their first player (one labelling per split)."""

    def __init__(self, problem: _Problem) -> None:
        import highspy

        self.highspy = highspy
        self.p = problem
        n, camps, size = problem.n, problem.camps, problem.size
        ratings, weight = problem.ratings, problem.weight
        h = silent_highs({"threads": 1, "random_seed": 0, "mip_rel_gap": 0.0, "mip_abs_gap": 0.0})
        self.h = h
        inf = highspy.kHighsInf
        self.top_total = sum(problem.is_top)
        span = sum(abs(r) for r in ratings) * max(weight) + 1
        self.span = span
        floor = -span if min(ratings) < 0 else 0
        # Columns: x[i][k] = i * camps + k (player i in camp k), then the bounds.
        self.x = x = [[i * camps + k for k in range(camps)] for i in range(n)]
        hi, lo, gap, thi, tlo = range(n * camps, n * camps + 5)
        self.cols = (hi, lo, gap, thi, tlo)
        self.ncols = n * camps + 5
        columns = [(0.0, 1.0)] * (n * camps)
        # thi/tlo (the top-grade counts) only enter the second phase: kept at 0
        # until then, as even an unused free column slowed the first phase down.
        columns += [(floor, span), (floor, span), (problem.gap_floor, span), (0, 0), (0, 0)]
        for low, up in columns:
            h.addCol(0.0, float(low), float(up), 0, [], [])
        h.changeColsIntegrality(
            len(columns), list(range(len(columns))), [highspy.HighsVarType.kInteger] * len(columns)
        )
        row = self._row
        for i in range(n):
            row(1, 1, [(x[i][k], 1.0) for k in range(camps)])
        for k in range(camps):
            row(size[k], size[k], [(x[i][k], 1.0) for i in range(n)])
            side = [(x[i][k], float(ratings[i] * weight[k])) for i in range(n)]
            row(0, inf, [(hi, 1.0)] + [(c, -v) for c, v in side])
            row(0, inf, side + [(lo, -1.0)])
        row(0, inf, [(gap, float(problem.step)), (hi, -1.0), (lo, 1.0)])
        # Camps of the same size are interchangeable: order them by their first
        # (strongest) player, so each split has one labelling only.
        for k in range(camps - 1):
            if size[k] == size[k + 1]:
                row(-inf, 0, [(x[0][k + 1], 1.0)])
                for i in range(1, n):
                    row(-inf, 0, [(x[i][k + 1], 1.0)] + [(x[j][k], -1.0) for j in range(i)])
        for group in problem.together:
            for i in group[1:]:
                for k in range(camps):
                    row(0, 0, [(x[i][k], 1.0), (x[group[0]][k], -1.0)])
        for group in problem.apart:
            for k in range(camps):
                row(-inf, 1, [(x[i][k], 1.0) for i in group])
        self.spread_rows = False
        self.excluded: set[tuple[int, ...]] = set()
        self.infeasible = False

    def _row(self, low: float, up: float, terms: list[tuple[int, float]]) -> None:
        # The low-level row API: highspy's expression objects are slow to
        # build (O(n^2) terms for the symmetry rows took most of a second).
        self.h.addRow(low, up, len(terms), [c for c, _ in terms], [v for _, v in terms])

    def exclude(self, found: list[tuple[int, ...]]) -> None:
        for split in found:
            if split not in self.excluded:
                self.excluded.add(split)
                self._row(
                    -self.highspy.kHighsInf,
                    self.p.n - 1,
                    [(self.x[i][k], 1.0) for i, k in enumerate(split)],
                )

    def _start(self, split: Sequence[int] | None) -> None:
        """Hand the solver a known split: it then only has to prove it, or beat it."""
        if split is None:
            return
        p = self.p
        values = [0.0] * self.ncols
        sides = [0] * p.camps
        counts = [0] * p.camps
        for i, k in enumerate(split):
            values[self.x[i][k]] = 1.0
            sides[k] += p.ratings[i] * p.weight[k]
            counts[k] += p.is_top[i]
        hi, lo, gap, thi, tlo = self.cols
        values[hi], values[lo] = float(max(sides)), float(min(sides))
        values[gap] = float(p.gap(split))
        if self.spread_rows:
            values[thi], values[tlo] = float(max(counts)), float(min(counts))
        solution = self.highspy.HighsSolution()
        solution.col_value = values
        solution.value_valid = True
        self.h.setSolution(solution)

    def _run(self, deadline: float) -> tuple[str, list[float] | None, float]:
        """Solve within what is left of the time limit: (optimal | infeasible |
        limit, the column values if a solution is known, the proven bound)."""
        h, highspy = self.h, self.highspy
        h.setOptionValue("time_limit", max(0.01, deadline - time.monotonic()))
        h.run()
        model_status = h.getModelStatus()
        info = h.getInfo()
        if model_status == highspy.HighsModelStatus.kInfeasible:
            return "infeasible", None, 0.0
        values = list(h.getSolution().col_value) if info.primal_solution_status == 2 else None
        if model_status == highspy.HighsModelStatus.kOptimal:
            return "optimal", values, info.objective_function_value
        return "limit", values, info.mip_dual_bound

    def _split(self, values: list[float]) -> tuple[int, ...]:
        camps = self.p.camps
        return tuple(max(range(camps), key=lambda k, r=r: values[r[k]]) for r in self.x)

    def gap(
        self, start: tuple[int, ...] | None, bound: int, deadline: float
    ) -> tuple[tuple[int, ...], bool, int] | None:
        """The least gap, given one already proven ``bound`` (in points):
        (split, proven, proven lower bound), or None."""
        h, (_, _, gap, thi, tlo) = self.h, self.cols
        h.changeColBounds(gap, bound, self.span)
        h.changeColsCost(3, [gap, thi, tlo], [1.0, 0.0, 0.0])
        open_counts = float(self.top_total) if self.spread_rows else 0.0
        h.changeColsBounds(2, [thi, tlo], [0.0, 0.0], [open_counts] * 2)
        self._start(start)
        solved, values, dual = self._run(deadline)
        if values is None:
            self.infeasible = solved == "infeasible"
            return None
        if solved == "optimal":
            proven = round(values[gap])
        else:
            # No finite dual bound when the limit came before the first LP.
            proven = max(bound, int(ceil(dual - 1e-6))) if isfinite(dual) else bound
        return self._split(values), solved == "optimal", proven

    def spread(
        self, start: tuple[int, ...], best_gap: int, deadline: float
    ) -> tuple[tuple[int, ...], bool]:
        """With the gap held at ``best_gap``, the least top-grade spread
        (within a node budget: deterministic): (split, proven)."""
        h, (_, _, gap, thi, tlo) = self.h, self.cols
        if not self.spread_rows:
            # Added only now: the first phase solves faster without them.
            self.spread_rows = True
            is_top, x = self.p.is_top, self.x
            inf = self.highspy.kHighsInf
            for k in range(self.p.camps):
                tops = [(x[i][k], 1.0) for i in range(self.p.n) if is_top[i]]
                self._row(0, inf, [(thi, 1.0)] + [(c, -1.0) for c, _ in tops])
                self._row(0, inf, tops + [(tlo, -1.0)])
            # Equal counts need camps | top_total: a bound the solver need not prove.
            self._row(self.p.spread_floor, inf, [(thi, 1.0), (tlo, -1.0)])
        h.changeColBounds(gap, self.p.gap_floor, best_gap)
        h.changeColsCost(3, [gap, thi, tlo], [0.0, 1.0, -1.0])
        h.changeColsBounds(2, [thi, tlo], [0.0, 0.0], [float(self.top_total)] * 2)
        self._start(start)
        # The spread is searched within a node budget, not a clock, so the
        # answer stays deterministic; the gap above is never traded for it.
        h.setOptionValue("mip_max_nodes", SPREAD_NODES)
        solved, values, _ = self._run(deadline)
        h.setOptionValue("mip_max_nodes", self.highspy.kHighsIInf)
        if values is None:
            return start, False
        return self._split(values), solved == "optimal"


def side_value(ratings: Sequence[float], aggregate: Aggregate) -> float:
    total = sum(ratings)
    return total / len(ratings) if aggregate == "mean" else total


def evaluate(
    people: Sequence[Entrant],
    assignment: Sequence[int],
    size: Sequence[int],
    strength: Strength,
    top: Sequence[str],
) -> Split:
    """A split's camps, side ratings, expected scores and objective values."""
    camps = len(size)
    members: list[list[Entrant]] = [[] for _ in range(camps)]
    for e, k in zip(people, assignment, strict=True):
        members[k].append(e)
    sides = [side_value([e.rating for e in m], strength.aggregate) for m in members]
    labels = list(CAMP_NAMES[:camps]) if camps <= 26 else [str(k + 1) for k in range(camps)]
    out = []
    worst = 0.0
    for k in range(camps):
        expected = {}
        for j in range(camps):
            if j != k:
                expected[labels[j]] = strength.expected(sides[k], sides[j])
                worst = max(worst, expected[labels[j]] - strength.expected(sides[j], sides[k]))
        out.append(
            Camp(
                camp=labels[k],
                players=[CampPlayer(e.name, e.rating, e.grade, e.new) for e in members[k]],
                side_rating=round(sides[k], 2),
                expected=expected,
                top_grades=sum(e.grade in top for e in members[k]),
            )
        )
    spread = max(c.top_grades for c in out) - min(c.top_grades for c in out) if top else 0
    gap = max(sides) - min(sides)
    return Split(
        camps=out,
        gap_points=gap_points(gap),
        gap=round(gap, 4),
        expected_gap=round(worst, 4),
        top_spread=spread,
    )


def gap_points(gap: float) -> int:
    """The objective's first term: a side-rating gap rounded up to whole
    points, at least 1 (gaps under one point are ties)."""
    return max(1, int(ceil(gap - 1e-9)))


def elo_expected(divisor: float) -> Callable[[float, float], float]:
    """The Elo logistic, for families that define no expected score of their own."""

    def expected(own: float, opponent: float) -> float:
        return 1.0 / (1.0 + 10.0 ** ((opponent - own) / divisor))

    return expected


def family_strength(family: object) -> Strength:
    """The family's own side rating and expected score when it has them (the
    Elo families: Battle Empire, AdlG, elo); otherwise the mean and the Elo
    logistic with the family's ``divisor`` parameter (400 when it has none)."""
    expected = getattr(family, "expected", None)
    elo = getattr(family, "elo", None)
    if callable(expected) and elo is not None:
        return Strength(
            aggregate=elo.team,
            expected=lambda own, opponent: expected(own, opponent)[1],
        )
    divisor = getattr(getattr(family, "params", None), "divisor", 400)
    return Strength(aggregate="mean", expected=elo_expected(float(divisor)))
