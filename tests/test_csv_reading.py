"""Reading CSV sheets as people's spreadsheets write them:
line breaks inside cells, stray quotes, huge cells, ``;`` separators and
Windows-1252 files give either the games or a clean error naming the file and
row, never a name glued from two lines, a row split in two, or a traceback."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

from ledger.sheets.sheet import read_csv
from tests.conftest import Cli
from tests.test_import_csv import GOOD_ROWS, HEADER, open_club, refused, sheet


def written(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def players(cli: Cli) -> list[str]:
    return [p["name"] for p in cli.json("player", "list")]


# -- line breaks ---------------------------------------------------------------------
def test_a_quoted_name_with_a_line_break_is_refused_not_glued(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = written(
        tmp_path, "results.csv",
        f'{HEADER}\nClub,2025-01-05,,,,"Ann\nSmith",Bob,a\nClub,2025-01-06,,,,Carl,Bob,a\n',
    )  # fmt: skip
    out = refused(cli, "import", str(path))
    assert f"{path}: row 2, column side_a: side_a: 'Ann\\nSmith' holds a line break" in out
    assert "row 3" not in out  # the cell's two lines are one row: the next row is row 3
    assert players(cli) == []


def test_unicode_line_separators_never_split_a_row(cli: Cli, tmp_path: Path) -> None:
    """U+2028 and U+0085 are characters of a cell, not row ends: the row is
    read whole (and refused for a name, or an event id, holding them)."""
    open_club(cli)
    path = written(
        tmp_path, "results.csv",
        f"{HEADER}\nClub,2025-01-05,,,,Ann\u2028Smith,Bob,a\n"
        "Club,2025-01-06,Spring\x85Cup,,,Carl,Bob,a\nClub,2025-01-07,,,,Carl,Dan,b\n",
    )  # fmt: skip
    out = refused(cli, "import", str(path))
    assert f"{path}: row 2, column side_a: side_a: 'Ann\\u2028Smith' holds a line break" in out
    assert f"{path}: row 3, column event: event: 'Spring\\x85Cup' holds a line break" in out
    assert "row 4" not in out
    assert read_csv(path).count == 3


def test_a_row_after_a_quoted_multiline_cell_keeps_its_number(cli: Cli, tmp_path: Path) -> None:
    """A free-text cell may span lines: rows are counted as a spreadsheet shows them."""
    open_club(cli)
    path = written(
        tmp_path, "results.csv",
        "ladder,date,side_a,side_b,result,attr_points\n"
        'Club,2025-01-05,Ann,Bob,a,"1\n"\nClub,2025-01-06,Ann,Bob,q,\n',
    )  # fmt: skip
    out = refused(cli, "import", str(path))
    assert f"{path}: row 3, column result:" in out


# -- broken quoting and huge cells -----------------------------------------------------
def test_a_quote_left_open_is_a_clean_error_naming_the_row(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "results.csv", HEADER, GOOD_ROWS[0], 'Club,2025-01-06,,,,"Ann,Bob,a',
                 GOOD_ROWS[2])  # fmt: skip
    out = refused(cli, "import", str(path))
    assert f"{path}: row 3: a quoted cell is never closed" in out
    assert players(cli) == []


def test_text_after_a_closing_quote_is_a_clean_error(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = sheet(tmp_path, "results.csv", HEADER, 'Club,2025-01-05,,,,"Ann"x,Bob,a', GOOD_ROWS[2])
    out = refused(cli, "import", str(path))
    assert f"{path}: row 2: text after the closing quote of a cell (line 2)" in out
    assert "row 3" not in out


def test_a_cell_over_the_csv_size_limit_is_a_clean_error(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    huge = "x" * (csv.field_size_limit() + 1)
    path = sheet(tmp_path, "results.csv", HEADER, f"Club,2025-01-05,{huge},,,Ann,Bob,a",
                 GOOD_ROWS[2])  # fmt: skip
    out = refused(cli, "import", str(path))
    assert f"{path}: row 2: a cell longer than {csv.field_size_limit():,} characters" in out
    assert "row 3" not in out


# -- separators --------------------------------------------------------------------------
def test_a_semicolon_separated_sheet_imports(
    cli: Cli, tmp_path: Path, make_cli: Callable[[str], Cli]
) -> None:
    """French Excel's default CSV: ';' between cells, ',' as the decimal mark."""
    rows = [
        "ladder;date;event;round;table;side_a;side_b;result;attr_points",
        "Club;2025-01-05;;;;Alice;Bob;a;12,5",
        'Club;2025-01-12;Cup;1;1;"Alice;Carol";Bob;Dan;draw;3',
    ]
    open_club(cli)
    path = written(tmp_path, "fr.csv", "\ufeff" + "\r\n".join(rows) + "\r\n")
    out = refused(cli, "import", str(path))  # Bob;Dan unquoted is two cells: refused
    assert f"{path}: row 3: 10 cells but only 9 columns" in out
    rows[2] = 'Club;2025-01-12;Cup;1;1;"Alice;Carol";"Bob;Dan";draw;3'
    path = written(tmp_path, "fr.csv", "\ufeff" + "\r\n".join(rows) + "\r\n")
    report = cli.json("import", str(path))
    assert (report["added"], report["new_players"]) == (2, ["Alice", "Bob", "Carol", "Dan"])

    comma = make_cli("comma")
    open_club(comma)
    comma.ok("import", str(sheet(
        tmp_path, "en.csv", "ladder,date,event,round,table,side_a,side_b,result,attr_points",
        "Club,2025-01-05,,,,Alice,Bob,a,12.5", "Club,2025-01-12,Cup,1,1,Alice;Carol,Bob;Dan,draw,3",
    )))  # fmt: skip
    assert cli.json("standings", "Club") == comma.json("standings", "Club")


