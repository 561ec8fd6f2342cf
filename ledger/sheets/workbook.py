"""Excel workbooks: result sheets read like CSV ones, query exports, templates.

- ``load_sheet`` reads an ``.xlsx`` result sheet into the ``sheet.Sheet``
  that ``sheet.read_csv`` gives for CSV (rows of ``{column: text}``),
  every cell turned into the text a CSV cell would hold, so the importer
  checks both alike; ``read_sheet`` gives just the rows.
- ``write_rows`` exports query results (standings, history, audit).
- ``write_template`` writes a ready-to-fill result sheet for a family, with
  dropdowns, an example row (or the games to play, pre-filled: the camps of
  ``ledger teams``) and an "Instructions" sheet; ``add_result_sheet`` adds
  the same to another workbook (the camp sheet).
- ``read_player_names`` reads the players ``ledger teams`` splits;
  ``write_camp_sheet`` writes its camps and the games
  between them (``team_game_rows``), ready to fill in and import.

A workbook is a zip archive of XML that referees receive from others: it is
read within ``WorkbookLimits`` (bytes it inflates to, rows, cells), checked
before openpyxl parses it, and its XML is parsed with ``defusedxml``
installed (openpyxl uses it: no entity expansion).

openpyxl is imported on first use: importing this module stays cheap for the CLI.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.families.base import Family, FamilyError
from ledger.families.registry import family_class
from ledger.kernel.errors import Invalid
from ledger.kernel.translation import N_, NC_, Lines, Message, Translator, said, translator
from ledger.sheets.sheet import ATTRIBUTE_PREFIX, PLAYER_SEPARATOR, SIDE_COLUMNS, Sheet

if TYPE_CHECKING:
    from openpyxl.workbook.workbook import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

#: The sheet the template explains the columns on; never read as results.
INSTRUCTIONS = "Instructions"
#: The template's result sheet (named in the user's language; the importer
#: finds it by its header).
RESULTS = NC_("sheet", "Results")
#: Rows of the template that get dropdowns (header = row 1).
TEMPLATE_ROWS = 1000
#: Characters Excel refuses in a sheet name.
_SHEET_NAME_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: Invisible characters pasted from web pages, stripped like spaces.
_INVISIBLE = "\u200b\ufeff"
#: Excel's own limit of columns in a sheet (XFD).
EXCEL_COLUMNS = 16_384
_MB = 1024 * 1024


class WorkbookLimits(msgspec.Struct, frozen=True):
    """How much of an ``.xlsx`` file an import reads at most. A workbook is
    a zip archive of XML: a file of a few kilobytes can inflate to gigabytes
    (a zip bomb). ``megabytes``: what all the archive's parts inflate to,
    as the archive declares it (checked before anything is inflated; a part
    that inflates to more than it declares fails its check); ``rows`` and
    ``cells``: of the sheets and shared strings, counted as they stream,
    before openpyxl builds a row."""

    megabytes: int = 100
    rows: int = 500_000
    cells: int = 5_000_000


class _TooMuch(Exception):
    """Raised from the XML scan's handlers: the message says which limit."""


def _openpyxl() -> Any:
    try:
        import openpyxl
    except ImportError:  # pragma: no cover - openpyxl is a dependency
        raise Invalid(Message("Excel workbooks need openpyxl: pip install openpyxl")) from None
    return openpyxl


# -- reading -------------------------------------------------------------------------
def cell_text(value: Any) -> str:
    """A cell's value as the text a CSV cell would hold.

    Dates and date-times give ``YYYY-MM-DD`` (a time of day is dropped), whole
    numbers give no ``.0`` (``3.0`` → ``"3"``), other numbers their shortest
    text (at most 15 significant digits, Excel's precision), booleans
    ``true``/``false``, empty cells ``""``, text is stripped of surrounding
    whitespace.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return str(int(value))
        return f"{value:.15g}"
    return str(value).strip().strip(_INVISIBLE).strip()


def sheet_label(path: Path, sheet: str) -> str:
    """How messages name a workbook's sheet: ``results.xlsx (sheet 'Results')``."""
    return f"{path} (sheet {sheet!r})"


