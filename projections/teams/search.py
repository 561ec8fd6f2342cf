"""A good split fast: a draft, then swaps, for the team-balancing solver.

Pure and deterministic (a seeded generator and a step budget, never a
clock). The exact solver in ``projections.teams.balance`` proves what this finds, or
finds better: on the rosters referees meet a split within one point (the
objective's floor: gaps under a point are ties) is common, and finding one
was what made the solver slow (its bound was right from the start; it searched for the split).

The model is the solver's, in scaled integers: camp ``k``'s value is
``weight[k]`` times the sum of its scaled ratings, so camps of any size
compare, and the gap is the largest value minus the smallest.
"""

from __future__ import annotations

import random
from bisect import bisect_left, insort
from collections.abc import Collection, Sequence
from itertools import combinations

#: Swap rounds (a round makes the best swap between any two camps) per
#: player: keeping each camp's top grades (the draft spreads them evenly),
#: then swapping any players; a perturbation (KICK random swaps) follows
#: each round that finds no improvement. Two random swaps escaped more often
#: than one; the first phase gets the most rounds, as its answer settles the
#: spread too.
ROUNDS_PER_PLAYER = 20
ROUNDS_PER_PLAYER_ANY = 5
KICK = 2
#: Together-groups up to this size also trade places with single players.
GROUP_TRADE = 3
#: Beyond any camp value (for two camps, which have no third to compare).
FAR = 1 << 200


def canonical(assignment: Sequence[int], size: Sequence[int]) -> tuple[int, ...]:
    """The one labelling the solver accepts: camps of the same size ordered
    by their first player (players are in canonical order)."""
    first: dict[int, int] = {}
    for i, k in enumerate(assignment):
        first.setdefault(k, i)
    relabel = list(range(len(size)))
    start = 0
    while start < len(size):
        end = start
        while end + 1 < len(size) and size[end + 1] == size[start]:
            end += 1
        block = sorted(range(start, end + 1), key=lambda k: first.get(k, len(assignment)))
        for new, old in zip(range(start, end + 1), block, strict=True):
            relabel[old] = new
        start = end + 1
    return tuple(relabel[k] for k in assignment)


