"""A PostgreSQL rebuild never makes referees and readers wait for it.

``ledger rebuild`` builds the new views in a side schema, in one
transaction, and swaps them in at its end (``projections.views.swap``):
``standings`` and ``record`` run against the old views meanwhile and wait
only for the swap. The rebuild runs as its own process, the ``ledger``
command itself, held for a few seconds inside its build (a progress hook
that sleeps, so that it overlaps the commands on any machine) and once more
just before its swap, while a game is recorded (which only the swap's own
catch-up brings into the new views); the commands run in this process,
timed one by one.

Every wait is compared with the rebuild's own duration: a rebuild that held
the views' locks (as the in-place rebuild did) makes the first command run
during it wait for nearly all of it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PG_URL, Cli, drop_schema, require_postgres

ROOT = Path(__file__).resolve().parents[2]
#: The child processes' environment: no LEDGER_DB/SCHEMA/USER leaking in.
ENV = {
    k: v for k, v in os.environ.items() if k not in ("LEDGER_DB", "LEDGER_SCHEMA", "LEDGER_USER")
}
GAMES = 3_000
#: How long the rebuild is held inside its build (seconds).
HOLD = 6.0


def _slow_rebuild_main() -> None:
    """``python -c ... URL SCHEMA MARKER HOLD``: ``ledger rebuild``, its
    build held ``HOLD`` seconds once it has read the first page of events
    (the side schema made, the old views untouched); ``MARKER`` is written
    when the hold starts. Built and caught up, it writes ``MARKER.swap``
    and waits for ``MARKER.go`` before it swaps (so that a game recorded
    then reaches the views only through the swap's own catch-up)."""
    from ledger.cli import main
    from projections import views
    from projections.views import swap

    url, schema, marker, hold = sys.argv[1:5]
    real = views.rebuild_report
    real_swap = swap.Aside.swap_in

    def swap_when_told(self: swap.Aside) -> None:
        Path(f"{marker}.swap").write_text("built", encoding="utf-8")
        deadline = time.monotonic() + 120
        while not Path(f"{marker}.go").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        real_swap(self)

    swap.Aside.swap_in = swap_when_told  # type: ignore[method-assign]

    def slow(conn: object, recorder: object, progress: object = None) -> object:
        held: list[str] = []

        def hook(stage: str, done: int, total: int) -> None:
            if not held:
                held.append(stage)
                Path(marker).write_text(stage, encoding="utf-8")
                time.sleep(float(hold))
            if callable(progress):
                progress(stage, done, total)

        return real(conn, recorder, hook)

    views.rebuild_report = slow  # type: ignore[attr-defined]
    main(["--db", url, "--schema", schema, "--by", "tester", "rebuild"])


def slow_rebuild(schema: str, marker: Path, hold: float) -> subprocess.Popen[str]:
    code = "from tests.read_side.test_postgres_rebuild_swap import _slow_rebuild_main as m; m()"
    return subprocess.Popen(
        [sys.executable, "-c", code, PG_URL, schema, str(marker), str(hold)],
        cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def wait_for(path: Path, proc: subprocess.Popen[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            pytest.fail(f"the rebuild ended before its build: {proc.communicate()}")
        assert time.monotonic() < deadline, f"the rebuild's build not started within {timeout} s"
        time.sleep(0.02)


def side_schemas(schema: str) -> list[str]:
    """Side schemas of ``schema`` any session can see (none, ever: a rebuild
    makes its own in a transaction no one else sees)."""
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, %s)",
            (f"{schema}__rebuild_",),
        ).fetchall()
    return [row[0] for row in rows]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cli]:
    """A ledger of ``GAMES`` games on PostgreSQL (one ladder, ``Big``)."""
    require_postgres()
    schema = f"test_swap_{uuid.uuid4().hex[:12]}"
    sheet = tmp_path_factory.mktemp("swap") / "big.csv"
    subprocess.run(
        [sys.executable, "-m", "fixtures.generate", "--games", str(GAMES), "--players", "200",
         "--ladder", "Big", "--out", str(sheet)],
        cwd=ROOT, env=ENV, check=True, capture_output=True,
    )  # fmt: skip
    cli = Cli(PG_URL, schema)
    try:
        cli.ok("ladder", "open", "Big", "--family", "elo")
        cli.ok("import", str(sheet))
        yield cli
    finally:
        drop_schema(schema)


def timed(cli: Cli, *args: str) -> tuple[float, str]:
    started = time.monotonic()
    out = cli.ok(*args)
    return time.monotonic() - started, out


def record(cli: Cli, n: int) -> tuple[float, str]:
    return timed(
        cli, "record", "Big", "--date", "2025-12-30", "--side", f"Late {n}",
        "--side", f"Late Opponent {n}", "--result", "a", "--add-players",
    )  # fmt: skip


def players(cli: Cli) -> set[str]:
    return {row["player"] for row in json.loads(cli.ok("standings", "Big", "--format", "json"))}


def test_standings_and_record_never_wait_for_a_rebuild(big: Cli, tmp_path: Path) -> None:
    marker = tmp_path / "building"
    go = marker.with_suffix(".go")
    rebuild = slow_rebuild(big.schema or "", marker, HOLD)
    waits: dict[str, list[float]] = {"standings": [], "record": []}
    recorded: list[str] = []
    try:
        wait_for(marker, rebuild, 120)
        building = time.monotonic()
        while rebuild.poll() is None:
            if marker.with_suffix(".swap").exists() and not go.exists():
                took, _ = record(big, len(recorded))
                waits["record"].append(took)
                recorded.append(f"Late {len(recorded)}")
                go.write_text("go", encoding="utf-8")
            took, out = timed(big, "standings", "Big")
            waits["standings"].append(took)
            assert "rank" in out
            if len(recorded) < 8 and not go.exists() and rebuild.poll() is None:
                took, out = record(big, len(recorded))
                waits["record"].append(took)
                recorded.append(f"Late {len(recorded)}")
                # The old views, caught up, show it at once.
                assert recorded[-1] in players(big)
        out, err = rebuild.communicate(timeout=60)
        lasted = time.monotonic() - building
    finally:
        if rebuild.poll() is None:
            rebuild.kill()
            rebuild.wait()
    assert rebuild.returncode == 0, err
    assert "Rebuilt the views from" in out and "Warning" not in err
    # The commands overlapped the rebuild, and none waited for it.
    longest = max(waits["standings"] + waits["record"])
    assert longest < lasted / 4, f"a command waited {longest:.2f} s of a {lasted:.2f} s rebuild"
    assert len(waits["standings"]) >= 3 and len(waits["record"]) >= 3, waits
    # The rebuild applied every event, the game recorded just before its
    # swap included (which no other command caught up: none recorded after).
    assert go.exists()
    assert f"Rebuilt the views from {big.event_count()} events." in out
    # Every game recorded while it ran is in the views swapped in, which
    # are what a rebuild from the events gives.
    assert set(recorded) <= players(big)
    assert "OK: the event log matches its chain and the views match a rebuild." in big.ok("verify")
    assert side_schemas(big.schema or "") == []
    print(
        f"rebuild held {lasted:.2f} s; standings waited at most {max(waits['standings']):.2f} s "
        f"({len(waits['standings'])} runs), record {max(waits['record']):.2f} s "
        f"({len(waits['record'])} runs)"
    )


def test_a_killed_rebuild_leaves_the_views_and_no_side_schema(big: Cli, tmp_path: Path) -> None:
    before = big.ok("standings", "Big", "--format", "json")
    marker = tmp_path / "building"
    rebuild = slow_rebuild(big.schema or "", marker, 120)
    try:
        wait_for(marker, rebuild, 120)
    finally:
        rebuild.send_signal(signal.SIGKILL)
        rebuild.wait()
    # The old views, untouched, still answer and still catch up.
    assert big.ok("standings", "Big", "--format", "json") == before
    record(big, 100)
    assert "Late 100" in players(big)
    assert "OK" in big.ok("verify")
    assert side_schemas(big.schema or "") == []
    # The next rebuild runs as usual, and leaves nothing behind either.
    assert "Rebuilt the views from" in big.ok("rebuild")
    assert side_schemas(big.schema or "") == []
    assert "Late 100" in players(big)
