"""A rebuild, a catch-up or an import killed at any moment leaves a ledger on
which every command works, with nothing lost or doubled.

Each command runs in its own process (``tests.fault_runner``) killed as by
``kill -9`` just before its Nth SQL statement on the views, for kill points
spread over the whole command (dropping the old views, filling the new ones
page by page, replaying, checkpoints, indexes, the commit), and the import
also by SIGKILL from outside at moments spread over its run (its append is
the write side's). Afterwards ``standings``, ``history``, ``verify``,
``rebuild`` and ``record`` all work; ``verify`` says the stored views equal
views rebuilt from the events (nothing lost or doubled in them), and the
standings are those of a clean rebuild of the same events. Commands run
during a rebuild read the views as they were.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from fixtures.generate import write
from tests.conftest import Cli
from tests.fault_runner import KILLED

ROOT = Path(__file__).resolve().parent.parent
LADDER = "Club"
#: Kill points per command (at least), spread over its statements.
POINTS = 12


def ledger(
    db: Path, *args: str, kill_at: int = 0, timeout: float = 120
) -> subprocess.CompletedProcess:
    """``ledger`` in a process of its own, killed before statement ``kill_at``."""
    env = {**os.environ, "LEDGER_KILL_AT": str(kill_at), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "tests.fault_runner", "--db", str(db), "--by", "tester", *args],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout,
    )  # fmt: skip


def statements(result: subprocess.CompletedProcess) -> int:
    line = [x for x in result.stderr.splitlines() if x.startswith("statements: ")][-1]
    return int(line.split(": ")[1])


def kill_points(total: int) -> list[int]:
    """``POINTS`` or more statement numbers from the first to the last."""
    step = max(1, total // POINTS)
    return sorted({*range(1, total + 1, step), total})


def sheet(path: Path, games: int, seed: int) -> Path:
    with path.open("w", encoding="utf-8", newline="") as out:
        write(out, games, 24, 1, "elo", seed, LADDER)
    return path


def standings(cli: Cli) -> Any:
    return cli.json("standings", LADDER)


def check(db: Path, expected: list[Any]) -> None:
    """Every command works on ``db``; its views match a rebuild from its
    events, and its standings are one of ``expected``."""
    cli = Cli(str(db))
    now = standings(cli)  # catches up first, as every command does
    assert now in expected, "standings differ from every clean rebuild"
    player = now[0]["player"]
    assert cli.json("history", LADDER, player)
    report = msgspec.json.decode(cli.ok("verify", "--format", "json"))
    assert report["problems"] == [], report["problems"]
    assert "Rebuilt the views" in cli.ok("rebuild")
    assert standings(cli) == now
    cli.ok("record", LADDER, "--date", "2025-12-31", "--side", now[0]["player"],
           "--side", now[-1]["player"], "--result", "a")  # fmt: skip
    assert msgspec.json.decode(cli.ok("verify", "--format", "json"))["problems"] == []


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A ledger of 300 games (a season close, a correction, a void, an
    adjustment among them) with its views current; a second sheet to import;
    and the standings a clean rebuild gives before and after importing it."""
    folder = tmp_path_factory.mktemp("faults")
    db = folder / "base.db"
    cli = Cli(str(db))
    cli.ok("ladder", "open", LADDER, "--family", "elo")
    cli.ok("import", str(sheet(folder / "first.csv", 300, 1)))
    games = [a for a in cli.json("audit", LADDER) if a["kind"] == "game recorded"]
    first, second = games[3]["summary"].split()[1][:-1], games[7]["summary"].split()[1][:-1]
    cli.ok("correct", first, "--result", "draw", "--reason", "typo")
    cli.ok("void", second, "--reason", "never played")
    player = standings(cli)[0]["player"]
    cli.ok("adjust", LADDER, player, "--to", "1600", "--date", "2025-06-01", "--reason", "fix")
    cli.ok("season", "close", LADDER, "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    before = standings(cli)
    more = sheet(folder / "more.csv", 120, 2)
    after_db = folder / "after.db"
    shutil.copy(db, after_db)
    Cli(str(after_db)).ok("import", str(more))
    after = standings(Cli(str(after_db)))
    assert before != after
    yield {"folder": folder, "db": db, "sheet": more, "before": before, "after": after,
           "after_db": after_db}  # fmt: skip


def copy(base: dict[str, Any], name: str, source: str = "db") -> Path:
    target = base["folder"] / f"{name}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    shutil.copy(base[source], target)
    return target


def test_a_killed_rebuild_leaves_a_working_ledger(base: dict[str, Any]) -> None:
    clean = ledger(copy(base, "count"), "rebuild")
    assert clean.returncode == 0, clean.stderr
    points = kill_points(statements(clean))
    assert len(points) >= 10
    for point in points:
        db = copy(base, f"rebuild{point}")
        killed = ledger(db, "rebuild", kill_at=point)
        assert killed.returncode == KILLED, (point, killed.stderr)
        check(db, [base["before"]])


def events_without_views(base: dict[str, Any], name: str) -> Path:
    """The base ledger with the second sheet's games appended and the views
    not caught up (as a process killed between append and catch-up leaves it)."""
    from ledger.sheets.importer import import_sheet
    from ledger.write.application import LedgerApplication
    from ledger.write.commands import Commands
    from ledger.write.storage import resolve

    db = copy(base, name)
    app = LedgerApplication(env=resolve(str(db)).app_env())
    import_sheet(Commands(app, "tester"), base["sheet"])
    app.close()
    return db


def test_a_killed_catch_up_leaves_a_working_ledger(base: dict[str, Any]) -> None:
    clean = ledger(events_without_views(base, "count"), "project")
    assert clean.returncode == 0, clean.stderr
    points = kill_points(statements(clean))
    assert len(points) >= 10
    for point in points:
        db = events_without_views(base, f"project{point}")
        killed = ledger(db, "project", kill_at=point)
        assert killed.returncode == KILLED, (point, killed.stderr)
        check(db, [base["after"]])


def test_a_killed_import_leaves_a_working_ledger(base: dict[str, Any]) -> None:
    clean = ledger(copy(base, "count"), "import", str(base["sheet"]))
    assert clean.returncode == 0, clean.stderr
    # Killed inside its catch-up (after the append), statement by statement.
    for point in kill_points(statements(clean)):
        db = copy(base, f"import{point}")
        killed = ledger(db, "import", str(base["sheet"]), kill_at=point)
        assert killed.returncode == KILLED, (point, killed.stderr)
        check(db, [base["after"]])
    # Killed from outside at moments spread over the whole run, the append too.
    started = time.perf_counter()
    ledger(copy(base, "timing"), "import", str(base["sheet"]))
    duration = time.perf_counter() - started
    for i in range(1, POINTS + 1):
        db = copy(base, f"sigkill{i}")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fault_runner", "--db", str(db), "--by", "tester",
             "import", str(base["sheet"])],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(duration * i / (POINTS + 1))
        proc.kill()
        proc.wait()
        # All of the sheet or none of it (the append is one transaction).
        check(db, [base["before"], base["after"]])


def test_commands_during_a_rebuild_read_the_views_as_they_were(base: dict[str, Any]) -> None:
    db = copy(base, "concurrent", "after_db")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rebuild = subprocess.Popen(
        [sys.executable, "-m", "ledger", "--db", str(db), "rebuild"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    cli = Cli(str(db))
    seen = []
    while rebuild.poll() is None:
        seen.append(standings(cli))
    out, err = rebuild.communicate()
    assert rebuild.returncode == 0, err
    seen.append(standings(cli))
    assert seen and all(s == base["after"] for s in seen)