class _State:
    """Units (players kept together) in camps, with the sums kept current."""

    def __init__(
        self,
        ratings: Sequence[int],
        weight: Sequence[int],
        size: Sequence[int],
        units: list[list[int]],
        tops: list[int],
        apart: list[set[int]],
        camp: list[int],
        classes: list[tuple[int, ...]],
        center: tuple[int, int],
    ) -> None:
        self.weight = weight
        self.size = size
        self.units = units
        self.apart = apart
        self.camp = camp
        self.tops = tops
        self.value = [sum(ratings[i] for i in u) for u in units]
        self.n = len(ratings)
        camps = len(size)
        # A camp's deviation from the centre num / den is den * value - num.
        self.num, self.den = center
        self.sums = [0] * camps
        for u, k in enumerate(camp):
            self.sums[k] += self.value[u]
        self.classes = classes
        # Whether trades keep each camp's count of top grades.
        self.keep_tops = len(classes[0]) == 2
        #: Together-groups small enough to trade for single players.
        self.groups = [u for u, members in enumerate(units) if 1 < len(members) <= GROUP_TRADE]
        # Per camp and class: sorted (value, unit) for the nearest-swap search.
        self.pool: list[dict[tuple[int, ...], list[tuple[int, int]]]] = [{} for _ in range(camps)]
        for u, k in enumerate(camp):
            insort(self.pool[k].setdefault(classes[u], []), (self.value[u], u))

    def sides(self) -> list[int]:
        return [w * s for w, s in zip(self.weight, self.sums, strict=True)]

    def gap(self) -> int:
        v = self.sides()
        return max(v) - min(v)

    def spread(self) -> int:
        counts = [0] * len(self.size)
        for u, k in enumerate(self.camp):
            counts[k] += self.tops[u]
        return max(counts) - min(counts)

    def allowed(self, us: tuple[int, ...], vs: tuple[int, ...]) -> bool:
        """Whether units ``us`` and ``vs`` may trade camps (kept apart)."""
        p, q = self.camp[us[0]], self.camp[vs[0]]
        return all(self.camp[o] != q or o in vs for u in us for o in self.apart[u]) and all(
            self.camp[o] != p or o in us for v in vs for o in self.apart[v]
        )

    def exchange(self, us: tuple[int, ...], vs: tuple[int, ...]) -> None:
        """Units ``us`` (one camp) and ``vs`` (another) trade camps."""
        p, q = self.camp[us[0]], self.camp[vs[0]]
        for group, here, there in ((us, p, q), (vs, q, p)):
            for unit in group:
                bucket = self.pool[here][self.classes[unit]]
                bucket.pop(bisect_left(bucket, (self.value[unit], unit)))
                insort(
                    self.pool[there].setdefault(self.classes[unit], []), (self.value[unit], unit)
                )
                self.camp[unit] = there
        t = sum(self.value[u] for u in us) - sum(self.value[v] for v in vs)
        self.sums[p] -= t
        self.sums[q] += t

    def best_swap(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The trade that most lowers (gap, sum of squared deviations), if
        any: for each pair of camps and each unit, the partner of its class
        whose value is nearest the one that would level the two camps; and
        for each small together-group, every set of single players of
        another camp that could take its place."""
        camps = len(self.size)
        sides = self.sides()
        num, den = self.num, self.den
        dev = [den * s - num for s in sides]
        current = (max(sides) - min(sides), sum(d * d for d in dev))
        best = current
        move = None

        # The other camps' highest and lowest values, for each pair of camps.
        bounds: dict[tuple[int, int], tuple[int, int, int]] = {}
        for p in range(camps):
            for q in range(camps):
                others = [sides[k] for k in range(camps) if k != p and k != q]
                rest = current[1] - dev[p] ** 2 - dev[q] ** 2
                bounds[p, q] = (max(others, default=-FAR), min(others, default=FAR), rest)

        def key(p: int, q: int, t: int) -> tuple[int, int]:
            """(gap, squares) once p gives q units worth t more than it gets."""
            wp, wq = self.weight[p], self.weight[q]
            sp, sq = sides[p] - wp * t, sides[q] + wq * t
            hi, lo, rest = bounds[p, q]
            top = hi if hi > sp and hi > sq else sp if sp > sq else sq
            bottom = lo if lo < sp and lo < sq else sp if sp < sq else sq
            dp, dq = dev[p] - den * wp * t, dev[q] + den * wq * t
            return top - bottom, rest + dp * dp + dq * dq

        for p in range(camps):
            for q in range(p + 1, camps):
                wp, wq = self.weight[p], self.weight[q]
                # Moving t from p to q: p loses wp*t, q gains wq*t (value units).
                ideal = (wp * dev[p] - wq * dev[q]) / (den * (wp * wp + wq * wq))
                for cls, here in self.pool[p].items():
                    there = self.pool[q].get(cls)
                    if not there:
                        continue
                    for value_u, u in here:
                        j = bisect_left(there, (value_u - ideal, -1))
                        for value_v, v in there[max(0, j - 1) : j + 1]:
                            if value_u == value_v:
                                continue
                            k = key(p, q, value_u - value_v)
                            if k < best and self.allowed((u,), (v,)):
                                best, move = k, ((u,), (v,))
        for u in self.groups:
            p = self.camp[u]
            for q in range(camps):
                if q == p:
                    continue
                singles = [
                    v for cls, units in self.pool[q].items() if cls[0] == 1 for _, v in units
                ]
                for vs in combinations(singles, len(self.units[u])):
                    if self.keep_tops and sum(self.tops[v] for v in vs) != self.tops[u]:
                        continue
                    k = key(p, q, self.value[u] - sum(self.value[v] for v in vs))
                    if k < best and self.allowed((u,), vs):
                        best, move = k, ((u,), vs)
        return move

    def kick(self, rng: random.Random) -> bool:
        """A random allowed swap between two camps (units of one class)."""
        camps = len(self.size)
        for _ in range(20):
            p, q = rng.sample(range(camps), 2)
            shared = sorted(set(self.pool[p]) & set(self.pool[q]))
            shared = [c for c in shared if self.pool[p][c] and self.pool[q][c]]
            if not shared:
                continue
            cls = rng.choice(shared)
            u = rng.choice(self.pool[p][cls])[1]
            v = rng.choice(self.pool[q][cls])[1]
            if self.allowed((u,), (v,)):
                self.exchange((u,), (v,))
                return True
        return False

    def assignment(self) -> list[int]:
        out = [0] * self.n
        for u, members in enumerate(self.units):
            for i in members:
                out[i] = self.camp[u]
        return out


def _draft(
    units: list[list[int]],
    value: list[int],
    tops: list[int],
    apart: list[set[int]],
    size: Sequence[int],
) -> list[int] | None:
    """A snake-like draft: the largest units first, then those kept apart,
    top-grade units spread over the camps, each unit to the camp furthest below its share; None when
    the draft gets stuck on the constraints."""
    camps = len(size)
    room = list(size)
    sums = [0] * camps
    count = [0] * camps
    top_count = [0] * camps
    camp = [-1] * len(units)
    players, total = sum(size), sum(value)
    # Kept-apart units early, while every camp still has room for them.
    order = sorted(
        range(len(units)), key=lambda u: (-len(units[u]), -len(apart[u]), -tops[u], -value[u], u)
    )
    for u in order:
        fits = [
            k
            for k in range(camps)
            if room[k] >= len(units[u]) and all(camp[o] != k for o in apart[u])
        ]
        if not fits:
            return None
        # Fewest top grades first (for a top unit), then the camp furthest
        # below the average for the players it holds, then the most room.
        k = min(
            fits,
            key=lambda k: (
                top_count[k] if tops[u] else 0,
                sums[k] * players - count[k] * total,
                -room[k],
                k,
            ),
        )
        camp[u] = k
        room[k] -= len(units[u])
        sums[k] += value[u]
        count[k] += len(units[u])
        top_count[k] += tops[u]
    return camp


def good_split(
    ratings: Sequence[int],
    weight: Sequence[int],
    size: Sequence[int],
    root: Sequence[int],
    apart: Sequence[Sequence[int]],
    is_top: Sequence[int],
    center: tuple[int, int],
    step: int,
    target: int,
    exclude: Collection[tuple[int, ...]] = (),
    seed: int = 0,
) -> tuple[int, ...] | None:
    """A split (camp per player, canonical labelling) with a small gap and
    top-grade spread, not among ``exclude``; None when the draft cannot place
    everyone under the constraints (the exact solver decides then).

    ``root[i]`` is player i's together-group; ``center`` (numerator,
    denominator) is the value every split has a camp on each side of (the
    mean of all players for a mean side rating); ``target`` is the gap in
    scaled units at or below which no better gap exists (one point: gaps
    under a point are ties): the search stops there. Swaps first keep each camp's count of top
    grades (so the even spread of the draft holds), then, if the gap is still
    above the target, any units of the same size are swapped; the best split
    found, by (gap in whole points, spread, gap), is returned.
    """
    n = len(ratings)
    index: dict[int, int] = {}
    units: list[list[int]] = []
    for i in range(n):
        if root[i] not in index:
            index[root[i]] = len(units)
            units.append([])
        units[index[root[i]]].append(i)
    unit_of = [index[root[i]] for i in range(n)]
    value = [sum(ratings[i] for i in u) for u in units]
    tops = [sum(is_top[i] for i in u) for u in units]
    partners: list[set[int]] = [set() for _ in units]
    for group in apart:
        for i in group:
            partners[unit_of[i]].update(unit_of[j] for j in group if j != i)
    camp = _draft(units, value, tops, partners, size)
    if camp is None:
        return None
    rng = random.Random(seed)
    excluded = set(exclude)
    best: tuple[tuple[int, int, int], tuple[int, ...]] | None = None
    for rounds, classes in (
        (ROUNDS_PER_PLAYER * n, [(len(u), t) for u, t in zip(units, tops, strict=True)]),
        (ROUNDS_PER_PLAYER_ANY * n, [(len(u),) for u in units]),
    ):
        state = _State(ratings, weight, size, units, tops, partners, camp, classes, center)
        for done in range(rounds + 1):
            gap = state.gap()
            split = canonical(state.assignment(), size)
            if split not in excluded:
                # Gaps under one point are ties (the solver's objective).
                key = (max(1, -(-gap // step)), state.spread(), gap)
                if best is None or key < best[0]:
                    best = (key, split)
                if gap <= target:
                    return split
            if done == rounds:
                break
            move = state.best_swap()
            if move is not None:
                state.exchange(*move)
            elif not all([state.kick(rng) for _ in range(KICK)]):
                break
        camp = list(state.camp)
    return None if best is None else best[1]
