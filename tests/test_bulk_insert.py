"""Many rows a statement (``ledger.kernel.bulk_insert``) inserts exactly the rows,
in the order, that one statement a row would."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.kernel import bulk_insert

VALUES = st.one_of(
    st.none(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), st.text(), st.binary()
)


def _table(width: int) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    columns = ", ".join(f"c{i}" for i in range(width))
    conn.execute(f"CREATE TABLE t (n INTEGER PRIMARY KEY, {columns})")
    return conn


def _rows(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT * FROM t ORDER BY n").fetchall()


@settings(max_examples=60, deadline=None)
@given(
    width=st.integers(1, 5),
    count=st.integers(0, 700),
    limit=st.sampled_from([5, 7, 999, 32766]),
    data=st.data(),
)
def test_the_rows_of_many_statements_are_those_of_one_a_row(
    width: int, count: int, limit: int, data: st.DataObject
) -> None:
    cells = data.draw(st.lists(VALUES, min_size=width, max_size=width))
    rows = [tuple(cells[(i + j) % width] for j in range(width)) for i in range(count)]
    columns = ", ".join(f"c{i}" for i in range(width))
    one_a_row = _table(width)
    one_a_row.executemany(f"INSERT INTO t ({columns}) VALUES ({','.join('?' * width)})", rows)
    many = _table(width)
    many.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, limit)  # (an older SQLite's 999)
    bulk_insert.insert_rows(many, f"INSERT INTO t ({columns})", rows)
    assert _rows(many) == _rows(one_a_row)
    assert len(_rows(many)) == count


def test_statements_hold_many_rows_within_the_connections_limit() -> None:
    conn = _table(3)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    bulk_insert.insert_rows(conn, "INSERT INTO t (c0, c1, c2)", [(1, 2, 3)] * 450)
    inserts = [s for s in statements if s.startswith("INSERT")]
    # 450 rows: two statements of 200, then 50 one at a time.
    assert len(inserts) == 2 + 50
    assert len(_rows(conn)) == 450
    limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    assert bulk_insert._variables(conn) == limit
    assert bulk_insert._variables(conn.cursor()) == limit


def test_an_error_in_any_row_is_the_drivers_error() -> None:
    conn = _table(1)
    conn.execute("CREATE UNIQUE INDEX t_c0 ON t (c0)")
    rows = [(i,) for i in range(300)] + [(5,)]
    with pytest.raises(sqlite3.IntegrityError):
        bulk_insert.insert_rows(conn, "INSERT INTO t (c0)", rows)


def test_none_and_bytes_are_bound_as_themselves() -> None:
    """Within ``plain_binding`` the identity adapters bind NULL and BLOB, as
    the driver does without them; a subclass of bytes keeps the driver's way.
    Outside it (and on import) no adapter is registered."""

    class Tagged(bytes):
        pass

    none, blob = (type(None), sqlite3.PrepareProtocol), (bytes, sqlite3.PrepareProtocol)
    assert none not in sqlite3.adapters and blob not in sqlite3.adapters
    state = b'{"a": 1}\x00\xff'
    conn = sqlite3.connect(":memory:")
    sql = "SELECT ?1 IS NULL, typeof(?2), ?2, typeof(?3), ?3"
    without = conn.execute(sql, (None, state, Tagged(b"xy"))).fetchone()
    with bulk_insert.plain_binding():
        assert sqlite3.adapters[none](None) is None
        assert sqlite3.adapters[blob](state) is state
        row = conn.execute(sql, (None, state, Tagged(b"xy"))).fetchone()
    assert row == without == (1, "blob", state, "blob", b"xy")
    assert none not in sqlite3.adapters and blob not in sqlite3.adapters


def test_plain_binding_leaves_another_adapter_alone() -> None:
    """An adapter registered by someone else is neither replaced within the
    block nor removed after it; a nested block removes nothing of its outer's."""
    key = (bytes, sqlite3.PrepareProtocol)

    def theirs(b: bytes) -> bytes:
        return b

    sqlite3.register_adapter(bytes, theirs)
    try:
        with bulk_insert.plain_binding():
            assert sqlite3.adapters[key] is theirs
        assert sqlite3.adapters[key] is theirs
    finally:
        del sqlite3.adapters[key]
    with bulk_insert.plain_binding():
        ours = sqlite3.adapters[key]
        with bulk_insert.plain_binding():
            pass
        assert sqlite3.adapters[key] is ours
    assert key not in sqlite3.adapters
