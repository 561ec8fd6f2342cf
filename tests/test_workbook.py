"""Excel workbooks: result sheets read like CSV, query exports, family templates.

Every workbook here is a real .xlsx file written with openpyxl.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import msgspec
import openpyxl
import pytest
from openpyxl.utils import get_column_letter

from ledger.families.registry import load_family
from ledger.kernel.errors import Invalid
from ledger.sheets.importer import Layout, result_columns, row_input
from ledger.sheets.sheet import check_columns, read_csv
from ledger.sheets.workbook import (
    INSTRUCTIONS,
    RESULTS,
    TEMPLATE_ROWS,
    cell_text,
    load_sheet,
    read_sheet,
    template_columns,
    write_rows,
    write_template,
)
from projections.queries import AuditLine, HistoryLine, LadderInfo, StandingRow
from tests.conftest import Cli

BUILT_IN_RESULTS = result_columns([])

FAMILIES = ("elo", "battle-empire", "adlg", "battletech", "bga")


def workbook(path: Path, sheets: dict[str, Sequence[Sequence[Any]]], hidden: Sequence[str] = ()) -> Path:  # fmt: skip
    """Write ``sheets`` (name -> rows of cell values, None for empty) to ``path``."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        ws = book.create_sheet(name)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                if value is not None:
                    ws.cell(row=r, column=c, value=value)
        if name in hidden:
            ws.sheet_state = "hidden"
    book.save(path)
    return path


HEADER = [" Ladder", "DATE ", "event", "round", "table", "side_a", "side_b", "result"]
COLUMNS = ["ladder", "date", "event", "round", "table", "side_a", "side_b", "result"]


# -- reading ---------------------------------------------------------------------------
def test_cells_become_the_text_a_csv_cell_holds(tmp_path: Path) -> None:
    path = tmp_path / "results.xlsx"
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Results"
    ws.append(HEADER)
    ws.append(["Club", date(2025, 1, 5), "Cup", 1.0, 2, "  Alice ", "Bob\u00a0", " a "])
    ws.append(["Club", "2025-01-12", "  ", "3", "4", "Alice;Carol", "Bob;Dan", "draw"])
    ws.append([None] * 8)  # a blank row in the middle
    ws.append(["Club", datetime(2025, 2, 1, 18, 30), 2025, 2.5, None, "Eve", "Frank", "b"])
    # Trailing blank rows: formatted but empty cells, and whitespace-only text.
    ws.cell(row=40, column=2).number_format = "yyyy-mm-dd"
    ws.cell(row=41, column=1, value="   ")
    book.save(path)

    rows = read_sheet(path)

    assert rows == [
        (2, dict(zip(COLUMNS, ["Club", "2025-01-05", "Cup", "1", "2", "Alice", "Bob", "a"], strict=True))),
        (3, dict(zip(COLUMNS, ["Club", "2025-01-12", "", "3", "4", "Alice;Carol", "Bob;Dan", "draw"], strict=True))),
        (5, dict(zip(COLUMNS, ["Club", "2025-02-01", "2025", "2.5", "", "Eve", "Frank", "b"], strict=True))),
    ]  # fmt: skip


def test_an_xlsx_sheet_reads_exactly_as_the_same_csv_sheet(tmp_path: Path) -> None:
    lines = [
        COLUMNS,
        ["Club", "2025-01-05", "", "", "", "Alice", "Bob", "a"],
        ["", "", "", "", "", "", "", ""],
        ["Club", "2025-01-12", "Cup", "1", "1", "Alice;Carol", "Bob;Dan", "draw"],
    ]
    csv_path = tmp_path / "results.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(lines)
    xlsx = workbook(
        tmp_path / "results.xlsx",
        {
            "Sheet": [
                COLUMNS,
                ["Club", date(2025, 1, 5), None, None, None, "Alice", "Bob", "a"],
                [],
                ["Club", date(2025, 1, 12), "Cup", 1, 1, "Alice;Carol", "Bob;Dan", "draw"],
            ]
        },
    )
    assert read_sheet(xlsx) == list(read_csv(csv_path).rows)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        (3.0, "3"),
        (1500, "1500"),
        (-2.0, "-2"),
        (2.5, "2.5"),
        (0.1 + 0.2, "0.3"),
        (1e20, "100000000000000000000"),
        (True, "true"),
        (date(2025, 3, 2), "2025-03-02"),
        (datetime(2025, 3, 2, 23, 59), "2025-03-02"),
        ("  Éric Dupont \t", "Éric Dupont"),
        ("\ufeffAlice\u200b", "Alice"),
    ],
)
def test_cell_text(value: Any, text: str) -> None:
    assert cell_text(value) == text


