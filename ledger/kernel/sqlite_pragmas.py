"""SQLite settings (``PRAGMA``s) changed for a block of bulk work.

The import's append (a bigger page cache, statement journals in memory) and
the views' fill (a small cache, sorts on disk) each set a few of a
connection's settings for one block and put them back after: ``changed``
is that, once. A setting SQLite refuses where it is asked (``temp_store``
inside a transaction once the connection has opened its temporary
database) is left as it is, and the block goes on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any


@contextmanager
def changed(cursor: Any, **settings: int) -> Iterator[dict[str, int]]:
    """Set each ``PRAGMA name = value`` of ``settings`` on ``cursor`` (one
    with ``execute`` and ``fetchone``) for the block, each put back after;
    yields those set (name -> the value it had)."""
    before: dict[str, int] = {}
    for name, value in settings.items():
        cursor.execute(f"PRAGMA {name}")
        row = cursor.fetchone()
        if row is None:  # none here (an in-memory database maps no file)
            continue
        old = int(row[0])
        try:
            cursor.execute(f"PRAGMA {name} = {int(value)}")
        except sqlite3.OperationalError:
            continue  # refused here: left as it was
        before[name] = old
    try:
        yield before
    finally:
        for name, old in before.items():
            # (refused now if the block opened the temporary database;
            # nothing to put back on a connection closed meanwhile: a
            # reader of pages left unfinished until after the close)
            with suppress(sqlite3.OperationalError, sqlite3.ProgrammingError):
                cursor.execute(f"PRAGMA {name} = {old}")
