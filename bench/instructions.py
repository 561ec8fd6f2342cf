"""The rebuild, the floor and the import counted in machine instructions.

On a shared machine CPU time varies by 15-30% from one run to the next (the
same rebuild measured 2.9 to 4.8 s within minutes), which hides any change
smaller than that. ``valgrind --tool=callgrind`` counts the instructions a
process executes instead: the same code on the same data gives the same
count to a fraction of a percent, whatever else the machine is doing, so a
change of a few percent can be told apart in one run. (Instructions are not
time: a cache miss costs no instruction, and the kernel's work, such as
writing the file, is not counted. Use them to compare two versions of the
code, and ``bench.py`` for the targets.)

Each figure is the count of one of ``bench.py``'s phases in a fresh process
(``--phase rebuild``, ``floor`` or ``import``) less the count of the same
phase stopped just before its work (``"baseline"``): interpreter start,
imports and opening the ledger are left out.

    python bench/instructions.py --games 20000          # ~4 minutes
    python bench/instructions.py --ledger /tmp/ledger-bench-x/big20000.db --only rebuild

The ratio printed is the rebuild's instructions against the floor's, the
instruction-count reading of ``bench.py``'s "rebuild / floor" line.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "bench.py"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

WORK = ("rebuild", "floor", "import")


def instructions(phase: str, args: dict[str, Any], workdir: Path) -> int:
    """Instructions callgrind counts for one ``bench.py --phase`` process."""
    out = workdir / f"callgrind.{phase}.out"
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         sys.executable, str(BENCH), "--phase", phase, json.dumps(args)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"{phase} under valgrind failed:\n{proc.stderr[-3000:]}")
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            out.unlink()
            return int(line.split()[1])
    raise RuntimeError(f"no total in {out}")


def counted(phase: str, args: dict[str, Any], workdir: Path, fresh: Path | None = None) -> int:
    """The phase's own instructions: the whole process less its baseline
    (``fresh``: a ledger file deleted before each run, for the import)."""
    totals = []
    for baseline in (False, True):
        if fresh is not None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{fresh}{suffix}").unlink(missing_ok=True)
        totals.append(instructions(phase, args | {"baseline": baseline}, workdir))
    return totals[0] - totals[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="ladder size (20000)")
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--family", default="elo")
    parser.add_argument("--ledger", type=Path, default=None,
                        help="a SQLite ledger already built (bench.py --keep): no sheet "
                        "generated, no import counted")  # fmt: skip
    parser.add_argument("--only", choices=WORK, action="append", help="count only these")
    opts = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    from bench import run_phase  # bench/bench.py, beside this script
    from fixtures.generate import DEFAULT_LADDERS, write

    wanted = opts.only or list(WORK)
    ladder = DEFAULT_LADDERS[opts.family]
    workdir = Path(tempfile.mkdtemp(prefix="ledger-instructions-"))
    counts: dict[str, int] = {}
    try:
        sheet = workdir / "sheet.csv"
        ledger = opts.ledger
        if ledger is None or "import" in wanted:
            with sheet.open("w", encoding="utf-8", newline="") as out:
                write(out, opts.games, opts.players, 10, opts.family, 1, ladder)
        if ledger is None:
            ledger = workdir / "ledger.db"
            store = {"url": None, "path": str(ledger), "schema": None}
            run_phase("import", {"store": store, "sheet": str(sheet), "family": opts.family,
                                 "ladder": ladder})  # fmt: skip
        store = {"url": None, "path": str(ledger.resolve()), "schema": None}
        if "import" in wanted and opts.ledger is None:
            fresh = workdir / "import.db"
            counts["import"] = counted(
                "import",
                {"store": {"url": None, "path": str(fresh), "schema": None},
                 "sheet": str(sheet), "family": opts.family, "ladder": ladder},
                workdir, fresh,
            )  # fmt: skip
        if "rebuild" in wanted:
            counts["rebuild"] = counted("rebuild", {"store": store}, workdir)
        if "floor" in wanted:
            sink = str(workdir / "floor.db")
            counts["floor"] = counted(
                "floor", {"store": store, "family": opts.family, "sink": sink}, workdir
            )
        games = _games(ledger)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"instructions (callgrind), {opts.family}, {games:,} games:")
    for name, count in counts.items():
        print(f"  {name:8s} {count / 1e6:10,.0f} M   {count / games / 1e3:7.1f} k a game")
    if "rebuild" in counts and "floor" in counts:
        print(f"  rebuild / floor: {counts['floor'] / counts['rebuild']:.2f}x floor "
              "(the target, in time: >= 0.5x)")  # fmt: skip
    return 0


def _games(ledger: Path) -> int:
    import sqlite3

    with sqlite3.connect(ledger) as conn:
        return conn.execute("SELECT COUNT(*) FROM view_games").fetchone()[0]


if __name__ == "__main__":
    sys.exit(main())
