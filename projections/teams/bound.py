"""A lower bound on the team-balancing gap: the set-partition relaxation,
one window of camp values at a time.

Pure and deterministic (HiGHS's simplex, one thread, and a work budget
counted in columns, never the clock). A split whose camps' values all lie
within ``width`` of each other has its lowest camp at some value ``m`` at or
below the centre, and every camp within [m, m + width]. So, for each such
window: is there a fractional choice of listed camps (``projections.
teams_cover``) of the window that covers each player exactly once with the
right number of camps of each size? When no window has one, no split has
that gap: a proof.

Why: on rosters with a few players far from the others in small camps (20
players in 6 camps, three of them ~300 points below the mean), the best gap
is far above a point, the exact cover took seconds to rule out
the gap below the best (it tries the ways around each weak player one by
one), and HiGHS on the assignment model did not close its bound within ten
seconds; this relaxation ruled that gap out in half a second, and on every
bench roster it was already exact at the optimum minus one point.
"""

from __future__ import annotations

from collections.abc import Sequence

from projections.teams.cover import Budget, Candidate, Cover
from projections.teams.highs import silent_highs

#: Camps listed, at most, for the relaxation (each is a column of its LPs).
MAX_COLUMNS = 5_000
#: Work, at most, per question: the columns of every LP solved, added up
#: (about 1.5 microseconds each on this machine, so about half a second).
MAX_WORK = 300_000


def _elements(cover: Cover, candidate: Candidate, runs: bool) -> list[tuple[int, float]]:
    """What a camp covers, as (row, how much): its players outside runs,
    then (rows n + r) how many players it takes from run r."""
    fixed, _, _, _, parts = candidate
    rows = [(i, 1.0) for i in range(cover.n) if fixed >> i & 1]
    if runs:
        rows += [(cover.n + r, float(count)) for r, count in parts]
    return rows


def gap_ruled_out(cover: Cover, width: int) -> bool:
    """True when no split has all camp values within ``width`` of each other
    (proven by the relaxation); False when some window's relaxation is
    feasible (the exact search decides then). Raises Budget."""
    import highspy
    import numpy as np

    runs = bool(cover.runs)
    listed = cover.candidates(width, runs, limit=MAX_COLUMNS)
    num, den = cover.num, cover.den
    # Ascending value: a window is a slice of the list.
    order = sorted(range(len(listed)), key=lambda c: (listed[c][2], c))
    cands = [listed[c] for c in order]
    values = [c[2] for c in cands]
    covers = [_elements(cover, c, runs) for c in cands]
    masks = [c[0] for c in cands]
    run_sets = [frozenset(r for r, _ in c[4]) for c in cands]
    everyone = (1 << cover.n) - 1
    run_players = 0
    if runs:
        for run in cover.runs:
            run_players |= run
    need_players = everyone & ~run_players
    need_runs = frozenset(range(len(cover.runs))) if runs else frozenset()
    sizes = sorted(set(cover.size))
    # How many camps a listed camp can be: once when it names a player; a
    # camp made only of run players (interchangeable) as often as the run
    # and the camps of its size allow.
    uses = np.array(
        [
            1.0
            if c[0]
            else float(
                min(
                    cover.size.count(c[1]),
                    *(cover.runs[r].bit_count() // count for r, count in c[4]),
                )
            )
            for c in cands
        ]
    )

    h: highspy.Highs | None = None
    work = 0
    checked_top = -1  # the top of the last window ruled out
    lo = 0
    hi = 0  # the window is cands[lo:hi]
    for start, m in enumerate(values):
        if start and values[start - 1] == m:
            continue
        if m * den > num:
            break  # the lowest camp is at or below the centre
        if (m + width) * den < num:
            continue  # and the highest at or above it
        lo = start
        hi = max(hi, lo)
        while hi < len(cands) and values[hi] <= m + width:
            hi += 1
        if hi - 1 <= checked_top:
            continue  # a part of a window already ruled out
        # Cheap necessary conditions first: every player and run covered by
        # some camp of the window, and camps of every size.
        union = 0
        seen_runs: set[int] = set()
        seen_sizes = set()
        for c in range(lo, hi):
            union |= masks[c]
            seen_runs |= run_sets[c]
            seen_sizes.add(cands[c][1])
        if (
            union & need_players != need_players
            or not need_runs <= seen_runs
            or (len(seen_sizes) < len(sizes))
        ):
            checked_top = hi - 1
            continue
        if h is None:
            h = _model(cover, cands, covers, sizes, runs)
        work += len(cands)
        if work > MAX_WORK:
            raise Budget
        upper = np.zeros(len(cands))
        upper[lo:hi] = uses[lo:hi]
        h.changeColsBounds(
            len(cands), np.arange(len(cands), dtype=np.int32), np.zeros(len(cands)), upper
        )
        h.run()
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kOptimal:
            return False
        if status != highspy.HighsModelStatus.kInfeasible:
            raise Budget  # not answered: leave it to the exact search
        checked_top = hi - 1
    return True


def _model(
    cover: Cover,
    cands: list[Candidate],
    covers: list[list[tuple[int, float]]],
    sizes: Sequence[int],
    runs: bool,
) -> object:
    """The set-partition LP over the listed camps (bounds set per window)."""

    # No presolve and the primal simplex: each window changes only bounds, and
    # the last basis is a good start (7x faster than the defaults here).
    h = silent_highs({"threads": 1, "random_seed": 0, "presolve": "off", "simplex_strategy": 4})
    for _ in cands:
        h.addCol(0.0, 0.0, 1.0, 0, [], [])
    rows: dict[int, list[tuple[int, float]]] = {}
    for c, elements in enumerate(covers):
        for row, amount in elements:
            rows.setdefault(row, []).append((c, amount))
    n = cover.n
    for row, terms in sorted(rows.items()):
        need = float(cover.runs[row - n].bit_count()) if row >= n else 1.0
        h.addRow(need, need, len(terms), [c for c, _ in terms], [a for _, a in terms])
    for s in sizes:
        idx = [c for c, cand in enumerate(cands) if cand[1] == s]
        count = float(cover.size.count(s))
        h.addRow(count, count, len(idx), idx, [1.0] * len(idx))
    return h
