"""Issue 26, "Solver output never reaches stdout": ``teams ... --format
json`` printed HiGHS's banner ("Running HiGHS 1.16.0 ... Copyright") into
the JSON. Run as a user types it, in a process of its own (HiGHS prints its
banner once a process, from C++, straight to file descriptor 1)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from tests.conftest import Cli


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """tests/test_teams_bound.py's roster out of reach of the swaps (20
    players, ratings ~N(1000, 180)): the relaxation, a HiGHS LP, proves it."""
    cli = Cli(str(tmp_path_factory.mktemp("teams") / "club.db"))
    cli.ok("ladder", "open", "Club", "--family", "battle-empire")
    rng = random.Random(7)
    names = [f"P{i}" for i in range(20)]
    cli.ok("player", "add", *names)
    for name in names:
        rating = max(500, min(1700, round(rng.gauss(1000, 180))))
        cli.ok("adjust", "Club", name, "--to", str(rating), "--date", "2025-01-01",
               "--reason", "opening ratings")  # fmt: skip
    return Path(cli.db), names


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_teams_prints_no_solver_banner(club: tuple[Path, list[str]], fmt: str) -> None:
    db, names = club
    done = subprocess.run(
        [sys.executable, "-m", "ledger", "--db", str(db), "teams", "Club", "--camps", "6",
         *names, "--format", fmt],
        capture_output=True, timeout=300,
    )  # fmt: skip
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, err
    assert "HiGHS" not in out and "Copyright" not in out and "THIRD_PARTY" not in out
    assert "HiGHS" not in err
    if fmt == "json":
        msgspec.json.decode(out)  # the whole output is the JSON
    else:
        assert out.splitlines()[0].strip()
