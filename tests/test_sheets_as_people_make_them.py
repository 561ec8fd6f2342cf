"""Issue 26, "Sheets as people make them": result sheets as referees really
write them, imported through the CLI as a user types it."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from tests.conftest import Cli

HEADER = "ladder,date,event,round,table,side_a,side_b,result"
COLUMNS = HEADER.split(",")


def refused(cli: Cli, *args: str) -> str:
    """A refused command: non-zero exit, no crash, no event appended."""
    before = cli.event_count()
    result = cli.run(*args)
    assert result.exit_code != 0, f"{args} should have failed: {result.output}"
    assert isinstance(result.exception, SystemExit), f"{args} crashed: {result.exception!r}"
    assert cli.event_count() == before, f"{args} appended events"
    return result.output


def open_club(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")


def dates_of(cli: Cli, player: str) -> list[str]:
    return sorted(line["date"] for line in cli.json("history", "Club", player))  # type: ignore[index, union-attr]


# -- every error of a row --------------------------------------------------------------
def test_a_row_reports_each_of_its_bad_fields(tmp_path: Path, cli: Cli) -> None:
    open_club(cli)
    path = tmp_path / "results.csv"
    path.write_text(
        f'{HEADER}\nClub,2025-01-05,,,,Alice,Bob,a\nClub,2025-13-45,,,"1,0",Carol,Dan,a\n',
        encoding="utf-8",
    )
    out = refused(cli, "import", str(path))
    assert f"{path}: row 3, column date: date: '2025-13-45' is not a date" in out
    assert f"{path}: row 3, column table: table: '1,0' is not a whole number" in out
    assert "row 2" not in out  # the good row is not blamed


# -- the sheet with the results --------------------------------------------------------
def test_the_results_are_found_behind_a_notes_sheet(tmp_path: Path, cli: Cli) -> None:
    open_club(cli)
    path = tmp_path / "club.xlsx"
    book = openpyxl.Workbook()
    book.active.title = "Notes"
    book.active.append(["Results of the club, season 2025"])
    results = book.create_sheet("Results")
    results.append(COLUMNS)
    results.append(["Club", "2025-01-05", None, None, None, "Alice", "Bob", "a"])
    book.save(path)
    out = cli.ok("import", str(path))
    assert "1 game" in out
    assert dates_of(cli, "Alice") == ["2025-01-05"]


def test_several_result_sheets_are_named_with_a_hint_of_sheet(tmp_path: Path, cli: Cli) -> None:
    open_club(cli)
    path = tmp_path / "season.xlsx"
    book = openpyxl.Workbook()
    book.active.title = "Notes"
    for month, day in (("January", "2025-01-05"), ("February", "2025-02-05")):
        ws = book.create_sheet(month)
        ws.append(COLUMNS)
        ws.append(["Club", day, None, None, None, "Alice", "Bob", "a"])
    book.save(path)
    out = refused(cli, "import", str(path))
    assert "'January'" in out and "'February'" in out and "--sheet" in out
    assert "'Notes'" not in out and "header but no games" not in out
    cli.ok("import", str(path), "--sheet", "February")
    assert dates_of(cli, "Alice") == ["2025-02-05"]


# -- odd cells that still mean something -----------------------------------------------
def test_serial_dates_text_numbers_and_merged_cells_are_read(tmp_path: Path, cli: Cli) -> None:
    open_club(cli)
    path = tmp_path / "club.xlsx"
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Results"
    ws.append(COLUMNS)
    # An Excel serial date stored as a number (45993 is 2025-12-02), and a
    # table number typed as the text "1.0".
    ws.append(["Club", 45993, None, None, "1.0", "Alice", "Bob", "a"])
    # One ladder and date cell merged over the three games of an evening.
    ws.append(["Club", "2025-12-03", None, None, None, "Alice", "Carol", "a"])
    ws.append([None, None, None, None, None, "Alice", "Dan", "b"])
    ws.append([None, None, None, None, None, "Alice", "Eve", "draw"])
    ws.merge_cells("A3:A5")
    ws.merge_cells("B3:B5")
    book.save(path)
    out = cli.ok("import", str(path))
    assert "4 games" in out, out
    assert dates_of(cli, "Alice") == ["2025-12-02", "2025-12-03", "2025-12-03", "2025-12-03"]
    tables = [line["table"] for line in cli.json("history", "Club", "Bob")]  # type: ignore[index, union-attr]
    assert tables == [1]


def test_a_blank_cell_outside_a_merged_range_stays_blank(tmp_path: Path, cli: Cli) -> None:
    open_club(cli)
    path = tmp_path / "club.xlsx"
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(COLUMNS)
    ws.append(["Club", "2025-12-03", None, None, None, "Alice", "Carol", "a"])
    ws.append(["Club", None, None, None, None, "Alice", "Dan", "b"])
    book.save(path)
    out = refused(cli, "import", str(path))
    assert "row 3, column date" in out


# -- templates ------------------------------------------------------------------------
def test_a_csv_template_is_csv_and_imports(tmp_path: Path, cli: Cli) -> None:
    open_club(cli)
    path = tmp_path / "out.csv"
    cli.ok("template", "--ladder", "Club", str(path))
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[0].startswith("ladder,date,")
    assert text.splitlines()[1].startswith("Club,")
    cli.ok("import", str(path), "--dry-run")
    xlsx = tmp_path / "out.xlsx"
    cli.ok("template", "--ladder", "Club", str(xlsx))
    assert xlsx.read_bytes()[:2] == b"PK"  # a zip: a workbook


def test_a_template_under_another_extension_is_refused(tmp_path: Path, cli: Cli) -> None:
    open_club(cli)
    out = refused(cli, "template", "--ladder", "Club", str(tmp_path / "out.txt"))
    assert len(out.strip().splitlines()) == 1
    assert ".csv" in out and ".xlsx" in out
    assert not (tmp_path / "out.txt").exists()


# -- repeat games: a game reference ----------------------------------------------------
BGA_COLUMNS = ["ladder", "date", "reference", "side_a", "side_b", "side_c", "ranks"]
#: Three games of one evening on BGA between the same three players, each
#: with its BGA table number.
EVENING = [
    ["Arena", "2025-03-02", "612345678", "Alice", "Bob", "Carol", "1,2,3"],
    ["Arena", "2025-03-02", "612345702", "Alice", "Bob", "Carol", "3,1,2"],
    ["Arena", "2025-03-02", "612346011", "Alice", "Bob", "Carol", "2,3,1"],
]


def write_sheet(path: Path, columns: list[str], rows: list[list[str]]) -> Path:
    """The sheet as CSV or as a workbook, by ``path``'s extension."""
    if path.suffix == ".csv":
        lines = [",".join(columns), *(",".join(f'"{c}"' for c in row) for row in rows)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path
    book = openpyxl.Workbook()
    book.active.append(columns)
    for row in rows:
        book.active.append(row)
    book.save(path)
    return path


def games_of(cli: Cli, ladder: str, player: str) -> int:
    return len(cli.json("history", ladder, player))  # type: ignore[arg-type]


def open_arena(cli: Cli) -> None:
    cli.ok("ladder", "open", "Arena", "--family", "bga")


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_repeat_games_of_a_day_import_by_their_reference(
    tmp_path: Path, cli: Cli, suffix: str
) -> None:
    open_arena(cli)
    path = write_sheet(tmp_path / f"bga{suffix}", BGA_COLUMNS, EVENING)
    out = cli.ok("import", str(path))
    assert "added 3 games" in out, out
    assert games_of(cli, "Arena", "Alice") == 3
    # Read again, the sheet adds nothing: each reference is the same game.
    again = cli.ok("import", str(path))
    assert "added 0 games" in again and "skipped 3 already recorded" in again, again
    # The same reference with another result is that game, changed: refused.
    changed = [[*EVENING[1][:-1], "1,2,3"]]
    out = refused(cli, "import", str(write_sheet(tmp_path / f"fix{suffix}", BGA_COLUMNS, changed)))
    assert "row 2" in out and "already recorded with a different result" in out


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_repeat_games_without_a_reference_say_how_to_enter_them(
    tmp_path: Path, cli: Cli, suffix: str
) -> None:
    open_arena(cli)
    columns = [c for c in BGA_COLUMNS if c != "reference"]
    rows = [[c for n, c in enumerate(row) if n != 2] for row in EVENING[:2]]
    out = refused(cli, "import", str(write_sheet(tmp_path / f"bga{suffix}", columns, rows)))
    assert "row 3: the same game as row 2" in out, out
    assert "'reference' column" in out and "'table'" in out, out
    assert games_of_nobody(cli)


def games_of_nobody(cli: Cli) -> bool:
    return cli.run("history", "Arena", "Alice").exit_code != 0 or not cli.json(
        "history", "Arena", "Alice"
    )


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_one_reference_on_two_rows_is_refused_naming_both(
    tmp_path: Path, cli: Cli, suffix: str
) -> None:
    open_arena(cli)
    rows = [EVENING[0], [*EVENING[1][:2], EVENING[0][2], "Dan", "Eve", "Frank", "1,2,3"]]
    out = refused(cli, "import", str(write_sheet(tmp_path / f"bga{suffix}", BGA_COLUMNS, rows)))
    assert "row 3" in out and "row 2" in out and "'612345678'" in out, out
    assert "reference" in out


def test_record_takes_a_reference_and_its_refusal_says_so(cli: Cli) -> None:
    open_arena(cli)
    cli.ok("player", "add", "Alice", "Bob")
    game = ["record", "Arena", "--date", "2025-03-02", "--side", "Alice", "--side", "Bob"]
    cli.ok(*game, "--ranks", "1,2", "--reference", "612345678")
    cli.ok(*game, "--ranks", "2,1", "--reference", "612345702")
    assert games_of(cli, "Arena", "Alice") == 2
    cli.ok(*game, "--ranks", "1,2")
    out = refused(cli, *game, "--ranks", "2,1")
    assert "--reference" in out and "--table" in out, out


def test_templates_offer_the_reference_column(tmp_path: Path, cli: Cli) -> None:
    open_arena(cli)
    path = tmp_path / "out.csv"
    cli.ok("template", "--ladder", "Arena", str(path))
    assert "reference" in path.read_text(encoding="utf-8").splitlines()[0].split(",")
    xlsx = tmp_path / "out.xlsx"
    cli.ok("template", "--ladder", "Arena", str(xlsx))
    book = openpyxl.load_workbook(xlsx)
    header = [c.value for c in book["Results"][1]]
    assert "reference" in header
    notes = " ".join(str(c.value) for row in book["Instructions"].iter_rows() for c in row)
    assert "reference" in notes and "BGA" in notes
