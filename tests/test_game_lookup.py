"""A game is found by its id or a prefix of it through the event store's own
index: the views keep no id of a game (it ends the game's key), so
``explain`` finds a game the views number, on every backend, and in views
built in memory (time travel) too."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from ledger.write.application import LedgerApplication
from ledger.write.storage import resolve
from projections import verify, views
from projections.db import PostgresDatabase, SQLiteDatabase
from projections.views import games
from tests.conftest import Cli

pytestmark = pytest.mark.conformance


def club(cli: Cli) -> list[str]:
    """A ladder of three games; their ids as ``record`` prints them (short)."""
    cli.ok("ladder", "open", "Club", "--family", "elo", "--set", "k=20")
    cli.ok("player", "add", "Ann", "Bob", "Cat")
    shorts = []
    for on, a, b in (("2025-01-05", "Ann", "Bob"), ("2025-01-06", "Bob", "Cat"),
                     ("2025-01-07", "Cat", "Ann")):  # fmt: skip
        out = cli.ok("record", "Club", "--date", on, "--side", a, "--side", b, "--result", "a")
        shorts.append(out.split()[2].rstrip("."))
    return shorts


def test_the_views_keep_no_id_of_a_game(cli: Cli) -> None:
    club(cli)
    columns = (
        [
            r[0]
            for r in cli.sql(
                "SELECT column_name FROM information_schema.columns WHERE table_name='view_games' "
                "AND table_schema = current_schema()"
            )
        ]  # fmt: skip
        if cli.postgres
        else [r[1] for r in cli.sql("PRAGMA table_info(view_games)")]
    )
    assert "key" in columns and "id" not in columns


def test_a_game_is_found_by_its_short_id_its_prefix_and_its_id(cli: Cli) -> None:
    shorts = club(cli)
    for ref in (shorts[1], shorts[1][:5]):
        out = cli.ok("explain", ref)
        assert "Bob" in out and "Cat" in out and "2025-01-06" in out
    (gid,) = [
        r[0]
        for r in cli.sql(
            f"SELECT originator_id FROM {cli.events_table} WHERE originator_version = 1 "
            f"AND topic LIKE '%GameRecorded%'"
        )
        if str(r[0]).replace("-", "").startswith(shorts[1])
    ]
    hexed = str(gid).replace("-", "")
    full = f"{hexed[:8]}-{hexed[8:12]}-{hexed[12:16]}-{hexed[16:20]}-{hexed[20:]}"
    assert "2025-01-06" in cli.ok("explain", full)
    assert "2025-01-06" in cli.ok("explain", full.upper())


def test_an_unknown_or_mistyped_id_is_refused_with_the_ids_near_it(cli: Cli) -> None:
    shorts = club(cli)
    assert "unknown game" in cli.fails("explain", "zzzzzzzz")
    mistyped = shorts[0][:4] + ("0" if shorts[0][4] != "0" else "1") + shorts[0][5:]
    message = cli.fails("explain", mistyped)
    assert "unknown game" in message and shorts[0] in message


def test_views_in_memory_find_a_game_by_prefix_as_views_beside_the_events_do(
    tmp_path: Path,
) -> None:
    # A SQLite file's views against views in memory of the same events.
    cli = Cli(str(tmp_path / "ledger.db"))
    shorts = club(cli)
    beside = SQLiteDatabase(cli.db)
    assert beside.events_beside() == "stored_events"
    app = LedgerApplication(env=resolve(cli.db).app_env())
    memory = views.in_memory(app.recorder)
    assert memory.events_beside() is None  # keys scanned instead
    for ref in (*shorts, shorts[2][:3]):
        assert games.by_ref(memory, ref)["id"] == games.by_ref(beside, ref)["id"]
        assert games.by_ref(memory, ref)["id"].replace("-", "").startswith(ref)
    assert games.ids(memory) == games.ids(beside)


def test_verify_names_each_compared_column_of_a_game(cli: Cli) -> None:
    club(cli)
    conn = PostgresDatabase(cli.db, cli.schema) if cli.schema else SQLiteDatabase(cli.db)
    try:
        rows = verify.rows(conn, "view_games")
    finally:
        conn.close()
    names = verify.column_names("view_games")
    assert len(rows) == 3 and len(names) == len(rows[0])
    assert dict(zip(names, rows[0], strict=True))["key"].endswith(rows[0][0].replace("-", ""))


def _columns(cli: Cli, table: str) -> list[str]:
    if cli.postgres:
        return [
            r[0]
            for r in cli.sql(
                "SELECT column_name FROM information_schema.columns "
                f"WHERE table_name='{table}' AND table_schema = current_schema()"
            )
        ]
    return [r[1] for r in cli.sql(f"PRAGMA table_info({table})")]


def _connect(cli: Cli) -> PostgresDatabase | SQLiteDatabase:
    return PostgresDatabase(cli.db, cli.schema) if cli.schema else SQLiteDatabase(cli.db)


def test_the_views_keep_no_copy_of_a_games_facts(cli: Cli) -> None:
    # A game corrected: what every reader shows is read from the events (the
    # correction's for the game now, the first record's for its first line).
    shorts = club(cli)
    cli.ok("correct", shorts[0], "--result", "b", "--table", "4", "--reason", "misread")
    assert "facts_n" in _columns(cli, "view_games")
    assert not {"facts", "first_facts"} & set(_columns(cli, "view_games"))
    assert "facts" not in _columns(cli, "view_audit")
    # The game's facts are the correction's event's: its position is kept.
    (corrected,) = cli.sql(
        f"SELECT {'notification_id' if cli.postgres else 'rowid'} FROM {cli.events_table} "
        "WHERE topic LIKE '%GameCorrected%'"
    )
    found = cli.sql("SELECT n, facts_n FROM view_games WHERE facts_n <> n")
    assert [r[1] for r in found] == [corrected[0]]
    # Shown everywhere from the events: history, explain, export, the audit.
    ann = cli.json("history", "Club", "Ann")
    first = next(line for line in ann if line["game"] == shorts[0])
    assert (first["result"], first["table"]) == ("lost", 4)
    assert cli.json("explain", shorts[0])["result"] == {"result": "b"}
    with tempfile.TemporaryDirectory() as where:
        out = Path(where) / "club.json"
        cli.ok("export", "Club", "--format", "json", "-o", str(out))
        exported = json.loads(out.read_text())["games"]
    (game,) = [g for g in exported if g["short_id"] == shorts[0]]
    assert (game["table"], game["result_result"], game["status"]) == (4, "b", "corrected")
    audit = {line["kind"]: line["summary"] for line in cli.json("audit", "Club")
             if shorts[0] in (line["summary"] or "")}  # fmt: skip
    assert "result=a" in audit["game recorded"] and "result=b" in audit["game corrected"]


def test_views_in_memory_show_the_facts_views_beside_the_events_show(cli: Cli) -> None:
    # Time travel, verify and an import's preview read facts from views in
    # memory (their own copy of the game events): the same as the file's.
    from projections import queries

    shorts = club(cli)
    cli.ok("correct", shorts[1], "--result", "draw", "--reason", "misread")
    cli.ok("void", shorts[2], "--reason", "not played")
    app = LedgerApplication(env=resolve(cli.db, cli.schema).app_env())
    beside = _connect(cli)
    try:
        memory = views.in_memory(app.recorder)
        assert memory.events_beside() is None
        assert memory.execute("SELECT COUNT(*) FROM view_events").fetchone()[0] == 4
        assert beside.execute("SELECT COUNT(*) FROM view_events").fetchone()[0] == 0
        assert games.compared(memory) == games.compared(beside)
        assert queries.audit_lines(memory) == queries.audit_lines(beside)
        for player in ("Ann", "Bob", "Cat"):
            assert queries.history(memory, "Club", player) == queries.history(
                beside, "Club", player
            )
        for ref in shorts:
            row_m, row_b = games.by_ref(memory, ref), games.by_ref(beside, ref)
            assert queries.game_facts(memory, row_m) == queries.game_facts(beside, row_b)
    finally:
        beside.close()
        app.close()
