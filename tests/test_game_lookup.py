"""A game is found by its id or a prefix of it through the event store's own
index: the views keep no id of a game (it ends the game's key), so
``explain`` finds a game the views number, on every backend, and in views
built in memory (time travel) too."""

from __future__ import annotations

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
    assert dict(zip(names, rows[0], strict=True))["key"].endswith(rows[0][0])
