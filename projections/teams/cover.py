"""Exact search for small camps: list every camp that could belong to a split
within a gap, then cover the players with such camps.

Pure and deterministic. The team-balancing MIP proves slowly when the best
gap is above a point (its floor), which happens when camps are small (few
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

from projections.teams.search import canonical

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

    def candidates(self, width: int, runs: bool, limit: int = MAX_CANDIDATES) -> list[Candidate]:
        """Every camp (a union of units of one of the camp sizes, no two
        players kept apart) whose value is within ``width`` of the centre,
        nearest the centre first. With ``runs``, a camp takes a count of
        players from each run (which ones is decided when it is placed).
        Raises Budget past ``limit`` camps."""
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
            for fixed, total, parts in self._camps(s, lo, hi, runs, limit - len(out)):
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
        self, s: int, lo: int, hi: int, runs: bool, limit: int
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
                    if len(found) > limit:
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
        ``exclude``. None proves there is none. Raises Budget.

        An exact cover: each step places a camp holding the player (or the
        first free player of a run) that the fewest camps still fit, and a
        player no camp fits any more ends the branch.
        """
        # Runs only when no split is excluded: an excluded split must not
        # hide the permutations of its interchangeable players.
        use_runs = not exclude and bool(self.runs)
        listed = self.candidates(width, use_runs)
        n, runs = self.n, self.runs
        # What a camp holds, as elements to cover: players outside runs
        # (0..n-1), and runs (n + r) it takes players from.
        holds = [
            tuple(i for i in range(n) if c[0] >> i & 1) + tuple(n + r for r, _ in c[4])
            for c in listed
        ]
        run_players = 0
        if use_runs:
            for run in runs:
                run_players |= run
        left = {s: self.size.count(s) for s in set(self.size)}
        chosen: list[int] = []
        excluded = set(exclude)
        weight_of = self.weight_of

        def block(covered: int, r: int, count: int) -> int:
            """The first ``count`` free players of run r (0: not enough)."""
            free = runs[r] & ~covered
            taken = (free & -free) * ((1 << count) - 1)
            return 0 if taken & ~free else taken

        def cover(
            covered: int,
            vmin: int,
            vmax: int,
            tmin: int,
            tmax: int,
            rest: int,
            alive: list[int],
        ) -> tuple[int, ...] | None:
            if covered == (1 << n) - 1:
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
                        w = weight_of[s]
                        low += c * -(-(vmax - width) // w)
                        high += c * ((vmin + width) // w)
                if not low <= rest <= high:
                    return None
            self.nodes += len(alive)  # the work is per camp looked at
            if self.nodes > MAX_NODES:
                raise Budget
            fits: list[int] = []
            count: dict[int, int] = {}
            for index in alive:
                fixed, s, value, tops, parts = listed[index]
                if fixed & covered or not left[s]:
                    continue
                if max(vmax, value) - min(vmin, value) > width:
                    continue
                if spread_below is not None and max(tmax, tops) - min(tmin, tops) >= spread_below:
                    continue
                if any(not block(covered, r, k) for r, k in parts):
                    continue
                fits.append(index)
                for e in holds[index]:
                    count[e] = count.get(e, 0) + 1
            # The element to cover next: the one the fewest camps fit.
            todo = [i for i in range(n) if not (covered | run_players) >> i & 1]
            todo += [n + r for r, run in enumerate(runs) if use_runs and run & ~covered]
            target = min(todo, key=lambda e: (count.get(e, 0), e))
            if not count.get(target):
                return None
            for index in fits:
                if target not in holds[index]:
                    continue
                fixed, s, value, tops, parts = listed[index]
                mask = fixed
                for r, k in parts:
                    mask |= block(covered, r, k)
                left[s] -= 1
                chosen.append(mask)
                found = cover(
                    covered | mask,
                    min(vmin, value),
                    max(vmax, value),
                    min(tmin, tops),
                    max(tmax, tops),
                    rest - value // weight_of[s],
                    fits,
                )
                chosen.pop()
                left[s] += 1
                if found is not None:
                    return found
            return None

        big = 1 << 62
        return cover(0, big, -big, big, -big, self.total, list(range(len(listed))))
