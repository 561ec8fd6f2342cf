"""A large import in bounded memory: rows are checked once, kept in
their stored form in a temporary file, then appended in batches inside one
transaction; the shortcuts on the way give exactly what the plain path gives."""

from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path
from typing import Any
from uuid import uuid4, uuid5

import msgspec
import pytest
from eventsourcing.persistence import StoredEvent

from ledger.kernel import chain
from ledger.kernel import events as ev
from ledger.kernel.errors import Invalid
from ledger.kernel.identity import NAMESPACE, game_id
from ledger.sheets.importer import import_sheet
from ledger.write.application import LedgerApplication
from ledger.write.commands import Commands
from ledger.write.game_input import GameChecks, PlayerBook
from ledger.write.spill import EventSpill
from ledger.write.storage import resolve
from tests.conftest import Cli
from tests.test_import_csv import open_club, sheet

pytestmark = pytest.mark.conformance

HEADER = "ladder,date,event,round,table,side_a,side_b,result"
PLAYERS = [f"Player {n}" for n in range(8)]


def rows(count: int) -> list[str]:
    """``count`` games among ``PLAYERS``, a few per round, some with tables."""
    out = []
    for n in range(count):
        a, b = PLAYERS[n % 8], PLAYERS[(n * 3 + 1) % 8]
        if a == b:
            b = PLAYERS[(n + 1) % 8]
        day = 1 + n // 6
        table = str(n % 3 + 1) if n % 4 == 0 else ""
        result = ("a", "b", "draw")[n % 3]
        out.append(f"Club,2025-01-{day:02d},Cup,{n % 2 + 1},{table},{a},{b},{result}")
    return out


def app_of(cli: Cli) -> LedgerApplication:
    return LedgerApplication(env=resolve(cli.db, cli.schema).app_env())


def stored_games(cli: Cli) -> list[tuple[Any, ...]]:
    """Every stored game's facts, in store order (ids and sequence included)."""
    app = app_of(cli)
    return [
        (e.originator_id, e.originator_version, msgspec.to_builtins(e.game), e.source)
        for e in (app.mapper.to_domain_event(n) for n in app.notifications())
        if type(e).__name__ == "GameRecorded"
    ]


def test_game_ids_are_uuid5_of_the_identity() -> None:
    for identity in ("", "a|2025-01-01|||", "é|x" * 40):
        for attempt in (0, 1, 7):
            suffix = f"#{attempt}" if attempt else ""
            assert game_id(identity, attempt) == uuid5(NAMESPACE, f"game:{identity}{suffix}")


def test_a_chain_link_hashes_each_part_then_the_state() -> None:
    for state in (b'{"a":1}', '{"x":"\u00e9"}', memoryview(b"abc")):
        event = StoredEvent(originator_id=uuid4(), originator_version=3, topic="t:X", state=state)
        h = hashlib.sha256()
        for part in ("f" * 64, "t:X", str(event.originator_id), "3"):
            h.update(part.encode() + b"\x00")
        h.update(state.encode() if isinstance(state, str) else bytes(state))
        assert chain.link("f" * 64, event) == h.hexdigest()


def test_a_chain_link_from_parts_is_the_link_of_the_stored_event() -> None:
    """An import chains rows (id as 32 hex digits) without making events:
    the link is the one ``ledger verify`` computes from the event read back."""
    from ledger.write.recorders import chain_rows, event_rows

    events = [
        StoredEvent(originator_id=uuid4(), originator_version=v, topic="t:X", state=b'{"n":%d}' % v)
        for v in (1, 2, 3)
    ]
    previous, expected = "0" * 64, []
    for event in events:
        previous = chain.link(previous, event)
        expected.append(previous)
    rows = chain_rows("0" * 64, [7, 8, 9], event_rows(events))
    assert rows == list(zip([7, 8, 9], expected, strict=True))


def test_a_second_sheet_continues_each_rounds_order_of_play(cli: Cli, tmp_path: Path) -> None:
    """The write index takes each round's last number from the import: a
    later sheet and a later ``record`` continue after it, a table number
    above it raises it, and one below it does not lower it."""
    open_club(cli)
    first = sheet(tmp_path, "one.csv", HEADER, *[
        f"Club,2025-02-01,Cup,1,,{PLAYERS[n]},{PLAYERS[n + 4]},a" for n in range(3)
    ])  # fmt: skip
    assert "added 3 games" in cli.ok("import", str(first))
    second = sheet(tmp_path, "two.csv", HEADER,
                   f"Club,2025-02-01,Cup,1,,{PLAYERS[3]},{PLAYERS[7]},b",
                   f"Club,2025-02-01,Cup,1,9,{PLAYERS[0]},{PLAYERS[5]},draw",
                   f"Club,2025-02-01,Cup,1,2,{PLAYERS[1]},{PLAYERS[6]},draw")  # fmt: skip
    assert "added 3 games" in cli.ok("import", str(second))
    cli.ok("record", "Club", "--date", "2025-02-01", "--event", "Cup", "--round", "1",
           "--side", PLAYERS[2], "--side", PLAYERS[7], "--result", "a")  # fmt: skip
    assert [g[2]["sequence"] for g in stored_games(cli)] == [1, 2, 3, 4, 9, 2, 10]
    assert "OK" in cli.ok("verify")