def load_sheet(path: Path, sheet: str | None = None, limits: WorkbookLimits | None = None) -> Sheet:
    """An ``.xlsx`` result sheet as ``sheet.read_csv`` gives a CSV one,
    read within ``limits`` (``WorkbookLimits()`` when None).

    ``Sheet.label`` names the file and sheet (``results.xlsx (sheet
    'Results')``); ``Sheet.rows`` holds ``(excel_row_number, {column: text})``
    for each non-blank row (the header is row 1; blank rows anywhere are
    skipped). Column names are the header cells stripped and lower-cased;
    every header column is in every row's dict (``""`` for an empty cell);
    cells are text as ``cell_text`` gives them, formulas by their saved
    values. ``Sheet.bad_rows`` says why rows could not be read (an Excel
    error value such as ``#N/A``, a value right of the header's columns);
    the importer reports them with its other row errors.

    ``sheet`` names the worksheet (exact name, else case-insensitive); by
    default the first visible sheet not named "Instructions". The header is
    checked by the importer, which knows the ladders' families.

    Raises Invalid naming the file (and sheet): no such file, not a workbook,
    beyond a limit, unknown sheet, empty sheet, no header in row 1, bad
    columns, a header but no games.
    """
    limits = limits or WorkbookLimits()
    if not path.exists():
        raise Invalid(Message("{path}: no such file", path=path))
    book = _open_book(path, limits)
    try:
        ws = _pick_sheet(path, book, sheet)
        label = sheet_label(path, ws.title)
        try:
            return _read_rows(label, ws, limits)
        except Invalid:
            raise
        except Exception as exc:  # a corrupt sheet part fails while streaming
            raise Invalid(
                Message(
                    "{label}: cannot read: {reason}", label=label, reason=exc or type(exc).__name__
                )
            ) from None
    finally:
        book.close()


def _open_book(path: Path, limits: WorkbookLimits) -> Workbook:
    """The workbook opened read-only by openpyxl, once its archive is
    checked within ``limits`` (``check_workbook``)."""
    check_workbook(path, limits)
    try:
        return _openpyxl().load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds on a broken or foreign file
        raise Invalid(
            Message(
                "{path}: cannot read it as an Excel workbook (.xlsx): {reason}",
                path=path,
                reason=exc or type(exc).__name__,
            )
        ) from None


def check_workbook(path: Path, limits: WorkbookLimits) -> None:
    """Refuse, in one line naming the file, a workbook beyond ``limits``:
    its parts' declared sizes first (nothing inflated yet), then its sheets
    and shared strings streamed through expat, counting rows and cells and
    refusing any XML entity declaration, in bounded memory."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            parts = archive.infolist()
            inflated = sum(part.file_size for part in parts)
            if inflated > limits.megabytes * _MB:
                raise Invalid(
                    Message(
                        "{path}: refused: its parts inflate to {inflated:,.0f} MB, more than the "
                        "{megabytes:,} MB an import reads (--max-unzipped-mb)",
                        path=path,
                        inflated=inflated / _MB,
                        megabytes=limits.megabytes,
                    )
                )
            counts = [0, 0]  # rows, cells (shared strings count as cells)
            for part in parts:
                name = part.filename
                if name == "xl/sharedStrings.xml" or (
                    name.startswith("xl/worksheets/") and name.endswith(".xml")
                ):
                    with archive.open(part) as stream:
                        _scan(stream, limits, counts)
    except Invalid:
        raise
    except _TooMuch as exc:
        raise Invalid(Message("{path}: refused: {exc}", path=path, exc=exc)) from None
    except Exception as exc:  # a broken archive, a part that fails its CRC, bad XML
        raise Invalid(
            Message(
                "{path}: cannot read it as an Excel workbook (.xlsx): {reason}",
                path=path,
                reason=exc or type(exc).__name__,
            )
        ) from None


def _scan(stream: Any, limits: WorkbookLimits, counts: list[int]) -> None:
    """Count the rows and cells of one XML part (``counts`` carries the
    totals across parts), refusing beyond ``limits`` as they stream."""
    from xml.parsers import expat

    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    in_row = [0]

    def start(tag: str, _attrs: Any) -> None:
        local = tag.rpartition(":")[2]
        if local == "row":
            counts[0] += 1
            in_row[0] = 0
            if counts[0] > limits.rows:
                raise _TooMuch(f"more than {limits.rows:,} rows (--max-rows)")
        elif local in ("c", "si"):
            counts[1] += 1
            in_row[0] += 1
            if counts[1] > limits.cells:
                raise _TooMuch(f"more than {limits.cells:,} cells (--max-cells)")
            if local == "c" and in_row[0] > EXCEL_COLUMNS:
                raise _TooMuch(f"a row of more than Excel's {EXCEL_COLUMNS:,} columns")

    def entity(*_args: Any) -> None:
        raise _TooMuch("it declares XML entities (never in a workbook Excel saves)")

    parser.StartElementHandler = start
    parser.EntityDeclHandler = entity
    parser.ParseFile(stream)


def read_sheet(path: Path, sheet: str | None = None) -> list[tuple[int, dict[str, str]]]:
    """Just the rows of ``load_sheet``: ``[(excel_row_number, {column: text})]``.

    Raises Invalid as ``load_sheet`` does, and also listing every row that
    could not be read (``Sheet.bad_rows``).
    """
    loaded = load_sheet(path, sheet)
    if loaded.bad_rows:
        raise Invalid(Lines(loaded.bad_rows))
    return list(loaded.rows)


def _pick_sheet(path: Path, book: Workbook, sheet: str | None) -> Worksheet:
    names = book.sheetnames
    listed = ", ".join(repr(n) for n in names)
    if sheet is None:
        results = [
            ws for ws in book.worksheets if ws.title.strip().casefold() != INSTRUCTIONS.casefold()
        ]
        visible = [ws for ws in results if getattr(ws, "sheet_state", "visible") == "visible"]
        if not results:
            raise Invalid(
                Message(
                    "{path}: no result sheet in the workbook (sheets: {listed})",
                    path=path,
                    listed=listed,
                )
            )
        candidates = visible or results
        headed = [ws for ws in candidates if _has_result_header(ws)]
        if len(headed) > 1:
            raise Invalid(
                Message(
                    "{path}: {count} sheets have a result header ({titles}): choose one with "
                    "--sheet NAME (e.g. --sheet {title!r})",
                    path=path,
                    count=len(headed),
                    titles=", ".join(repr(ws.title) for ws in headed),
                    title=headed[0].title,
                )
            )
        # The sheet of results, wherever it is (a "Notes" sheet may come first).
        return (headed or candidates)[0]
    if sheet in names:
        chosen = sheet
    else:
        wanted = sheet.strip().casefold()
        matches = [n for n in names if n.strip().casefold() == wanted]
        if len(matches) != 1:
            raise Invalid(
                Message(
                    "{path}: no sheet named {sheet!r} (sheets: {listed})",
                    path=path,
                    sheet=sheet,
                    listed=listed,
                )
            )
        chosen = matches[0]
    ws = book[chosen]
    if ws not in book.worksheets:
        raise Invalid(
            Message("{sheet}: is a chart, not a sheet of cells", sheet=sheet_label(path, chosen))
        )
    return ws


def _has_result_header(ws: Any) -> bool:
    """Row 1 of ``ws`` names a result sheet's columns (date, side_a, side_b)."""
    try:
        ws.reset_dimensions()  # saved dimensions may be stale: read the whole row
        first = next(ws.iter_rows(max_row=1, values_only=True), ())
    except Exception:  # noqa: BLE001 - a sheet that cannot be read is not the results
        return False
    names = {cell_text(value).lower() for value in first}
    return {"date", "side_a", "side_b"} <= names


