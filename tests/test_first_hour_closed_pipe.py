"""Issue 26, "A closed pipe ends quietly": ``ledger export L --format json |
head`` and ``ledger history ... | head`` end without a traceback and with
exit status 0, as Unix tools do.

The commands run as a user types them, in a process whose standard output
is a pipe the reader has already closed (``head`` having read its lines):
every write then fails with EPIPE."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Cli

COMMANDS = [
    ["export", "Chess", "--format", "json"],
    ["player", "list"],
    ["history", "Chess", "Ann"],
    ["history", "Chess", "Ann", "--format", "json"],
    ["standings", "Chess"],
    ["audit", "Chess"],
]


@pytest.fixture(scope="module")
def chess(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pipe")
    sheet = folder / "games.csv"
    rows = ["ladder,date,table,side_a,side_b,result"]
    for day in range(1, 29):
        for table in range(1, 9):
            rows.append(f"Chess,2025-02-{day:02d},{table},Ann,P{table},a")
    sheet.write_text("\n".join(rows) + "\n")
    cli = Cli(str(folder / "chess.db"))
    cli.ok("ladder", "open", "Chess", "--family", "elo")
    cli.ok("player", "add", "Ann", *[f"P{t}" for t in range(1, 9)])
    cli.ok("import", str(sheet))
    return folder / "chess.db"


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_output_into_a_closed_pipe_ends_quietly(chess: Path, command: list[str]) -> None:
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before a line is written
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ledger", "--db", str(chess), *command],
            stdout=writer, stderr=subprocess.PIPE, timeout=120,
        )  # fmt: skip
    finally:
        os.close(writer)
    assert done.stderr.decode() == ""
    assert done.returncode == 0


def test_a_pipe_read_to_the_end_is_unchanged(chess: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ledger", "--db", str(chess), "export", "Chess", "--format",
         "json"],
        capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0
    assert done.stdout.decode().startswith('{"ladder": "Chess"')
