"""A result sheet as read from a file: its header and its rows of text cells.

CSV files are read here and Excel workbooks by ``ledger.workbook``; both give
the same ``Sheet``, so the importer checks every sheet alike. Which result
columns a sheet may have depends on the families of the ladders it names, so
the header is checked by the importer (``check_columns``), not by the readers.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

import msgspec

from ledger.errors import Invalid

BASE_COLUMNS = ("ladder", "date", "event", "round", "table", "neutral")
SIDE_COLUMNS = tuple(f"side_{c}" for c in "abcdefghijklmnopqrstuvwxyz")
ATTRIBUTE_PREFIX = "attr_"
PLAYER_SEPARATOR = ";"


class Sheet(msgspec.Struct):
    """A sheet's data rows (row number as a spreadsheet shows it, cells by
    column), its header, and the rows that could not even be split into
    cells, with why."""

    label: str
    rows: list[tuple[int, dict[str, str]]]
    bad_rows: list[str] = []
    columns: list[str] = []


def check_columns(
    label: str, columns: list[str], result_columns: Iterable[str], ladder_given: bool = False
) -> None:
    """Refuse a header with unknown, repeated or missing columns (row 1).

    ``result_columns`` are the result fields of the families of the ladders
    the sheet names (a community's own family brings its own)."""
    results = tuple(result_columns)
    problems = []
    for number, column in enumerate(columns, start=1):
        known = column in BASE_COLUMNS or column in SIDE_COLUMNS or column in results
        if not known and not column.startswith(ATTRIBUTE_PREFIX):
            problems.append(
                f"{label}: row 1, column {number}: unknown column {column!r} (expected "
                f"{', '.join(BASE_COLUMNS + ('side_a', 'side_b', '...') + results)} "
                f"or {ATTRIBUTE_PREFIX}NAME)"
            )
    seen: dict[str, int] = {}
    for number, column in enumerate(columns, start=1):
        if column and column in seen:
            # Its second cell would silently replace the first.
            problems.append(
                f"{label}: row 1, column {number}: column {column!r} is also column {seen[column]}"
            )
        seen.setdefault(column, number)
    required = (
        ("date", "side_a", "side_b") if ladder_given else ("ladder", "date", "side_a", "side_b")
    )
    for column in required:
        if column not in columns:
            problems.append(f"{label}: row 1: missing column {column!r}")
    if problems:
        raise Invalid("\n".join(problems))


def read_csv(path: Path) -> Sheet:
    """A CSV sheet's data rows with their spreadsheet row numbers (header = 1)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise Invalid(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise Invalid(f"{path}: cannot read: {exc}") from None
    reader = csv.reader(text.splitlines())
    header = next(reader, None)
    if not header or not any(h.strip() for h in header):
        raise Invalid(
            f"{path}: the sheet is empty (expected a header row: ladder,date,side_a,side_b,result,...)"
        )
    columns = [h.strip().lower() for h in header]
    sheet = Sheet(str(path), [], columns=columns)
    for number, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue  # blank lines
        if len(cells) > len(columns) and any(c.strip() for c in cells[len(columns) :]):
            sheet.bad_rows.append(
                f"{path}: row {number}: {len(cells)} cells but only {len(columns)} columns"
            )
            continue
        sheet.rows.append((number, dict(zip(columns, cells, strict=False))))
    if not sheet.rows and not sheet.bad_rows:
        raise Invalid(f"{path}: the sheet has a header but no games")
    return sheet


def load(path: Path, sheet: str | None = None) -> Sheet:
    """A result sheet from a CSV file or an Excel workbook (by extension)."""
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        from ledger.workbook import load_sheet

        return load_sheet(path, sheet)
    if sheet is not None:
        raise Invalid(f"{path}: --sheet applies to Excel workbooks (.xlsx) only")
    return read_csv(path)
