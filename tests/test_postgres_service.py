"""Real processes against PostgreSQL (and SQLite): concurrent writers, the
projection follower (``ledger project --follow``) and ``ledger migrate``.

Everything here runs ``ledger`` (or a writer using the Python API) as separate
OS processes, the way several machines would share one ledger. The helper
processes import their entry points from this module (the ``_*_main``
functions) with ``python -c``. Three tests pin concurrency bugs found and fixed
(PostgreSQL DDL raced by simultaneous commands; SQLite locks dropped by a stray
open() of the database file).

PostgreSQL tests skip with the reason when no server answers (they fail
instead under LEDGER_TEST_POSTGRES=require); each uses its own throwaway
schema, dropped afterwards.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest

from ledger.kernel.identity import short
from projections.views import history, source
from tests.conftest import PG_URL, Cli, drop_schema, require_postgres

ROOT = Path(__file__).resolve().parent.parent
_SCRIPT = Path(sys.executable).parent / "ledger"
LEDGER = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "ledger.cli"]
#: The child processes' environment: no LEDGER_DB/SCHEMA/USER leaking in.
ENV = {
    k: v for k, v in os.environ.items() if k not in ("LEDGER_DB", "LEDGER_SCHEMA", "LEDGER_USER")
}

WRITERS = 4
#: 4 x 600 takes ~20 s on an idle 2-core machine; PostgreSQL serialises the
#: appends, so on a loaded one it can take minutes: lower it there.
COMMANDS_PER_WRITER = int(os.environ.get("LEDGER_TEST_WRITER_COMMANDS", "600"))
PLAYERS = 20
SHARED_EVERY = 25  # every 25th command of each writer is a game all writers try to record
AGAIN_EVERY = 50  # ... and at i % 50 == 7 a writer re-records one of its own games
CORRECT_EVERY = 10  # ... and at i % 10 == 3 it corrects one of its own games
RACE = "already recorded (a concurrent or repeated command)"


# -- helpers -------------------------------------------------------------------------
@pytest.fixture
def pg_schema() -> Iterator[Callable[[str], str]]:
    """Makes throwaway schema names ``test_<name>_<uuid hex>``; drops them after.

    Tests call ``require_postgres()`` before asking for a name."""
    made: list[str] = []

    def make(name: str) -> str:
        schema = f"test_{name}_{uuid.uuid4().hex}"
        made.append(schema)
        return schema

    yield make
    for schema in made:
        drop_schema(schema)


def ledger(
    *args: str, db: str, schema: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``ledger`` as its own process; returns whatever the exit code."""
    where = ["--db", db] + (["--schema", schema] if schema else [])
    return subprocess.run(
        [*LEDGER, *where, "--by", "tester", *args],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def ledger_ok(*args: str, db: str, schema: str | None = None, timeout: float = 120) -> str:
    done = ledger(*args, db=db, schema=schema, timeout=timeout)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def python_c(entry: str, *args: str, **popen: Any) -> subprocess.Popen[str]:
    """Start ``python -c 'from tests.test_postgres_service import ENTRY; ENTRY()' ARGS``."""
    code = f"from tests.test_postgres_service import {entry}; {entry}()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=ROOT, env=ENV, text=True, **popen
    )


def player_names(count: int) -> list[str]:
    return [f"Player {i:02d}" for i in range(count)]


