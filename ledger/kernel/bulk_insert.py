"""Many rows per INSERT statement on SQLite.

``executemany`` runs its statement once per row: every row pays SQLite's
statement reset and step as well as its bindings. One statement of many
``VALUES`` tuples pays that once per batch, which halves the cost of a bulk
insert (200,000 history rows: 0.71-0.87 s of CPU by ``executemany``, 0.38-0.41
s in statements of 200 rows; the bindings are the same). The event store's
appends and the views' bulk writes (a rebuild, an import) go through here.

Importing this module also makes binding ``None`` and ``bytes`` cheap on
every sqlite3 connection: the driver binds int, float, str and bytearray
directly, but looks any other value up as an adaptation that fails by
raising (and formatting) an AttributeError it then clears, about 1,800
machine instructions a value (valgrind). An event's state is bytes, and
most rows hold a NULL or two. Registering the identity as their adapter
binds exactly what the driver bound before (the value itself), found by
one dictionary lookup.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from itertools import chain
from typing import Any

#: Rows per statement at most (more gains little, and the text grows).
ROWS = 200

# The identity, as built-in callables: {}.get(None) is None; bytes(b) is b.
sqlite3.register_adapter(type(None), {}.get)
sqlite3.register_adapter(bytes, bytes)


def insert_rows(conn: sqlite3.Connection | Any, head: str, rows: Sequence[Sequence[Any]]) -> None:
    """``head`` (``INSERT INTO table (columns)``, no ``VALUES``) for every
    row of ``rows``, all of one width, in statements of many rows each, in
    order: the same rows as ``executemany`` would insert. ``conn`` is a
    sqlite3 connection or cursor (or eventsourcing's cursor around one)."""
    if not rows:
        return
    width = len(rows[0])
    one = "(" + ",".join("?" * width) + ")"
    per = min(ROWS, _variables(conn) // width)
    whole = len(rows) - len(rows) % per if per > 1 else 0
    if whole:
        many = f"{head} VALUES {','.join([one] * per)}"
        flat = chain.from_iterable
        for start in range(0, whole, per):
            conn.execute(many, list(flat(rows[start : start + per])))
    if whole < len(rows):
        conn.executemany(f"{head} VALUES {one}", rows[whole:])


def _variables(conn: Any) -> int:
    """How many ``?`` one statement may hold on this connection (999 on
    SQLite before 3.32, 32,766 since)."""
    target = getattr(conn, "sqlite_cursor", conn)  # eventsourcing's cursor
    target = getattr(target, "connection", target)  # a cursor's connection
    try:
        return target.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    except (AttributeError, sqlite3.Error):
        return 999