def test_a_sheet_is_picked_by_name_else_the_first_that_is_not_instructions(
    tmp_path: Path,
) -> None:
    first = [COLUMNS, ["Club", "2025-01-05", "", "", "", "Alice", "Bob", "a"]]
    second = [COLUMNS, ["Club", "2025-02-05", "", "", "", "Carol", "Dan", "b"]]
    path = workbook(
        tmp_path / "book.xlsx",
        {INSTRUCTIONS: [["read me"]], "January": first, "February": second},
    )
    with pytest.raises(Invalid, match=r"'January', 'February'\): choose one with --sheet"):
        read_sheet(path)  # two sheets of results: which one is the referee's to say
    assert read_sheet(path, "January")[0][1]["side_a"] == "Alice"
    assert read_sheet(path, "February")[0][1]["side_a"] == "Carol"
    assert read_sheet(path, " february ")[0][1]["side_a"] == "Carol"  # case-insensitive


def test_a_hidden_sheet_is_not_the_default(tmp_path: Path) -> None:
    path = workbook(
        tmp_path / "book.xlsx",
        {
            "Lists": [["a"], ["b"]],
            "Results": [COLUMNS, ["Club", "2025-01-05", "", "", "", "Alice", "Bob", "a"]],
        },
        hidden=["Lists"],
    )
    assert read_sheet(path)[0][1]["side_a"] == "Alice"


def test_a_missing_sheet_is_an_error_listing_the_sheets(tmp_path: Path) -> None:
    path = workbook(tmp_path / "book.xlsx", {"January": [COLUMNS], "February": [COLUMNS]})
    with pytest.raises(Invalid) as caught:
        read_sheet(path, "March")
    message = str(caught.value)
    assert str(path) in message
    assert "'March'" in message
    assert "'January', 'February'" in message


def test_a_workbook_of_instructions_only_has_no_result_sheet(tmp_path: Path) -> None:
    path = workbook(tmp_path / "book.xlsx", {INSTRUCTIONS: [["read me"]]})
    with pytest.raises(Invalid, match="no result sheet"):
        read_sheet(path)


def test_a_file_that_is_not_a_workbook_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.xlsx"
    path.write_text("ladder,date,side_a,side_b,result\n", encoding="utf-8")
    with pytest.raises(Invalid) as caught:
        read_sheet(path)
    assert str(path) in str(caught.value)
    assert "Excel workbook" in str(caught.value)
    with pytest.raises(Invalid, match="no such file"):
        read_sheet(tmp_path / "missing.xlsx")


def test_an_empty_sheet_is_refused_naming_file_and_sheet(tmp_path: Path) -> None:
    path = workbook(tmp_path / "book.xlsx", {"Results": []})
    with pytest.raises(Invalid) as caught:
        read_sheet(path)
    assert f"{path} (sheet 'Results'): the sheet is empty" in str(caught.value)


def test_a_sheet_without_a_header_row_is_refused(tmp_path: Path) -> None:
    path = workbook(
        tmp_path / "book.xlsx",
        {"Results": [[], COLUMNS, ["Club", "2025-01-05", "", "", "", "Alice", "Bob", "a"]]},
    )
    with pytest.raises(Invalid, match=r"\(sheet 'Results'\): row 1 is blank"):
        read_sheet(path)