class Views:
    """Reads the view tables directly (never through the CLI, which would
    catch up by itself)."""

    def __init__(self, db: str, schema: str | None) -> None:
        if schema is None:
            self.conn: Any = sqlite3.connect(db, timeout=10, isolation_level=None)
        else:
            import psycopg

            self.conn = psycopg.connect(db, autocommit=True)
            self.conn.execute(f'SET search_path TO "{schema}"')
        self.mark = "?" if schema is None else "%s"

    def rows(self, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return list(self.conn.execute(query.replace("?", self.mark), params).fetchall())

    def packed(self) -> list[history.Row]:
        """Every history row (decoded from the packed chunks)."""
        return [
            row
            for ladder, player, data in self.rows(
                "SELECT ladder, player, data FROM view_history_chunks"
            )
            for row in history.decode(bytes(data), ladder, player)
        ]

    def history_rows(self, gid: str) -> int:
        # A game's id is kept as its 16 bytes.
        found = self.rows("SELECT n FROM view_games WHERE gid = ?", (UUID(gid).bytes,))
        return sum(1 for r in self.packed() if found and r.entry == found[0][0])

    def position(self) -> int:
        rows = self.rows("SELECT position FROM view_tracking WHERE name='views'")
        return rows[0][0] if rows else 0

    def duplicated_history(self) -> list[tuple[Any, ...]]:
        counts = Counter((r.entry, r.player) for r in self.packed())
        return [(*key, count) for key, count in counts.items() if count > 1]

    def close(self) -> None:
        self.conn.close()


class Follower:
    """``ledger project --follow`` as a background process, its stderr in a file."""

    def __init__(
        self, db: str, schema: str | None, log: Path, command: list[str] | None = None
    ) -> None:
        """Runs ``ledger``, or ``command`` followed by the same arguments."""
        self.log = log
        where = ["--db", db] + (["--schema", schema] if schema else [])
        args = [*where, "--by", "follower", "project", "--follow", "--interval", "0.2"]
        with open(log, "w") as out:
            self.proc = subprocess.Popen(
                [*(command or LEDGER), *args],
                cwd=ROOT, env=ENV, stdout=out, stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip

    def output(self) -> str:
        return self.log.read_text()

    def wait_for(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output():
            assert self.proc.poll() is None, (
                f"follower exited {self.proc.returncode}: {self.output()}"
            )
            assert time.monotonic() < deadline, f"no {text!r} after {timeout}s: {self.output()}"
            time.sleep(0.05)

    def stop(self, sig: signal.Signals) -> tuple[int, float]:
        """Send ``sig``; returns the exit code and how long the exit took."""
        start = time.monotonic()
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"the follower ignored {sig.name} for 10s: {self.output()}")
        return code, time.monotonic() - start

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def api_record(
    db: str,
    schema: str | None,
    ladder: str,
    on: str,
    a: str,
    b: str,
    views: Views | None = None,
    timeout: float = 10,
) -> tuple[str, float | None]:
    """Append one game from another process through the Python API only (no
    catch-up); returns its id. With ``views``, polls view_history from the
    moment the append returned and also returns how many seconds the game took
    to appear there (None: not within ``timeout`` seconds)."""
    proc = python_c("_api_record_main", db, schema or "", ladder, on, a, b, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    latency = None
    if views is not None and line:
        gid, appended_at = line.split()
        seen = wait_history(views, gid, 2, timeout)
        latency = None if seen is None else seen - float(appended_at)
    assert proc.wait(timeout=60) == 0 and line, f"the API writer failed: {line!r}"
    return line.split()[0], latency


def _api_record_main() -> None:
    """Child process: ``DB SCHEMA LADDER DATE A B``; records A beat B, prints
    the game id and the time the append returned, and never catches up."""
    from ledger.write.application import LedgerApplication
    from ledger.write.commands import Commands
    from ledger.write.game_input import GameInput
    from ledger.write.storage import resolve

    db, schema, ladder_name, on, a, b = sys.argv[1:7]
    app = LedgerApplication(env=resolve(db, schema or None).app_env())
    recorded = Commands(app, "api").record(GameInput(ladder_name, on, [[a], [b]], {"result": "a"}))
    print(recorded.game, repr(time.time()), flush=True)
    app.close()


def wait_history(views: Views, gid: str, rows: int, timeout: float = 10) -> float | None:
    """Poll view_history until ``gid`` has ``rows`` rows; returns when (time.time())."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if views.history_rows(gid) >= rows:
            return time.time()
        time.sleep(0.02)
    return None


# -- 1. concurrent writers ---------------------------------------------------------------
def _attempt(call: Callable[[], Any]) -> dict[str, Any]:
    """Run one command; an event-store conflict (two appends to one aggregate
    at once) is retried a few times, then reported."""
    from ledger.kernel.errors import Conflict, LedgerError

    tries = 0
    while True:
        tries += 1
        try:
            return {"status": "ok", "tries": tries, "value": call()}
        except Conflict as exc:
            if RACE in str(exc) and tries < 5:
                time.sleep(0.01 * tries)
                continue
            status = "conflict" if RACE in str(exc) else "refused"
            return {"status": status, "tries": tries, "message": str(exc)}
        except LedgerError as exc:
            return {"status": "refused", "tries": tries, "message": str(exc)}
        except Exception as exc:  # noqa: BLE001 - reported, and the test fails on it
            return {"status": "error", "tries": tries, "message": repr(exc)}


def _writer_main() -> None:
    """Child process: ``DB SCHEMA LADDER WRITER COMMANDS PLAYERS WORKDIR``.

    Records its own games (distinct tables), every SHARED_EVERY-th command a
    game every writer tries (one identity: one must win, the others be
    refused), now and then one of its own games again (refused), and
    corrects its own games. Logs every command to WORKDIR/writer<N>.jsonl.
    """
    from ledger.kernel import events as ev
    from ledger.kernel.identity import player_id
    from ledger.write.application import LedgerApplication
    from ledger.write.commands import Commands, GameChanges
    from ledger.write.storage import resolve

    db, schema, ladder_name, wid_, count_, players_, workdir_ = sys.argv[1:8]
    wid, count, players, workdir = int(wid_), int(count_), int(players_), Path(workdir_)
    by = f"writer{wid}"
    # Open the store one writer after the other: opening it at the same moment
    # can crash (see test_concurrent_commands_open_the_postgres_store); the
    # commands themselves all start together below.
    while not all((workdir / f"ready{w}").exists() for w in range(wid)):
        time.sleep(0.005)
    app = LedgerApplication(env=resolve(db, schema).app_env())
    commands = Commands(app, by)
    ladder = app.ladder(ladder_name)  # its rules do not change during the run
    lid = ladder.id
    pids = [player_id(name) for name in player_names(players)]
    rng = random.Random(wid)
    current: dict[UUID, ev.GameFacts] = {}  # my games as they now stand
    mine: list[UUID] = []

    def record(facts: ev.GameFacts) -> UUID:
        """What ``ledger record`` does: check the game against the ladder and
        what is recorded, then append it."""
        batch = commands.record_batch()
        event = batch.add(commands.check_game(ladder, facts))
        batch.append([])
        return event.originator_id

    def correct(gid: UUID, result: str) -> None:
        """What ``ledger correct GAME --result R`` does."""
        commands.correct(str(gid), GameChanges(result={"result": result}), "sheet misread")

    def game(on: date, table: int, a: int, b: int, result: str) -> ev.GameFacts:
        return ev.GameFacts(ladder=lid, date=on, sides=[[pids[a]], [pids[b]]],
                            result={"result": result}, table=table)  # fmt: skip

    (workdir / f"ready{wid}").touch()
    while not (workdir / "go").exists():
        time.sleep(0.005)
    with open(workdir / f"writer{wid}.jsonl", "w") as log:
        for i in range(count):
            entry: dict[str, Any] = {"writer": wid, "i": i}
            if i % CORRECT_EVERY == 3 and mine:
                gid = rng.choice(mine)
                new = rng.choice(
                    [r for r in ("a", "b", "draw") if r != current[gid].result["result"]]
                )
                facts = msgspec.structs.replace(current[gid], result={"result": new})
                entry |= {"op": "correct", "game": str(gid), "result": new}
                outcome = _attempt(lambda: correct(gid, new))  # noqa: B023
            else:
                if i % SHARED_EVERY == 0:
                    k = i // SHARED_EVERY
                    facts = game(date(2019, 1, 1) + timedelta(days=k), 90000 + k,
                                 k % players, (k + 7) % players, "a")  # fmt: skip
                    entry |= {"op": "record", "kind": "shared", "k": k}
                elif i % AGAIN_EVERY == 7 and mine:
                    facts = current[mine[-1]]
                    entry |= {"op": "record", "kind": "again", "of": str(mine[-1])}
                else:
                    a = rng.randrange(players)
                    b = (a + 1 + rng.randrange(players - 1)) % players
                    facts = game(date(2020, 1, 1) + timedelta(days=i), wid * 10000 + i + 1,
                                 a, b, rng.choice(["a", "b", "draw"]))  # fmt: skip
                    entry |= {"op": "record", "kind": "own"}
                entry["result"] = facts.result["result"]
                outcome = _attempt(lambda: record(facts))  # noqa: B023
            if outcome["status"] == "ok":
                gid = outcome.pop("value") or UUID(entry["game"])
                if entry["op"] == "record":
                    mine.append(gid)
                    entry["game"] = str(gid)
                current[gid] = facts
            else:
                outcome.pop("value", None)
            log.write(json.dumps(entry | outcome) + "\n")
    app.close()


def test_concurrent_writers_lose_nothing_and_duplicate_nothing(
    pg_schema: Callable[[str], str], tmp_path: Path
) -> None:
    require_postgres()
    schema = pg_schema("writers")
    ledger_ok("ladder", "open", "Arena", "--family", "elo", "--set", "k=24",
              db=PG_URL, schema=schema)  # fmt: skip
    ledger_ok("player", "add", *player_names(PLAYERS), db=PG_URL, schema=schema)

    started = time.monotonic()
    args = [PG_URL, schema, "Arena", str(COMMANDS_PER_WRITER), str(PLAYERS), str(tmp_path)]
    procs = [python_c("_writer_main", *args[:3], str(w), *args[3:]) for w in range(WRITERS)]
    try:
        deadline = time.monotonic() + 60
        while not all((tmp_path / f"ready{w}").exists() for w in range(WRITERS)):
            assert all(p.poll() is None for p in procs), "a writer died before starting"
            assert time.monotonic() < deadline, "writers not ready after 60s"
            time.sleep(0.02)
        (tmp_path / "go").touch()  # all at once
        go = time.monotonic()
        codes = [p.wait(timeout=240) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    writing = time.monotonic() - go
    assert codes == [0] * WRITERS

    log = [
        json.loads(line)
        for w in range(WRITERS)
        for line in (tmp_path / f"writer{w}.jsonl").read_text().splitlines()
    ]
    assert len(log) == WRITERS * COMMANDS_PER_WRITER
    assert [e for e in log if e["status"] in ("error", "conflict")] == []

    records = [e for e in log if e["op"] == "record" and e["status"] == "ok"]
    corrections = [e for e in log if e["op"] == "correct" and e["status"] == "ok"]
    reported = Counter(e["game"] for e in records)
    assert [g for g, n in reported.items() if n > 1] == []  # no game reported twice
    assert corrections, "the writers corrected nothing"

    # Each shared game: exactly one writer recorded it, every other was refused.
    shared: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for e in log:
        if e.get("kind") == "shared":
            shared[e["k"]].append(e)
    assert len(shared) == len(range(0, COMMANDS_PER_WRITER, SHARED_EVERY))
    for k, tries in shared.items():
        winners = [e for e in tries if e["status"] == "ok"]
        assert len(winners) == 1, f"shared game {k}: {tries}"
        for e in tries:
            if e is not winners[0]:
                assert e["status"] == "refused", e
                assert f"already recorded as {short(winners[0]['game'])}" in e["message"], e
    again = [e for e in log if e.get("kind") == "again"]
    assert again
    for e in again:
        assert e["status"] == "refused" and f"already recorded as {short(e['of'])}" in e["message"]
    assert [
        e for e in log if e["status"] == "refused" and e.get("kind") not in ("shared", "again")
    ] == []

    cli = Cli(PG_URL, schema)
    in_log = dict(cli.sql(
        "SELECT originator_id::text, COUNT(*) FROM ledger_events "
        "WHERE topic='ledger:GameRecorded' GROUP BY originator_id"
    ))  # fmt: skip
    assert set(in_log) == set(reported)  # none lost, none that no writer reported
    assert set(in_log.values()) == {1}  # each exactly once
    corrected = dict(cli.sql(
        "SELECT originator_id::text, COUNT(*) FROM ledger_events "
        "WHERE topic='ledger:GameCorrected' GROUP BY originator_id"
    ))  # fmt: skip
    assert corrected == dict(Counter(e["game"] for e in corrections))
    total = cli.sql("SELECT COUNT(*) FROM ledger_events")[0][0]
    assert total == 2 + PLAYERS + len(records) + len(corrections)

    checked = time.monotonic()
    verify = ledger("verify", db=PG_URL, schema=schema, timeout=180)
    checked = time.monotonic() - checked
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "OK: the event log matches its chain and the views match a rebuild." in verify.stdout

    # The views hold every game with the result its writer last gave it.
    final = {e["game"]: e["result"] for e in log if e["status"] == "ok"}  # log order per game
    facts = {
        gid: source.game_facts(topic, state)
        for gid, topic, state in cli.sql(
            "SELECT CAST(CAST(encode(g.gid, 'hex') AS uuid) AS text), e.topic, e.state "
            "FROM view_games g "
            "JOIN ledger_events e ON e.notification_id = g.facts_n"
        )
    }
    assert {gid: f.result["result"] for gid, f in facts.items()} == final
    assert cli.sql("SELECT SUM(games) FROM view_standings")[0][0] == 2 * len(records)

    races = sum(1 for e in log if e["tries"] > 1)
    print(
        f"\nconcurrency: {len(log)} commands by {WRITERS} writers in {writing:.1f}s "
        f"({len(records)} recorded, {len(corrections)} corrected, "
        f"{sum(1 for e in log if e['status'] == 'refused')} refused duplicates, "
        f"{races} event-store races retried); verify {checked:.1f}s; "
        f"whole test {time.monotonic() - started:.1f}s"
    )


def all_ready(procs: list[subprocess.Popen[Any]], workdir: Path, timeout: float = 120) -> None:
    """Wait until every child has touched its ``ready-PID`` file (imports
    done, store resolved), so that "go" starts them together whatever the
    machine's load."""
    deadline = time.monotonic() + timeout
    while len(list(workdir.glob("ready-*"))) < len(procs):
        dead = [p.returncode for p in procs if p.poll() is not None]
        assert not dead, f"a child exited before it was ready: {dead}"
        assert time.monotonic() < deadline, f"children not ready after {timeout} s"
        time.sleep(0.01)


def _open_main() -> None:
    """Child process: ``DB SCHEMA WORKDIR ROUNDS``: once WORKDIR/go exists,
    opens the ledger's event store as every ``ledger`` command does, ROUNDS
    times (less once a sibling crashed); a crash exits non-zero."""
    from ledger.write.application import LedgerApplication
    from ledger.write.storage import resolve

    db, schema, workdir_, rounds = sys.argv[1:5]
    workdir = Path(workdir_)
    env = resolve(db, schema).app_env()
    (workdir / f"ready-{os.getpid()}").touch()
    while not (workdir / "go").exists():
        time.sleep(0.002)
    for _ in range(int(rounds)):
        if (workdir / "crashed").exists():
            return
        try:
            LedgerApplication(env=env).close()
        except Exception:
            (workdir / "crashed").touch()
            raise


def test_concurrent_commands_open_the_postgres_store(
    pg_schema: Callable[[str], str], tmp_path: Path
) -> None:
    require_postgres()
    schema = pg_schema("opening")
    ledger_ok("player", "add", "Ann", db=PG_URL, schema=schema)  # the tables exist from here
    args = [PG_URL, schema, str(tmp_path), "30"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE}
    procs = [python_c("_open_main", *args, **quiet) for _ in range(4)]
    all_ready(procs, tmp_path)
    (tmp_path / "go").touch()
    crashes = []
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        if proc.returncode != 0:
            crashes.append(err.strip().splitlines()[-1])
    assert crashes == []


# -- 2, 3. the projection follower ----------------------------------------------------------
def _club(db: str, schema: str | None) -> str:
    """An elo ladder Club with four players and one game; returns the game id."""
    ledger_ok("ladder", "open", "Club", "--family", "elo", db=db, schema=schema)
    ledger_ok("player", "add", "Ann", "Ben", "Cid", "Dan", db=db, schema=schema)
    out = ledger_ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Ben",
                    "--result", "a", db=db, schema=schema)  # fmt: skip
    assert out.startswith("Recorded game ")
    return out.split()[2].rstrip(".")


def follower_round_trip(
    db: str, schema: str | None, tmp_path: Path, sig: signal.Signals, refusal: str, live: bool
) -> None:
    """Start a follower; a second one refuses; (``live``:) a game appended by
    another process shows in the views with no command catching up (waited
    for, not timed: how soon is a figure for ``bench/``, and a loaded machine
    is no reason to fail); ``sig`` stops it cleanly; a restart resumes from
    where it stopped, duplicating nothing."""
    _club(db, schema)
    views = Views(db, schema)
    first = Follower(db, schema, tmp_path / "follow1.log")
    second: Follower | None = None
    try:
        first.wait_for("Following")
        other = ledger("project", "--follow", db=db, schema=schema, timeout=60)
        assert other.returncode != 0
        assert refusal in other.stderr, other.stderr
        assert first.proc.poll() is None, "the refused follower stopped the running one"

        if live:
            gid, latency = api_record(db, schema, "Club", "2025-02-01", "Cid", "Dan", views)
            assert latency is not None, f"game {gid} never reached view_history: {first.output()}"
            first.wait_for("applied 1 events")
        stopped_at = views.position()

        code, took = first.stop(sig)
        assert code == 0, first.output()
        assert took < 5
        assert f"Stopped after applying {int(live)} events." in first.output()

        # While nobody follows, an appended game stays out of the views.
        late, _ = api_record(db, schema, "Club", "2025-03-01", "Ann", "Cid")
        time.sleep(0.5)
        assert views.history_rows(late) == 0
        assert views.position() == stopped_at

        second = Follower(db, schema, tmp_path / "follow2.log")
        second.wait_for("Following")
        assert views.history_rows(late) == 2  # caught up on start
        assert views.position() == stopped_at + 1
        if live:
            gid3, latency = api_record(db, schema, "Club", "2025-04-01", "Ben", "Dan", views)
            assert latency is not None, f"game {gid3} never reached view_history"
            assert views.position() == stopped_at + 2
            assert views.history_rows(gid) == 2
        assert views.duplicated_history() == []
        code, took = second.stop(sig)
        assert code == 0 and took < 5
        assert f"Stopped after applying {int(live)} events." in second.output()
    finally:
        first.kill()
        if second is not None:
            second.kill()
        views.close()
    out = ledger_ok("verify", db=db, schema=schema)
    assert "OK:" in out


def test_postgres_follower_single_prompt_stoppable_resumable(
    pg_schema: Callable[[str], str], tmp_path: Path
) -> None:
    require_postgres()
    follower_round_trip(
        PG_URL, pg_schema("follow"), tmp_path, signal.SIGTERM,
        "another 'ledger project --follow' is already keeping these views", live=True,
    )  # fmt: skip


def test_sqlite_follower_single_stoppable_resumable(tmp_path: Path) -> None:
    """SQLite, without the live part (tested below with the collector off)."""
    db = tmp_path / "club.db"
    follower_round_trip(
        str(db), None, tmp_path, signal.SIGINT,
        f"another 'ledger project --follow' is already keeping these views (lock {db}.follow.lock)",
        live=False,
    )  # fmt: skip


def _ledger_without_gc_main() -> None:
    """Child process: ``ledger ARGS`` with the cyclic garbage collector off, so
    objects left to it are not closed at a moment that varies from run to run."""
    import gc

    gc.disable()
    from ledger.cli import main

    main(sys.argv[1:])


def test_sqlite_follower_sees_games_other_processes_append(tmp_path: Path) -> None:
    db = str(tmp_path / "club.db")
    _club(db, None)
    views = Views(db, None)
    follower = Follower(
        db, None, tmp_path / "follow.log",
        command=[sys.executable, "-c", "from tests.test_postgres_service import "
                 "_ledger_without_gc_main as m; m()"],
    )  # fmt: skip
    try:
        follower.wait_for("Following")
        gid, latency = api_record(db, None, "Club", "2025-02-01", "Cid", "Dan", views, timeout=30)
        code, _ = follower.stop(signal.SIGINT)
    finally:
        follower.kill()
        views.close()
    assert code == 0
    assert latency is not None, f"game {gid} not in the views after 30 s"


def _record_loop_main() -> None:
    """Child process: ``DB WRITER COUNT WORKDIR``: once WORKDIR/go exists, runs
    COUNT ``ledger record`` commands of the Club ladder in-process (one
    invocation each, as a script calling ``ledger`` would); prints how many
    succeeded and the errors, as JSON."""
    from click.testing import CliRunner

    from ledger.cli import main

    db, wid_, count, workdir = sys.argv[1:5]
    wid, names = int(wid_), ["Ann", "Ben", "Cid", "Dan"]
    runner = CliRunner()
    (Path(workdir) / f"ready-{os.getpid()}").touch()
    while not (Path(workdir) / "go").exists():
        time.sleep(0.005)
    ok, errors = 0, []
    for i in range(int(count)):
        day = (date(2021, 1, 1) + timedelta(days=i)).isoformat()
        a, b = names[(i + wid) % 4], names[(i + wid + 1) % 4]
        result = runner.invoke(main, ["--db", db, "--by", f"writer{wid}", "record", "Club",
                                      "--date", day, "--table", str(wid * 1000 + i + 1),
                                      "--side", a, "--side", b, "--result", "a"])  # fmt: skip
        if result.exit_code == 0:
            ok += 1
        else:
            errors.append(result.output.strip()[-300:] or repr(result.exception))
    print(json.dumps({"ok": ok, "errors": errors}))


def test_concurrent_sqlite_commands_keep_the_database_intact(tmp_path: Path) -> None:
    db = str(tmp_path / "club.db")
    _club(db, None)
    procs = [
        python_c("_record_loop_main", db, str(w), "25", str(tmp_path), stdout=subprocess.PIPE)
        for w in range(4)
    ]
    all_ready(procs, tmp_path)
    (tmp_path / "go").touch()
    reports = []
    for proc in procs:
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, out
        reports.append(json.loads(out))
    try:
        with sqlite3.connect(db) as conn:
            integrity: Any = conn.execute("PRAGMA integrity_check").fetchall()
            games = conn.execute(
                "SELECT COUNT(*) FROM stored_events WHERE topic='ledger:GameRecorded'"
            ).fetchone()[0]
    except sqlite3.DatabaseError as exc:
        integrity, games = repr(exc), None
    assert [e for r in reports for e in r["errors"]] == []
    assert integrity == [("ok",)]
    assert games == 1 + sum(r["ok"] for r in reports)


# -- 4. migrate SQLite -> PostgreSQL ----------------------------------------------------------
def test_migrate_sqlite_to_postgres(pg_schema: Callable[[str], str], tmp_path: Path) -> None:
    require_postgres()
    source = str(tmp_path / "source.db")
    ledger_ok("ladder", "open", "Club", "--family", "elo", "--set",
              'season_penalties=[{"above":1500,"penalty":50}]', db=source)  # fmt: skip
    ledger_ok("player", "add", "Ann", "Ben", "Cid", "Dan", db=source)
    games = [("2024-03-01", "Ann", "Ben", "a"), ("2024-04-01", "Cid", "Dan", "a"),
             ("2025-02-01", "Ann", "Cid", "draw"), ("2025-05-01", "Ben", "Cid", "a")]  # fmt: skip
    ids = []
    for on, a, b, result in games:
        out = ledger_ok("record", "Club", "--date", on, "--side", a, "--side", b,
                        "--result", result, db=source)  # fmt: skip
        ids.append(out.split()[2].rstrip("."))
    ledger_ok("correct", ids[1], "--result", "b", "--reason", "sheet misread", db=source)
    ledger_ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31",
              db=source)  # fmt: skip
    src_standings = msgspec.json.decode(
        ledger_ok("standings", "Club", "--format", "json", db=source)
    )
    src_head = ledger_ok("audit", "--head", db=source).strip()
    # The season close did something: Dan (won 2024 after the correction, idle in
    # 2025) lost 50.
    dan = msgspec.json.decode(ledger_ok("history", "Club", "Dan", "--format", "json", db=source))
    assert [(r["kind"], r["change"]) for r in dan][-1] == ("season", -50.0)

    schema = pg_schema("migrate")
    done = ledger("migrate", "--from", source, "--to", PG_URL, "--to-schema", schema, db=source)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "standings identical: True" in done.stdout
    assert f"head {src_head}" in done.stdout

    dst_standings = msgspec.json.decode(
        ledger_ok("standings", "Club", "--format", "json", db=PG_URL, schema=schema)
    )
    assert dst_standings == src_standings
    assert ledger_ok("audit", "--head", db=PG_URL, schema=schema).strip() == src_head
    assert "OK:" in ledger_ok("verify", db=PG_URL, schema=schema)
    target = Cli(PG_URL, schema)
    events = target.event_count()
    assert events == 2 + 4 + len(games) + 1 + 1

    again = ledger("migrate", "--from", source, "--to", PG_URL, "--to-schema", schema, db=source)
    assert again.returncode != 0
    assert "the target already holds events" in again.stderr, again.stdout + again.stderr
    assert target.event_count() == events
    assert ledger_ok("audit", "--head", db=PG_URL, schema=schema).strip() == src_head
