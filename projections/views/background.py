"""A rebuild's writes on a thread of their own.

Inserting a row costs Python (binding its values) and the database (laying
it into its table's tree). The database's part runs without Python's global
lock, so while a writer thread inserts one batch the rebuild goes on
computing the next. ``Background`` stands in for the views' database: writes
(``executemany``, statements that are not SELECTs) are queued in order and
run by the writer; a SELECT first waits for every queued write, so it sees
them, as it would on the connection itself. Everything stays in the
caller's one transaction; the first failure of a queued write is raised at
the next call (and at ``close``), so the transaction rolls back as it
would have. ``LEDGER_VIEWS_WRITER=0`` runs a rebuild's writes in line
instead (to measure the difference, or on a single core).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from projections.db import Database


class Background:
    """``db`` with its writes run on a writer thread (see the module)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._jobs: queue.Queue[Callable[[], Any] | None] = queue.Queue(maxsize=4)
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="views-writer", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                if job is None:
                    return
                if self._failure is None:
                    job()
            except BaseException as exc:  # noqa: BLE001 - raised again in the caller
                self._failure = exc
            finally:
                self._jobs.task_done()

    def _raise(self) -> None:
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    def later(self, job: Callable[[], Any]) -> None:
        """Run ``job`` on the writer, after the writes queued before it."""
        self._raise()
        self._jobs.put(job)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)  # the caller may reuse its list once this returns
        self.later(lambda: self.db.executemany(sql, rows))

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        if sql.lstrip()[:6].upper() == "SELECT":
            self.drain()
            return self.db.execute(sql, params)
        self.later(lambda: self.db.execute(sql, params))
        return None

    def drain(self) -> None:
        """Wait for every queued write (raising the first that failed)."""
        self._jobs.join()
        self._raise()

    def close(self, failed: bool = False) -> None:
        """Drain and stop the writer (``failed``: the caller is failing
        already; a queued write's failure is not raised over it)."""
        try:
            self._jobs.join()
            if not failed:
                self._raise()
        finally:
            self._jobs.put(None)
            self._thread.join()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)
