"""A long catch-up into views that hold no game yet (a new ledger's first
import) fills them as a rebuild does: every ladder's timeline held in memory,
never read back from the views, each ladder replayed whole. The views are
those a rebuild gives, whatever they held before (ladders, rulesets, players)
and whatever the catch-up brings (corrections, voids, a game moved to another
ladder, later rules, a merge); a short catch-up afterwards appends as before."""

from __future__ import annotations

import tempfile
from datetime import date, timedelta
from typing import Any

import pytest

from ledger.kernel import events as ev
from projections import verify, views
from projections.db import SQLiteDatabase
from projections.views import runner
from projections.views.store import LadderStore
from tests.read_side.ledger_builder import Builder
from tests.read_side.test_family_versions import BUMPED

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")
RESULTS = {
    "elo": ({"result": "a"}, {"result": "draw"}),
    "battle-empire": ({"result": "a", "margin": "decisive"}, {"result": "draw"}),
}


@pytest.mark.parametrize("family", ["elo", "battle-empire"])
def test_a_first_import_is_filled_whole_as_a_rebuild(
    monkeypatch: pytest.MonkeyPatch, family: str
) -> None:
    made: list[Any] = []
    read_back: list[int] = []
    projector, entries = runner.Projector, LadderStore.entries

    def spy(*args: Any, **kwargs: Any) -> Any:
        made.append(projector(*args, **kwargs))
        return made[-1]

    def reading(self: LadderStore, after: str | None) -> Any:
        read_back.append(self.ladder)
        return entries(self, after)

    monkeypatch.setattr(views.runner, "WHOLE_AFTER", 5)
    monkeypatch.setattr(views.runner, "Projector", spy)
    monkeypatch.setattr(LadderStore, "entries", reading)
    b = Builder()
    b.ladder("Club", family)
    b.ladder("Other", family)
    b.player(*NAMES)
    conn = b.views()  # ladders, rules and players; no game
    first = date(2025, 1, 1)
    win, draw = RESULTS[family]
    games = [
        b.game("Club", first + timedelta(days=i), NAMES[i % 6], NAMES[(i + 1) % 6], win,
               sequence=1)
        for i in range(12)
    ]  # fmt: skip
    b.correct(games[3], result=draw)
    b.void(games[5])
    b.correct(games[7], ladder=b.ladders["Other"])
    b.rules("Club", family, {}, first + timedelta(days=6))
    fay = b.players["Fay"]
    b.store(ev.PlayerMerged(**b._next(fay), into=b.players["Eve"], reason="same person"))
    read_back.clear()
    assert views.catch_up(conn, b.recorder) > 5
    assert made[-1].entries is not None  # held in memory...
    assert read_back == []  # ...and never read back
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)

    b.game("Club", first + timedelta(days=30), "Ann", "Fay", win, sequence=1)
    assert views.catch_up(conn, b.recorder) == 1
    assert made[-1].entries is None  # views holding games: a plain catch-up
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)


def test_a_very_long_first_import_spills_its_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``held.BUDGET`` games the timelines held are written out to a
    temporary file (memory stays bounded whatever the import's size), and
    deleted after; the views are the same."""
    from projections.views import held as holding

    made: list[Any] = []
    projector = runner.Projector

    def spy(*args: Any, **kwargs: Any) -> Any:
        made.append(projector(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(runner, "WHOLE_AFTER", 2)
    monkeypatch.setattr(runner, "PAGE", 3)
    monkeypatch.setattr(holding, "BUDGET", 2)
    monkeypatch.setattr(runner, "Projector", spy)
    files: list[Any] = []
    opened = tempfile.TemporaryFile

    def spill_file(**kwargs: Any) -> Any:
        made_file = opened(**kwargs)
        if kwargs.get("prefix") == "ledger-rebuild-":  # (the timelines' spill)
            files.append(made_file)
        return made_file

    # (the module ``held`` loads when it first spills: patched where it is)
    monkeypatch.setattr(tempfile, "TemporaryFile", spill_file)
    b = Builder()
    b.ladder("Club")
    b.player(*NAMES)
    for i in range(5):
        b.game("Club", date(2025, 1, 9 - i), NAMES[i], NAMES[i + 1], sequence=1)
    conn = b.views()
    held = made[-1].entries
    assert held is not None and len(files) == 1  # spilled
    assert files[0].closed and held._runs == {}  # and deleted
    assert made[-1].affected  # its ladder replayed
    monkeypatch.setattr(holding, "BUDGET", 1_000)
    fresh = views.in_memory(b.recorder)
    assert verify.rows(fresh, "view_history")
    assert verify.compare_views(conn, fresh) == []


def test_a_first_import_replays_and_warns_only_the_ladders_it_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ladder the import does not touch is not replayed: its rulesets'
    maths-version warnings are not the import's to print."""
    replayed: list[int] = []
    replay_ladder = views.ladder_replay.replay_ladder

    def spy(store: LadderStore, *args: Any, **kwargs: Any) -> Any:
        replayed.append(store.ladder)
        return replay_ladder(store, *args, **kwargs)

    monkeypatch.setattr(runner, "WHOLE_AFTER", 5)
    monkeypatch.setattr(views.ladder_replay, "replay_ladder", spy)
    b = Builder()
    b.ladder("Club")
    b.ladder("Old", BUMPED, {"k": 20}, family_version=1)  # older maths: a warning
    b.player(*NAMES)
    conn = b.views()
    replayed.clear()
    for i in range(8):
        b.game("Club", date(2025, 1, 1 + i), NAMES[i % 6], NAMES[(i + 1) % 6], sequence=1)
    report = views.catch_up_report(conn, b.recorder)
    assert report.applied == 8
    assert report.warnings == []
    assert replayed == [conn.execute("SELECT n FROM view_ladders WHERE name='Club'").fetchone()[0]]
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)

    # A game of that ladder in the next long catch-up replays it, and warns.
    for i in range(6):
        b.game("Old", date(2025, 2, 1 + i), NAMES[i], NAMES[(i + 1) % 6], sequence=1)
    conn = views.connect(SQLiteDatabase(":memory:"))
    report = views.catch_up_report(conn, b.recorder)  # every event: held whole
    assert [w.split(":")[0] for w in report.warnings] == ["ladder 'Old'"]


