"""The rebuild against its floor, alone, on a ledger already built.

``bench/bench.py`` measures everything from a generated sheet; when working
on the rebuild only, this script reuses a SQLite ledger that ``bench.py
--keep`` left (or any ledger holding one elo ladder) and runs, each in a
fresh child process as ``bench.py`` does, the rebuild and the floor
alternately ``--repeat`` times, then prints the median CPU games/s of each
and their ratio (the target is >= 0.5x floor). ``--profile FILE`` also
profiles one more rebuild (cProfile) and ``--sql`` times every SQL
statement of one more rebuild (grouped by its first words).

    python bench/rebuild.py /tmp/bench-xyz/big100000.db --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "bench.py"


def run_phase(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """One of ``bench.py``'s phases in a fresh child process."""
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--phase", name, json.dumps(args)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"phase {name} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def sql_times(path: str) -> None:
    """One rebuild with each SQL statement timed (CPU), grouped."""
    sys.path.insert(0, str(ROOT))
    import sqlite3

    from ledger.cli.context import open_views
    from ledger.write.application import LedgerApplication
    from ledger.write.storage import resolve
    from projections import views
    from projections.db import Database

    spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])

    def label(sql: str) -> str:
        words = sql.split()
        return " ".join(words[:4])[:60]

    execute, executemany = Database.execute, Database.executemany

    def timed_execute(self: Database, sql: str, params: Any = ()) -> Any:
        c = time.process_time()
        try:
            return execute(self, sql, params)
        finally:
            s = spent[label(sql)]
            s[0] += time.process_time() - c
            s[1] += 1

    def timed_executemany(self: Database, sql: str, rows: Any) -> None:
        c = time.process_time()
        try:
            executemany(self, sql, rows)
        finally:
            s = spent[label(sql)]
            s[0] += time.process_time() - c
            s[1] += 1

    Database.execute = timed_execute  # type: ignore[method-assign]
    Database.executemany = timed_executemany  # type: ignore[method-assign]
    storage = resolve(path, None)
    app = LedgerApplication(env=storage.app_env())
    conn = views.connect(open_views(storage))
    views.catch_up(conn, app.recorder)
    spent.clear()
    c0 = time.process_time()
    views.rebuild(conn, app.recorder)
    total = time.process_time() - c0
    conn.close()
    print(f"rebuild CPU {total:.2f} s; SQL through Database:")
    for name, (secs, calls) in sorted(spent.items(), key=lambda kv: -kv[1][0])[:25]:
        print(f"  {secs:7.3f} s {calls:7d}x  {name}")
    print(f"  {sum(s for s, _ in spent.values()):7.3f} s in all ({sqlite3.sqlite_version})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledger", help="a SQLite ledger file (bench.py --keep leaves them)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--family", default="elo")
    parser.add_argument("--profile", metavar="FILE", help="also cProfile one rebuild into FILE")
    parser.add_argument("--sql", action="store_true", help="also time the SQL of one rebuild")
    parser.add_argument("--phase-sql", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.phase_sql:
        sql_times(opts.phase_sql)
        return
    store = {"url": None, "path": str(Path(opts.ledger).resolve()), "schema": None}
    rebuilds, floors = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(opts.repeat):
            r = run_phase("rebuild", {"store": store})
            f = run_phase("floor", {"store": store, "family": opts.family,
                                    "sink": str(Path(tmp) / "floor.db")})  # fmt: skip
            rebuilds.append(r)
            floors.append(f)
            print(f"run {i + 1}: rebuild {r['cpu_s']:.2f} s CPU ({r['seconds']:.2f} s wall, "
                  f"peak {r['peak_rss_mb']:.0f} MB), floor {f['cpu_s']:.2f} s CPU "
                  f"({f['games']:,} games)", flush=True)  # fmt: skip
    if floors:
        games = floors[0]["games"]
        reb = statistics.median(r["cpu_s"] for r in rebuilds)
        flo = statistics.median(f["cpu_s"] for f in floors)
        print(f"rebuild {games / reb:,.0f} games/s CPU, floor {games / flo:,.0f} games/s CPU: "
              f"{flo / reb:.2f}x floor; peak RSS {max(r['peak_rss_mb'] for r in rebuilds):.0f} MB")  # fmt: skip
    if opts.profile:
        run_phase("rebuild", {"store": store, "profile": opts.profile})
        import pstats

        pstats.Stats(opts.profile).sort_stats("tottime").print_stats(25)
    if opts.sql:
        subprocess.run([sys.executable, __file__, opts.ledger, "--phase-sql", opts.ledger],
                       cwd=ROOT, check=True)  # fmt: skip


if __name__ == "__main__":
    main()