def test_a_header_without_games_is_refused(tmp_path: Path) -> None:
    path = workbook(tmp_path / "book.xlsx", {"Results": [COLUMNS, [], []]})
    with pytest.raises(Invalid, match="has a header but no games"):
        read_sheet(path)


def test_bad_columns_are_reported_with_sheet_and_column_number(tmp_path: Path) -> None:
    path = workbook(
        tmp_path / "book.xlsx",
        {"Results": [["ladder", "date", "side_a", "score"], ["Club", "2025-01-05", "A", "1"]]},
    )
    loaded = load_sheet(path)
    with pytest.raises(Invalid) as caught:
        check_columns(loaded.label, loaded.columns, BUILT_IN_RESULTS)
    lines = str(caught.value).splitlines()
    label = f"{path} (sheet 'Results')"
    assert lines[0].startswith(f"{label}: row 1, column 4: unknown column 'score'")
    assert lines[1] == f"{label}: row 1: missing column 'side_b'"


def test_csv_and_excel_readers_give_the_same_header(tmp_path: Path) -> None:
    """Both readers hand the header as it is; the importer checks it alike."""
    header = ["ladder", "date", "side_a", "score", "attr_points"]
    path = tmp_path / "bad.csv"
    path.write_text(",".join(header) + "\nClub,2025-01-05,A,1,3\n", encoding="utf-8")
    xlsx = workbook(tmp_path / "bad.xlsx", {"Results": [header, ["Club", "2025-01-05", "A", 1, 3]]})
    assert read_csv(path).columns == load_sheet(xlsx).columns == header
    with pytest.raises(Invalid) as caught:
        check_columns(str(path), header, BUILT_IN_RESULTS)
    assert "unknown column 'score'" in str(caught.value)
    assert "missing column 'side_b'" in str(caught.value)


def test_check_columns_accepts_every_fixture_header() -> None:
    accepted = []
    for fixture in sorted((Path(__file__).parent.parent / "fixtures").glob("*.csv")):
        columns = fixture.read_text(encoding="utf-8").splitlines()[0].split(",")
        check_columns(str(fixture), columns, BUILT_IN_RESULTS)
        accepted.append(fixture.name)
    assert len(accepted) == 5


def test_check_columns_refuses_a_repeated_column() -> None:
    with pytest.raises(Invalid) as caught:
        check_columns("s.xlsx", ["ladder", "date", "side_a", "side_b", "date"], BUILT_IN_RESULTS)
    assert str(caught.value) == "s.xlsx: row 1, column 5: column 'date' is also column 2"


def test_the_ladder_column_may_be_left_out_when_the_import_names_the_ladder(
    tmp_path: Path,
) -> None:
    header = ["date", "side_a", "side_b", "result"]
    path = workbook(tmp_path / "book.xlsx", {"Results": [header, ["2025-01-05", "A", "B", "a"]]})
    assert read_sheet(path) == [
        (2, {"date": "2025-01-05", "side_a": "A", "side_b": "B", "result": "a"})
    ]
    check_columns("book.xlsx", header, BUILT_IN_RESULTS, ladder_given=True)
    with pytest.raises(Invalid, match="missing column 'ladder'"):
        check_columns("book.xlsx", header, BUILT_IN_RESULTS)


def test_excel_errors_and_values_outside_the_header_are_reported(tmp_path: Path) -> None:
    path = workbook(
        tmp_path / "book.xlsx",
        {
            "Results": [
                COLUMNS,
                ["Club", "#DIV/0!", None, None, None, "Alice", "Bob", "a"],
                ["Club", "2025-01-05", None, None, None, "Alice", "Bob", "a", None, "stray"],
                ["Club", "2025-01-06", None, None, None, "Alice", "Bob", "a"],
            ]
        },
    )
    label = f"{path} (sheet 'Results')"
    problems = [
        f"{label}: row 2, column date: the cell holds the Excel error "
        "#DIV/0! (fix the formula or type the value)",
        f"{label}: row 3: a value in column J but the header has only 8 columns",
    ]
    # load_sheet hands them to the importer, to report with its other row errors ...
    loaded = load_sheet(path)
    assert loaded.label == label
    assert loaded.bad_rows == problems
    assert [number for number, _ in loaded.rows] == [4]
    # ... read_sheet refuses the sheet, listing them all.
    with pytest.raises(Invalid) as caught:
        read_sheet(path)
    assert str(caught.value).splitlines() == problems


