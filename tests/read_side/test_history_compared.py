"""A restart near a ladder's end compares the rows its replay makes with the
stored ones (``history.Rows``): only the players whose rows change have
chunks written, and the views still equal a rebuild's; a restart farther back
cuts every chunk after it at once."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest

from projections import verify, views
from projections.db import Database, SQLiteDatabase
from projections.views import history, ladder_replay
from tests.read_side.ledger_builder import Builder

PLAYERS = [f"P{i}" for i in range(12)]


def club(games: int) -> tuple[Builder, list[uuid.UUID]]:
    """Twelve players, each game between two of them in a pattern that
    mixes them (so a result changed reaches some players, not all)."""
    b = Builder()
    b.player(*PLAYERS)
    b.ladder("Club")
    start = date(2024, 1, 1)
    ids = []
    for i in range(games):
        a = PLAYERS[(i * 5) % 12]
        other = PLAYERS[(i * 5 + 1 + i % 5) % 12]
        ids.append(b.game("Club", start + timedelta(days=i), a, other))  # (one a day: in order)
    return b, ids


def written_players(
    monkeypatch: pytest.MonkeyPatch, table: str = "view_history_chunks"
) -> set[Any]:
    """The players whose rows of ``table`` (their chunks, by default) are
    inserted, updated or deleted from now on (``"all"`` for a delete of the
    rows of many)."""
    found: set[Any] = set()
    execute, executemany = SQLiteDatabase.execute, SQLiteDatabase.executemany
    insert_rows = SQLiteDatabase.insert_rows

    def seen(sql: str, rows: Any) -> None:
        if f" {table} " not in f"{sql} " or sql.lstrip().startswith("SELECT"):
            return
        if sql.startswith("INSERT"):
            found.update(row[1] for row in rows)
        elif sql.startswith("UPDATE"):
            found.update(row[3] for row in rows)
        elif "player=?" in sql:
            found.update(row[1] for row in rows)
        else:
            found.add("all")

    def spied_execute(self: SQLiteDatabase, sql: str, params: Any = ()) -> Any:
        seen(sql, [params])
        return execute(self, sql, params)

    def spied_executemany(self: SQLiteDatabase, sql: str, rows: Any) -> None:
        rows = list(rows)
        seen(sql, rows)
        executemany(self, sql, rows)

    def spied_insert_rows(self: SQLiteDatabase, head: str, rows: Any) -> None:
        seen(head, rows)
        insert_rows(self, head, rows)

    monkeypatch.setattr(SQLiteDatabase, "execute", spied_execute)
    monkeypatch.setattr(SQLiteDatabase, "executemany", spied_executemany)
    monkeypatch.setattr(SQLiteDatabase, "insert_rows", spied_insert_rows)
    return found


def every_row(conn: Database) -> dict[int, list[history.Row]]:
    n = conn.execute("SELECT n FROM view_ladders").fetchone()[0]
    return {rows[0].player: rows for rows in history.last_rows(conn, n, 10**9)}


def changed(before: dict[int, Any], after: dict[int, Any]) -> set[int]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def caught_up_writing(
    conn: Database, b: Builder, monkeypatch: pytest.MonkeyPatch
) -> tuple[set[Any], set[Any]]:
    """Catch the views up; the players whose chunks it wrote, and those
    whose standings."""
    with monkeypatch.context() as m:
        written = written_players(m)
        standings = written_players(m, "view_standings")
        views.catch_up(conn, b.recorder)
    return written, standings


def standings(conn: Database) -> dict[int, tuple[Any, ...]]:
    return {row[1]: row for row in conn.execute("SELECT * FROM view_standings")}


@pytest.fixture
def checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ladder_replay, "CHECKPOINT_EVERY", 10)


def same_as_a_rebuild(conn: Database, b: Builder) -> None:
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)


def only_the_changed_written(
    b: Builder, monkeypatch: pytest.MonkeyPatch, edit: Callable[[], None]
) -> None:
    """After ``edit`` near the end, catching up writes the chunks and the
    standings of the players whose rows change, some but not all, and
    gives a rebuild's views."""
    conn = b.views()
    before, ranked = every_row(conn), standings(conn)
    edit()
    written, ranks_written = caught_up_writing(conn, b, monkeypatch)
    moved = changed(before, every_row(conn))
    assert moved and len(moved) < len(PLAYERS)  # (some players' rows stay as they were)
    assert written == moved
    assert ranks_written == changed(ranked, standings(conn)) == moved
    same_as_a_rebuild(conn, b)


