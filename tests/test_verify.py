"""``ledger verify``, ``audit --head`` and ``rebuild`` end to end, on SQLite
and PostgreSQL: an untouched ledger verifies; a published head is checked;
an event row changed or deleted behind the ledger's back is named by its
sequence number; a view row edited by hand is named by its table, and a
rebuild repairs it without changing any standing or history.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

import msgspec
import pytest

from ledger.kernel import chain
from projections import verify as verify_mod
from projections import views
from projections.db import Database, SQLiteDatabase
from tests.conftest import Cli
from tests.read_side.ledger_builder import Builder

HEX64 = re.compile(r"[0-9a-f]{64}")
PLAYERS = ("Ann", "Ben", "Cat")


@dataclass
class Ledger:
    """The small ledger every test starts from."""

    cli: Cli
    games: dict[str, str]  # label -> short id


def record(cli: Cli, on: str, a: str, b: str, result: str) -> str:
    out = cli.ok("record", "Club", "--date", on, "--side", a, "--side", b, "--result", result)
    match = re.fullmatch(r"Recorded game ([0-9a-f]{8})\.\n(  .*\n)*", out)  # then its changes
    assert match, out
    return match.group(1)


def build(cli: Cli) -> Ledger:
    """Three games and a correction: 9 events."""
    cli.ok("ladder", "open", "Club", "--family", "elo", "--set", "k=24")
    cli.ok("player", "add", *PLAYERS)
    games = {
        "g1": record(cli, "2025-01-01", "Ann", "Ben", "a"),
        "g2": record(cli, "2025-01-02", "Ben", "Cat", "draw"),
        "g3": record(cli, "2025-01-03", "Cat", "Ann", "b"),
    }
    cli.ok("correct", games["g1"], "--result", "b", "--reason", "sheet misread")
    return Ledger(cli, games)


@pytest.fixture
def ledger(cli: Cli) -> Ledger:
    return build(cli)


def events(cli: Cli) -> list[tuple[int, str, str]]:
    """Every stored event as (sequence, topic, state as text), in order."""
    if cli.postgres:
        query = (
            "SELECT notification_id, topic, convert_from(state, 'UTF8') "
            f"FROM {cli.events_table} ORDER BY notification_id"
        )
    else:
        query = f"SELECT rowid, topic, CAST(state AS TEXT) FROM {cli.events_table} ORDER BY rowid"
    return [(int(seq), topic, state) for seq, topic, state in cli.sql(query)]


def recorded_event(cli: Cli, short_id: str) -> tuple[int, str]:
    """(sequence, state) of the GameRecorded event of a game."""
    found = [
        (seq, state)
        for seq, topic, state in events(cli)
        if topic == "ledger:GameRecorded"
        and msgspec.json.decode(state)["originator_id"].replace("-", "").startswith(short_id)
    ]
    assert len(found) == 1, found
    return found[0]


def where_seq(cli: Cli, seq: int) -> str:
    return f"notification_id = {seq}" if cli.postgres else f"rowid = {seq}"


def replace_in_state(cli: Cli, seq: int, old: str, new: str) -> None:
    """Edit a stored event's state in place (as an attacker with SQL would)."""
    quoted_old, quoted_new = old.replace("'", "''"), new.replace("'", "''")
    if cli.postgres:
        value = (
            f"convert_to(replace(convert_from(state, 'UTF8'), '{quoted_old}', "
            f"'{quoted_new}'), 'UTF8')"
        )
    else:
        value = f"CAST(replace(CAST(state AS TEXT), '{quoted_old}', '{quoted_new}') AS BLOB)"
    cli.sql(f"UPDATE {cli.events_table} SET state = {value} WHERE {where_seq(cli, seq)}")


def verify(cli: Cli, *args: str) -> tuple[int, dict]:
    """Run ``verify --format json``; returns (exit code, report)."""
    result = cli.run("verify", *args, "--format", "json")
    report = msgspec.json.decode(result.output)
    assert isinstance(report, dict), result.output
    return result.exit_code, report


def snapshot(cli: Cli) -> tuple[object, dict[str, object]]:
    """Standings and every player's history, as JSON."""
    return cli.json("standings", "Club"), {p: cli.json("history", "Club", p) for p in PLAYERS}


def number(pid: str) -> str:
    """The views' number of a player, as SQL."""
    return f"(SELECT n FROM view_players WHERE id = '{pid}')"


def ann_id(cli: Cli) -> str:
    rows = cli.json("player", "list")
    assert isinstance(rows, list)
    return next(r["id"] for r in rows if r["name"] == "Ann")


# -- an untouched ledger ---------------------------------------------------------
def test_untouched_ledger_verifies(ledger: Ledger) -> None:
    cli = ledger.cli
    result = cli.run("verify")
    assert result.exit_code == 0, result.output
    assert "OK" in result.output
    assert "PROBLEM" not in result.output
    assert "Events chained: 9\n" in result.output
    code, report = verify(cli)
    assert code == 0
    assert report["problems"] == []
    assert report["events"] == 9 == len(events(cli))
    assert HEX64.fullmatch(report["head"])
    assert HEX64.fullmatch(report["views_checksum"])


