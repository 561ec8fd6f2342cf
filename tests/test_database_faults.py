"""Faults of the ledger's PostgreSQL server, on a cluster the tests own
(``tests.pg_cluster``): the follower outlives a restart and a ``kill -9`` of
its server; an import whose connection is terminated mid-append stores
nothing and says so in one line, and its re-import is exact; a query across
a restart gets one line, no traceback. The machine's shared server is never
touched."""

from __future__ import annotations

import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ledger.cli import main
from ledger.kernel.errors import LOST_NOTHING_RECORDED
from tests.pg_cluster import Cluster
from tests.test_postgres_service import Follower, api_record, ledger, ledger_ok

LOST = f"Error: {LOST_NOTHING_RECORDED}"


class Owned:
    """A schema on the test-owned cluster, and SQL on it."""

    def __init__(self, cluster: Cluster, schema: str) -> None:
        self.cluster, self.schema, self.db = cluster, schema, cluster.url

    def sql(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.db, autocommit=True) as conn:
            conn.execute(f'SET search_path TO "{self.schema}"')
            cur = conn.execute(query, params)
            return cur.fetchall() if cur.description else []

    def ok(self, *args: str) -> str:
        return ledger_ok(*args, db=self.db, schema=self.schema)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return ledger(*args, db=self.db, schema=self.schema)

    def games(self) -> int:
        return self.sql("SELECT COUNT(*) FROM ledger_events WHERE topic = 'ledger:GameRecorded'")[
            0
        ][0]

    def last_event(self) -> int:
        return self.sql("SELECT COALESCE(MAX(notification_id), 0) FROM ledger_events")[0][0]

    def position(self) -> int:
        rows = self.sql("SELECT position FROM view_tracking WHERE name = 'views'")
        return rows[0][0] if rows else 0


@pytest.fixture
def owned(pg_cluster: Cluster) -> Iterator[Owned]:
    """A fresh schema on the running test-owned cluster; dropped after."""
    if pg_cluster.server_pid() is None:  # a test before left it stopped
        pg_cluster.start()
    owned = Owned(pg_cluster, f"faults_{uuid.uuid4().hex[:12]}")
    owned.ok("ladder", "open", "Club", "--family", "elo")
    owned.ok("player", "add", "Ann", "Ben", "Cid", "Dan")
    yield owned
    if pg_cluster.server_pid() is None:
        pg_cluster.start()
    owned.sql(f'DROP SCHEMA IF EXISTS "{owned.schema}" CASCADE')


