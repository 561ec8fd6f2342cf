"""``ledger project --follow``: keep the views current while other machines
append events.

One follower per set of views: a second one refuses to start (the views
would stay correct anyway, since every catch-up is one exclusive
transaction, but two pollers only waste the database's time). It stops
cleanly on SIGINT or SIGTERM, between two catch-ups, and the next one
resumes from the tracking position stored with the views.

It outlives its database: a lost connection (the server restarted or was
killed, the session terminated) is said in one line, retried with a
growing wait, and said again in one line once the follower is back; the
catch-up in flight was rolled back with the connection, so it resumes from
the position the views stored. Any other failure of the database (the
schema dropped, say) ends it.
"""

from __future__ import annotations

import fcntl
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import msgspec

from ledger.kernel import heap
from ledger.kernel.errors import Conflict, connection_lost
from ledger.kernel.translation import Message
from projections import views
from projections.db import Database


class FollowerLock:
    """Exclusive right to follow one set of views (a lock file for SQLite,
    a session advisory lock for PostgreSQL)."""

    def __init__(self, db: Database, sqlite_path: str | None) -> None:
        self.db = db
        self.path = f"{sqlite_path}.follow.lock" if sqlite_path else None
        self._file: Any = None

    def acquire(self) -> None:
        """Take the lock (again, after a reconnection: a PostgreSQL session
        lock goes with its connection; the lock file is held already)."""
        if self.path is not None:
            if self._file is not None and not self._file.closed:
                return
            self._file = open(self.path, "w")  # noqa: SIM115 - held for the process lifetime
            try:
                fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self._file.close()
                raise Conflict(
                    Message(
                        "another 'ledger project --follow' is already keeping these views (lock "
                        "{path})",
                        path=self.path,
                    )
                ) from None
            self._file.write(str(os.getpid()))
            self._file.flush()
            return
        got = self.db.execute(
            "SELECT pg_try_advisory_lock(hashtext('ledger-follow:' || current_schema()))"
        ).fetchone()[0]
        if not got:
            raise Conflict(
                Message("another 'ledger project --follow' is already keeping these views")
            )

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()


class Backoff(msgspec.Struct, frozen=True):
    """How long the follower waits between two attempts to reconnect: from
    ``first`` seconds, doubled each attempt, never more than ``most``."""

    first: float = 0.5
    most: float = 30.0


def follow(
    db: Database,
    recorder: Any,
    interval: float = 0.2,
    on_batch: Callable[[int], None] | None = None,
    stop: threading.Event | None = None,
    on_warning: Callable[[str], None] | None = None,
    on_start: Callable[[], None] | None = None,
    on_connection: Callable[[str], None] | None = None,
    lock: FollowerLock | None = None,
    backoff: Backoff | None = None,
) -> int:
    """Catch up every ``interval`` seconds until SIGINT/SIGTERM (or ``stop``);
    returns the number of events applied. ``on_warning`` hears each warning
    of a catch-up (a ladder that cannot be replayed, other maths versions);
    ``on_start`` is called once the signals are caught, so whoever announces
    "following" never does so while a Ctrl-C would still abort.

    A lost connection is not an end: ``on_connection`` hears one line when
    it is lost and one when the follower is back; in between it reconnects
    with ``backoff`` (taking ``lock`` again on the new connection: a
    follower that started meanwhile keeps it, and this one stops with
    Conflict). Any other error is raised."""
    stop = stop or threading.Event()
    backoff = backoff or Backoff()
    _short_pool_waits(recorder)
    say = on_connection or (lambda _line: None)
    lost_at: float | None = None
    wait, resumed = backoff.first, 0
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    total = 0
    try:
        if on_start is not None:
            on_start()
        while not stop.is_set():
            try:
                if lost_at is not None:
                    db.reconnect()
                    if lock is not None:
                        lock.acquire()
                    resumed = views.position(db)
                else:
                    # The views' own connection answers first: a server gone
                    # is seen at once, not after the event store's retries.
                    db.execute("SELECT 1")
                report = views.catch_up_report(db, recorder)
            except Exception as exc:
                if not connection_lost(exc):
                    raise
                if lost_at is None:
                    lost_at = time.monotonic()
                    say(f"lost the connection to the database ({first_line(exc)}); "
                        f"reconnecting, every {backoff.most:g} s at most")  # fmt: skip
                stop.wait(wait)
                wait = min(wait * 2, backoff.most)
                continue
            if lost_at is not None:
                say(f"connected again after {time.monotonic() - lost_at:.1f} s; resumed from "
                    f"event {resumed}")  # fmt: skip
                lost_at, wait = None, backoff.first
            applied = report.applied
            total += applied
            if on_warning is not None:
                for warning in report.warnings:
                    on_warning(warning)
            if applied:
                heap.give_back()
                if on_batch is not None:
                    on_batch(applied)
            stop.wait(interval)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return total


#: Seconds the follower waits for a pooled connection of the event store.
POOL_WAIT = 1.0


def _short_pool_waits(recorder: Any) -> None:
    """Make the event store's reads give up sooner while its server is down.
    eventsourcing retries a read 10 times, each waiting up to the pool's
    timeout (its connect timeout, 5 s) for a connection: close to a minute
    in which the follower neither says the outage nor hears a SIGTERM. With
    1 s the outage is said, or the signal heard, within about 12 s."""
    pool = getattr(getattr(recorder, "datastore", None), "pool", None)
    if pool is not None and getattr(pool, "timeout", 0) > POOL_WAIT:
        pool.timeout = POOL_WAIT


def first_line(exc: BaseException) -> str:
    """An error's message on one line (PostgreSQL's come with details after)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
