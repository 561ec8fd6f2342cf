"""Site build time against a rebuild of the same ledger (the target:
``site build`` <= 3x ``rebuild`` at 100k games, 1,000 players).

    python bench/site.py [--games 100000] [--players 1000] [--family elo] [--keep DIR] [--reuse]

Generates the benchmark ladder (``python -m fixtures.generate``, as
bench/bench.py does), imports it into a fresh SQLite ledger, then times in
the same run, each as a whole ``ledger`` process: ``rebuild``, a first
``site build`` into an empty directory, and a second one with nothing new
(the incremental check: it compares every file and writes none). Each is
shown in wall-clock seconds and in CPU seconds (user + system of the child:
on a shared machine the CPU ratio is the steadier one).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEDGER = [str(Path(sys.executable).parent / "ledger")]


class Took:
    """A child process's wall-clock and CPU (user + system) seconds."""

    def __init__(self, wall: float, cpu: float) -> None:
        self.wall, self.cpu = wall, cpu

    def against(self, base: Took) -> str:
        return (f"{self.wall:7.1f} s wall = {self.wall / base.wall:5.2f} x, "
                f"{self.cpu:7.1f} s CPU = {self.cpu / base.cpu:5.2f} x rebuild")  # fmt: skip


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(args: list[str]) -> tuple[Took, str]:
    start, cpu = time.perf_counter(), _cpu()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=False)
    took = Took(time.perf_counter() - start, _cpu() - cpu)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return took, done.stdout.strip()


def _import(args: argparse.Namespace, sheet: Path, db: Path, cli: list[str]) -> None:
    """Generate the benchmark ladder and import it into a fresh ledger."""
    subprocess.run(
        [sys.executable, "-m", "fixtures.generate", "--games", str(args.games),
         "--players", str(args.players), "--family", args.family, "--ladder", "Bench",
         "--out", str(sheet)], cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    db.unlink(missing_ok=True)
    timed([*cli, "ladder", "open", "Bench", "--family", args.family])
    took, _ = timed([*cli, "import", str(sheet)])
    print(f"import: {took.wall:.1f} s ({args.games} games, {args.players} players)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=1_000)
    parser.add_argument("--family", default="elo")
    parser.add_argument("--keep", type=Path, default=None, help="Keep the ledger and site here.")
    parser.add_argument("--reuse", action="store_true",
                        help="With --keep: time the ledger kept there by an earlier run "
                        "(no generating, no import).")  # fmt: skip
    args = parser.parse_args()
    if args.reuse and args.keep is None:
        parser.error("--reuse needs --keep DIR")
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-site-"))
    work.mkdir(parents=True, exist_ok=True)
    sheet, db, site = work / "games.csv", work / "ledger.db", work / "site"
    try:
        cli = [*LEDGER, "--db", str(db), "--by", "bench"]
        if args.reuse and db.exists():
            print(f"reusing {db}")
        else:
            _import(args, sheet, db, cli)
        rebuild, _ = timed([*cli, "rebuild"])
        # An earlier run's site is moved aside and deleted only after the
        # timings: on ext4, creating files soon after deleting many costs up
        # to 30x more CPU (new inodes skip the recently deleted ones), which
        # a first build into an empty directory never pays.
        old = work / "site.old"
        if site.exists():
            shutil.rmtree(old, ignore_errors=True)
            site.rename(old)
        first, said = timed([*cli, "site", "build", str(site)])
        print(said.splitlines()[0])
        second, said2 = timed([*cli, "site", "build", str(site)])
        print(said2.splitlines()[0])
        met = "met" if first.wall <= 3 * rebuild.wall else "missed"
        print(f"rebuild:           {rebuild.wall:7.1f} s wall, {rebuild.cpu:7.1f} s CPU")
        print(f"site build:        {first.against(rebuild)} (target <= 3x wall: {met})")
        print(f"site build again:  {second.against(rebuild)} "
              "(nothing new: every file compared, none written)")  # fmt: skip
        shutil.rmtree(old, ignore_errors=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
