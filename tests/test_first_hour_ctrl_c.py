"""Issue 26, "Ctrl-C tells the truth": Ctrl-C pressed after an import has
committed said "Aborted!" and exit 1, yet every game was stored. It now
says what was stored, with exit status 3 (130 when nothing was stored); and
the import shows progress through every phase (checking rows, storing
games, the views' catch-up), as does the next command's catch-up.

Run as a user types it: ``ledger import`` in a terminal (a pseudo-terminal:
the progress bars show on a terminal only), Ctrl-C sent as SIGINT when a
phase shows."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixtures.generate import main as generate
from tests.conftest import Cli

GAMES = 50_000
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")


class Run:
    """What a command run in a terminal showed, and how it ended."""

    def __init__(self, code: int, stdout: str, screen: str) -> None:
        self.code, self.stdout, self.screen = code, stdout, screen

    def stages(self) -> list[str]:
        found: list[str] = []
        for m in re.finditer(r"(checking rows|storing games|views: [a-z]+ [a-z]+)", self.screen):
            if not found or found[-1] != m.group(1):
                found.append(m.group(1))
        return found


def in_terminal(db: Path, *args: str, interrupt_at: str | None = None) -> Run:
    """``ledger --db DB ARGS`` with standard error on a terminal; SIGINT
    as soon as ``interrupt_at`` shows there."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "ledger", "--db", str(db), *args],
        stdin=slave, stdout=subprocess.PIPE, stderr=slave,
        env={**os.environ, "COLUMNS": "120", "TERM": "xterm"},
    )  # fmt: skip
    os.close(slave)
    seen = b""
    sent = False
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: the process is ending
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
        if (
            interrupt_at
            and not sent
            and interrupt_at in ANSI.sub("", seen.decode("utf-8", "replace"))
        ):
            process.send_signal(signal.SIGINT)
            sent = True
    stdout = process.stdout.read().decode() if process.stdout else ""
    code = process.wait(timeout=600)
    os.close(master)
    return Run(code, stdout, ANSI.sub("", seen.decode("utf-8", "replace")))


def games_stored(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT COUNT(*) FROM stored_events WHERE topic = 'ledger:GameRecorded'"
        ).fetchone()[0]


@pytest.fixture(scope="module")
def sheet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ctrl-c") / "season.csv"
    generate(["--games", str(GAMES), "--players", "400", "--out", str(path), "--ladder", "Big"])
    return path


@pytest.fixture
def ledger_db(tmp_path: Path) -> Path:
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("ladder", "open", "Big", "--family", "elo")
    return Path(cli.db)


def test_ctrl_c_while_the_views_catch_up_says_what_was_stored(sheet: Path, ledger_db: Path) -> None:
    run = in_terminal(ledger_db, "import", str(sheet), interrupt_at="views: ")
    assert run.stages()[:2] == ["checking rows", "storing games"]
    assert run.stages()[2].startswith("views: ")
    assert "Aborted!" not in run.screen
    assert run.code == 3, run.screen[-2000:]
    told = run.screen[run.screen.index("Interrupted after storing: ") :]
    assert told.startswith(
        f"Interrupted after storing: {sheet}: {GAMES} rows: added {GAMES} games, skipped 0"
    )
    assert "the next command does it (or 'ledger project')" in told
    assert games_stored(ledger_db) == GAMES
    # The next command catches the views up, with progress, and reads them all.
    after = in_terminal(ledger_db, "standings", "Big", "--format", "csv")
    assert after.code == 0, after.screen[-2000:]
    assert any(stage.startswith("views: ") for stage in after.stages())
    assert len(after.stdout.splitlines()) > 300


def test_ctrl_c_before_the_import_is_stored_says_nothing_was(sheet: Path, ledger_db: Path) -> None:
    run = in_terminal(ledger_db, "import", str(sheet), interrupt_at="checking rows")
    assert run.code == 130, run.screen[-2000:]
    assert "Interrupted: nothing was stored" in run.screen
    assert "Aborted!" not in run.screen
    assert games_stored(ledger_db) == 0


def test_an_import_left_alone_shows_every_phase(sheet: Path, ledger_db: Path) -> None:
    run = in_terminal(ledger_db, "import", str(sheet))
    assert run.code == 0, run.screen[-2000:]
    assert run.stages() == [
        "checking rows", "storing games", "views: reading events", "views: rating games"
    ]  # fmt: skip
    assert run.stdout.startswith(f"{sheet}: {GAMES} rows: added {GAMES} games")
