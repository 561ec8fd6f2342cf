"""``ledger project --follow``: keep the views current while other machines
append events.

One follower per set of views: a second one refuses to start (the views
would stay correct anyway, since every catch-up is one exclusive
transaction, but two pollers only waste the database's time). It stops
cleanly on SIGINT or SIGTERM, between two catch-ups, and the next one
resumes from the tracking position stored with the views.
"""

from __future__ import annotations

import fcntl
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

from ledger.kernel.errors import Conflict
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
        if self.path is not None:
            self._file = open(self.path, "w")  # noqa: SIM115 - held for the process lifetime
            try:
                fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self._file.close()
                raise Conflict(
                    f"another 'ledger project --follow' is already keeping these views (lock "
                    f"{self.path})"
                ) from None
            self._file.write(str(os.getpid()))
            self._file.flush()
            return
        got = self.db.execute(
            "SELECT pg_try_advisory_lock(hashtext('ledger-follow:' || current_schema()))"
        ).fetchone()[0]
        if not got:
            raise Conflict("another 'ledger project --follow' is already keeping these views")

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()


def follow(
    db: Database,
    recorder: Any,
    interval: float = 0.2,
    on_batch: Callable[[int], None] | None = None,
    stop: threading.Event | None = None,
    on_warning: Callable[[str], None] | None = None,
    on_start: Callable[[], None] | None = None,
) -> int:
    """Catch up every ``interval`` seconds until SIGINT/SIGTERM (or ``stop``);
    returns the number of events applied. ``on_warning`` hears each warning
    of a catch-up (a ladder that cannot be replayed, other maths versions);
    ``on_start`` is called once the signals are caught, so whoever announces
    "following" never does so while a Ctrl-C would still abort."""
    stop = stop or threading.Event()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    total = 0
    try:
        if on_start is not None:
            on_start()
        while not stop.is_set():
            report = views.catch_up_report(db, recorder)
            applied = report.applied
            total += applied
            if on_warning is not None:
                for warning in report.warnings:
                    on_warning(warning)
            if applied and on_batch is not None:
                on_batch(applied)
            stop.wait(interval)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return total