# -- exporting -------------------------------------------------------------------------
def test_standings_export_round_trip(tmp_path: Path) -> None:
    rows = [
        StandingRow(1, "Éric Dupont", 1532.5, "Colonel", 12, "2025-03-02"),
        StandingRow(2, '=HYPERLINK("http://x")', 1480.0, None, 3, None),
    ]
    path = tmp_path / "standings.xlsx"
    write_rows(path, rows, StandingRow, "Battle Empire Club")

    ws = openpyxl.load_workbook(path).active
    assert ws.title == "Battle Empire Club"
    values = [[c.value for c in row] for row in ws.iter_rows()]
    assert values[0] == ["rank", "player", "rating", "grade", "games", "last_played"]
    assert values[1] == [1, "Éric Dupont", 1532.5, "Colonel", 12, datetime(2025, 3, 2)]
    assert values[2] == [2, '=HYPERLINK("http://x")', 1480, None, 3, None]
    assert all(c.font.b for c in ws[1])
    assert ws.freeze_panes == "A2"
    assert isinstance(ws["C2"].value, float) and isinstance(ws["E2"].value, int)
    assert ws["B3"].data_type == "s"  # text, never a formula
    assert ws["F2"].number_format == "yyyy-mm-dd"
    assert ws.column_dimensions["B"].width > ws.column_dimensions["A"].width


def test_history_and_audit_exports_keep_their_columns(tmp_path: Path) -> None:
    history = [
        HistoryLine("2025-03-02", "game", "3fa2b1c0", "BE-LYON", 1, 4, "Anne Martin",
                    "won", "decisive", 1.25, 0.5, 60.0, 1000.0, 1045.0, 45.0, ""),
    ]  # fmt: skip
    audit = [
        AuditLine(1, "2025-03-02T10:00:00+00:00", "referee", "GameRecorded", "Club",
                  "Éric Dupont beat Anne Martin", None, "results.csv:2"),
    ]  # fmt: skip
    write_rows(tmp_path / "history.xlsx", history, HistoryLine, "History")
    write_rows(tmp_path / "audit.xlsx", audit, AuditLine, "Club: audit [2025/26]")

    ws = openpyxl.load_workbook(tmp_path / "history.xlsx").active
    assert [c.value for c in ws[1]] == list(HistoryLine.__struct_fields__)
    assert [c.value for c in ws[2]][4:] == [
        1, 4, "Anne Martin", "won", "decisive", 1.25, 0.5, 60, 1000, 1045, 45, None
    ]  # fmt: skip
    assert ws.title == "History list"  # Excel refuses a sheet named "History"
    ws = openpyxl.load_workbook(tmp_path / "audit.xlsx").active
    assert ws.title == "Club audit 2025 26"  # no []:*?/\\ in a sheet name
    assert ws["B2"].value == "2025-03-02T10:00:00+00:00"  # a timestamp stays text
    assert ws["H2"].value == "results.csv:2"


def test_dicts_and_lists_are_exported_as_json_text(tmp_path: Path) -> None:
    info = LadderInfo("Club", "elo", {"k": 24, "scores": {"win": 1.0}}, 4, 9, [{"k": 32}])
    write_rows(tmp_path / "ladders.xlsx", [info], LadderInfo, "Ladders")
    ws = openpyxl.load_workbook(tmp_path / "ladders.xlsx").active
    row = {h.value: c.value for h, c in zip(ws[1], ws[2], strict=True)}
    assert msgspec.json.decode(row["params"]) == {"k": 24, "scores": {"win": 1.0}}
    assert msgspec.json.decode(row["rules"]) == [{"k": 32}]
    assert row["players"] == 4


