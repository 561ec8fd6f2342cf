"""Many rows per INSERT statement on SQLite.

``executemany`` runs its statement once per row: every row pays SQLite's
statement reset and step as well as its bindings. One statement of many
``VALUES`` tuples pays that once per batch, which halves the cost of a bulk
insert (200,000 history rows: 0.71-0.87 s of CPU by ``executemany``, 0.38-0.41
s in statements of 200 rows; the bindings are the same). The batches are cut
here, as sqlite-utils' ``insert_all`` cuts them: as many rows a statement as
the connection's limit on variables allows. The event store's appends and the
views' bulk writes (a rebuild, an import) go through here.

Binding ``None`` and ``bytes`` is made cheap for the length of a call
(``plain_binding``), never for the process: the driver binds int, float, str
and bytearray directly, but looks any other value up as an adaptation that
fails, about 1,800 machine instructions a value (valgrind). An event's state
is bytes, and most rows hold a NULL or two. The identity as their adapter
binds exactly what the driver binds without one (the value itself), found by
one dictionary lookup.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from typing import Any

#: Rows per statement at most (more gains little, and the text grows).
ROWS = 200

#: The identity for None and bytes, as built-in callables: {}.get(None) is
#: None; bytes(b) is b.
_IDENTITY = ((type(None), {}.get), (bytes, bytes))


@contextmanager
def plain_binding() -> Iterator[None]:
    """Within the block, ``None`` and ``bytes`` bind on every sqlite3
    connection by one lookup of the identity (the same values the driver
    binds without it). Adds only an adapter nobody registered, and removes
    only its own on the way out: a caller's adapter, a block nested in
    another or one running in another thread is never changed, at worst it
    binds the slower way."""
    adapters = sqlite3.adapters
    added = []
    for kind, identity in _IDENTITY:
        key = (kind, sqlite3.PrepareProtocol)
        if key not in adapters:
            adapters[key] = identity
            added.append((key, identity))
    try:
        yield
    finally:
        for key, identity in added:
            if adapters.get(key) is identity:
                del adapters[key]


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
    with plain_binding():
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
