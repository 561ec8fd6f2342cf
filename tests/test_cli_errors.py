"""Bad input is refused: non-zero exit, a message naming what is wrong, and no
event appended."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import Cli


def refused(cli: Cli, *args: str) -> str:
    """Run a command that must be refused cleanly; returns its message.

    Refused means: exit code non-zero, no crash (a traceback would leave an
    exception other than SystemExit) and not one event appended.
    """
    before = cli.event_count()
    result = cli.run(*args)
    assert result.exit_code != 0, f"{args} should have failed: {result.output}"
    assert isinstance(result.exception, SystemExit), f"{args} crashed: {result.exception!r}"
    assert cli.event_count() == before, f"{args} appended events"
    return result.output


@pytest.fixture
def club(cli: Cli) -> str:
    """An elo ladder Club with Alice, Bob and Carol and one game; returns its id."""
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Alice", "Bob", "Carol")
    out = cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Alice", "--side", "Bob",
                 "--result", "a")  # fmt: skip
    match = re.fullmatch(r"Recorded game ([0-9a-f]{8})\.\n(  .*\n)*", out)  # then its changes
    assert match
    return match.group(1)


def game(*extra: str, date: str = "2025-01-10", a: str = "Alice", b: str = "Bob") -> list[str]:
    return ["record", "Club", "--date", date, "--side", a, "--side", b, *extra]


# -- unknown names -----------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["record", "Nope", "--date", "2025-01-10", "--side", "Alice", "--side", "Bob",
         "--result", "a"],
        ["standings", "Nope"],
        ["history", "Nope", "Alice"],
        ["ladder", "show", "Nope"],
        ["ladder", "rules", "Nope", "--set", "k=30", "--effective", "2025-01-01",
         "--reason", "x"],
        ["season", "close", "Nope", "2025", "--from", "2025-01-01", "--to", "2025-12-31"],
        ["adjust", "Nope", "Alice", "--shift", "5", "--date", "2025-01-01", "--reason", "x"],
        ["audit", "Nope"],
    ],
    ids=["record", "standings", "history", "show", "rules", "season", "adjust", "audit"],
)  # fmt: skip
def test_unknown_ladder(cli: Cli, club: str, args: list[str]) -> None:
    assert "unknown ladder 'Nope'" in refused(cli, *args)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (game("--result", "a", b="Zed"), "side_b: "),
        (game("--result", "a", a="Alice;Zed"), "side_a: "),
        (["history", "Club", "Zed"], ""),
        (["adjust", "Club", "Zed", "--shift", "5", "--date", "2025-01-01", "--reason", "x"], ""),
        (["player", "rename", "Zed", "Zoe"], ""),
        (["player", "merge", "Zed", "Alice", "--reason", "x"], ""),
        (["player", "merge", "Alice", "Zed", "--reason", "x"], ""),
    ],
    ids=["record", "record-team", "history", "adjust", "rename", "merge-from", "merge-into"],
)
def test_unknown_player(cli: Cli, club: str, args: list[str], field: str) -> None:
    assert f"{field}unknown player 'Zed'" in refused(cli, *args)


@pytest.mark.parametrize(
    "args",
    [
        ["correct", "deadbeef", "--result", "b", "--reason", "x"],
        ["void", "deadbeef", "--reason", "x"],
        ["explain", "deadbeef"],
    ],
    ids=["correct", "void", "explain"],
)
def test_unknown_game(cli: Cli, club: str, args: list[str]) -> None:
    # void also takes an adjustment's or a season close's id.
    unknown = "game, adjustment or season close" if args[0] == "void" else "game"
    assert f"unknown {unknown} 'deadbeef'" in refused(cli, *args)


def test_unknown_family(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    out = refused(cli, "ladder", "open", "Other", "--family", "chess960")
    assert "unknown family 'chess960'" in out
    assert "elo" in out  # says which families exist
    assert [r["name"] for r in cli.json("ladder", "list")] == ["Club"]


# -- games ---------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b", "named"), [("Alice", "Alice", "Alice"),
                                               ("Alice;Bob", "Bob", "Bob"),
                                               ("Alice", "Carol;alice", "alice")])  # fmt: skip
def test_same_player_on_both_sides(cli: Cli, club: str, a: str, b: str, named: str) -> None:
    out = refused(cli, *game("--result", "a", a=a, b=b))
    assert f"player {named!r} appears twice in one game" in out


@pytest.mark.parametrize("bad", ["2025-13-01", "01/02/2025", "2025-02-30", "2025-1-5", "tomorrow"])
def test_record_date_not_iso(cli: Cli, club: str, bad: str) -> None:
    out = refused(cli, *game("--result", "a", date=bad))
    assert f"Invalid value for '--date': '{bad}' is not a valid date in ISO form YYYY-MM-DD" in out


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["standings", "Club", "--as-of", "BAD"], "as-of"),
        (["adjust", "Club", "Alice", "--shift", "5", "--date", "BAD", "--reason", "x"], "date"),
        (["ladder", "rules", "Club", "--set", "k=30", "--effective", "BAD", "--reason", "x"],
         "effective"),
        (["season", "close", "Club", "2025", "--from", "BAD", "--to", "2025-12-31"], "from"),
        (["season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "BAD"], "to"),
    ],
    ids=["as-of", "adjust", "rules", "season-from", "season-to"],
)  # fmt: skip
@pytest.mark.parametrize("bad", ["2025-13-01", "01/02/2025"])
def test_other_dates_not_iso(cli: Cli, club: str, args: list[str], field: str, bad: str) -> None:
    out = refused(cli, *[bad if a == "BAD" else a for a in args])
    assert f"Invalid value for '--{field}': '{bad}' is not a valid date" in out


def test_correct_with_a_bad_date(cli: Cli, club: str) -> None:
    out = refused(cli, "correct", club, "--date", "2025-13-01", "--reason", "x")
    assert "Invalid value for '--date': '2025-13-01' is not a valid date" in out


def test_result_the_family_does_not_know(cli: Cli, club: str) -> None:
    out = refused(cli, *game("--result", "x"))
    assert "result" in out
    assert "'x'" in out


def test_result_missing(cli: Cli, club: str) -> None:
    out = refused(cli, *game())
    assert "result" in out


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        (["--result", "a", "--ranks", "1,2"], "ranks"),
        (["--result", "a", "--bv", "5000,3000,5000,1000"], "bv"),
        (["--result", "a", "--quit", "Bob"], "quit"),
    ],
)
def test_field_not_of_the_family(cli: Cli, club: str, extra: list[str], field: str) -> None:
    out = refused(cli, *game(*extra))
    assert f"'{field}' does not belong to a elo result" in out


def test_margin_not_in_the_score_table(cli: Cli, club: str) -> None:
    out = refused(cli, *game("--result", "a", "--margin", "decisive"))
    assert "margin: 'decisive' is not one of win" in out
    assert "win" in out  # the margins the ladder knows


def test_a_game_needs_two_sides(cli: Cli, club: str) -> None:
    out = refused(cli, "record", "Club", "--date", "2025-01-10", "--side", "Alice",
                  "--result", "a")  # fmt: skip
    assert "two sides" in out
    out = refused(cli, *game("--result", "a", "--side", "Carol"))
    assert "elo game has 2 sides, got 3" in out


def test_recording_the_same_game_twice(cli: Cli, club: str) -> None:
    same = ["record", "Club", "--date", "2025-01-05", "--side", "Alice", "--side", "Bob"]
    out = refused(cli, *same, "--result", "a")
    assert f"this game is already recorded as {club}" in out
    assert "ledger correct" in out
    # The same players the other way round are still the same game.
    out = refused(cli, "record", "Club", "--date", "2025-01-05", "--side", "Bob",
                  "--side", "Alice", "--result", "b")  # fmt: skip
    assert f"already recorded as {club}" in out
    assert [r["games"] for r in cli.json("standings", "Club")] == [1, 1]


# -- ladders and parameters ------------------------------------------------------
def test_unknown_parameter(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    out = refused(cli, "ladder", "open", "X", "--family", "elo", "--set", "foo=1")
    assert "unknown parameter 'foo' for family elo" in out
    assert "divisor" in out  # lists the allowed ones
    assert [r["name"] for r in cli.json("ladder", "list")] == ["Club"]
    out = refused(cli, "ladder", "rules", "Club", "--set", "foo=1", "--effective", "2025-01-01",
                  "--reason", "x")  # fmt: skip
    assert "unknown parameter 'foo'" in out


@pytest.mark.parametrize(
    ("setting", "key"),
    [
        ("k=abc", "k"),
        ("divisor=[1]", "divisor"),
        ("rounding=sideways", "rounding"),
        ("integer=maybe", "integer"),
        ('season_penalties=[{"above":"high","penalty":50}]', "season_penalties"),
    ],
)
def test_ill_typed_parameter(cli: Cli, setting: str, key: str) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    out = refused(cli, "ladder", "open", "X", "--family", "elo", "--set", setting)
    assert f"bad value for parameter '{key}' of family elo" in out
    out = refused(cli, "ladder", "rules", "Club", "--set", setting, "--effective", "2025-01-01",
                  "--reason", "x")  # fmt: skip
    assert f"parameter '{key}'" in out
    assert cli.json("ladder", "show", "Club")["params"]["k"] == 20.0


def test_parameter_values_that_break_the_family_rules(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    assert "divisor must be positive" in refused(
        cli, "ladder", "open", "X", "--family", "elo", "--set", "divisor=0"
    )
    assert "integer ratings need a rounding" in refused(
        cli, "ladder", "open", "X", "--family", "elo", "--set", "integer=true"
    )
    assert "Invalid value for '--set': expected KEY=VALUE, got 'k'" in refused(
        cli, "ladder", "open", "X", "--family", "elo", "--set", "k"
    )


def test_opening_a_ladder_twice(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    assert "ladder 'club' already exists" in refused(
        cli, "ladder", "open", "club", "--family", "elo"
    )


def test_rules_with_nothing_to_change(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    out = refused(cli, "ladder", "rules", "Club", "--effective", "2025-01-01", "--reason", "x")
    assert "nothing to change" in out


# -- players --------------------------------------------------------------------
def test_player_added_twice(cli: Cli, club: str) -> None:
    assert "player 'alice' already exists" in refused(cli, "player", "add", "alice")


def test_player_add_is_all_or_nothing(cli: Cli, club: str) -> None:
    """Regression: 'player add Dan Bob' appended Dan before refusing Bob."""
    out = refused(cli, "player", "add", "Dan", "Bob")
    assert "player 'Bob' already exists" in out
    assert [p["name"] for p in cli.json("player", "list")] == ["Alice", "Bob", "Carol"]


def test_rename_to_a_name_already_taken(cli: Cli, club: str) -> None:
    out = refused(cli, "player", "rename", "Alice", "Bob")
    assert "another player is already called 'Bob'" in out


def test_merge_players_who_played_each_other(cli: Cli, club: str) -> None:
    out = refused(cli, "player", "merge", "Alice", "Bob", "--reason", "x")
    assert "played in the same game" in out


def test_merge_into_themselves(cli: Cli, club: str) -> None:
    out = refused(cli, "player", "merge", "Carol", "carol", "--reason", "x")
    assert "cannot merge a player into themselves" in out


# -- corrections, voids, seasons, adjustments ------------------------------------
def test_correcting_a_voided_game(cli: Cli, club: str) -> None:
    cli.ok("void", club, "--reason", "wrong ladder")
    out = refused(cli, "correct", club, "--result", "b", "--reason", "x")
    assert f"game {club} is voided; a voided game cannot be corrected" in out


def test_voiding_a_voided_game(cli: Cli, club: str) -> None:
    cli.ok("void", club, "--reason", "wrong ladder")
    assert f"game {club} is already voided" in refused(cli, "void", club, "--reason", "again")


def test_a_correction_that_changes_nothing(cli: Cli, club: str) -> None:
    out = refused(cli, "correct", club, "--result", "a", "--reason", "x")
    assert f"the correction changes nothing in game {club}" in out


def test_correction_with_a_bad_result(cli: Cli, club: str) -> None:
    out = refused(cli, "correct", club, "--result", "x", "--reason", "x")
    assert "'x'" in out
    assert [h["s"] for h in cli.json("history", "Club", "Alice")] == [1.0]


def test_closing_a_season_twice(cli: Cli, club: str) -> None:
    season = ["season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31"]
    cli.ok(*season)
    out = refused(cli, *season)
    assert "season '2025' of ladder 'Club' is already closed" in out
    # Same label, other dates: still the same season.
    out = refused(cli, "season", "close", "Club", "2025", "--from", "2025-02-01",
                  "--to", "2025-11-30")  # fmt: skip
    assert "already closed" in out


def test_season_ending_before_it_starts(cli: Cli, club: str) -> None:
    out = refused(cli, "season", "close", "Club", "2025", "--from", "2025-12-31",
                  "--to", "2025-01-01")  # fmt: skip
    assert "ends (2025-01-01) before it starts (2025-12-31)" in out


@pytest.mark.parametrize(
    "args",
    [
        ["adjust", "Club", "Alice", "--date", "2025-01-01", "--reason", "x"],
        ["adjust", "Club", "Alice", "--to", "1600", "--shift", "5", "--date", "2025-01-01",
         "--reason", "x"],
    ],
    ids=["neither", "both"],
)  # fmt: skip
def test_adjust_needs_exactly_one_of_to_and_by(cli: Cli, club: str, args: list[str]) -> None:
    assert "exactly one of --to (set) or --shift" in refused(cli, *args)


def test_adjust_with_a_rating_that_is_not_a_number(cli: Cli, club: str) -> None:
    out = refused(cli, "adjust", "Club", "Alice", "--to", "high", "--date", "2025-01-01",
                  "--reason", "x")  # fmt: skip
    assert "'high'" in out
    assert "--to" in out


# Commands that need a reason (docs/rules/README.md / DESIGN.md), as run by both tests below.
NEEDS_REASON = pytest.mark.parametrize(
    "args",
    [
        ["correct", "GAME", "--result", "b"],
        ["void", "GAME"],
        ["adjust", "Club", "Alice", "--shift", "5", "--date", "2025-01-01"],
        ["ladder", "rules", "Club", "--set", "k=30", "--effective", "2025-01-01"],
        ["player", "merge", "Carol", "Alice"],
    ],
    ids=["correct", "void", "adjust", "rules", "merge"],
)


@NEEDS_REASON
def test_missing_reason(cli: Cli, club: str, args: list[str]) -> None:
    args = [club if a == "GAME" else a for a in args]
    out = refused(cli, *args)
    assert "Missing option '--reason'" in out


@NEEDS_REASON
def test_blank_reason(cli: Cli, club: str, args: list[str]) -> None:
    args = [club if a == "GAME" else a for a in args]
    out = refused(cli, *args, "--reason", "   ")
    assert "a reason is required (--reason)" in out


# -- the database path -------------------------------------------------------------
def _cannot_use(db: Path, *args: str) -> str:
    bad = Cli(str(db))
    result = bad.run(*args)
    assert result.exit_code != 0, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    return result.output


@pytest.mark.parametrize(
    "args",
    [["ladder", "open", "Club", "--family", "elo"], ["ladder", "list"], ["audit"]],
    ids=["open", "list", "audit"],
)
def test_database_in_a_folder_that_does_not_exist(tmp_path: Path, args: list[str]) -> None:
    db = tmp_path / "nonexistent" / "dir" / "x.db"
    out = _cannot_use(db, *args)
    assert f"cannot create database '{db}'" in out
    assert f"folder '{db.parent}' does not exist" in out
    assert not (tmp_path / "nonexistent").exists()


def test_database_path_that_is_a_directory(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    out = _cannot_use(folder, "ladder", "open", "Club", "--family", "elo")
    assert f"database path '{folder}' is a directory, not a file" in out
    assert list(folder.iterdir()) == []


def test_database_path_that_is_not_a_database(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a ledger\n")
    out = _cannot_use(notes, "ladder", "open", "Club", "--family", "elo")
    assert f"cannot open database '{notes}'" in out
    assert "not a database" in out
    assert notes.read_text() == "my notes, not a ledger\n"


def test_a_refused_write_catches_nothing_up(cli: Cli, club: str) -> None:
    """A write refused inside ``Ledger.writing`` appends nothing and leaves
    the views where they were (here behind the events), with its message and
    exit code; the next write catches them up."""
    from ledger.write.application import LedgerApplication
    from ledger.write.commands import Commands
    from ledger.write.storage import resolve

    app = LedgerApplication(env=resolve(cli.db, cli.schema).app_env())
    try:  # appended, the views not told
        Commands(app, "referee").add_players(["Late Comer"])
    finally:
        app.close()
    behind = cli.sql("SELECT position FROM view_tracking")[0][0]
    assert behind == cli.event_count() - 1
    message = refused(cli, *game("--result", "a", a="Nobody"))
    assert "unknown player 'Nobody'" in message
    assert cli.sql("SELECT position FROM view_tracking")[0][0] == behind
    cli.ok(*game("--result", "a"))
    assert cli.sql("SELECT position FROM view_tracking")[0][0] == cli.event_count()
