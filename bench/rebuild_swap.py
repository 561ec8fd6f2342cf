"""How long a reader waits for a PostgreSQL rebuild: built aside and swapped
(``projections.views.swap``) against the rebuild in place, on a ledger
already built.

Each run starts ``ledger rebuild`` as a child process and, until it ends,
reads ``view_standings`` in a loop on a connection of its own (one short
query a read, as ``standings`` makes); it prints the rebuild's wall time and
the longest and median read. The in-place runs are the same command with
``swap.builds_aside`` answering no (what an owner without CREATE on the
database gets).

    python bench/rebuild_swap.py postgresql://postgres@127.0.0.1:5432/test SCHEMA --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(url: str, schema: str, in_place: bool) -> tuple[float, list[float]]:
    """One rebuild: (its wall seconds, every read's seconds while it ran)."""
    import psycopg

    code = (
        "import sys; from projections.views import swap; "
        + ("swap.builds_aside = lambda db: False; " if in_place else "")
        + "from ledger.cli import main; main(sys.argv[1:])"
    )
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        started = time.perf_counter()
        rebuild = subprocess.Popen(
            [sys.executable, "-c", code, "--db", url, "--schema", schema, "--by", "bench",
             "rebuild"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        reads = []
        while rebuild.poll() is None:
            before = time.perf_counter()
            conn.execute("SELECT COUNT(*), MAX(rating) FROM view_standings").fetchone()
            reads.append(time.perf_counter() - before)
        took = time.perf_counter() - started
    _, err = rebuild.communicate()
    if rebuild.returncode != 0:
        raise RuntimeError(f"the rebuild failed:\n{err[-4000:]}")
    return took, reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the PostgreSQL URL of a ledger already built")
    parser.add_argument("schema", help="its schema")
    parser.add_argument("--repeat", type=int, default=3, help="rebuilds of each kind (3)")
    args = parser.parse_args()
    for _ in range(args.repeat):
        for in_place in (False, True):
            took, reads = run(args.url, args.schema, in_place)
            print(
                f"{'in place' if in_place else 'swapped '}: rebuild {took:6.2f} s; "
                f"{len(reads):6d} reads, longest {max(reads) * 1000:8.1f} ms, "
                f"median {statistics.median(reads) * 1000:6.2f} ms",
                flush=True,
            )


if __name__ == "__main__":
    main()