def _read_rows(label: str, ws: Any, limits: WorkbookLimits) -> Sheet:
    from openpyxl.utils import get_column_letter

    # Saved dimensions may be stale (files from other tools): read every cell.
    ws.reset_dimensions()
    columns: list[str] | None = None
    rows: list[tuple[int, dict[str, str]]] = []
    loaded = Sheet(label, rows)
    merged = _MergedCells.of(ws)
    date_at = -1
    for number, cells in enumerate(ws.iter_rows(), start=1):
        if number > limits.rows:  # rows the XML skips over count too
            raise Invalid(
                Message(
                    "{label}: refused: more than {rows:,} rows (--max-rows)",
                    label=label,
                    rows=limits.rows,
                )
            )
        texts = [cell_text(cell.value) for cell in cells]
        if 0 <= date_at < len(cells):
            texts[date_at] = _serial_date(cells[date_at].value, texts[date_at])
        if number == 1:
            while texts and not texts[-1]:
                texts.pop()
            if texts:
                columns = [t.lower() for t in texts]
                loaded.columns = columns
                date_at = columns.index("date") if "date" in columns else -1
            continue
        if not any(texts):
            continue
        if columns is None:
            raise Invalid(
                Message(
                    "{label}: row 1 is blank; the header row (ladder, date, side_a, side_b, "
                    "result, ...) must be the first row",
                    label=label,
                )
            )
        merged.fill(number, texts)  # after the blank check: a row of merged cells only is blank
        problems = []
        for index, cell in enumerate(cells):
            if getattr(cell, "data_type", None) == "e":
                name = columns[index] if index < len(columns) else get_column_letter(index + 1)
                problems.append(
                    Message(
                        "{label}: row {number}, column {name}: the cell holds the Excel error "
                        "{texts} (fix the formula or type the value)",
                        label=label,
                        number=number,
                        name=name,
                        texts=texts[index],
                    )
                )
        extra = [i for i in range(len(columns), len(texts)) if texts[i]]
        if extra:
            problems.append(
                Message(
                    "{label}: row {number}: a value in column {column} but the header has "
                    "only {count} columns",
                    label=label,
                    number=number,
                    column=get_column_letter(extra[0] + 1),
                    count=len(columns),
                )
            )
        if problems:
            loaded.bad_rows.extend(problems)
            continue
        texts += [""] * (len(columns) - len(texts))
        rows.append((number, dict(zip(columns, texts, strict=False))))
    if columns is None:
        raise Invalid(
            Message(
                "{label}: the sheet is empty (expected a header row: "
                "ladder,date,side_a,side_b,result,...)",
                label=label,
            )
        )
    if not rows and not loaded.bad_rows:
        raise Invalid(Message("{label}: the sheet has a header but no games", label=label))
    loaded.count = len(rows)
    loaded.ladder_names = {row.get("ladder", "").strip() for _, row in rows} - {""}
    return loaded