def test_a_tab_separated_utf16_sheet_imports(cli: Cli, tmp_path: Path) -> None:
    """Excel's "Unicode text": UTF-16 with a byte-order mark, tabs between cells."""
    open_club(cli)
    text = "".join(line.replace(",", "\t") + "\r\n" for line in (HEADER, *GOOD_ROWS))
    path = written(tmp_path, "unicode.txt", text, encoding="utf-16")
    assert cli.json("import", str(path))["added"] == 3


# -- encodings --------------------------------------------------------------------------
def test_a_windows_1252_sheet_imports_with_a_notice(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = written(tmp_path, "cp1252.csv", f"{HEADER}\nClub,2025-01-05,,,,Zoé,Bob,a\n", "cp1252")
    report = cli.json("import", str(path))
    assert report["new_players"] == ["Bob", "Zoé"]
    assert report["warnings"][0].startswith(
        f"{path}: not UTF-8 (line 2: byte 0xE9): read as Windows-1252"
    )
    assert "CSV UTF-8" in report["warnings"][0]


def test_a_sheet_is_read_as_the_encoding_its_bytes_are_in_wherever_they_are(
    tmp_path: Path,
) -> None:
    """UTF-8 is taken on trust until a byte says otherwise (in the header or
    on the last line): the sheet is then read as Windows-1252, each row once,
    with the notice; a UTF-8 sheet is read as UTF-8 without one."""
    rows = ["Club,2025-01-05,,,,Ann,Bob,a", "Club,2025-01-06,,,,Zoé,Bob,a"]
    for name, header, encoding, notice in (
        ("utf8.csv", HEADER, "utf-8", False),
        ("header.csv", HEADER + ",attr_é", "cp1252", True),
        ("last.csv", HEADER, "cp1252", True),
    ):
        path = written(tmp_path, name, "\n".join([header, *rows]) + "\n", encoding)
        sheet = read_csv(path)
        assert sheet.count == 2 and sheet.bad_rows == []
        assert [cells[5] for _, cells in sheet.rows.records()] == ["Ann", "Zoé"]
        assert bool(sheet.notices) is notice
        assert sheet.rows.form.encoding == encoding and not sheet.rows.form.assumed


def test_a_file_in_no_known_encoding_says_how_to_save_as_utf8(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = tmp_path / "bad.csv"
    path.write_bytes(f"{HEADER}\nClub,2025-01-05,,,,Ann,Bob,a\nClub,2025-01-06,,,,A".encode()
                     + b"\x81\x8d,Bob,a\n")  # fmt: skip
    out = refused(cli, "import", str(path))
    assert f"{path}: line 3: byte 0x81 is not UTF-8, and the file is not Windows-1252" in out
    assert "'CSV UTF-8 (Comma delimited)'" in out


def test_a_file_mixing_utf8_and_windows_1252_is_refused(cli: Cli, tmp_path: Path) -> None:
    open_club(cli)
    path = tmp_path / "mixed.csv"
    path.write_bytes(
        f"{HEADER}\nClub,2025-01-05,,,,Zoé,Bob,a\n".encode()
        + "Club,2025-01-06,,,,Zoé,Bob,a\n".encode("cp1252")
    )
    out = refused(cli, "import", str(path))
    assert f"{path}: line 3: byte 0xE9 is not UTF-8, yet earlier lines are" in out
