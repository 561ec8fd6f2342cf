"""Queries and ``verify`` work on a read-only ledger (a file and
folder without write permission: an archived or published copy), write
nothing, and say so when the views are behind the events; commands that
record are refused with one clear line.

Permissions do not stop root, so as root the commands run as ``nobody``
(through util-linux's ``setpriv``). ``nobody`` cannot enter a clone in a
private folder (``mktemp -d``, ``/root``): there the commands run from a
copy of the ledger's code and its dependencies in a fresh folder ``nobody``
may read (``nobody_runtime``), and never by opening the private folder."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

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


class Runtime(NamedTuple):
    """How to start ``ledger`` as nobody: the interpreter and the environment."""

    python: str
    env: dict[str, str]


def _runs_as_nobody(python: str, env: dict[str, str], code: str) -> bool:
    try:
        done = subprocess.run(
            [*as_nobody(), python, "-c", code], capture_output=True, env=env, cwd="/", timeout=60
        )  # fmt: skip
    except OSError:
        return False
    return done.returncode == 0


_IMPORTS = "import ledger.cli, projections.queries, msgspec, eventsourcing, click"


def _base_env() -> dict[str, str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "LEDGER_USER": "reader"}
    for name in ("LEDGER_DB", "PYTHONPATH", "PYTHONHOME"):
        env.pop(name, None)
    return env


def _runtime_closure() -> list[importlib.metadata.Distribution]:
    """The installed distributions ``ledger`` needs to run (no extras)."""
    seen: dict[str, importlib.metadata.Distribution] = {}
    todo = ["ledger"]
    while todo:
        name = re.split(r"[\s<>=!~\[;(]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if name in seen:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue  # a requirement for another platform or Python (its marker)
        seen[name] = dist
        todo += [req for req in dist.requires or [] if "extra ==" not in req]
    del seen["ledger"]  # installed editable: its code is copied from the source below
    return list(seen.values())


def _copy_readable(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    target.chmod(0o755 if os.access(source, os.X_OK) else 0o644)


@pytest.fixture(scope="session")
def nobody_runtime() -> Iterator[Runtime]:
    """The interpreter and code nobody runs: this checkout's as they are when
    nobody can read them; else copies of the ledger's packages and its
    runtime dependencies in a fresh world-readable temporary folder, run by
    a system interpreter of the same version. Skips with the reason when
    neither works; never opens up a private folder."""
    env = _base_env()
    if not as_nobody() or _runs_as_nobody(sys.executable, env, _IMPORTS):
        yield Runtime(sys.executable, env)
        return
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [os.path.realpath(sys.executable), shutil.which(version) or "",
                  f"/usr/bin/{version}", f"/usr/local/bin/{version}"]  # fmt: skip
    check = f"import sys; assert sys.version_info[:2] == {tuple(sys.version_info[:2])}"
    python = next((c for c in candidates if c and _runs_as_nobody(c, env, check)), None)
    if python is None:
        pytest.skip(f"nobody can read this checkout, and no {version} that nobody may run")
    code = Path(tempfile.mkdtemp(prefix="ledger-ro-code-"))
    try:
        code.chmod(0o755)
        project = Path(__file__).resolve().parent.parent
        for package in ("ledger", "projections"):
            for source in (project / package).rglob("*"):
                if source.is_file() and "__pycache__" not in source.parts:
                    _copy_readable(source, code / source.relative_to(project))
        for dist in _runtime_closure():
            for file in dist.files or []:
                source = Path(dist.locate_file(file)).resolve()
                if source.is_file() and "__pycache__" not in file.parts and ".." not in file.parts:
                    _copy_readable(source, code / file)
        for folder in (code, *(p for p in code.rglob("*") if p.is_dir())):
            folder.chmod(0o755)
        env = {**env, "PYTHONPATH": str(code), "PYTHONNOUSERSITE": "1"}
        if not _runs_as_nobody(python, env, _IMPORTS):
            pytest.skip(f"nobody cannot read this checkout nor a copy of it in {code.parent}")
        yield Runtime(python, env)
    finally:
        shutil.rmtree(code, ignore_errors=True)


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


def ledger(runtime: Runtime, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ledger --db DB ARGS`` in its own process (as nobody when root)."""
    return subprocess.run(
        [*as_nobody(), runtime.python, "-m", "ledger", "--db", str(db), *args],
        capture_output=True, text=True, env=runtime.env, cwd="/", timeout=120,
    )  # fmt: skip


def answered(runtime: Runtime, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = ledger(runtime, db, *args)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    assert "Traceback" not in done.stderr
    return done


def test_queries_and_verify_answer_on_a_read_only_ledger(
    archive: Path, nobody_runtime: Runtime
) -> None:
    db, game = make_ledger(archive)
    digest = freeze(db)
    standings = msgspec.json.decode(
        answered(nobody_runtime, db, "standings", "Club", "--format", "json").stdout
    )
    assert [(r["rank"], r["player"]) for r in standings] == [(1, "Ann"), (2, "Cat"), (3, "Bob")]
    history = msgspec.json.decode(
        answered(nobody_runtime, db, "history", "Club", "Ann", "--format", "json").stdout
    )
    assert [(h["game"], h["result"], h["table"]) for h in history] == [(game, "won", 3)]
    assert "Ann" in answered(nobody_runtime, db, "explain", game).stdout
    assert "game recorded" in answered(nobody_runtime, db, "audit").stdout
    answered(nobody_runtime, db, "audit", "--head")
    assert "OK" in answered(nobody_runtime, db, "verify").stdout
    answered(nobody_runtime, db, "ladder", "list")
    answered(nobody_runtime, db, "player", "list")
    for done in (
        answered(nobody_runtime, db, "standings", "Club"),
        answered(nobody_runtime, db, "verify"),
    ):
        assert "Notice" not in done.stderr  # current views: nothing to say
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in archive.iterdir()) == ["club.db"]


def test_recording_on_a_read_only_ledger_is_refused_in_one_line(
    archive: Path, nobody_runtime: Runtime
) -> None:
    db, _ = make_ledger(archive)
    digest = freeze(db)
    done = ledger(nobody_runtime, db, "record", "Club", "--date", "2025-02-01", "--side", "Ann", "--side",
                  "Cat", "--result", "a")  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "read-only" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest


def test_views_behind_the_events_are_shown_as_they_stand_with_a_notice(
    archive: Path, nobody_runtime: Runtime
) -> None:
    db, _ = make_ledger(archive)
    tamper(db, "UPDATE view_tracking SET position = position - 1")  # the last event missed
    digest = freeze(db)
    done = answered(nobody_runtime, db, "standings", "Club", "--format", "json")
    assert "1 event behind" in done.stderr and "read-only" in done.stderr
    assert len(msgspec.json.decode(done.stdout)) == 3
    checked = answered(nobody_runtime, db, "verify")
    assert "not compared" in checked.stderr
    assert "OK" in checked.stdout
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest


def test_views_missing_are_computed_in_memory_with_a_notice(
    archive: Path, nobody_runtime: Runtime
) -> None:
    db, _ = make_ledger(archive)
    tamper(db, "DROP TABLE view_version")
    digest = freeze(db)
    done = answered(nobody_runtime, db, "standings", "Club", "--format", "json")
    assert "computed in memory" in done.stderr
    assert [r["player"] for r in msgspec.json.decode(done.stdout)] == ["Ann", "Cat", "Bob"]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