def _serial_date(value: Any, text: str) -> str:
    """A date cell holding a plain number (an Excel serial date whose date
    format was lost: 45993 is 2025-12-02) as its date's text; else ``text``."""
    if type(value) in (int, float) and 1 <= value < _LAST_SERIAL:
        from openpyxl.utils.datetime import from_excel

        return from_excel(value).date().isoformat()
    return text


#: Excel's last date, 9999-12-31, as a serial number (one past it).
_LAST_SERIAL = 2958466
#: A merged range in a sheet's XML: ``<mergeCell ref="A3:A5"/>``.
_MERGE_REF = re.compile(rb'<(?:\w+:)?mergeCell\b[^>]*?\bref="([A-Z]+)(\d+):[A-Z]+(\d+)"')


class _MergedCells:
    """The merged ranges of a sheet that span data rows: a range's value is
    in its first row only (its other rows read blank), and it applies to
    every row it spans, as the referee who merged the cells meant it.

    openpyxl's read-only sheets do not parse merged ranges: they are read
    from the sheet's XML, where they follow the cells (one more pass over
    the compressed part, no XML parsing)."""

    def __init__(self, spans: list[tuple[int, int, int]]) -> None:
        #: row -> (column index, first row of its range) for rows below a range's first.
        self.below: dict[int, list[tuple[int, int]]] = {}
        #: row -> column indexes where a range starts.
        self.tops: dict[int, list[int]] = {}
        self.values: dict[tuple[int, int], str] = {}
        for column, first, last in spans:
            if first < 2 or last <= first:
                continue  # the header row, or a range within one row
            self.tops.setdefault(first, []).append(column)
            for row in range(first + 1, last + 1):
                self.below.setdefault(row, []).append((column, first))

    @classmethod
    def of(cls, ws: Any) -> _MergedCells:
        from openpyxl.utils import column_index_from_string

        ranges = getattr(ws, "merged_cells", None)
        if ranges is not None:  # a sheet opened in full
            return cls([(r.min_col - 1, r.min_row, r.max_row) for r in ranges.ranges])
        source = getattr(ws, "_get_source", None)  # a read-only sheet's XML part
        if source is None:
            return cls([])
        found: bytes | None = None
        with source() as xml:
            tail = b""
            while chunk := xml.read(1 << 20):
                if found is not None:
                    found += chunk
                    continue
                data = tail + chunk
                at = data.find(b"mergeCell")
                if at >= 0:
                    found = data[max(at - 16, 0) :]
                else:
                    tail = data[-32:]
        spans = [
            (column_index_from_string(c.decode()) - 1, int(first), int(last))
            for c, first, last in _MERGE_REF.findall(found or b"")
        ]
        return cls(spans)

    def fill(self, number: int, texts: list[str]) -> None:
        """Give row ``number``'s blank cells inside a merged range the
        range's value (``texts`` is changed in place)."""
        for column in self.tops.get(number, ()):
            self.values[number, column] = texts[column] if column < len(texts) else ""
        for column, first in self.below.get(number, ()):
            if column >= len(texts):
                texts.extend([""] * (column + 1 - len(texts)))
            if not texts[column]:
                texts[column] = self.values.get((first, column), "")


# -- writing -------------------------------------------------------------------------
def _sheet_title(title: str) -> str:
    """A valid Excel sheet name (no []:*?/\\, at most 31 characters)."""
    clean = _SHEET_NAME_FORBIDDEN.sub(" ", title).strip().strip("'")
    clean = " ".join(clean.split())[:31].strip() or "Sheet1"
    # Excel reserves "History" (change tracking) and refuses a sheet named so.
    return "History list" if clean.casefold() == "history" else clean


