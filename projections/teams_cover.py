"""Exact search for small camps: list every camp that could belong to a split
within a gap, then cover the players with such camps.

Pure and deterministic. The team-balancing MIP proves slowly when the best
gap is above the arithmetic bound, which happens when camps are small (few
players each: few possible sums); then so few camps fit a narrow gap that
listing them and covering the players with them is a fast proof. Each search
has a node budget: past it the answer is "unknown" and the MIP decides.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

#: Candidate camps listed, at most, before giving up (the MIP decides then).
MAX_CANDIDATES = 60_000
#: Search nodes (listing and covering together), at most, between two
#: ``reset`` calls (the team solver resets once per split it looks for).
MAX_NODES = 200_000


class Budget(Exception):
    """The node budget ran out: the question is left to the MIP."""


class Cover:
    """The players of one balancing problem, in canonical order (strongest
    first), with their together-groups, apart-groups and top grades.

    Values are the solver's scaled integers: a camp of size ``s`` holding
    players whose scaled ratings sum to ``S`` has value ``weight[s] * S``.
    """

    def __init__(
        self,
        ratings: Sequence[int],
        size: Sequence[int],
        weight: Sequence[int],
        root: Sequence[int],
        apart: Sequence[Sequence[int]],
        is_top: Sequence[int],
        center: tuple[int, int],
    ) -> None:
        self.ratings = list(ratings)
        self.n = len(ratings)
        self.size = list(size)
        self.weight_of = {s: w for s, w in zip(size, weight, strict=True)}
        self.is_top = list(is_top)
        members: dict[int, int] = {}
        for i in range(self.n):
            members[root[i]] = members.get(root[i], 0) | (1 << i)
        # Units (players kept together) by their first player.
        self.units = sorted(members.values(), key=lambda m: (m & -m).bit_length())
        self.apart_masks = [sum(1 << i for i in g) for g in apart]
        self.total = sum(ratings)
        # num / den: no split has all its camps' values above it, or below.
        self.num, self.den = center
        self.nodes = 0
        self._listed: dict[int, dict[int, list[tuple[int, int, int, int]]]] = {}

    def reset(self) -> None:
        """A fresh node budget."""
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise Budget

    def candidates(self, width: int) -> dict[int, list[tuple[int, int, int, int]]]:
        """Every camp (a union of units of one of the camp sizes, no two
        players kept apart) whose value is within ``width`` of the mean, by
        its first player: (mask, size, value, top grades)."""
        n = self.n
        out: dict[int, list[tuple[int, int, int, int]]] = {}
        for s in sorted(set(self.size)):
            w = self.weight_of[s]
            # The camp's value w * S (S its rating sum) within width of the
            # centre num / den: den * w * S within den * width of num.
            num, den = self.num, self.den
            lo = -(-(num - den * width) // (den * w))
            hi = (num + den * width) // (den * w)
            for mask, total in self._camps(s, lo, hi):
                first = (mask & -mask).bit_length() - 1
                tops = sum(self.is_top[i] for i in range(n) if mask >> i & 1)
                out.setdefault(first, []).append((mask, s, w * total, tops))
        for camps in out.values():
            # Nearest the mean first: good splits are found early.
            camps.sort(key=lambda c: (abs(c[2] * self.den - self.num), c[0]))
        return out

    def _camps(self, s: int, lo: int, hi: int) -> list[tuple[int, int]]:
        """(mask, rating sum) of the camps of ``s`` players summing to lo..hi."""
        n, r, units = self.n, self.ratings, self.units
        prefix = [0]
        for v in r:
            prefix.append(prefix[-1] + v)
        sizes = [u.bit_count() for u in units]
        sums = [sum(r[i] for i in range(n) if u >> i & 1) for u in units]
        firsts = [(u & -u).bit_length() - 1 for u in units]
        found: list[tuple[int, int]] = []

        def walk(j: int, mask: int, need: int, total: int) -> None:
            self._tick()
            if need == 0:
                if lo <= total <= hi:
                    found.append((mask, total))
                    if len(found) > MAX_CANDIDATES:
                        raise Budget
                return
            # The `need` weakest players bound what can still be added from
            # below; from above, the strongest from unit k on (whose players
            # all have indices from firsts[k] on: units go by first player).
            if total + prefix[n] - prefix[n - need] > hi:
                return
            for k in range(j, len(units)):
                start = firsts[k]
                if n - start < need or total + prefix[start + need] - prefix[start] < lo:
                    break
                if sizes[k] > need:
                    continue
                joined = mask | units[k]
                if any((joined & a).bit_count() > 1 for a in self.apart_masks):
                    continue
                walk(k + 1, joined, need - sizes[k], total + sums[k])

        walk(0, 0, s, 0)
        return found

    def find(
        self,
        width: int,
        spread_below: int | None = None,
        exclude: Collection[tuple[int, ...]] = (),
    ) -> tuple[int, ...] | None:
        """A split (camp per player, canonical labelling) whose camp values
        all lie within ``width`` of each other and, with ``spread_below``,
        whose top-grade counts per camp differ by less than that; not among
        ``exclude``. None proves there is none. Raises Budget."""
        from projections.teams_search import canonical

        if width not in self._listed:
            self._listed[width] = self.candidates(width)
        cands = self._listed[width]
        n, full = self.n, (1 << self.n) - 1
        left = {s: self.size.count(s) for s in set(self.size)}
        chosen: list[int] = []
        excluded = set(exclude)

        def cover(
            covered: int, vmin: int, vmax: int, tmin: int, tmax: int, rest: int
        ) -> tuple[int, ...] | None:
            self._tick()
            if covered == full:
                # Labels by size (larger first, as the sizes go), then by
                # first player (the order the camps were chosen in).
                assignment = [0] * n
                order = sorted(chosen, key=lambda m: -m.bit_count())
                for label, mask in enumerate(order):
                    for i in range(n):
                        if mask >> i & 1:
                            assignment[i] = label
                split = canonical(assignment, self.size)
                return None if split in excluded else split
            # The camps left must hold the players left, each camp's value
            # within [vmax - width, vmin + width].
            if vmin <= vmax:
                low = high = 0
                for s, c in left.items():
                    if c:
                        w = self.weight_of[s]
                        low += c * -(-(vmax - width) // w)
                        high += c * ((vmin + width) // w)
                if not low <= rest <= high:
                    return None
            first = ((covered + 1) & ~covered).bit_length() - 1
            for mask, s, value, tops in cands.get(first, ()):
                if mask & covered or not left[s]:
                    continue
                lo_v, hi_v = min(vmin, value), max(vmax, value)
                if hi_v - lo_v > width:
                    continue
                lo_t, hi_t = min(tmin, tops), max(tmax, tops)
                if spread_below is not None and hi_t - lo_t >= spread_below:
                    continue
                left[s] -= 1
                chosen.append(mask)
                found = cover(
                    covered | mask, lo_v, hi_v, lo_t, hi_t, rest - value // self.weight_of[s]
                )
                chosen.pop()
                left[s] += 1
                if found is not None:
                    return found
            return None

        big = 1 << 62
        return cover(0, big, -big, big, -big, self.total)
