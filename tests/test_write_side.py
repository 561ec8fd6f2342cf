"""The write side decides from its own state: the defects of a command layer
that read the views, each reproduced through the CLI (issue: one core in
clear layers)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ledger.kernel import events as ev
from ledger.kernel.errors import Conflict
from ledger.kernel.identity import player_id
from ledger.write.application import LedgerApplication
from ledger.write.commands import Commands
from ledger.write.storage import resolve
from tests.conftest import Cli

FAMILY = "tests.example_family:PointsShareElo"

# The write side is what differs most between backends (recorders, write
# index, chain in the append transaction): run it on both.
pytestmark = pytest.mark.conformance


def history_names(cli: Cli, ladder: str, player: str) -> list[str]:
    return [h["opponents"] for h in cli.json("history", ladder, player)]


# -- 1. a correction never re-resolves names -----------------------------------
def test_a_correction_keeps_a_merged_players_game(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "A. Smith", "Ann", "Bob")
    game = cli.ok("record", "Club", "--date", "2025-01-05", "--side", "A. Smith", "--side",
                  "Bob", "--result", "a").split()[2].rstrip(".")  # fmt: skip
    cli.ok("player", "merge", "A. Smith", "Ann", "--reason", "same person")
    cli.ok("correct", game, "--result", "draw", "--reason", "misread")
    cli.ok("player", "unmerge", "A. Smith", "--reason", "not the same person after all")
    audit = [a["summary"] for a in cli.json("audit", "Club") if a["kind"] == "game corrected"]
    assert audit == [f"game {game} corrected: 2025-01-05: A. Smith vs Bob (result=draw)"]
    assert len(cli.json("history", "Club", "A. Smith")) == 1
    assert cli.json("history", "Club", "Ann") == []


def test_a_correction_of_the_sides_names_players_now(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob", "Cat")
    game = cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Bob",
                  "--result", "a").split()[2].rstrip(".")  # fmt: skip
    cli.ok("correct", game, "--side", "Ann", "--side", "Cat", "--reason", "wrong opponent")
    assert cli.json("history", "Club", "Bob") == []
    assert len(cli.json("history", "Club", "Cat")) == 1


# -- 2. a name belongs to one player at a time ------------------------------------
def test_a_name_freed_by_a_rename_can_be_taken_but_never_shared(cli: Cli) -> None:
    cli.ok("player", "add", "Anne")
    cli.ok("player", "rename", "Anne", "Bea")
    out = cli.fails("player", "add", "Bea")
    assert "player 'Bea' already exists" in out
    assert "already exists" in cli.fails("player", "add", "béa")  # as matched
    cli.ok("player", "add", "Anne")  # the old name is free again: a new player
    names = sorted(p["name"] for p in cli.json("player", "list"))
    assert names == ["Anne", "Bea"]
    assert "already called 'ANNE'" in cli.fails("player", "rename", "Bea", "ANNE")


def test_the_store_itself_refuses_a_second_claim_of_a_name(tmp_path: Path) -> None:
    """Two commands that both checked before either appended: the store refuses
    the second claim (the write index's key is the name as matched)."""
    app = LedgerApplication(env=resolve(str(tmp_path / "l.db")).app_env())
    first, second = Commands(app, "one"), Commands(app, "two")
    at = datetime.now(UTC)
    first_claim = first.registration(player_id("Eve"), "Eve", at)
    second_claim = second.registration(player_id("Eve", 1), "EVE", at)
    app.append([first_claim])
    with pytest.raises(Conflict, match="name is already taken"):
        app.append([second_claim])
    assert app.recorder.max_notification_id() == 1
    app.close()


# -- 3. one bad game never bricks the ledger ----------------------------------------
def test_a_game_the_family_cannot_rate_is_refused_when_recorded(cli: Cli) -> None:
    cli.ok("ladder", "open", "Skirmish", "--family", FAMILY)
    out = cli.fails("record", "Skirmish", "--date", "2025-05-01", "--side", "Ann", "--side",
                    "Ben", "--field", "points_a=3", "--add-players")  # fmt: skip
    assert "points_b" in out
    assert cli.event_count() == 2  # the ladder's two events; no player, no game


def test_a_game_that_breaks_at_replay_is_one_ladders_problem(cli: Cli) -> None:
    cli.ok("ladder", "open", "Fragile", "--family", "tests.fragile_family:FragileElo")
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob", "Cat")
    cli.ok("record", "Club", "--date", "2025-01-01", "--side", "Ann", "--side", "Bob",
           "--result", "a")  # fmt: skip
    cli.ok("record", "Fragile", "--date", "2025-01-01", "--side", "Ann", "--side", "Bob",
           "--result", "a")  # fmt: skip
    # Checked from initial ratings, this game is fine; at replay Ann is rated.
    out = cli.ok("record", "Fragile", "--date", "2025-01-02", "--side", "Ann", "--side",
                 "Cat", "--result", "a")  # fmt: skip
    bad = re.search(r"Recorded game ([0-9a-f]{8})\.", out).group(1)
    out = cli.fails("standings", "Fragile")
    assert "Fragile" in out and bad in out and "Traceback" not in out
    assert [r["player"] for r in cli.json("standings", "Club")] == ["Ann", "Bob"]
    for command in (["ladder", "list"], ["audit"], ["rebuild"]):
        result = cli.run(*command)
        assert result.exception is None or isinstance(result.exception, SystemExit), command
    cli.ok("void", bad, "--reason", "rated by a broken plugin")
    assert [r["player"] for r in cli.json("standings", "Fragile")] == ["Ann", "Bob"]
    assert "OK" in cli.ok("verify")


def test_a_dry_run_of_a_bad_row_reports_it(cli: Cli, tmp_path: Path) -> None:
    cli.ok("ladder", "open", "Skirmish", "--family", FAMILY)
    sheet = tmp_path / "s.csv"
    sheet.write_text("ladder,date,side_a,side_b,points_a\nSkirmish,2025-05-01,Ann,Ben,3\n")
    out = cli.fails("import", str(sheet), "--dry-run")
    assert "row 2" in out and "points_b" in out


# -- 4. a custom family's own result fields are sheet columns ------------------------
def test_a_custom_familys_result_fields_import_from_a_sheet(cli: Cli, tmp_path: Path) -> None:
    cli.ok("ladder", "open", "Skirmish", "--family", FAMILY, "--set", "home_advantage=0")
    sheet = tmp_path / "skirmish.csv"
    sheet.write_text(
        "ladder,date,side_a,side_b,points_a,points_b\n"
        "Skirmish,2025-05-01,Ann,Ben,15,5\n"
        "Skirmish,2025-05-02,Ann,Ben,10,10\n"
    )
    assert "added 2 games" in cli.ok("import", str(sheet))
    rows = {r["player"]: r["rating"] for r in cli.json("standings", "Skirmish")}
    assert rows["Ann"] > 1500 > rows["Ben"]
    out = cli.fails("import", str(sheet).replace("skirmish", "x"), "--ladder", "Skirmish")
    assert "no such file" in out
    bad = tmp_path / "bad.csv"
    bad.write_text("ladder,date,side_a,side_b,points\nSkirmish,2025-05-01,Ann,Ben,15\n")
    out = cli.fails("import", str(bad))
    assert "unknown column 'points'" in out and "points_a, points_b" in out


# -- the order of play is a recorded fact -----------------------------------------------
def stored_sequences(cli: Cli) -> list[int | None]:
    app = LedgerApplication(env=resolve(cli.db, cli.schema).app_env())
    try:
        games = [e for e in app.notifications() if e.topic == ev.GameRecorded.TOPIC]
        return [ev.decode(e.topic, e.state).game.sequence for e in games]
    finally:
        app.close()


def test_games_without_a_table_replay_in_the_order_entered(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob", "Cat", "Dan")
    for a, b in (("Dan", "Cat"), ("Ann", "Bob"), ("Cat", "Bob"), ("Ann", "Dan")):
        cli.ok("record", "Club", "--date", "2025-01-05", "--side", a, "--side", b, "--result", "a")
    assert stored_sequences(cli) == [1, 2, 3, 4]
    keys = [h["opponents"] for h in cli.json("history", "Club", "Bob")]
    assert keys == ["Ann", "Cat"]  # Ann's game was entered first
    # A table number is its own sequence; the next game without one follows it.
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Bob", "--side", "Dan",
           "--result", "b", "--table", "9")  # fmt: skip
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Cat", "--side", "Ann",
           "--result", "a")  # fmt: skip
    assert stored_sequences(cli)[-2:] == [9, 10]


