"""Solve times of ``projections.teams.balance.balance`` for 20, 40 and 60 players in
2, 4, 5 and 6 camps (median and max over seeded club rosters), how many were
proven optimal, and how many within the issue's 2 seconds; with what the
machine was doing measured in the same run: the load average, and a
bare-loop baseline (evaluating 10,000 random splits in plain Python, which
is what any solver has to beat to be worth it) timed before and after. The
machine is shared: compare figures only against the baseline of their run.

    .venv/bin/python bench/teams.py [--runs 10] [--time-limit 10] [--camps 2,4,5,6]
        [--players 20,40,60]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from projections.teams.balance import Entrant, Strength, balance, elo_expected

STRENGTH = Strength("mean", elo_expected(500))


def roster(n: int, seed: int) -> list[Entrant]:
    """A Battle Empire-like club: ratings around 1000, a few Marshals."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rating = max(500, min(1700, round(rng.gauss(1000, 180))))
        grade = "Marshal" if rating >= 1400 else "General" if rating >= 1200 else "Officer"
        out.append(Entrant(f"P{i}", f"p{i:03d}", rating, grade))
    return out


def bare_loop(people: list[Entrant], camps: int, tries: int = 10_000) -> float:
    rng = random.Random(0)
    ratings = [p.rating for p in people]
    start = time.perf_counter()
    best = float("inf")
    for _ in range(tries):
        rng.shuffle(ratings)
        sides = [sum(ratings[k::camps]) / len(ratings[k::camps]) for k in range(camps)]
        best = min(best, max(sides) - min(sides))
    return time.perf_counter() - start


def machine() -> str:
    base = bare_loop(roster(40, 0), 4)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"baseline (10,000 random 40-player splits in plain Python) {base:.3f} s; load {load}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10, help="rosters per cell")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--camps", default="2,4,5,6", help="camp counts, comma-separated")
    parser.add_argument("--players", default="20,40,60", help="roster sizes, comma-separated")
    args = parser.parse_args()
    camp_counts = [int(c) for c in args.camps.split(",")]
    print(f"before: {machine()}", flush=True)
    print("players camps  median s  max s  proven  in 2 s  spread proven  gap points (per run)")
    total = in_time = 0
    for n in (int(p) for p in args.players.split(",")):
        for camps in camp_counts:
            times, proven, fast, spread, gaps = [], 0, 0, 0, []
            for seed in range(args.runs):
                people = roster(n, seed)
                start = time.perf_counter()
                result = balance(people, camps, STRENGTH, time_limit=args.time_limit)
                times.append(time.perf_counter() - start)
                proven += result.status == "optimal"
                fast += result.status == "optimal" and times[-1] <= 2.0
                spread += result.spread_proven
                gaps.append(result.splits[0].gap_points)
            total += args.runs
            in_time += fast
            print(
                f"{n:>7} {camps:>5} {statistics.median(times):>9.3f} {max(times):>6.3f}"
                f"  {proven:>2}/{args.runs:<2} {fast:>3}/{args.runs:<2}"
                f"  {spread:>6}/{args.runs:<2}     {gaps}",
                flush=True,
            )
    print(f"proven optimal within 2 s: {in_time} of {total} rosters")
    print(f"after:  {machine()}")


if __name__ == "__main__":
    main()