def test_audit_head_is_published_and_checked(ledger: Ledger) -> None:
    cli = ledger.cli
    head = cli.ok("audit", "--head").strip()
    assert HEX64.fullmatch(head), head
    assert head != "0" * 64
    code, report = verify(cli)
    assert report["head"] == head
    as_json = cli.json("audit", "--head")
    assert as_json == {"events": 9, "head": head}

    assert "OK" in cli.ok("verify", "--head", head)

    for bogus in ("0" * 64, "ab" * 32, head[:-1] + ("0" if head[-1] != "0" else "1")):
        out = cli.fails("verify", "--head", bogus)
        assert f"the published head {bogus} is not a link" in out
        assert "OK" not in out

    # A head published earlier stays a link of the chain as the ledger grows.
    record(cli, "2025-01-04", "Ann", "Ben", "draw")
    new_head = cli.ok("audit", "--head").strip()
    assert new_head != head
    assert "OK" in cli.ok("verify", "--head", head)
    assert "OK" in cli.ok("verify", "--head", new_head)


def test_audit_head_of_an_empty_ledger_is_genesis(cli: Cli) -> None:
    cli.ok("project")  # a query creates no ledger (issue 26): 'project' creates an empty one
    assert cli.ok("audit", "--head").strip() == "0" * 64


# -- tampering with the event log ------------------------------------------------
def test_changed_event_is_named_by_its_sequence(ledger: Ledger) -> None:
    cli = ledger.cli
    seq, state = recorded_event(cli, ledger.games["g3"])
    assert '"result":"b"' in state
    replace_in_state(cli, seq, '"result":"b"', '"result":"a"')
    assert '"result":"a"' in recorded_event(cli, ledger.games["g3"])[1]

    out = cli.fails("verify")
    assert f"PROBLEM: event {seq} (ledger:GameRecorded" in out
    assert "changed after it was recorded" in out
    assert "OK" not in out
    code, report = verify(cli)
    assert code != 0
    assert report["problems"][0].startswith(f"event {seq} ")
    # No other event is blamed for the chain.
    assert not any(
        p.startswith("event ") and not p.startswith(f"event {seq} ") for p in report["problems"]
    )


def test_changed_first_event_is_named(ledger: Ledger) -> None:
    cli = ledger.cli
    seq, topic, state = events(cli)[0]
    assert topic == "ledger:LadderOpened" and '"name":"Club"' in state
    replace_in_state(cli, seq, '"name":"Club"', '"name":"Clvb"')
    code, report = verify(cli)
    assert code != 0
    assert report["problems"][0].startswith(f"event {seq} (ledger:LadderOpened")


@pytest.mark.parametrize("which", ["first", "middle", "last"])
def test_deleted_event_is_named(ledger: Ledger, which: str) -> None:
    cli = ledger.cli
    stored = events(cli)
    seq, topic = {
        "first": stored[0][:2],
        "middle": (recorded_event(cli, ledger.games["g2"])[0], "ledger:GameRecorded"),
        "last": stored[-1][:2],
    }[which]
    assert topic == {"first": "ledger:LadderOpened", "middle": "ledger:GameRecorded",
                     "last": "ledger:GameCorrected"}[which]  # fmt: skip
    head = cli.ok("audit", "--head").strip()
    cli.sql(f"DELETE FROM {cli.events_table} WHERE {where_seq(cli, seq)}")
    assert len(events(cli)) == len(stored) - 1

    out = cli.fails("verify", "--head", head)
    assert f"PROBLEM: event {seq} is in the hash chain but missing from the event store" in out
    assert "OK" not in out
    code, report = verify(cli)
    assert code != 0
    chain_problems = [p for p in report["problems"] if p.startswith("event ")]
    # The deleted event is named, and no event after it is blamed instead.
    assert len(chain_problems) == 1, chain_problems
    assert chain_problems[0].startswith(f"event {seq} is in the hash chain but missing")
    # The views no longer match the events either.
    assert any(p.startswith("view_") for p in report["problems"])


# -- tampering with the views ----------------------------------------------------
def test_edited_view_is_named_and_rebuild_repairs_it(ledger: Ledger) -> None:
    cli = ledger.cli
    before = snapshot(cli)
    _, clean = verify(cli)
    pid = ann_id(cli)
    cli.sql(f"UPDATE view_standings SET rating = rating + 1 WHERE player = {number(pid)}")
    edited = cli.json("standings", "Club")
    assert edited != before[0]

    out = cli.fails("verify")
    assert "PROBLEM: view_standings" in out
    assert pid in out
    code, report = verify(cli)
    assert code != 0
    assert len(report["problems"]) == 1
    assert report["problems"][0].startswith("view_standings row ")
    # The event log itself is intact, and the rebuilt views have not changed.
    assert report["head"] == clean["head"]
    assert report["views_checksum"] == clean["views_checksum"]

    assert "Rebuilt the views from 9 events." in cli.ok("rebuild")
    assert "OK" in cli.ok("verify")
    assert snapshot(cli) == before