def test_an_empty_export_still_has_its_header(tmp_path: Path) -> None:
    write_rows(tmp_path / "empty.xlsx", [], StandingRow, "Club")
    ws = openpyxl.load_workbook(tmp_path / "empty.xlsx").active
    assert [[c.value for c in row] for row in ws.iter_rows()] == [
        list(StandingRow.__struct_fields__)
    ]


def test_an_unwritable_export_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(Invalid, match="cannot write"):
        write_rows(tmp_path / "no-such-dir" / "x.xlsx", [], StandingRow, "Club")


# -- templates -------------------------------------------------------------------------
EXPECTED_COLUMNS = {
    "elo": ["result", "margin"],
    "battle-empire": ["result", "margin"],
    "adlg": ["result"],
    "battletech": ["bv", "units", "objectives", "k_a", "k_b", "k_star"],
    "bga": ["ranks", "quit"],
}
BASE = ["ladder", "date", "event", "round", "table", "reference", "neutral"]


def validations(ws: Any) -> dict[str, tuple[str, str]]:
    """Column name -> (list formula, cell range) of each dropdown."""
    header = {get_column_letter(c.column): c.value for c in ws[1]}
    out = {}
    for check in ws.data_validations.dataValidation:
        assert check.type == "list"
        assert check.showErrorMessage  # a bad value is refused, not just flagged
        ref = str(check.sqref)
        out[header[ref.split(":")[0].rstrip("0123456789")]] = (check.formula1, ref)
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_a_template_has_the_family_columns_dropdowns_and_one_example(
    tmp_path: Path, family: str
) -> None:
    path = tmp_path / f"{family}.xlsx"
    write_template(path, family)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == [RESULTS, INSTRUCTIONS]
    ws = book[RESULTS]
    sides = ["side_a", "side_b"] + (["side_c", "side_d", "side_e"] if family == "bga" else [])
    header = [c.value for c in ws[1]]
    assert header == BASE + sides + EXPECTED_COLUMNS[family] == template_columns(family)
    assert ws.freeze_panes == "A2"

    checks = validations(ws)
    letter = {name: get_column_letter(i) for i, name in enumerate(header, start=1)}
    assert checks["neutral"] == ('"yes,no"', f"{letter['neutral']}2:{letter['neutral']}{TEMPLATE_ROWS}")  # fmt: skip
    if "result" in header:
        assert checks["result"] == ('"a,b,draw"', f"{letter['result']}2:{letter['result']}1000")
    else:
        assert "result" not in checks
    margins = {"battle-empire": '"marginal,decisive,overwhelming"', "elo": '"win"'}
    assert checks.get("margin", (None,))[0] == margins.get(family)

    # The date column is formatted as dates; the example's date is a real date.
    date_cell = ws.cell(row=2, column=header.index("date") + 1)
    assert date_cell.is_date and date_cell.number_format == "yyyy-mm-dd"
    assert ws.column_dimensions[letter["date"]].number_format == "yyyy-mm-dd"
    # One example row, nothing below it.
    assert ws.cell(row=2, column=header.index("side_a") + 1).value
    assert all(c.value is None for c in ws[3])


@pytest.mark.parametrize("family", FAMILIES)
def test_a_template_reads_back_as_a_valid_game_of_its_family(tmp_path: Path, family: str) -> None:
    path = tmp_path / f"{family}.xlsx"
    write_template(path, family)
    rows = read_sheet(path)
    assert [number for number, _ in rows] == [2]
    row = rows[0][1]
    assert list(row) == template_columns(family)
    inp = row_input(row, Layout.of(row, BUILT_IN_RESULTS))
    fam = load_family(family, {})
    cells = {k: fam.parse_cell(k, v) for k, v in inp.result.items()}
    result = fam.parse_result(cells, len(inp.sides))
    expected = {
        "elo": {"result": "a"},
        "battle-empire": {"result": "a", "margin": "decisive"},
        "adlg": {"result": "draw"},
        "battletech": {"bv": [6000, 3200, 6000, 1800]},
        "bga": {"ranks": [1, 3, 2, 4]},
    }[family]
    plain = msgspec.to_builtins(result)
    assert {k: plain[k] for k in expected} == expected
    assert len(inp.sides) == (4 if family == "bga" else 2)


