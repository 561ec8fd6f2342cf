"""Exact search for small camps: list every camp that could belong to a split
within a gap, then cover the players with such camps.

Pure and deterministic. The team-balancing MIP proves slowly when the best
gap is above the arithmetic bound, which happens when camps are small (few
players each: few possible sums); then so few camps fit a narrow gap that
listing them and covering the players with them is a fast proof. The search
has a node budget: past it the answer is "unknown" and the MIP decides.

Players with the same rating and top grade and no constraint (newcomers at
the initial rating, typically) are interchangeable: a camp takes a number of
them, always the first ones not yet placed, so each split is met once rather
than once per permutation of them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

#: Candidate camps listed, at most, before giving up (the MIP decides then).
MAX_CANDIDATES = 60_000
#: Search steps (camps tried, listing and covering together), at most,
#: between two ``reset`` calls (the team solver resets once per split it
#: looks for): about a second.
MAX_NODES = 1_000_000
#: What one call of the listing's walk counts for, in steps.
WALK_STEPS = 3

#: A camp that may belong to a split: (its players outside runs as a bit
#: mask, size, value, top grades, (run, how many of its players) pairs).
Candidate = tuple[int, int, int, int, tuple[tuple[int, int], ...]]


class Budget(Exception):
    """The node budget ran out: the question is left to the MIP."""


class Cover:
    """The players of one balancing problem, in canonical order (strongest
    first), with their together-groups, apart-groups and top grades.

    Values are the solver's scaled integers: a camp of size ``s`` holding
    players whose scaled ratings sum to ``S`` has value ``weight[s] * S``;
    ``center`` (numerator, denominator) is a value every split has camps on
    both sides of.
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
        n = len(ratings)
        self.ratings = list(ratings)
        self.n = n
        self.size = list(size)
        self.weight_of = {s: w for s, w in zip(size, weight, strict=True)}
        self.is_top = list(is_top)
        members: dict[int, int] = {}
        for i in range(n):
            members[root[i]] = members.get(root[i], 0) | (1 << i)
        # Units (players kept together) by their first player.
        self.units = sorted(members.values(), key=lambda m: (m & -m).bit_length())
        self.apart_masks = [sum(1 << i for i in g) for g in apart]
        self.total = sum(ratings)
        self.num, self.den = center
        # Runs: consecutive unconstrained players alike in rating and grade.
        constrained = {i for g in apart for i in g}
        free = [members[root[i]] == 1 << i and i not in constrained for i in range(n)]
        self.runs: list[int] = []
        self.run_of = [-1] * n
        i = 0
        while i < n:
            j = i
            while (
                free[i]
                and j + 1 < n
                and free[j + 1]
                and ratings[j + 1] == ratings[i]
                and is_top[j + 1] == is_top[i]
            ):
                j += 1
            if j > i:
                for m in range(i, j + 1):
                    self.run_of[m] = len(self.runs)
                self.runs.append(sum(1 << m for m in range(i, j + 1)))
            i = j + 1
        self.nodes = 0
        self._listed: dict[bool, tuple[int, list[Candidate]]] = {}

    def reset(self) -> None:
        """A fresh node budget."""
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise Budget

    def candidates(self, width: int, runs: bool) -> list[Candidate]:
        """Every camp (a union of units of one of the camp sizes, no two
        players kept apart) whose value is within ``width`` of the centre,
        nearest the centre first. With ``runs``, a camp takes a count of
        players from each run (which ones is decided when it is placed)."""
        num, den = self.num, self.den
        listed = self._listed.get(runs)
        if listed is not None and listed[0] >= width:
            if listed[0] == width:
                return listed[1]
            return [c for c in listed[1] if abs(c[2] * den - num) <= den * width]
        out: list[Candidate] = []
        for s in sorted(set(self.size)):
            w = self.weight_of[s]
            # The camp's value w * S (S its rating sum) within width of the
            # centre num / den: den * w * S within den * width of num.
            lo = -(-(num - den * width) // (den * w))
            hi = (num + den * width) // (den * w)
            for fixed, total, parts in self._camps(s, lo, hi, runs):
                tops = sum(self.is_top[i] for i in range(self.n) if fixed >> i & 1)
                for r, count in parts:
                    run = self.runs[r]
                    tops += count * self.is_top[(run & -run).bit_length() - 1]
                out.append((fixed, s, w * total, tops, parts))
        # Nearest the centre first: good splits are found early.
        out.sort(key=lambda c: (abs(c[2] * den - num), c[0], c[4]))
        self._listed[runs] = (width, out)
        return out

    def _camps(
        self, s: int, lo: int, hi: int, runs: bool
    ) -> list[tuple[int, int, tuple[tuple[int, int], ...]]]:
        """(players outside runs, rating sum, run counts) of the camps of
        ``s`` players whose ratings sum to lo..hi."""
        n, r = self.n, self.ratings
        prefix = [0]
        for v in r:
            prefix.append(prefix[-1] + v)
        # Items in player order: a unit, or (with runs) a whole run.
        items: list[tuple[int, int, int, int]] = []  # (first player, mask, size, run)
        for u in self.units:
            first = (u & -u).bit_length() - 1
            run = self.run_of[first] if runs else -1
            if run == -1:
                items.append((first, u, u.bit_count(), -1))
            elif first == (self.runs[run] & -self.runs[run]).bit_length() - 1:
                items.append((first, self.runs[run], self.runs[run].bit_count(), run))
        sums = [sum(r[i] for i in range(n) if m >> i & 1) for _, m, _, _ in items]
        found: list[tuple[int, int, tuple[tuple[int, int], ...]]] = []
        parts: list[tuple[int, int]] = []

        kept_apart = 0
        for a in self.apart_masks:
            kept_apart |= a

        def walk(j: int, fixed: int, need: int, total: int) -> None:
            self.nodes += WALK_STEPS  # a call costs a few loop steps
            if need == 0:
                if lo <= total <= hi:
                    found.append((fixed, total, tuple(parts)))
                    if len(found) > MAX_CANDIDATES:
                        raise Budget
                return
            # The `need` weakest players bound what can still be added from
            # below; from above, the strongest from item k on (whose players
            # all come from its first player on: items go in player order).
            if total + prefix[n] - prefix[n - need] > hi:
                return
            for k in range(j, len(items)):
                self.nodes += 1
                if self.nodes > MAX_NODES:
                    raise Budget
                first, mask, count, run = items[k]
                if n - first < need or total + prefix[first + need] - prefix[first] < lo:
                    break
                if run != -1:
                    one = sums[k] // count
                    for take in range(min(count, need), 0, -1):
                        parts.append((run, take))
                        walk(k + 1, fixed, need - take, total + take * one)
                        parts.pop()
                    continue
                if count > need:
                    continue
                joined = fixed | mask
                if mask & kept_apart and any(
                    (joined & a).bit_count() > 1 for a in self.apart_masks
                ):
                    continue
                walk(k + 1, joined, need - count, total + sums[k])

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

        # Runs only when no split is excluded: an excluded split must not
        # hide the permutations of its interchangeable players.
        use_runs = not exclude and bool(self.runs)
        listed = self.candidates(width, use_runs)
        run_of = self.run_of if use_runs else [-1] * self.n
        # By the player a camp must hold to be placed next: its first player
        # outside runs, or (for the first free player of a run) its run.
        by_player: dict[int, list[Candidate]] = {}
        by_run: dict[int, list[Candidate]] = {}
        for c in listed:
            fixed, parts = c[0], c[4]
            if fixed:
                by_player.setdefault((fixed & -fixed).bit_length() - 1, []).append(c)
            for r, _ in parts:
                by_run.setdefault(r, []).append(c)
        n, full, runs = self.n, (1 << self.n) - 1, self.runs
        left = {s: self.size.count(s) for s in set(self.size)}
        chosen: list[int] = []
        excluded = set(exclude)

        def cover(
            covered: int, vmin: int, vmax: int, tmin: int, tmax: int, rest: int
        ) -> tuple[int, ...] | None:
            self._tick()
            if covered == full:
                # Labels by size (larger first, as the sizes go), then by
                # first player.
                assignment = [0] * n
                order = sorted(chosen, key=lambda m: (-m.bit_count(), m & -m))
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
            run = run_of[first]
            for fixed, s, value, tops, parts in (
                by_run.get(run, ()) if run != -1 else by_player.get(first, ())
            ):
                self.nodes += 1  # the work is per candidate looked at
                if self.nodes > MAX_NODES:
                    raise Budget
                if fixed & covered or not left[s]:
                    continue
                lo_v, hi_v = min(vmin, value), max(vmax, value)
                if hi_v - lo_v > width:
                    continue
                lo_t, hi_t = min(tmin, tops), max(tmax, tops)
                if spread_below is not None and hi_t - lo_t >= spread_below:
                    continue
                mask = fixed
                for r, count in parts:
                    # A run's free players are its last ones: take the first of them.
                    free = runs[r] & ~covered
                    block = (free & -free) * ((1 << count) - 1)
                    if block & ~free:
                        break
                    mask |= block
                else:
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
