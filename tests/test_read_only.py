"""Queries and ``verify`` work on a read-only ledger (a file and
folder without write permission: an archived or published copy), write
nothing, and say so when the views are behind the events; commands that
record are refused with one clear line.

Permissions do not stop root, so as root the commands run as ``nobody``
(through util-linux's ``setpriv``)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from tests.conftest import Cli

NOBODY = 65534


def as_nobody() -> list[str]:
    """The command prefix that runs a command as nobody (none when not root:
    permissions then hold for this user already)."""
    if os.getuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root, and no setpriv to run the commands as another user")
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


@pytest.fixture
def archive() -> Iterator[Path]:
    """A folder others may enter (pytest's own are private to this user)."""
    folder = Path(tempfile.mkdtemp(prefix="ledger-ro-"))
    folder.chmod(0o755)
    yield folder
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(folder)


def make_ledger(folder: Path) -> tuple[Path, str]:
    """A small ledger (two games, an adjustment); returns it and a game id."""
    cli = Cli(str(folder / "club.db"))
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob", "Cat")
    out = cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Bob",
                 "--result", "a", "--table", "3")  # fmt: skip
    game = out.split()[2].rstrip(".")
    cli.ok("record", "Club", "--date", "2025-01-06", "--side", "Bob", "--side", "Cat",
           "--result", "draw")  # fmt: skip
    return Path(cli.db), game


def freeze(db: Path) -> str:
    """Make the ledger file and its folder read-only; returns the file's hash."""
    # Fold the write-ahead log into the file, as a copy made for archiving is.
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for extra in db.parent.glob(db.name + "-*"):
        extra.unlink()
    db.chmod(0o444)
    db.parent.chmod(0o555)
    return hashlib.sha256(db.read_bytes()).hexdigest()


def tamper(db: Path, sql: str) -> None:
    conn = sqlite3.connect(db)
    conn.execute(sql)
    conn.commit()
    conn.close()


def ledger(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ledger --db DB ARGS`` in its own process (as nobody when root)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "LEDGER_USER": "reader"}
    env.pop("LEDGER_DB", None)
    return subprocess.run(
        [*as_nobody(), sys.executable, "-m", "ledger", "--db", str(db), *args],
        capture_output=True, text=True, env=env, cwd="/", timeout=120,
    )  # fmt: skip


def answered(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = ledger(db, *args)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    assert "Traceback" not in done.stderr
    return done


def test_queries_and_verify_answer_on_a_read_only_ledger(archive: Path) -> None:
    db, game = make_ledger(archive)
    digest = freeze(db)
    standings = msgspec.json.decode(answered(db, "standings", "Club", "--format", "json").stdout)
    assert [(r["rank"], r["player"]) for r in standings] == [(1, "Ann"), (2, "Cat"), (3, "Bob")]
    history = msgspec.json.decode(answered(db, "history", "Club", "Ann", "--format", "json").stdout)
    assert [(h["game"], h["result"], h["table"]) for h in history] == [(game, "won", 3)]
    assert "Ann" in answered(db, "explain", game).stdout
    assert "game recorded" in answered(db, "audit").stdout
    answered(db, "audit", "--head")
    assert "OK" in answered(db, "verify").stdout
    answered(db, "ladder", "list")
    answered(db, "player", "list")
    for done in (answered(db, "standings", "Club"), answered(db, "verify")):
        assert "Notice" not in done.stderr  # current views: nothing to say
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in archive.iterdir()) == ["club.db"]


def test_recording_on_a_read_only_ledger_is_refused_in_one_line(archive: Path) -> None:
    db, _ = make_ledger(archive)
    digest = freeze(db)
    done = ledger(db, "record", "Club", "--date", "2025-02-01", "--side", "Ann", "--side",
                  "Cat", "--result", "a")  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "read-only" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest


def test_views_behind_the_events_are_shown_as_they_stand_with_a_notice(archive: Path) -> None:
    db, _ = make_ledger(archive)
    tamper(db, "UPDATE view_tracking SET position = position - 1")  # the last event missed
    digest = freeze(db)
    done = answered(db, "standings", "Club", "--format", "json")
    assert "1 event behind" in done.stderr and "read-only" in done.stderr
    assert len(msgspec.json.decode(done.stdout)) == 3
    checked = answered(db, "verify")
    assert "not compared" in checked.stderr
    assert "OK" in checked.stdout
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest


def test_views_missing_are_computed_in_memory_with_a_notice(archive: Path) -> None:
    db, _ = make_ledger(archive)
    tamper(db, "DROP TABLE view_version")
    digest = freeze(db)
    done = answered(db, "standings", "Club", "--format", "json")
    assert "computed in memory" in done.stderr
    assert [r["player"] for r in msgspec.json.decode(done.stdout)] == ["Ann", "Cat", "Bob"]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