def _indexes(conn: Any) -> list[str]:
    return sorted(
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND name LIKE 'view%'"
        )
    )


def test_a_first_import_builds_the_indexes_once_its_tables_are_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Filled as a rebuild fills them: the secondary indexes are dropped
    while the rows go in and built after, so the views end with every one
    (and the lookups along them give what a rebuild's do)."""
    monkeypatch.setattr(runner, "WHOLE_AFTER", 5)
    b = Builder()
    b.ladder("Club")
    b.player(*NAMES)
    conn = b.views()
    every = _indexes(conn)
    assert "view_games_key" in every and "view_history_last" in every
    games = [
        b.game("Club", date(2025, 1, 1 + i), NAMES[i % 6], NAMES[(i + 1) % 6], sequence=1)
        for i in range(8)
    ]
    assert views.catch_up(conn, b.recorder) == 8
    assert _indexes(conn) == every == _indexes(views.in_memory(b.recorder))
    found = conn.execute(
        "SELECT gid FROM view_games INDEXED BY view_games_key WHERE ladder=? AND key>=? "
        "ORDER BY key DESC, gid DESC LIMIT 1",
        (conn.execute("SELECT n FROM view_ladders").fetchone()[0], "2025-01-08"),
    ).fetchone()
    assert found is not None and bytes(found[0]) == games[-1].bytes


#: The look for a player's last chunk to continue (``history.Rows``).
_CONTINUE = "ORDER BY first DESC LIMIT 1"


@pytest.mark.parametrize("first_import", [True, False])
def test_a_ladder_replayed_from_nothing_never_looks_for_a_chunk_to_continue(
    monkeypatch: pytest.MonkeyPatch, first_import: bool
) -> None:
    """A replay from the ladder's first entry (a first import, a correction
    of its first game) drops every chunk of the ladder, then writes its rows
    as a rebuild does: no per-player look for a stored chunk (during a
    first import the chunks' indexes are dropped, and each look scanned the
    table). The views are still those a rebuild gives."""
    monkeypatch.setattr(runner, "WHOLE_AFTER", 5 if first_import else 10_000)
    b = Builder()
    b.ladder("Club")
    b.player(*NAMES)
    conn = b.views()
    first = b.game("Club", date(2025, 1, 1), "Ann", "Ben", sequence=1)
    for i in range(1, 10):
        b.game("Club", date(2025, 1, 1 + i), NAMES[i % 6], NAMES[(i + 1) % 6], sequence=1)
    if not first_import:
        views.catch_up(conn, b.recorder)  # rows stored: the correction replays them
        b.correct(first, result={"result": "draw"})
    looks: list[str] = []
    execute = type(conn).execute

    def spy(self: SQLiteDatabase, sql: str, params: Any = ()) -> Any:
        if _CONTINUE in sql and "view_history_chunks" in sql:
            looks.append(sql)
        return execute(self, sql, params)

    monkeypatch.setattr(type(conn), "execute", spy)
    assert views.catch_up(conn, b.recorder) >= 1
    assert looks == []
    monkeypatch.undo()
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)