def wait_until(
    condition: Callable[[], bool], what: str, timeout: float = 60, log: Path | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        said = log.read_text() if log is not None else ""
        assert time.monotonic() < deadline, f"{what} not within {timeout} s\n{said}"
        time.sleep(0.05)


def _caught_up(owned: Owned) -> Callable[[], bool]:
    def check() -> bool:
        try:
            return owned.position() >= owned.last_event() > 0
        except Exception:  # noqa: BLE001 - the server is still starting
            return False

    return check


def _kill_and_start(cluster: Cluster) -> None:
    cluster.kill9()
    cluster.start()


# -- the follower --------------------------------------------------------------------------
def test_the_follower_survives_a_restart_and_a_kill_of_its_server(
    owned: Owned, tmp_path: Path
) -> None:
    follower = Follower(owned.db, owned.schema, tmp_path / "follow.log")
    try:
        follower.wait_for("Following")
        faults = [("restart", owned.cluster.restart),
                  ("kill -9", lambda: _kill_and_start(owned.cluster))]  # fmt: skip
        for day, (name, fault) in enumerate(faults, start=1):
            seen = len(follower.output())
            fault()
            # Appended through the API alone: only the follower projects it.
            api_record(owned.db, owned.schema, "Club", f"2025-02-0{day}", "Ann", "Cid")
            wait_until(_caught_up(owned), f"the game recorded after the {name} projected")
            wait_until(lambda: "connected again" in follower.output()[seen:], "back")  # noqa: B023
            text = follower.output()[seen:]
            assert text.count("lost the connection to the database") == 1, text
            assert text.count("connected again after") == 1, text
            assert follower.proc.poll() is None, text
        # While its server is down, it waits, and a SIGTERM still stops it.
        seen = len(follower.output())
        owned.cluster.stop()
        wait_until(lambda: "lost the connection" in follower.output()[seen:], "the outage said",
                   timeout=90, log=follower.log)  # fmt: skip
        began = time.monotonic()
        follower.proc.send_signal(signal.SIGTERM)
        code = follower.proc.wait(timeout=60)
        # At once between two polls; within about 12 s inside the event
        # store's retries (projections.service.POOL_WAIT).
        assert code == 0 and time.monotonic() - began < 30, follower.output()
        assert "Traceback" not in follower.output()
    finally:
        follower.kill()


def test_the_follower_stops_in_one_line_when_its_schema_is_dropped(
    owned: Owned, tmp_path: Path
) -> None:
    follower = Follower(owned.db, owned.schema, tmp_path / "follow.log")
    try:
        follower.wait_for("Following")
        owned.sql(f'DROP SCHEMA "{owned.schema}" CASCADE')
        code = follower.proc.wait(timeout=60)
    finally:
        follower.kill()
    text = follower.output()
    assert code == 1, text
    assert "Traceback" not in text
    errors = [line for line in text.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "the follower stopped" in errors[0], text


# -- commands --------------------------------------------------------------------------------
GATE = 424242  # the advisory lock the append waits for, mid-transaction


def _gated(owned: Owned) -> None:
    """Make every append wait, once its events are inserted (inside its
    transaction), for the advisory lock GATE: the test holds it to stop an
    import mid-append, and terminates the import's connection there."""
    owned.sql(
        "CREATE FUNCTION gate() RETURNS trigger LANGUAGE plpgsql AS "
        f"$$ BEGIN PERFORM pg_advisory_xact_lock({GATE}); RETURN NULL; END $$"
    )
    owned.sql(
        "CREATE TRIGGER gate AFTER INSERT ON ledger_events FOR EACH STATEMENT "
        "EXECUTE FUNCTION gate()"
    )


def _sheet(path: Path, games: int) -> Path:
    names = ["Ann", "Ben", "Cid", "Dan"]
    rows = ["date,table,side_a,side_b,result"]
    for i in range(games):
        a, b = names[i % 4], names[(i + 1) % 4]
        rows.append(f"2024-{1 + i % 12:02d}-{1 + i % 28:02d},{i + 1},{a},{b},a")
    path.write_text("\n".join(rows) + "\n")
    return path


WAITING = "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = %s AND NOT granted"


def _terminate_waiting(owned: Owned) -> int:
    return owned.cluster.terminate(f"pid IN ({WAITING})", (GATE,))


def test_an_import_cut_off_mid_append_stores_nothing_and_its_reimport_is_exact(
    owned: Owned, tmp_path: Path
) -> None:
    import psycopg

    sheet = _sheet(tmp_path / "round.csv", 300)
    before = owned.last_event()
    _gated(owned)
    with psycopg.connect(owned.db, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (GATE,))
        proc = subprocess.Popen(
            [*_ledger_cmd(owned), "import", "--ladder", "Club", str(sheet)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        terminated = 0
        deadline = time.monotonic() + 120
        while proc.poll() is None:
            assert time.monotonic() < deadline, "the import neither finished nor gave up"
            terminated += _terminate_waiting(owned)
            time.sleep(0.02)
        out, err = proc.communicate()
    assert terminated >= 1, out + err
    assert proc.returncode == 1, out + err
    assert err.strip().splitlines() == [LOST], err
    assert owned.last_event() == before and owned.games() == 0

    owned.sql("DROP TRIGGER gate ON ledger_events")
    owned.ok("import", "--ladder", "Club", str(sheet))
    assert owned.games() == 300
    again = owned.run("import", "--ladder", "Club", str(sheet))
    assert again.returncode == 0, again.stderr
    assert owned.games() == 300
    assert "OK" in owned.ok("verify")


def test_an_import_cut_off_once_is_retried_whole(owned: Owned, tmp_path: Path) -> None:
    import psycopg

    sheet = _sheet(tmp_path / "round.csv", 300)
    _gated(owned)
    with psycopg.connect(owned.db, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (GATE,))
        proc = subprocess.Popen(
            [*_ledger_cmd(owned), "import", "--ladder", "Club", str(sheet)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        wait_until(lambda: _terminate_waiting(owned) == 1, "the import waiting mid-append")
        holder.execute("SELECT pg_advisory_unlock(%s)", (GATE,))
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert owned.games() == 300
    assert "OK" in owned.ok("verify")


def test_a_record_cut_off_while_committing_says_it_may_have_been_recorded(
    owned: Owned,
) -> None:
    import psycopg

    _gated(owned)
    owned.sql("DROP TRIGGER gate ON ledger_events")
    # Checked at COMMIT: the append waits there, its events all sent.
    owned.sql(
        "CREATE CONSTRAINT TRIGGER gate AFTER INSERT ON ledger_events "
        "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION gate()"
    )
    game = ["record", "Club", "--date", "2025-03-01", "--side", "Ann", "--side", "Ben",
            "--result", "a"]  # fmt: skip
    with psycopg.connect(owned.db, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s)", (GATE,))
        proc = subprocess.Popen([*_ledger_cmd(owned), *game], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip
        wait_until(lambda: _terminate_waiting(owned) == 1, "the record waiting in its commit")
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "may or may not have been recorded" in lines[0], err
    assert "Traceback" not in err
    # The next command tells which: here the commit did not happen.
    assert owned.games() == 0
    owned.sql("DROP TRIGGER gate ON ledger_events")
    assert owned.ok(*game).startswith("Recorded game")
    again = owned.run(*game)
    assert again.returncode == 1 and "already recorded" in again.stderr
    assert owned.games() == 1


def _ledger_cmd(owned: Owned) -> list[str]:
    from tests.test_postgres_service import LEDGER

    return [*LEDGER, "--db", owned.db, "--schema", owned.schema, "--by", "tester"]


def test_a_query_across_a_restart_gets_one_line(
    owned: Owned, monkeypatch: pytest.MonkeyPatch
) -> None:
    from projections.db import PostgresDatabase

    owned.ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Ben",
             "--result", "a")  # fmt: skip
    standing = PostgresDatabase.standing

    def restarted_first(self: PostgresDatabase) -> Any:
        owned.cluster.restart()  # between the query's connecting and its reading
        return standing(self)

    monkeypatch.setattr(PostgresDatabase, "standing", restarted_first)
    where = ["--db", owned.db, "--schema", owned.schema]
    result = CliRunner().invoke(main, [*where, "standings", "Club"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [LOST], result.output
    monkeypatch.undo()

    owned.cluster.stop()
    down = owned.run("standings", "Club")
    assert down.returncode == 1 and "Traceback" not in down.stderr
    assert len(down.stderr.strip().splitlines()) == 1, down.stderr
    owned.cluster.start()
    assert "Ann" in owned.ok("standings", "Club")


def test_a_record_whose_connection_is_lost_after_its_commit_says_it_was_recorded(
    owned: Owned, monkeypatch: pytest.MonkeyPatch
) -> None:
    from projections import views

    catch_up_report = views.catch_up_report

    def restarted_first(*args: Any, **kwargs: Any) -> Any:
        owned.cluster.restart()  # the game committed, the views not caught up yet
        return catch_up_report(*args, **kwargs)

    monkeypatch.setattr(views, "catch_up_report", restarted_first)
    where = ["--db", owned.db, "--schema", owned.schema, "--by", "tester"]
    result = CliRunner().invoke(main, [*where, "record", "Club", "--date", "2025-01-05",
                                       "--side", "Ann", "--side", "Ben", "--result", "a"])  # fmt: skip
    monkeypatch.undo()
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: recorded; then lost"), result.output
    assert owned.games() == 1
    assert "Ann" in owned.ok("standings", "Club")  # the next command catches the views up
