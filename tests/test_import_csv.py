"""``ledger import FILE.csv``: all rows or none, every error at once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Cli

HEADER = "ladder,date,event,round,table,side_a,side_b,result"
GOOD_ROWS = [
    "Club,2025-01-05,,,,Alice,Bob,a",
    "Club,2025-01-12,Cup,1,1,Alice;Carol,Bob;Dan,draw",
    "Club,2025-01-12,Cup,1,2,Eve,Frank,b",
]
# The same games as ``record`` commands.
GOOD_RECORDS = [
    ["--date", "2025-01-05", "--side", "Alice", "--side", "Bob", "--result", "a"],
    ["--date", "2025-01-12", "--event", "Cup", "--round", "1", "--table", "1",
     "--side", "Alice;Carol", "--side", "Bob;Dan", "--result", "draw"],
    ["--date", "2025-01-12", "--event", "Cup", "--round", "1", "--table", "2",
     "--side", "Eve", "--side", "Frank", "--result", "b"],
]  # fmt: skip
PLAYERS = ["Alice", "Bob", "Carol", "Dan", "Eve", "Frank"]


def sheet(tmp_path: Path, name: str, *lines: str) -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def open_club(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")


def refused(cli: Cli, *args: str) -> str:
    """A refused command: non-zero exit, no crash, no event appended."""
    before = cli.event_count()
    result = cli.run(*args)
    assert result.exit_code != 0, f"{args} should have failed: {result.output}"
    assert isinstance(result.exception, SystemExit), f"{args} crashed: {result.exception!r}"
    assert cli.event_count() == before, f"{args} appended events"
    return result.output


def views(cli: Cli) -> dict[str, object]:
    return {
        "standings": cli.json("standings", "Club"),
        "histories": {p: cli.json("history", "Club", p) for p in PLAYERS},
    }


# -- good sheets ---------------------------------------------------------------------
def test_a_good_sheet_imports_every_game(tmp_path: Path, make_cli: Callable[[str], Cli]) -> None:
    imported = make_cli("imported")
    open_club(imported)
    path = sheet(tmp_path, "results.csv", HEADER, *GOOD_ROWS)
    out = imported.ok("import", str(path))
    assert out == (
        f"{path}: 3 rows: added 3 games, skipped 0 already recorded, "
        "new players: Alice, Bob, Carol, Dan, Eve, Frank.\n"
    )
    # 1 ladder opened + 1 ruleset + 6 players + 3 games.
    assert imported.event_count() == 11
    assert [p["name"] for p in imported.json("player", "list")] == PLAYERS

    recorded = make_cli("recorded")
    open_club(recorded)
    recorded.ok("player", "add", *PLAYERS)
    for args in GOOD_RECORDS:
        recorded.ok("record", "Club", *args)

    expected = views(recorded)
    assert [(r["player"], r["games"]) for r in expected["standings"]] == [
        ("Frank", 1), ("Alice", 2), ("Dan", 1), ("Carol", 1), ("Bob", 2), ("Eve", 1),
    ]  # fmt: skip
    assert views(imported) == expected


def test_imported_games_name_their_sheet_row_in_the_audit(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "results.csv", HEADER, *GOOD_ROWS)
    cli.ok("import", str(path))
    games = [a for a in cli.json("audit") if a["kind"] == "game recorded"]
    assert [a["source"] for a in games] == [f"{path}:2", f"{path}:3", f"{path}:4"]
    players = {a["summary"]: a["source"] for a in cli.json("audit")
               if a["kind"] == "player registered"}  # fmt: skip
    assert players["player 'Alice' registered"] == f"{path}:2"
    assert players["player 'Eve' registered"] == f"{path}:4"


def test_known_players_are_matched_not_created(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    path = sheet(tmp_path, "results.csv", HEADER, "Club,2025-01-05,,,,alice,BOB,a")
    out = cli.ok("import", str(path))
    assert out == f"{path}: 1 row: added 1 game, skipped 0 already recorded.\n"
    assert [p["name"] for p in cli.json("player", "list")] == ["Alice", "Bob"]
    assert [(r["player"], r["rating"]) for r in cli.json("standings", "Club")] == [
        ("Alice", 1510.0),
        ("Bob", 1490.0),
    ]


def test_dry_run_reports_and_writes_nothing(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "results.csv", HEADER, *GOOD_ROWS)
    before = cli.event_count()
    out = cli.ok("import", str(path), "--dry-run")
    # One line for every new player's first game (--dry-run groups them).
    firsts = [
        f"{path}: first games of 6 new players: 'Alice' (row 2), 'Bob' (row 2), "
        "'Carol' (row 3), 'Dan' (row 3), 'Eve' (row 4), 'Frank' (row 4)"
    ]
    assert out == (
        f"{path}: 3 rows: would add 3 games, skipped 0 already recorded, "
        "new players: Alice, Bob, Carol, Dan, Eve, Frank.\n"
        + "".join(f"warning: {w}\n" for w in firsts)
    )
    report = cli.json("import", str(path), "--dry-run")
    assert report == {
        "file": str(path), "rows": 3, "added": 3, "skipped": 0, "new_players": PLAYERS,
        "dry_run": True, "skipped_rows": [], "warnings": firsts,
    }  # fmt: skip
    assert cli.event_count() == before
    assert cli.json("standings", "Club") == []
    assert cli.json("player", "list") == []


def test_a_dry_run_of_known_players_after_games_writes_nothing(cli: Cli, tmp_path: Path) -> None:
    """A sheet of players already known, previewed on a ledger whose last
    events are games: the preview numbers its events after the store's last
    (a game's first record has no audit row of its own, so the audit's last
    line is not the store's last event)."""
    open_club(cli)
    cli.ok("import", str(sheet(tmp_path, "first.csv", HEADER, *GOOD_ROWS)))
    before = cli.event_count()
    path = sheet(tmp_path, "more.csv", HEADER, "Club,2025-01-09,,,,Alice,Bob,b")
    out = cli.ok("import", str(path), "--dry-run")
    assert out == f"{path}: 1 row: would add 1 game, skipped 0 already recorded.\n"
    assert cli.event_count() == before


def test_reimporting_skips_every_row_and_appends_nothing(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "results.csv", HEADER, *GOOD_ROWS)
    cli.ok("import", str(path))
    count = cli.event_count()
    standings = cli.json("standings", "Club")
    out = cli.ok("import", str(path))
    assert out == f"{path}: 3 rows: added 0 games, skipped 3 already recorded.\n"
    assert cli.event_count() == count
    report = cli.json("import", str(path))
    assert (report["added"], report["skipped"], report["skipped_rows"]) == (0, 3, [2, 3, 4])
    assert report["new_players"] == []
    assert cli.event_count() == count
    assert cli.json("standings", "Club") == standings


def test_a_sheet_that_grew_adds_only_its_new_rows(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    cli.ok("import", str(sheet(tmp_path, "week1.csv", HEADER, *GOOD_ROWS[:2])))
    grown = sheet(tmp_path, "week2.csv", HEADER, *GOOD_ROWS)
    report = cli.json("import", str(grown))
    assert (report["added"], report["skipped"], report["skipped_rows"]) == (1, 2, [2, 3])
    assert report["new_players"] == ["Eve", "Frank"]


def test_rows_already_recorded_with_record_are_skipped(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    cli.ok("player", "add", "Alice", "Bob")
    cli.ok("record", "Club", *GOOD_RECORDS[0])
    report = cli.json("import", str(sheet(tmp_path, "results.csv", HEADER, *GOOD_ROWS)))
    assert (report["added"], report["skipped"], report["skipped_rows"]) == (2, 1, [2])


# -- conflicts -------------------------------------------------------------------------
def test_a_row_recorded_with_another_result_points_to_correct(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    cli.ok("import", str(sheet(tmp_path, "results.csv", HEADER, *GOOD_ROWS)))
    game = cli.json("history", "Club", "Alice")[0]["game"]
    standings = cli.json("standings", "Club")
    path = sheet(
        tmp_path, "changed.csv", HEADER,
        "Club,2025-02-01,,,,Carol,Dan,a",  # new and good: still not added
        "Club,2025-01-05,,,,Alice,Bob,b",  # recorded with result a
    )  # fmt: skip
    out = refused(cli, "import", str(path))
    assert (
        f"{path}: row 3: game {game} is already recorded with a different result; "
        f"use 'ledger correct {game}' to change it"
    ) in out
    assert "row 2" not in out
    assert cli.json("standings", "Club") == standings


def test_the_same_game_twice_in_one_sheet(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "results.csv", HEADER, *GOOD_ROWS, "Club,2025-01-05,,,,Bob,Alice,b")
    out = refused(cli, "import", str(path))
    assert f"{path}: row 5: the same game as row 2" in out
    assert cli.json("player", "list") == []


# -- bad sheets ------------------------------------------------------------------------
def test_an_empty_file(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "empty.csv")
    out = refused(cli, "import", str(path))
    assert f"{path}: the sheet is empty" in out
    assert "header" in out


def test_a_header_only_file(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "header.csv", HEADER)
    out = refused(cli, "import", str(path))
    assert f"{path}: the sheet has a header but no games" in out


def test_a_file_that_does_not_exist(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = tmp_path / "missing.csv"
    assert f"{path}: no such file" in refused(cli, "import", str(path))


def test_an_unknown_column(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "colour.csv", HEADER + ",colour,venue", *[r + ",red,hall" for r in
                                                                    GOOD_ROWS])  # fmt: skip
    out = refused(cli, "import", str(path))
    assert f"{path}: row 1, column 9: unknown column 'colour'" in out
    assert f"{path}: row 1, column 10: unknown column 'venue'" in out
    assert cli.json("player", "list") == []


def test_a_missing_required_column(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "noside.csv", "ladder,date,side_a,result", "Club,2025-01-05,Alice,a")
    out = refused(cli, "import", str(path))
    assert f"{path}: row 1: missing column 'side_b'" in out


def test_every_bad_row_is_reported_at_once_and_nothing_is_appended(
    cli: Cli, tmp_path: Path
) -> None:
    open_club(cli)
    cli.ok("import", str(sheet(tmp_path, "first.csv", HEADER, GOOD_ROWS[0])))
    standings = cli.json("standings", "Club")
    players = cli.json("player", "list")
    path = sheet(
        tmp_path, "bad.csv", HEADER,
        "Club,2025-02-01,,,,Alice,Gina,a",   # row 2: good
        "Club,2025-02-02,,,,Bob,Hank,draw",  # row 3: good
        "Club,2025-02-31,,,,Alice,Ivan,a",   # row 4: bad date
        "Club,2025-02-04,,,,Bob,Jill,x",     # row 5: bad result
        "Club,2025-02-05,,,,Carol,Kim,b",    # row 6: good
    )  # fmt: skip
    out = refused(cli, "import", str(path))
    errors = [line for line in out.splitlines() if line.strip()]
    assert len(errors) == 2, out
    assert errors[0].startswith(f"Error: {path}: row 4, column date: ")
    assert "'2025-02-31' is not a date in ISO form YYYY-MM-DD" in errors[0]
    assert errors[1].startswith(f"{path}: row 5, column result: ")
    assert "'x'" in errors[1]
    assert cli.json("standings", "Club") == standings
    assert cli.json("player", "list") == players
    # The dry run finds the same errors.
    assert refused(cli, "import", str(path), "--dry-run") == out


def test_errors_in_several_columns_of_several_rows(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(
        tmp_path, "bad.csv", HEADER,
        "Nope,2025-02-01,,,,Alice,Bob,a",          # row 2: unknown ladder
        "Club,2025-02-02,Cup,one,,Alice,Bob,a",    # row 3: round not a number
        "Club,2025-02-03,,,,Alice,Alice,a",        # row 4: same player twice
        "Club,2025-02-04,,,,Alice,,a",             # row 5: too few sides
    )  # fmt: skip
    out = refused(cli, "import", str(path))
    assert f"{path}: row 2, column ladder: unknown ladder 'Nope'" in out
    assert f"{path}: row 3, column round: round: 'one' is not a whole number" in out
    assert f"{path}: row 4, column side: player 'Alice' appears twice in one game" in out
    assert f"{path}: row 5, column side: a game needs at least two sides" in out
    assert cli.json("player", "list") == []


def test_a_row_with_too_many_cells_is_reported_with_the_other_errors(
    cli: Cli, tmp_path: Path
) -> None:
    """Regression: the too-many-cells error hid every other row's errors."""
    open_club(cli)
    path = sheet(
        tmp_path, "bad.csv", HEADER,
        "Club,2025-13-01,,,,Alice,Bob,a",       # row 2: bad date
        "Club,2025-02-02,,,,Carol,Dan,a",       # row 3: good
        "Club,2025-02-03,,,,Eve,Frank,a,oops",  # row 4: one cell too many
    )  # fmt: skip
    out = refused(cli, "import", str(path))
    assert f"{path}: row 4: 9 cells but only 8 columns" in out
    assert f"{path}: row 2, column date: " in out


# -- the --ladder option -------------------------------------------------------------
def test_ladder_option_fills_rows_that_name_no_ladder(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "results.csv", HEADER, ",2025-01-05,,,,Alice,Bob,a")
    cli.ok("import", str(path), "--ladder", "Club")
    assert [(r["player"], r["rating"]) for r in cli.json("standings", "Club")] == [
        ("Alice", 1510.0),
        ("Bob", 1490.0),
    ]
    assert "row 2, column ladder: no ladder given" in refused(cli, "import", str(path))


def test_ladder_option_with_a_sheet_without_ladder_column(cli: Cli, tmp_path: Path) -> None:
    """Regression: refused with "row 1: missing column 'ladder'"."""
    open_club(cli)
    path = sheet(tmp_path, "results.csv", "date,side_a,side_b,result", "2025-01-05,Alice,Bob,a")
    cli.ok("import", str(path), "--ladder", "Club")
    assert [r["player"] for r in cli.json("standings", "Club")] == ["Alice", "Bob"]


def test_ladder_option_does_not_override_a_rows_ladder(cli: Cli, tmp_path: Path) -> None:
    """Regression: --ladder put the 'Other' row into Club."""
    open_club(cli)
    cli.ok("ladder", "open", "Other", "--family", "elo")
    path = sheet(tmp_path, "results.csv", HEADER, ",2025-01-05,,,,Alice,Bob,a",
                 "Other,2025-01-06,,,,Carol,Dan,a")  # fmt: skip
    cli.ok("import", str(path), "--ladder", "Club")
    assert [r["player"] for r in cli.json("standings", "Club")] == ["Alice", "Bob"]
    assert [r["player"] for r in cli.json("standings", "Other")] == ["Carol", "Dan"]


def test_audit_times_follow_the_sequence_after_an_import(cli: Cli, tmp_path: Path) -> None:
    """Regression: games were stamped before the registrations appended ahead
    of them, so recorded_at went back in time along the sequence."""
    open_club(cli)
    cli.ok("import", str(sheet(tmp_path, "results.csv", HEADER, *GOOD_ROWS)))
    stamps = [a["recorded_at"] for a in cli.json("audit")]
    assert stamps == sorted(stamps)


def test_dry_run_names_the_first_ten_new_players_and_counts_the_rest(
    cli: Cli, tmp_path: Path
) -> None:
    open_club(cli)
    rows = [f"Club,2025-01-{day:02d},,,,P{day:02d}a,P{day:02d}b,a" for day in range(1, 13)]
    path = sheet(tmp_path, "results.csv", HEADER, *rows)
    (warning,) = cli.json("import", str(path), "--dry-run")["warnings"]
    assert warning == (
        f"{path}: first games of 24 new players: 'P01a' (row 2), 'P01b' (row 2), "
        "'P02a' (row 3), 'P02b' (row 3), 'P03a' (row 4), 'P03b' (row 4), 'P04a' (row 5), "
        "'P04b' (row 5), 'P05a' (row 6), 'P05b' (row 6) and 14 more"
    )
