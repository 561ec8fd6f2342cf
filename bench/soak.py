"""Soak run of the projection service: does a long run stay flat?

    python bench/soak.py [--events 100000] [--events 500000] [--writers 4]
        [--batch 500] [--every 50000] [--db postgresql://user@host/db] [--keep]

A follower (``ledger project --follow``, its own process) keeps the views
current while WRITERS processes append games in batches of BATCH (each batch
one ``import`` through the Python API, no catch-up of their own) until
EVENTS events are stored. Every EVERY events the follower has projected it
prints the follower's resident memory, its open file descriptors, on
PostgreSQL the connections it holds open (``pg_stat_activity`` rows of its
application name), the players the views hold (fixed: a federation's
players saturate, so what grows with players is not mistaken for a leak)
and how many days apart the writers' latest games are (each writer walks
through its own dates: a batch of the one behind lands before the ladder's
frontier, a late result whose catch-up replays the games after it). At the
end it prints memory against the first reading (the target: within +-10%
after the first 50,000 events), the connections first and last, and whether
the views equal views rebuilt from the events
(``projections.verify.compare_views``).

The default is a temporary SQLite file; ``--db`` a PostgreSQL database,
where the run gets a throwaway schema, dropped afterwards.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LADDER = "Soak"
PLAYERS = 200
APP_NAME = "ledger-soak-follower"
_MB = 1024 * 1024


def ledger_cmd(db: str, schema: str | None) -> list[str]:
    where = ["--db", db] + (["--schema", schema] if schema else [])
    return [sys.executable, "-m", "ledger", *where, "--by", "soak"]


def writer(db: str, schema: str, wid: int, batches: int, batch: int, folder: Path) -> None:
    """Child process: append ``batches`` sheets of ``batch`` games each."""
    from ledger.sheets.importer import import_sheet
    from ledger.write.application import LedgerApplication
    from ledger.write.commands import Commands
    from ledger.write.storage import resolve

    app = LedgerApplication(env=resolve(db, schema or None).app_env())
    commands = Commands(app, f"writer{wid}")
    start = date(2000, 1, 1)
    try:
        for b in range(batches):
            sheet = folder / f"w{wid}-{b}.csv"
            lines = ["ladder,date,event,table,side_a,side_b,result"]
            for i in range(batch):
                n = b * batch + i
                a, c = (n * 7 + wid) % PLAYERS, (n * 13 + wid + 1) % PLAYERS
                c = c if c != a else (a + 1) % PLAYERS
                day = start + timedelta(days=n // 50)
                result = ("a", "b", "draw")[(n + wid) % 3]
                table = n % 50 + 1  # 50 tables a day, one event a writer
                lines.append(f"{LADDER},{day},w{wid},{table},P{a:03d},P{c:03d},{result}")
            sheet.write_text("\n".join(lines) + "\n")
            import_sheet(commands, sheet, ladder=LADDER)
            sheet.unlink()
    finally:
        app.close()


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Store:
    """Reads the ledger's tables directly (never through ``ledger``, which
    would catch the views up itself)."""

    def __init__(self, db: str, schema: str | None) -> None:
        self.postgres = schema is not None
        if self.postgres:
            import psycopg

            self.conn: Any = psycopg.connect(db, autocommit=True)
            self.conn.execute(f'SET search_path TO "{schema}"')
        else:
            self.conn = sqlite3.connect(db, timeout=30, isolation_level=None)

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        sql = sql.replace("?", "%s") if self.postgres else sql
        row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else 0

    def events(self) -> int:
        table, column = (
            ("ledger_events", "notification_id") if self.postgres else ("stored_events", "rowid")
        )
        return int(self.one(f"SELECT COALESCE(MAX({column}), 0) FROM {table}"))

    def position(self) -> int:
        return int(self.one("SELECT position FROM view_tracking WHERE name = 'views'") or 0)

    def players(self) -> int:
        """Players the views hold: the state that legitimately grows (each
        one's standing and open history chunk), fixed here at PLAYERS."""
        return int(self.one("SELECT COUNT(*) FROM view_players"))

    def spread(self) -> int:
        """Days between the writers' latest games: a batch of the writer
        behind lands that far before the ladder's frontier, so its catch-up
        replays the games after it (a late result)."""
        latest = self.conn.execute(
            "SELECT MIN(last), MAX(last) FROM (SELECT MAX(substr(key, 1, 10)) AS last "
            "FROM view_games GROUP BY event) AS writers"
        ).fetchone()
        if not latest or latest[0] is None:
            return 0
        return (date.fromisoformat(latest[1]) - date.fromisoformat(latest[0])).days

    def connections(self) -> int | None:
        if not self.postgres:
            return None
        return int(self.one("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ?",
                            (APP_NAME,)))  # fmt: skip


def run(args: argparse.Namespace, target: int, folder: Path) -> dict[str, Any]:
    schema = f"soak_{uuid.uuid4().hex[:10]}" if args.db else None
    db = args.db or str(folder / f"soak-{target}.db")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("LEDGER_DB", "LEDGER_SCHEMA"):
        env.pop(name, None)
    quiet: dict[str, Any] = {"env": env, "cwd": ROOT, "check": True, "capture_output": True}
    subprocess.run([*ledger_cmd(db, schema), "ladder", "open", LADDER, "--family", "elo"], **quiet)
    names = [f"P{i:03d}" for i in range(PLAYERS)]
    subprocess.run([*ledger_cmd(db, schema), "player", "add", *names], **quiet)
    store = Store(db, schema)
    base = store.events()
    per_batch = args.batch  # one event a game
    batches = max(1, -(-(target - base) // (per_batch * args.writers)))  # rounded up
    log = open(folder / f"follow-{target}.log", "w")  # noqa: SIM115 - the follower's stderr
    follower = subprocess.Popen(
        [*ledger_cmd(db, schema), "project", "--follow", "--interval", "0.2"],
        env={**env, "PGAPPNAME": APP_NAME}, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    started = time.monotonic()
    code = "import sys; from bench.soak import writer; writer(*sys.argv[1:3], *map(int, sys.argv[3:6]), __import__('pathlib').Path(sys.argv[6]))"  # noqa: E501
    writers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                code,
                db,
                schema or "",
                str(w),
                str(batches),
                str(args.batch),
                str(folder),
            ],
            env=env,
            cwd=ROOT,
        )  # fmt: skip
        for w in range(args.writers)
    ]
    readings: list[dict[str, Any]] = []
    mark = args.every
    total = base + batches * per_batch * args.writers
    print(f"{target:,} events: {args.writers} writers x {batches} batches of {args.batch} games "
          f"({total:,} events with the ladder and players)", flush=True)  # fmt: skip
    print(f"{'projected':>10} {'stored':>10} {'follower RSS':>13} {'fds':>5} {'conns':>6} "
          f"{'players':>8} {'late by':>7} {'s':>7}", flush=True)  # fmt: skip
    try:
        while True:
            position = store.position()
            if position >= mark or (position >= total and not readings):
                reading = {"projected": position, "stored": store.events(),
                           "rss": rss(follower.pid), "fds": fds(follower.pid),
                           "connections": store.connections(), "players": store.players(),
                           "spread": store.spread(),
                           "seconds": time.monotonic() - started}  # fmt: skip
                readings.append(reading)
                conns = "-" if reading["connections"] is None else reading["connections"]
                print(f"{position:>10,} {reading['stored']:>10,} "
                      f"{reading['rss'] / _MB:>10.1f} MB {reading['fds']:>5} {conns:>6} "
                      f"{reading['players']:>8} {reading['spread']:>7} "
                      f"{reading['seconds']:>7.1f}", flush=True)  # fmt: skip
                while mark <= position:
                    mark += args.every
            if position >= total and all(w.poll() is not None for w in writers):
                break
            if follower.poll() is not None:
                raise SystemExit(f"the follower exited {follower.returncode}: see {log.name}")
            failed = [w.returncode for w in writers if w.poll() not in (None, 0)]
            if failed:
                raise SystemExit(f"a writer failed ({failed})")
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        last = {"rss": rss(follower.pid), "fds": fds(follower.pid),
                "connections": store.connections()}  # fmt: skip
    finally:
        for w in writers:
            if w.poll() is None:
                w.kill()
        follower.send_signal(signal.SIGTERM)
        follower.wait(timeout=60)
        log.close()
    from ledger.write.application import LedgerApplication
    from ledger.write.storage import resolve
    from projections import verify, views
    from projections.db import PostgresDatabase, SQLiteDatabase

    app = LedgerApplication(env=resolve(db, schema).app_env())
    conn = PostgresDatabase(db, schema) if schema else SQLiteDatabase(db)
    behind = store.events() - views.position(conn)
    differences = verify.compare_views(conn, views.in_memory(app.recorder))
    app.close()
    conn.close()
    if schema:
        store.conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    store.conn.close()
    first = readings[0]["rss"] if readings else last["rss"]
    change = (last["rss"] - first) / first * 100 if first else 0.0
    print(f"stored {total:,} events in {elapsed:.1f} s ({total / elapsed:,.0f} events/s with "
          f"the follower keeping up)")  # fmt: skip
    print(f"follower memory: {first / _MB:.1f} MB at the first reading, {last['rss'] / _MB:.1f} "
          f"MB at the end ({change:+.1f}%; target within +-10%)")  # fmt: skip
    held = sorted({r["players"] for r in readings})
    if held:
        print(f"players the views hold: {', '.join(map(str, held))} (what grows with players, "
              f"their standings and open history chunks, is the same at every reading); the "
              f"writers were up to {max(r['spread'] for r in readings)} days apart (a batch of "
              f"the writer behind is a late result: its catch-up replays the games after "
              f"it)")  # fmt: skip
    print(f"follower file descriptors: {readings[0]['fds'] if readings else '-'} at the first "
          f"reading, {last['fds']} at the end")  # fmt: skip
    if schema:
        print(f"follower connections open: {readings[0]['connections'] if readings else '-'} at "
              f"the first reading, {last['connections']} at the end")  # fmt: skip
    print(f"views behind the events at the end: {behind}; views equal a rebuild: "
          f"{'yes' if not differences else 'NO: ' + differences[0]}")  # fmt: skip
    return {"readings": readings, "last": last, "change": change, "equal": not differences}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, action="append",
                        help="events to store (repeat for several runs; default 100000; the "
                             "issue's soak is 500000)")  # fmt: skip
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--batch", type=int, default=500, help="games per append")
    parser.add_argument("--every", type=int, default=50_000, help="events between readings")
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: SQLite)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ledger-soak-"))
    try:
        failed = False
        for target in args.events or [100_000]:
            outcome = run(args, target, folder)
            failed |= not outcome["equal"]
        if failed:
            sys.exit(1)
    finally:
        if args.keep:
            print(f"kept {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
