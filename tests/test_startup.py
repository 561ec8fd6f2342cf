"""A query on current views loads neither the event store's
machinery nor the projection. What it loads is checked here (a fact, not a
timing: the start-up figures are the bench's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Cli

#: Modules a query on current views never needs.
NEVER = (
    "psycopg",
    "eventsourcing.postgres",
    "ledger.write.recorders",
    "ledger.write.commands",
    "projections.export",
    "projections.verify",
    "projections.whatif",
    "projections.timetravel",
)
#: The event store and the projection: left out once ``projections.views``
#: loads its modules lazily and ``ledger.cli.params`` imports the write side
#: only to parse a date (changes asked of their owners).
NOT_NEEDED = ("eventsourcing", "projections.views.projector", "projections.views.runner")

PROBE = """
import json, sys
from ledger.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def loaded(*args: str) -> set[str]:
    """The modules loaded by ``ledger ARGS`` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.fixture
def club(tmp_path: Path) -> str:
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob")
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Bob",
           "--result", "a")  # fmt: skip
    return cli.db


@pytest.mark.parametrize("query", [["standings", "Club"], ["history", "Club", "Ann"]])
def test_a_query_on_current_views_loads_no_write_side(club: str, query: list[str]) -> None:
    modules = loaded("--db", club, *query, "--format", "csv")
    assert "projections.queries" in modules  # the probe ran the query
    assert not {m for m in modules for never in NEVER if m == never or m.startswith(never + ".")}


def test_a_query_on_current_views_loads_no_projection(club: str) -> None:
    modules = loaded("--db", club, "standings", "Club", "--format", "csv")
    assert not {m for m in modules for name in NOT_NEEDED if m == name or m.startswith(name + ".")}


def test_views_behind_are_caught_up_before_the_query_answers(club: str) -> None:
    from ledger.write.application import LedgerApplication
    from ledger.write.commands import Commands
    from ledger.write.storage import resolve

    app = LedgerApplication(env=resolve(club).app_env())
    try:  # appended, the views not told
        Commands(app, "referee").add_players(["Late Comer"])
    finally:
        app.close()
    cli = Cli(club)
    assert cli.sql("SELECT position FROM view_tracking")[0][0] == cli.event_count() - 1
    players = cli.json("player", "list")
    assert isinstance(players, list)
    assert "Late Comer" in {p["name"] for p in players}
    assert cli.sql("SELECT position FROM view_tracking")[0][0] == cli.event_count()


#: What a table of a ladder whose family gives no grades never loads: the
#: rows are read plain (msgspec, the views' query module and the family are
#: for JSON, CSV and grades).
PLAIN_TABLE_NEVER = ("msgspec", "projections.queries", "ledger.families.elo")


@pytest.mark.parametrize("query", [["standings", "club"], ["history", "Club", "ann"]])
def test_a_table_for_people_loads_no_msgspec_nor_the_family(club: str, query: list[str]) -> None:
    modules = loaded("--db", club, *query)
    assert "projections.plain" in modules
    assert not {m for m in modules for n in PLAIN_TABLE_NEVER if m == n or m.startswith(n + ".")}


#: What a ranking for people of a family that gives no grades never loads
#: beyond start-up: the views' table modules (the version is read apart),
#: the close-name suggestions (difflib: for a name not found) and the
#: note-wrapping of a table cut to fit. (JSON is the probe's own.)
RANKING_NEVER = (
    "projections.views.schema", "projections.views.games", "projections.views.history",
    "ledger.kernel.suggest", "difflib", "textwrap",
)  # fmt: skip


def test_a_ranking_for_people_loads_no_views_module(club: str) -> None:
    modules = loaded("--db", club, "standings", "Club")
    assert "projections.plain" in modules  # the probe ran the ranking
    assert not {m for m in modules for n in RANKING_NEVER if m == n or m.startswith(n + ".")}


def test_a_history_for_people_loads_no_note_wrapping(club: str) -> None:
    modules = loaded("--db", club, "history", "Club", "Ann")
    assert "projections.views.history" in modules  # the probe read the history
    assert "textwrap" not in modules


def test_a_graded_ladder_loads_its_own_family_alone(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "graded.db"))
    cli.ok("ladder", "open", "Club", "--family", "adlg")
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Bob",
           "--result", "a", "--add-players")  # fmt: skip
    modules = loaded("--db", cli.db, "standings", "Club")
    families = {m for m in modules if m.startswith("ledger.families.")}
    assert "ledger.families.adlg" in families
    others = ("battle_empire", "bga", "battletech")  # (adlg builds on elo)
    assert not families & {f"ledger.families.{n}" for n in others}


#: What recording a game never loads: another family (a built-in's check
#: is known by where its class is, ``registry.BUILT_IN_CLASSES``), nor the
#: modules of bulk work: a spill file (tempfile), the held timelines'
#: runs (pickle), the heap given back (ctypes), PostgreSQL's build aside
#: (secrets).
RECORD_NEVER = (
    "ledger.families.adlg", "ledger.families.battle_empire", "ledger.families.bga",
    "ledger.families.battletech", "ledger.families.glicko2", "ledger.families.weng_lin",
    "tempfile", "pickle", "ctypes", "secrets",
)  # fmt: skip


def test_recording_a_game_loads_its_family_alone_and_nothing_of_bulk_work(club: str) -> None:
    modules = loaded("--db", club, "record", "Club", "--date", "2025-01-06", "--side", "Ann",
                     "--side", "Bob", "--result", "b")  # fmt: skip
    assert "ledger.write.game_input" in modules  # the probe recorded the game
    assert "ledger.families.elo" in modules
    assert not {m for m in modules for n in RECORD_NEVER if m == n or m.startswith(n + ".")}


def test_naming_the_families_imports_none() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from ledger.families import registry; "
         "print(sorted(registry.BUILT_IN), sorted(m for m in sys.modules if 'families.' in m))"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.stdout.strip() == (
        "['adlg', 'battle-empire', 'battletech', 'bga', 'elo', 'glicko2', 'weng-lin'] "
        "['ledger.families.registry']"
    )


def test_a_write_on_sqlite_loads_neither_postgresql_nor_the_importer(club: str) -> None:
    """``record`` on a SQLite ledger: no psycopg (PostgreSQL's recorder is
    its own module) and no importer (sheets and workbooks)."""
    modules = loaded("--db", club, "--by", "tester", "record", "Club", "--date", "2025-01-06",
                     "--side", "Ann", "--side", "Bob", "--result", "b")  # fmt: skip
    assert "ledger.write.recorders" in modules  # the probe appended
    unwanted = ("psycopg", "eventsourcing.postgres", "ledger.write.postgres_recorder",
                "ledger.sheets.importer", "openpyxl")  # fmt: skip
    assert not {m for m in modules for name in unwanted if m == name or m.startswith(name + ".")}