def test_batches_store_what_one_append_stores(
    tmp_path: Path, make_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches of 7 events give the same store as one batch: the same events,
    a chain that verifies, the rounds' last numbers. One batch keeps the
    sheet's order; each batch of 7 is stored in id order (``spill``)."""
    path = sheet(tmp_path, "big.csv", HEADER, *rows(40))
    stores = []
    for batch in (7, 100_000):
        monkeypatch.setattr(EventSpill, "BATCH", batch)
        cli = make_cli(f"batch{batch}")
        open_club(cli)
        out = cli.ok("import", str(path))
        assert "added 40 games" in out
        assert "OK" in cli.ok("verify")
        stores.append(stored_games(cli))
        # The write index knows each round's last number: a new game of a
        # round follows it.
        cli.ok("record", "Club", "--date", "2025-01-01", "--event", "Cup", "--round", "1",
               "--side", "Player 0", "--side", "Player 7", "--result", "a")  # fmt: skip
        last = stored_games(cli)[-1][2]
        assert last["sequence"] == 1 + max(
            g[2]["sequence"]
            for g in stores[-1]
            if g[2]["date"] == "2025-01-01" and g[2]["round"] == 1
        )
    assert [g[3].row for g in stores[1]] == list(range(2, 42))  # one batch: sheet order
    blocks = [[g[0] for g in stores[0][start : start + 7]] for start in range(0, 40, 7)]
    assert all(block == sorted(block) for block in blocks)
    assert sorted(stores[0], key=_id) == sorted(stores[1], key=_id)


def _id(game: tuple[Any, ...]) -> Any:
    return game[0]


def test_a_failure_in_a_later_batch_stores_nothing(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All or nothing across batches: the append dies after two batches were
    written; nothing of the import is stored."""
    open_club(cli)
    before = cli.event_count()
    monkeypatch.setattr(EventSpill, "BATCH", 5)
    real = EventSpill.read

    def failing(self: EventSpill) -> Any:
        for n, batch in enumerate(real(self)):
            if n == 2:
                raise RuntimeError("disk full")
            yield batch

    monkeypatch.setattr(EventSpill, "read", failing)
    path = sheet(tmp_path, "big.csv", HEADER, *rows(30))
    app = app_of(cli)
    with pytest.raises(RuntimeError, match="disk full"):
        import_sheet(Commands(app, by="tester"), path)
    assert cli.event_count() == before
    monkeypatch.setattr(EventSpill, "read", real)
    assert "added 30 games" in cli.ok("import", str(path))
    assert "OK" in cli.ok("verify")


def test_a_bad_last_row_stores_nothing_and_keeps_no_file(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_club(cli)
    spills: list[EventSpill] = []
    real = EventSpill.__init__

    def kept(self: EventSpill) -> None:
        real(self)
        spills.append(self)

    monkeypatch.setattr(EventSpill, "__init__", kept)
    path = sheet(tmp_path, "bad.csv", HEADER, *rows(20), "Club,2025-13-01,,,,Player 1,Player 2,a")
    before = cli.event_count()
    with pytest.raises(Invalid, match=r"row 22, column date"):
        import_sheet(Commands(app_of(cli), by="tester"), path)
    assert cli.event_count() == before
    assert spills and all(s.closed for s in spills)


def test_a_dry_run_returns_its_events_and_an_import_none(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "s.csv", HEADER, *rows(10))
    commands = Commands(app_of(cli), by="tester")
    dry = import_sheet(commands, path, dry_run=True)
    assert len(dry.events) == 10 + len(PLAYERS)
    assert dry.report.added == 10
    done = import_sheet(commands, path)
    assert done.events == []
    assert (done.report.added, done.report.rows) == (10, 10)
    stored = [g[2] for g in stored_games(cli)]
    previewed = [msgspec.to_builtins(e.game) for e in dry.events[len(PLAYERS) :]]
    assert stored == previewed


def test_remembered_checks_give_what_a_full_check_gives(cli: Cli) -> None:
    """A built-in family's verdict is reused for a game of the same shape and
    result (normalised alike, a copy each time); a bad result is refused each
    time; a subclass of a built-in family is never remembered."""
    open_club(cli)
    app = app_of(cli)
    commands = Commands(app, by="tester")
    ladder = app.ladder("Club")
    checks = GameChecks()
    book = PlayerBook(app, add_players=True)
    facts = [
        ev.GameFacts(
            ladder=ladder.id,
            date=date(2025, 1, day),
            sides=[[book.resolve(a, "side_a")], [book.resolve(b, "side_b")]],
            result={"result": result},
        )
        for day, a, b, result in [
            (1, "Ann", "Bob", "A"),
            (2, "Cid", "Dee", "A"),
            (3, "Ann", "Dee", "draw"),
            (4, "Bob", "Cid", "a"),
        ]
    ]
    plain = [commands.check_game(ladder, f) for f in facts]
    remembered = [commands.check_game(ladder, f, checks) for f in facts]
    assert plain == remembered
    assert remembered[0].result is not remembered[1].result
    bad = msgspec.structs.replace(facts[0], result={"result": "z"})
    for _ in range(2):
        with pytest.raises(Invalid):
            commands.check_game(ladder, bad, checks)
    family = ladder.family_on(facts[0].date)

    class Own(type(family)):  # type: ignore[misc]
        pass

    own = Own.__new__(Own)
    assert checks.result_key(own, facts[0]) is None
    assert checks.result_key(family, facts[0]) is not None


def test_record_and_import_store_a_game_alike(tmp_path: Path, make_cli: Any) -> None:
    """``ledger record`` and ``ledger import`` record games along one path:
    the same ids, facts and order of play, the same write index."""
    games = [("Player 0", "Player 1", "a"), ("Player 2", "Player 3", "b"), ("Player 0", "Player 2", "draw")]  # fmt: skip
    path = sheet(tmp_path, "s.csv", HEADER,
                 *[f"Club,2025-02-01,Cup,1,,{a},{b},{r}" for a, b, r in games])  # fmt: skip
    recorded, imported = make_cli("recorded"), make_cli("imported")
    for cli in (recorded, imported):
        open_club(cli)
    for a, b, result in games:
        recorded.ok("record", "Club", "--date", "2025-02-01", "--event", "Cup", "--round", "1",
                    "--side", a, "--side", b, "--result", result, "--add-players")  # fmt: skip
    imported.ok("import", str(path))
    stores = [[g[:3] for g in stored_games(cli)] for cli in (recorded, imported)]
    assert stores[0] == stores[1]
    assert [g[2]["sequence"] for g in stores[1]] == [1, 2, 3]
    for table in ("ledger_rounds", "ledger_names"):
        query = f"SELECT * FROM {table} ORDER BY 1"
        assert recorded.sql(query) == imported.sql(query)


def test_a_new_sqlite_ledger_has_large_pages_and_an_old_one_keeps_its_own(
    tmp_path: Path,
) -> None:
    """A new SQLite ledger is made with ``SQLITE_PAGE_SIZE`` pages (in WAL
    mode, as eventsourcing makes it); a ledger made with SQLite's default
    pages keeps them, and imports and verifies as before."""
    import sqlite3
    from contextlib import closing

    from ledger.write.storage import SQLITE_PAGE_SIZE

    old = tmp_path / "old.db"
    with closing(sqlite3.connect(old)) as conn:
        conn.execute("PRAGMA page_size = 4096")
        conn.execute("PRAGMA journal_mode = WAL")
    for path, pages in ((tmp_path / "new.db", SQLITE_PAGE_SIZE), (old, 4096)):
        app = LedgerApplication(env=resolve(str(path)).app_env())
        commands = Commands(app, by="tester")
        commands.open_ladder("Club", "elo", {})
        plan = import_sheet(commands, sheet(tmp_path, "s.csv", HEADER, *rows(30)))
        assert plan.report.added == 30
        app.close()
        with closing(sqlite3.connect(path)) as conn:
            assert conn.execute("PRAGMA page_size").fetchone()[0] == pages
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            counts = [conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                      for t in ("stored_events", "ledger_chain")]  # fmt: skip
            assert counts == [2 + 8 + 30] * 2  # the ladder, its players, the games


def test_a_query_on_an_empty_file_leaves_it_empty(tmp_path: Path) -> None:
    """Only a command that records makes a ledger of a file: a query refuses
    an empty one and writes nothing to it (not even its page size)."""
    from ledger.kernel.errors import NotFound

    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(NotFound):
        resolve(str(empty), create=False)
    assert empty.stat().st_size == 0
