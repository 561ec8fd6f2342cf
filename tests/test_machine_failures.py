"""Failures of the machine, not of the input (issue: hardening, item 12 and
the low list): a full disk, an output file that cannot be written. Each is
one line and exit status 1, never a traceback, and nothing half-written."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from fixtures.generate import main as generate
from tests.conftest import Cli

LEDGER = [sys.executable, "-m", "ledger"]


def run(db: Path, *args: str, file_limit: int | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # files larger than this cannot be written: a full disk
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run(
        [*LEDGER, "--db", str(db), *args], preexec_fn=limit, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}, check=False,
    )  # fmt: skip


def test_an_import_that_fills_the_disk_stores_nothing_and_says_so(tmp_path: Path) -> None:
    db, sheet = tmp_path / "l.db", tmp_path / "big.csv"
    generate(["--games", "3000", "--players", "100", "--ladder", "Big", "--out", str(sheet)])
    assert run(db, "ladder", "open", "Big", "--family", "elo").returncode == 0
    size = db.stat().st_size
    full = run(db, "import", str(sheet), file_limit=size + 200_000)
    assert full.returncode == 1
    assert "Traceback" not in full.stderr
    [line] = full.stderr.strip().splitlines()
    assert line.startswith("Error: the disk refused a write (full, over a size limit, or failing)")
    assert "nothing of it was stored" in line
    # Space again: the ledger opens, holds no game of the sheet, and takes it whole.
    assert run(db, "standings", "Big", "--format", "json").stdout.strip() == "[]"
    again = run(db, "import", str(sheet))
    assert again.returncode == 0, again.stderr
    assert "added 3000 games" in again.stdout
    assert "OK" in run(db, "verify").stdout


def test_an_output_that_cannot_be_written_is_one_line(cli: Cli, tmp_path: Path) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    missing = tmp_path / "no" / "such" / "folder.csv"
    out = cli.fails("standings", "Club", "-o", str(missing), "--format", "csv")
    assert f"Error: cannot use {missing}: No such file or directory" in out
    out = cli.fails("standings", "Club", "-o", str(tmp_path), "--format", "csv")
    assert f"Error: cannot use {tmp_path}: Is a directory" in out


def test_a_database_that_is_not_a_ledger_file_is_refused(tmp_path: Path) -> None:
    import sqlite3

    other = tmp_path / "photos.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE albums (name TEXT)")
    out = run(other, "standings", "Club")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "is a SQLite database of another application (tables: albums), not a ledger" in (
        out.stderr
    )
    with sqlite3.connect(other) as conn:  # and nothing was added to it
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["albums"]
    out = run(Path("/dev/null"), "standings", "Club")
    assert "'/dev/null' is not a regular file" in out.stderr and "Traceback" not in out.stderr


def test_a_schema_name_is_checked_before_anything_is_attempted() -> None:
    from ledger.kernel.errors import Invalid
    from ledger.write.storage import check_schema_name

    for bad, message in (
        ("pg_catalog", "is PostgreSQL's own"),
        ("information_schema", "is PostgreSQL's own"),
        ("Ledger", "use lower-case letters"),
        ('x"; DROP SCHEMA ledger; --', "use lower-case letters"),
        ("1st", "use lower-case letters"),
    ):
        try:
            check_schema_name(bad)
        except Invalid as exc:
            assert message in str(exc), (bad, exc)
        else:
            raise AssertionError(f"{bad!r} was accepted")
    check_schema_name("club_2025")