def test_an_import_numbers_rows_in_sheet_order(cli: Cli, tmp_path: Path) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    sheet = tmp_path / "night.csv"
    sheet.write_text(
        "ladder,date,side_a,side_b,result\n"
        "Club,2025-01-05,Zed,Amy,a\nClub,2025-01-05,Amy,Bea,a\nClub,2025-01-06,Zed,Bea,b\n"
    )
    cli.ok("import", str(sheet))
    assert stored_sequences(cli) == [1, 2, 1]


# -- integrity at append time --------------------------------------------------------------
def test_every_event_is_chained_when_appended(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob")
    links = cli.sql("SELECT COUNT(*) FROM ledger_chain")[0][0]
    assert cli.event_count() == links == 4
    assert cli.sql("SELECT COUNT(*) FROM view_players")[0][0] == 2  # and the views caught up


# -- versioned maths -----------------------------------------------------------------------
def test_a_new_maths_version_is_said_and_adopted_by_a_rule_change(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.versioned_family import VersionedElo

    cli.ok("ladder", "open", "Club", "--family", "tests.versioned_family:VersionedElo")
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Bob",
           "--result", "a", "--add-players")  # fmt: skip
    assert "Warning" not in cli.ok("ladder", "show", "Club")
    monkeypatch.setattr(VersionedElo, "version", 2)  # the code is upgraded
    show = cli.ok("ladder", "show", "Club")
    assert "version 1" in show and "version 2" in show
    out = cli.ok("verify")
    assert "WARNING" in out and "OK" in out
    cli.ok("ladder", "rules", "Club", "--effective", "2025-06-01", "--reason", "adopt v2")
    rules = cli.json("ladder", "show", "Club")["rules"]
    assert len(rules) == 2
    again = cli.fails("ladder", "rules", "Club", "--effective", "2025-07-01", "--reason", "x")
    assert "nothing to change" in again and "version 2" in again


def test_recording_a_voided_game_again_takes_again(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    game = ("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Bob",
            "--result", "a", "--add-players")  # fmt: skip
    ref = cli.ok(*game).split()[2].rstrip(".")
    cli.ok("void", ref, "--reason", "forfeit")
    before = cli.event_count()
    out = cli.fails(*game)
    assert f"game {ref} voided on" in out and "by tester: forfeit" in out
    assert "pass --again to record it as a game again" in out
    assert cli.event_count() == before
    cli.ok(*game, "--again")
    assert [r["player"] for r in cli.json("standings", "Club")] == ["Ann", "Bob"]