def _excel_value(value: Any) -> Any:
    """A plain value (from msgspec.to_builtins) as an Excel cell value."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (dict, list)):
        value = msgspec.json.encode(value).decode()
    text = ILLEGAL_CHARACTERS_RE.sub("", str(value))
    if not text:
        return None
    if _ISO_DATE.fullmatch(text):
        try:
            return date.fromisoformat(text)
        except ValueError:
            return text
    return text


def _put(ws: Worksheet, row: int, column: int, value: Any) -> Any:
    """Write one cell; text is always text (a leading ``=`` is no formula)."""
    cell = ws.cell(row=row, column=column, value=value)
    if isinstance(value, str):
        cell.data_type = "s"  # a player named "=1+1" stays a name
    elif isinstance(value, date):
        cell.number_format = "yyyy-mm-dd"
    return cell


def append_row(ws: Worksheet, values: Sequence[Any]) -> None:
    """Append a row to a worksheet with its text kept as text: openpyxl
    stores a string starting with ``=`` as a formula, so a player named
    ``=1+1`` would be computed by the spreadsheet."""
    ws.append(list(values))
    for cell in ws[ws.max_row]:
        if isinstance(cell.value, str):
            cell.data_type = "s"


def _width(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, date):
        return 10
    if isinstance(value, float):
        return len(f"{value:.4f}".rstrip("0").rstrip("."))
    return max((len(line) for line in str(value).splitlines()), default=0)


def _header(ws: Worksheet, columns: Sequence[str]) -> None:
    from openpyxl.styles import Font

    bold = Font(bold=True)
    for number, name in enumerate(columns, start=1):
        _put(ws, 1, number, name).font = bold
    ws.freeze_panes = "A2"


def _set_widths(ws: Worksheet, widths: Sequence[int]) -> None:
    from openpyxl.utils import get_column_letter

    for number, width in enumerate(widths, start=1):
        ws.column_dimensions[get_column_letter(number)].width = min(max(width + 2, 8), 60)


def _save(book: Workbook, path: Path) -> None:
    try:
        book.save(path)
    except OSError as exc:
        raise Invalid(
            Message("{path}: cannot write: {reason}", path=path, reason=exc.strerror or exc)
        ) from None


def write_rows(
    path: Path, rows: Sequence[msgspec.Struct], kind: type[msgspec.Struct], title: str
) -> None:
    """Write query results (standings, history, audit lines...) to ``path`` (.xlsx).

    One sheet named after ``title`` (made a valid sheet name); the columns are
    ``kind``'s fields in order (so an empty result still has its header), in
    bold, frozen, with a filter and widths fitted to the content. Numbers stay
    numbers, ``YYYY-MM-DD`` text becomes an Excel date shown the same way,
    None an empty cell, dicts and lists JSON text; text starting with ``=`` is
    written as text, never as a formula. Raises Invalid when the file cannot
    be written.
    """
    openpyxl = _openpyxl()
    from openpyxl.utils import get_column_letter

    columns = list(kind.__struct_fields__)
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = _sheet_title(title)
    book.properties.title = title
    _header(ws, columns)
    widths = [len(c) for c in columns]
    for number, row in enumerate(rows, start=2):
        plain = msgspec.to_builtins(row)
        for index, column in enumerate(columns):
            value = _excel_value(plain.get(column))
            _put(ws, number, index + 1, value)
            widths[index] = max(widths[index], _width(value))
    _set_widths(ws, widths)
    if columns:
        ws.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{max(len(rows) + 1, 1)}"
    _save(book, path)


# -- templates -----------------------------------------------------------------------
#: Most side columns a template offers for a many-sided family (bga).
TEMPLATE_SIDES = 5
#: Base columns formatted as text (an event id such as 2025-03 must not
#: become a date). A family's list, JSON and player columns are text too
#: (``ResultColumn.text_cell``), so "1,2" never turns into the number 1.2.
_TEXT_COLUMNS = ("event", "reference")
#: The base columns that hold whole numbers.
_NUMBER_COLUMNS = ("round", "table")

_GENERAL_NOTES = (
    N_("How to fill the {results} sheet"),
    N_(
        "One row per game. Row 1 holds the column names: keep them as they are "
        "(columns may be moved; unused optional columns may be deleted)."
    ),
    N_(
        "Row 2 is an example game: replace it with your own results, or delete it, before importing."
    ),
    N_("Import with: ledger import FILE.xlsx (add --dry-run to check without recording)."),
    N_(
        "The import is all-or-nothing: every row is checked first, and if any row is wrong "
        "nothing is recorded; every error is listed with its row and column. Fix them and "
        "import again. Rows already recorded are reported as skipped, never recorded twice."
    ),
    N_(
        "Players are matched by name ignoring case and accents ('eric dupont' is 'Éric Dupont'); "
        "names not yet known are registered by the import."
    ),
    N_("Blank rows are ignored."),
)
#: Replaces the note on row 2's example when the sheet is pre-filled with games.
_PREFILLED_NOTE = N_(
    "The rows are the games to play, their sides filled in (the camps of 'ledger teams'): "
    "write each game's date (if blank) and result, and delete the rows of games not played."
)
#: What to write in the sheet's own columns (the column names stay English:
#: the importer reads them).
_COLUMN_HELP = {
    "ladder": N_(
        "The ladder's name, as opened with 'ledger ladder open'. May be left "
        "blank when the import is given --ladder NAME."
    ),
    "date": N_("The day the game was played: an Excel date, or text YYYY-MM-DD (e.g. 2025-03-02)."),
    "event": N_("Optional: the tournament or event id, e.g. BE-2025-LYON."),
    "round": N_("Optional: the round number (a whole number)."),
    "table": N_(
        "Optional: the table number (a whole number). Two games between the same "
        "players on the same date, event and round need different table numbers (or "
        "references); it is also the order of play within a round."
    ),
    "reference": N_(
        "Optional: the game's own reference, e.g. BGA's table number or a club's "
        "game number. A game with a reference is identified by its ladder and reference alone, "
        "so the same players may play several games a day (each with its own reference), and "
        "a sheet read again adds each game once. Two rows with the same reference are refused."
    ),
    "neutral": N_(
        "yes when no side has the first-player (home) advantage; otherwise "
        "leave blank (or no). Only matters when the ladder gives the first side an advantage."
    ),
}
_PER_EVENT_HELP = N_(
    "{family} ratings change when each event closes, rated from the ratings "
    "before the event, so give every game of a tournament the same event."
)


def _column_help(family: Family, column: str, t: Translator) -> str:
    """What to write in ``column``, in plain words and ``t``'s language: the
    sheet's own columns here, a result column as its family words it
    (``ResultColumn.help_in``)."""
    if column in _COLUMN_HELP:
        text = t.gettext(_COLUMN_HELP[column])
        if column == "event" and family.per_event:
            text += " " + t.gettext(_PER_EVENT_HELP).format(family=family.name)
        return text
    if column in SIDE_COLUMNS:
        letter = column.removeprefix("side_").upper()
        if column == "side_a":
            return t.gettext(
                "The player of side {letter} (the first side: the one a home advantage "
                "applies to). A team: its members separated by ';', e.g. Éric Dupont;Paul Roy."
            ).format(letter=letter)
        if column == "side_b":
            return t.gettext(
                "The player of side {letter}. A team: its members separated by ';', "
                "e.g. Éric Dupont;Paul Roy."
            ).format(letter=letter)
        return t.gettext(
            "Side {letter}, when the game had that many players (blank otherwise). "
            "Add side_f, side_g, ... columns for bigger games."
        ).format(letter=letter)
    return family.column(column).help_in(t)


def _family(name: str, params: Mapping[str, Any] | None) -> tuple[type[Family], Family]:
    try:
        cls = family_class(name)
        return cls, cls(cls.parse_params(params or {}))
    except FamilyError as exc:
        raise Invalid(said(exc), field=exc.field or "family") from None


def template_columns(family: str) -> list[str]:
    """The columns of ``family``'s result sheet template, in order: the
    sheet's own columns, the sides, then the family's result columns."""
    cls, _ = _family(family, None)
    sides = min(max(cls.max_sides, 2), TEMPLATE_SIDES)
    return [
        "ladder",
        "date",
        "event",
        "round",
        "table",
        "reference",
        "neutral",
        *SIDE_COLUMNS[:sides],
        *(column.name for column in cls.result_columns()),
    ]


def _example_value(column: str, text: str) -> Any:
    """An example cell as the template writes it: dates as dates, round and
    table as numbers, everything else as the family wrote it."""
    if not text:
        return None
    if column == "date":
        return date.fromisoformat(text)
    if column in _NUMBER_COLUMNS and text.isdigit():
        return int(text)
    return text


def write_template(
    path: Path,
    family: str,
    *,
    params: Mapping[str, Any] | None = None,
    ladder: str | None = None,
    games: Sequence[Mapping[str, Any]] | None = None,
    t: Translator | None = None,
) -> None:
    """Write a ready-to-fill result sheet for ``family`` to ``path`` (.xlsx).

    A "Results" sheet with the family's columns (``template_columns``), a bold
    frozen header, dropdowns on rows 2..1000 for ``neutral`` (yes, no) and
    every result column with allowed codes (``ResultColumn.choices``: result
    a, b, draw; the ladder's margins...), the date column formatted as dates,
    list columns (ranks, bv...) as text, and the family's first example game
    (``Family.example_rows``) in row 2, its ladder column ``ladder`` when
    given; then an "Instructions" sheet explaining each column
    (``ResultColumn.help`` for the result columns).

    ``games`` pre-fills the sheet instead of the example: one row per game,
    ``{column: value}`` (sides, round, table...; ``ladder`` defaults to
    ``ladder``), results left for the referee (e.g. the camps of ``ledger
    teams`` as team sides).

    The texts for people (the instructions, the result sheet's name, the
    dropdowns' prompts and messages, the example's note) are in ``t``'s
    language (English without); the column names and codes are the
    importer's, in every language.

    ``family`` is a built-in family name or ``package.module:Class``;
    ``params`` (a ladder's parameters) decide the choices offered, such as an
    ``elo`` ladder's margins from its own score table. Raises Invalid for an
    unknown family or bad parameters, or when the file cannot be written.
    """
    openpyxl = _openpyxl()
    book = openpyxl.Workbook()
    t = t or translator("en")
    title = t.pgettext("sheet", RESULTS)
    add_result_sheet(
        book, family, params=params, ladder=ladder, games=games, title=title, first=True, t=t
    )
    _save(book, path)


def write_csv_template(
    path: Path,
    family: str,
    *,
    params: Mapping[str, Any] | None = None,
    ladder: str | None = None,
    games: Sequence[Mapping[str, Any]] | None = None,
) -> None:
    """``write_template``'s result sheet as a CSV file (UTF-8, ``,``): the
    same columns, then the family's example row or ``games``. No dropdowns
    nor instructions: a CSV file has none."""
    cls, _ = _family(family, params)
    columns, rows = _template_rows(cls, family, ladder, games)
    try:
        with path.open("w", encoding="utf-8", newline="") as f:
            out = csv.writer(f)
            out.writerow(columns)
            for row in rows:
                out.writerow(["" if row.get(c) is None else str(row.get(c)) for c in columns])
    except OSError as exc:
        raise Invalid(
            Message("{path}: cannot write: {reason}", path=path, reason=exc.strerror or exc)
        ) from None


def _template_rows(
    cls: Any, family: str, ladder: str | None, games: Sequence[Mapping[str, Any]] | None
) -> tuple[list[str], list[dict[str, Any]]]:
    """A template's columns and rows (a sheet's or a CSV file's): ``games``
    pre-filled, else the family's first example game, ``ladder`` in each."""
    columns = template_columns(family)
    if not games:
        example = dict(cls.example_rows()[0])
        if ladder is not None:
            example["ladder"] = ladder
        return columns, [example]
    # A game with more sides than the template offers (camps of a
    # many-sided family) gets the side columns it needs.
    wanted = max(sum(1 for c in g if c in SIDE_COLUMNS) for g in games)
    have = [c for c in columns if c in SIDE_COLUMNS]
    if wanted > len(have):
        at = columns.index(have[-1]) + 1
        columns[at:at] = SIDE_COLUMNS[len(have) : wanted]
    return columns, [{"ladder": ladder, **g} for g in games]


def add_result_sheet(
    book: Workbook,
    family: str,
    *,
    params: Mapping[str, Any] | None = None,
    ladder: str | None = None,
    games: Sequence[Mapping[str, Any]] | None = None,
    title: str = RESULTS,
    first: bool = False,
    t: Translator | None = None,
) -> None:
    """Add ``write_template``'s result sheet (named ``title``; the book's
    first sheet when ``first``) and its "Instructions" sheet to ``book``,
    their texts for people in ``t``'s language (English without)."""
    from openpyxl.comments import Comment
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.datavalidation import DataValidation

    t = t or translator("en")
    cls, fam = _family(family, params)
    columns, rows = _template_rows(cls, family, ladder, games)
    result_columns = {column.name: column for column in fam.columns()}
    text_columns = {*_TEXT_COLUMNS, *(c for c, rc in result_columns.items() if rc.text_cell)}
    choices_of = {"neutral": ("yes", "no")}
    choices_of.update({c: rc.choices for c, rc in result_columns.items() if rc.choices})

    if first:
        ws = book.active
        ws.title = title
    else:
        ws = book.create_sheet(title)
    _header(ws, columns)
    widths = []
    last = max(TEMPLATE_ROWS, len(rows) + 1)
    for number, column in enumerate(columns, start=1):
        letter = get_column_letter(number)
        dimension = ws.column_dimensions[letter]
        if column == "date":
            dimension.number_format = "yyyy-mm-dd"
        elif column in text_columns:
            dimension.number_format = "@"
        width = max(len(column), 10 if column == "date" else 0)
        for line, row in enumerate(rows, start=2):
            raw = row.get(column)
            value = _example_value(column, "" if raw is None else str(raw))
            if value is not None:
                cell = _put(ws, line, number, value)
                cell.number_format = dimension.number_format
            width = max(width, _width(value))
        widths.append(width)
        choices = choices_of.get(column)
        if choices:
            check = DataValidation(
                type="list",
                formula1='"' + ",".join(choices) + '"',
                allow_blank=True,
                showErrorMessage=True,
                showInputMessage=True,
                errorTitle=t.gettext("Bad {column}").format(column=column),
                error=t.gettext("{column} is one of: {choices} (or blank)").format(
                    column=column, choices=", ".join(choices)
                ),
                promptTitle=column,
                prompt=_column_help(fam, column, t)[:255],
            )
            check.add(f"{letter}2:{letter}{last}")
            ws.add_data_validation(check)
    _set_widths(ws, widths)
    if not games:
        ws["A2"].comment = Comment(
            t.gettext("Example game: replace this row with your own results, or delete it."),
            "ledger",
        )

    info = book.create_sheet(INSTRUCTIONS)
    bold = Font(bold=True)
    wrap = Alignment(wrap_text=True, vertical="top")
    heading, *notes = _GENERAL_NOTES
    if games:
        notes[1] = _PREFILLED_NOTE
    heading = t.gettext(heading).format(results=title)
    _put(info, 1, 1, heading).font = Font(bold=True, size=13)
    line = 1
    for note in notes:
        line += 1
        _put(info, line, 1, "•").alignment = Alignment(horizontal="right", vertical="top")
        _put(info, line, 2, t.gettext(note)).alignment = wrap
    line += 2
    _put(info, line, 1, t.pgettext("instructions", "column")).font = bold
    _put(info, line, 2, t.gettext("what to write")).font = bold
    for column in columns:
        line += 1
        _put(info, line, 1, column).alignment = wrap
        _put(info, line, 2, _column_help(fam, column, t)).alignment = wrap
    line += 1
    _put(info, line, 1, f"{ATTRIBUTE_PREFIX}NAME").alignment = wrap
    attributes = t.gettext(
        "Optional: any extra number your ladder's rules use, in a column you add, named "
        "{prefix} and the number's name (e.g. {prefix}points_a)."
    )
    _put(info, line, 2, attributes.format(prefix=ATTRIBUTE_PREFIX)).alignment = wrap
    info.column_dimensions["A"].width = 16
    info.column_dimensions["B"].width = 100


# -- the camp sheet of ``ledger teams`` ------------------------------------------------
def read_player_names(path: Path) -> list[str]:
    """The ``player`` column of a CSV or xlsx sheet, one name a row (the
    players ``ledger teams`` splits into camps)."""
    if path.suffix.lower() == ".xlsx":
        sheet = _open_book(path, WorkbookLimits()).worksheets[0]
        rows = [
            ["" if v is None else str(v) for v in row] for row in sheet.iter_rows(values_only=True)
        ]
    else:
        with path.open(encoding="utf-8-sig", newline="") as f:
            rows = list(csv.reader(f))
    if not rows:
        raise Invalid(
            Message("{path}: empty sheet, expected a 'player' column", path=path), field="from"
        )
    header = [h.strip().lower() for h in rows[0]]
    if "player" not in header:
        raise Invalid(
            Message(
                "{path}: no 'player' column (columns: {header})",
                path=path,
                header=", ".join(header),
            ),
            field="from",
        )
    col = header.index("player")
    return [r[col].strip() for r in rows[1:] if col < len(r) and r[col].strip()]


def team_game_rows(
    games: Sequence[Any], on: date | None = None, event: str | None = None
) -> list[dict[str, str]]:
    """Result-sheet cells of games between teams: each game's sides (its
    ``sides``: the players of each, joined as "A;B;C"), its ``round`` and
    ``table`` when it has them, and the date and event when given; results
    left blank."""
    rows = []
    for game in games:
        row = {"date": on.isoformat()} if on is not None else {}
        if event:
            row["event"] = event
        row.update(zip(SIDE_COLUMNS, (PLAYER_SEPARATOR.join(s) for s in game.sides), strict=False))
        if game.round is not None:
            row["round"] = str(game.round)
        if game.table is not None:
            row["table"] = str(game.table)
        rows.append(row)
    return rows


def write_camp_sheet(
    path: Path, split: Any, games: Sequence[Mapping[str, Any]], *, family: str,
    params: Mapping[str, Any], ladder: str, camps_sheet: str, t: Translator | None = None,
) -> None:  # fmt: skip
    """The camp sheet of a split of ``ledger teams`` (its ``camps``, each
    with its ``camp`` letter, ``players`` and ``side_rating``): one column
    per camp on the sheet ``camps_sheet`` (printable), a "Detail" sheet, and
    the family's result sheet ("Result") pre-filled with ``games`` (the
    camps' games, ``team_game_rows``), ready for import once the results are
    written in, its instructions in ``t``'s language. Raises Invalid when
    the file cannot be written."""
    from openpyxl.styles import Font

    book = _openpyxl().Workbook()
    camps = book.active
    camps.title = camps_sheet
    append_row(camps, [f"Camp {c.camp}" for c in split.camps])
    for cell in camps[1]:
        cell.font = Font(bold=True)
    for i in range(max(len(c.players) for c in split.camps)):
        append_row(
            camps, [c.players[i].player if i < len(c.players) else None for c in split.camps]
        )
    for col in camps.columns:
        camps.column_dimensions[col[0].column_letter].width = 28
    detail = book.create_sheet("Detail")
    append_row(detail, ["camp", "player", "rating", "grade", "new", "side_rating"])
    for c in split.camps:
        for p in c.players:
            append_row(
                detail,
                [c.camp, p.player, p.rating, p.grade, "yes" if p.new else None, c.side_rating],
            )
    add_result_sheet(book, family, params=params, ladder=ladder, games=games, title="Result", t=t)
    _save(book, path)
