"""Half of a site build in a forked helper process, on a second core.

A site build of a big ladder is CPU-bound Python: its pages are written in
two halves by two processes at once (``SiteBuilder._half``). Only on SQLite (the child
opens its own connection to the same file: a connection must never cross a
fork) and where ``os.fork`` exists; elsewhere ``start`` returns None and the
caller does the work itself.
"""

from __future__ import annotations

import os
import pickle
import traceback
from collections.abc import Callable
from typing import Any

from projections.db import Database, SQLiteDatabase

#: Below this many history rows a helper process costs more than it saves.
MIN_ROWS = 20_000


class Helper:
    """A forked child computing one value; ``join`` returns it (or raises)."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd

    def join(self) -> Any:
        with os.fdopen(self.fd, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        ok, value = pickle.loads(data) if data else (False, "the helper process died")
        if not ok or status != 0:
            raise RuntimeError(f"site build helper failed: {value}")
        return value


def _path(conn: Database) -> str | None:
    if not isinstance(conn, SQLiteDatabase) or not hasattr(os, "fork"):
        return None
    row = conn.execute("PRAGMA database_list").fetchone()
    return row[2] or None if row else None  # "" for an in-memory database


def start(conn: Database, work: Callable[[Database], Any], rows: int) -> Helper | None:
    """Run ``work`` on a new connection to ``conn``'s SQLite file in a forked
    child, or return None (not SQLite, no fork, or a ladder of fewer than
    ``MIN_ROWS`` history ``rows``): the caller then runs it itself."""
    path = _path(conn)
    if path is None or rows < MIN_ROWS:
        return None
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return Helper(pid, read)
    # The child: its own connection; os._exit, so that nothing the parent
    # holds (its connection, open files) is finalised twice.
    code = 1
    try:
        os.close(read)
        try:
            value = (True, work(SQLiteDatabase(path)))
            code = 0
        except BaseException:  # noqa: BLE001 - reported to the parent, which raises
            value = (False, traceback.format_exc())
        with os.fdopen(write, "wb") as pipe:
            pipe.write(pickle.dumps(value))
    finally:
        os._exit(code)