def test_the_template_example_imports_through_the_cli(tmp_path: Path, cli: Cli) -> None:
    """The example row, read from the workbook, is a game the importer records."""
    path = tmp_path / "be.xlsx"
    write_template(path, "battle-empire")
    rows = read_sheet(path)
    as_csv = tmp_path / "be.csv"
    with as_csv.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0][1]))
        writer.writeheader()
        writer.writerows(cells for _, cells in rows)
    cli.ok("ladder", "open", rows[0][1]["ladder"], "--family", "battle-empire")
    cli.ok("import", str(as_csv))
    standings = cli.json("standings", rows[0][1]["ladder"])
    assert [(s["player"], s["games"]) for s in standings] == [("Éric Dupont", 1), ("Anne Martin", 1)]  # fmt: skip


def test_an_elo_template_offers_the_ladder_s_own_margins(tmp_path: Path) -> None:
    path = tmp_path / "elo.xlsx"
    scores = {"win": 1.0, "big-win": 1.2, "draw": 0.5, "loss": 0.0}
    write_template(path, "elo", params={"scores": scores})
    checks = validations(openpyxl.load_workbook(path)[RESULTS])
    assert checks["margin"][0] == '"win,big-win"'


def test_list_columns_are_text_so_commas_survive(tmp_path: Path) -> None:
    path = tmp_path / "bga.xlsx"
    write_template(path, "bga")
    ws = openpyxl.load_workbook(path)[RESULTS]
    header = [c.value for c in ws[1]]
    ranks = get_column_letter(header.index("ranks") + 1)
    assert ws.column_dimensions[ranks].number_format == "@"
    assert ws[f"{ranks}2"].value == "1,3,2,4" and ws[f"{ranks}2"].data_type == "s"


@pytest.mark.parametrize(
    ("family", "phrases"),
    [
        ("elo", ["a = side A", "b = side B", "draw", "';'", "all-or-nothing"]),
        ("battle-empire", ["marginal, decisive, overwhelming", "';'", "example"]),
        ("adlg", ["a = side A", "closes"]),
        ("battletech", ["bv", "JSON", '"state":"crippled"', "6000,3200,6000,1800"]),
        ("bga", ["1 = best", "1,3,2,4", "quit first", "side_f"]),
    ],
)
def test_the_instructions_explain_each_column(
    tmp_path: Path, family: str, phrases: list[str]
) -> None:
    path = tmp_path / f"{family}.xlsx"
    write_template(path, family)
    book = openpyxl.load_workbook(path)
    info = book[INSTRUCTIONS]
    text = "\n".join(str(c.value) for row in info.iter_rows() for c in row if c.value)
    for phrase in phrases:
        assert phrase in text, phrase
    explained = {row[0].value for row in info.iter_rows() if row[0].value}
    assert set(template_columns(family)) <= explained


def test_an_unknown_family_has_no_template(tmp_path: Path) -> None:
    with pytest.raises(Invalid, match="unknown family 'chess'"):
        write_template(tmp_path / "x.xlsx", "chess")
    assert not (tmp_path / "x.xlsx").exists()


def test_append_row_keeps_text_as_text(tmp_path: Path) -> None:
    """openpyxl's own append stores "=1+1" as a formula; append_row does not."""
    import openpyxl

    from ledger.sheets.workbook import append_row

    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["=1+1"])
    append_row(ws, ["=1+1", "@cmd", -12.5])
    path = tmp_path / "rows.xlsx"
    book.save(path)
    read = openpyxl.load_workbook(path).active
    assert read["A1"].data_type == "f"  # what a plain append does
    assert [c.value for c in read[2]] == ["=1+1", "@cmd", -12.5]
    assert [c.data_type for c in read[2]] == ["s", "s", "n"]