@pytest.mark.usefixtures("checkpoints")
def test_a_correction_near_the_end_rewrites_only_the_players_whose_rows_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b, ids = club(200)
    only_the_changed_written(b, monkeypatch, lambda: b.correct(ids[-12], result={"result": "b"}))


@pytest.mark.usefixtures("checkpoints")
def test_a_void_near_the_end_rewrites_only_the_players_whose_rows_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b, ids = club(200)

    def void() -> None:
        # The last two games: their players' last rows go, none replaced (a
        # void earlier moves every later row's place: every later row changes).
        b.void(ids[-1])
        b.void(ids[-2])

    only_the_changed_written(b, monkeypatch, void)


@pytest.mark.usefixtures("checkpoints")
def test_a_correction_that_changes_no_row_writes_none(monkeypatch: pytest.MonkeyPatch) -> None:
    b, ids = club(200)
    conn = b.views()
    before = every_row(conn)
    b.correct(ids[-12], result={"result": "a"})  # (what it was)
    added: list[int] = []
    add = history.Rows.add
    monkeypatch.setattr(
        history.Rows, "add", lambda self, rows: added.append(len(rows)) or add(self, rows)
    )
    written, ranks_written = caught_up_writing(conn, b, monkeypatch)
    assert sum(added) >= 24  # the replay ran from a checkpoint before the game
    assert written == ranks_written == set()
    assert every_row(conn) == before
    same_as_a_rebuild(conn, b)