def test_edited_history_row_is_named(ledger: Ledger) -> None:
    cli = ledger.cli
    pid = ann_id(cli)
    # Ann's packed history swapped for another player's (the same length).
    cli.sql(
        "UPDATE view_history_chunks SET data = (SELECT data FROM view_history_chunks o "
        f"WHERE o.player <> {number(pid)} ORDER BY o.player LIMIT 1) WHERE player = {number(pid)}"
    )
    code, report = verify(cli)
    assert code != 0
    assert report["problems"][0].startswith("view_history row ")
    cli.ok("rebuild")
    assert verify(cli)[0] == 0


def test_deleted_view_row_is_named(ledger: Ledger) -> None:
    cli = ledger.cli
    cli.sql(f"DELETE FROM view_standings WHERE player = {number(ann_id(cli))}")
    code, report = verify(cli)
    assert code != 0
    assert any(p.startswith("view_standings ") for p in report["problems"])
    cli.ok("rebuild")
    assert verify(cli)[0] == 0


def test_rebuild_keeps_standings_history_and_head(ledger: Ledger) -> None:
    cli = ledger.cli
    cli.ok("adjust", "Club", "Cat", "--to", "1600", "--date", "2025-01-02", "--reason", "appeal")
    cli.ok("void", ledger.games["g2"], "--reason", "wrong lists")
    cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    before = snapshot(cli)
    head = cli.ok("audit", "--head").strip()
    audit = cli.json("audit")
    _, report = verify(cli)
    assert report["problems"] == []

    assert "Rebuilt the views from 12 events." in cli.ok("rebuild")
    assert snapshot(cli) == before
    assert cli.ok("audit", "--head").strip() == head
    assert cli.json("audit") == audit
    code, again = verify(cli, "--head", head)
    assert code == 0
    assert again["views_checksum"] == report["views_checksum"]


# -- the chain check and the views, without the CLI ------------------------------
def chained_ledger(skip: frozenset[int] = frozenset()) -> tuple[Database, Builder]:
    """A small ledger in memory whose links are written as the event store's
    recorder writes them (``ledger.kernel.chain.link`` from the last link), except
    for the events at the positions in ``skip``; returns (views, builder)."""
    b = Builder()
    b.player("Ann", "Ben")
    b.ladder("Club")
    b.game("Club", date(2025, 1, 1), "Ann", "Ben")
    b.game("Club", date(2025, 1, 2), "Ben", "Ann")
    conn = views.connect(SQLiteDatabase(":memory:"))
    previous = chain.GENESIS
    for page in views.pages(b.recorder):
        for note in page:
            if note.id in skip:
                continue
            previous = chain.link(previous, note)
            conn.execute(f"INSERT INTO {chain.TABLE} VALUES (?, ?)", (note.id, previous))
    views.catch_up(conn, b.recorder)
    return conn, b


def test_a_fully_chained_ledger_verifies_without_the_cli() -> None:
    conn, b = chained_ledger()
    report = verify_mod.verify(conn, b.recorder)
    assert report.ok, report.problems
    assert report.events == b.recorder.max_notification_id() == 6
    assert report.warnings == []


def test_every_event_without_its_link_is_a_problem() -> None:
    conn, b = chained_ledger(skip=frozenset({2, 5}))
    problems = verify_mod.check_chain(conn, b.recorder, None)
    assert problems == [
        "event 2 (ledger:PlayerRegistered) is not in the hash chain",
        "event 5 (ledger:GameRecorded) is not in the hash chain",
    ]


def test_catch_up_and_rebuild_never_write_links() -> None:
    conn, b = chained_ledger(skip=frozenset(range(1, 7)))
    assert chain.head(conn) == (0, chain.GENESIS)
    assert views.rebuild(conn, b.recorder) == 6
    assert conn.execute(f"SELECT COUNT(*) FROM {chain.TABLE}").fetchone()[0] == 0
    report = verify_mod.verify(conn, b.recorder)
    assert len([p for p in report.problems if "not in the hash chain" in p]) == 6


def test_a_broken_ladder_is_a_verify_problem_not_a_crash() -> None:
    conn, b = chained_ledger()
    b.ladder("Skirmish", "tests.read_side.test_ladder_problems:PointsElo")
    b.game("Skirmish", date(2025, 5, 2), "Ben", "Ann")
    views.catch_up(conn, b.recorder)
    report = verify_mod.verify(conn, b.recorder)
    ladder_problems = [p for p in report.problems if p.startswith("ladder 'Skirmish'")]
    assert len(ladder_problems) == 1
    assert "needs --attr points_a=N" in ladder_problems[0]
    # The views themselves match a rebuild: only the ladder and the new
    # events' missing links are named.
    assert not any(p.startswith("view_") for p in report.problems)