def first_added(conn: Database, b: Builder, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """Catch the views up; when the replay's first rows are added, the
    players whose chunks were written so far (``"all"``: every chunk after
    a place cut) and the chunks then stored beginning after the restart."""
    found: list[tuple[Any, ...]] = []
    add = history.Rows.add

    def spied(self: history.Rows, rows: list[tuple[Any, ...]]) -> None:
        if not found:
            restart = min(row[1] for row in rows) - 1
            after = conn.execute(
                "SELECT COUNT(*) FROM view_history_chunks WHERE first>?", (restart,)
            ).fetchone()[0]
            found.append((set(written), after))
        add(self, rows)

    with monkeypatch.context() as m:
        written = written_players(m)
        m.setattr(history.Rows, "add", spied)
        views.catch_up(conn, b.recorder)
    return found[0]


@pytest.mark.usefixtures("checkpoints")
def test_a_restart_far_from_the_end_cuts_everything_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b, ids = club(600)  # (some 100 rows a player: two chunks each)
    conn = b.views()
    second = conn.execute("SELECT COUNT(*) FROM view_history_chunks WHERE first>50").fetchone()
    assert second[0] > 0
    b.correct(ids[20], result={"result": "b"})
    written, after = first_added(conn, b, monkeypatch)
    assert "all" in written and after == 0
    same_as_a_rebuild(conn, b)
    # Near the end, nothing is written before the replay's rows come.
    b.correct(ids[-12], result={"result": "b"})
    assert first_added(conn, b, monkeypatch)[0] == set()
    same_as_a_rebuild(conn, b)


@pytest.mark.usefixtures("checkpoints")
@pytest.mark.parametrize(
    ("chunks", "places"),
    [(0, 4), (10**9, 0), (history.COMPARED_CHUNKS, history.COMPARED_PLACES)],
    ids=["too-many-chunks", "too-many-places", "bounds"],
)
def test_the_bounds_decide_whether_a_restart_compares(
    monkeypatch: pytest.MonkeyPatch, chunks: int, places: int
) -> None:
    monkeypatch.setattr(history, "COMPARED_CHUNKS", chunks)
    monkeypatch.setattr(history, "COMPARED_PLACES", places)
    b, ids = club(200)
    conn = b.views()
    b.correct(ids[-12], result={"result": "b"})
    compared = chunks > 0 and places > 0
    written = first_added(conn, b, monkeypatch)[0]
    assert written == set() if compared else "all" in written
    same_as_a_rebuild(conn, b)


@pytest.mark.usefixtures("checkpoints")
def test_a_compared_replay_holding_few_rows_writes_the_same_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Held chunks written part-way (``HELD_ROWS``) leave the comparison of
    the players not yet differing as it was."""
    monkeypatch.setattr(history, "HELD_ROWS", 5)
    b, ids = club(200)
    conn = b.views()
    b.correct(ids[-30], result={"result": "draw"})
    b.void(ids[-3])
    views.catch_up(conn, b.recorder)
    same_as_a_rebuild(conn, b)


def test_a_tail_read_after_a_place_is_the_rows_after_it() -> None:
    """``held_rows`` after a place gives the rows ``decode`` gives after it,
    for plain chunks (short rows) and others (whole ones)."""
    plain = [
        (1, 10 + 2 * i, i % 2, 100 + i, 7, 1.0, 0.5, 20.0, 1500.0 + i, 10.0 - i, i)
        for i in range(9)
    ]
    unrated = [*plain[:4], (*history.whole_row(plain[4])[:7], None, None, None,
                            *history.whole_row(plain[4])[10:])]  # fmt: skip
    for rows in (plain, unrated, [history.whole_row(r) for r in plain]):
        data = history.encode(rows)
        every = history.decode(data, 1, 7)
        for after in (0, 10, 15, 26, 40):
            tail = history.held_rows(data, 1, 7, after)
            assert [history.whole_row(r) for r in tail] == [r for r in every if r.pos > after]


def test_rows_are_the_same_only_as_stored() -> None:
    """A replayed row matches a stored one only if it would store the same:
    either shape, an int for a float, but not a zero of the other sign."""
    row = (1, 10, 0, 100, 7, 1.0, 0.5, 20.0, 1500.0, 0.0, 3)
    whole = history.Row(*history.whole_row(row))
    assert history._same([row], [whole]) and history._same([whole], [row])
    assert history._same([(*row[:8], 1500, *row[9:])], [row])
    signed = (*row[:9], -0.0, row[10])
    assert not history._same([signed], [row])
    assert not history._same([signed], [whole])
    assert not history._same([row], [row, row])
    state = (*history.whole_row(row)[:16], {"u": 0.0, "v": 1.0})
    assert history._same([state], [(*state[:16], {"v": 1.0, "u": 0.0})])
    assert not history._same([state], [(*state[:16], {"u": -0.0, "v": 1.0})])


def test_rows_equal_as_stored_are_told_in_one_call_whatever_their_shape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A family that rounds its changes (AdlG) makes ints where a float
    column keeps floats, and a row rated per event comes back whole: both
    are still told the same as the stored rows without the value-by-value
    comparison (``_bits``), which stays for what differs only to the bit."""
    short = [
        (1, 3, 0, 7, 2, 1.0, 0.5, 20.0, 1500, 10, 0),
        (1, 9, 1, 8, 2, 0.0, 0.5, 20.0, 1510, -10, 1),
    ]
    whole = [
        (1, 3, 0, 7, 2, "game", 0, 1.0, 0.5, 20.0, 1500, 0, 1500, 0, 1, "rated at the close", None)
    ]
    for rows in (short, whole):
        stored = history.held_rows(history.encode(rows), 1, 2)
        monkeypatch.setattr(history, "_bits", _no_bits)
        assert history._same(rows, stored)
        monkeypatch.undo()
    differ = [(1, 3, 0, 7, 2, 1.0, 0.5, 20.0, 1500, -0.0, 0)]
    stored = history.held_rows(history.encode([(*differ[0][:9], 0.0, 0)]), 1, 2)
    assert not history._same(differ, stored)  # (-0.0 is not 0.0 as stored)


def _no_bits(value: Any) -> Any:
    raise AssertionError("compared value by value")
