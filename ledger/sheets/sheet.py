"""A result sheet as read from a file: its header and its rows of text cells.

CSV files are read here and Excel workbooks by ``ledger.sheets.workbook``; both give
the same ``Sheet``, so the importer checks every sheet alike. Which result
columns a sheet may have depends on the families of the ladders it names, so
the header is checked by the importer (``check_columns``), not by the readers.
"""

from __future__ import annotations

import codecs
import csv
from collections.abc import Iterable, Iterator
from pathlib import Path

import msgspec

from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Lines, Message

BASE_COLUMNS = ("ladder", "date", "event", "round", "table", "reference", "neutral")
SIDE_COLUMNS = tuple(f"side_{c}" for c in "abcdefghijklmnopqrstuvwxyz")
ATTRIBUTE_PREFIX = "attr_"
PLAYER_SEPARATOR = ";"


class Sheet(msgspec.Struct):
    """A sheet's data rows (row number as a spreadsheet shows it, cells by
    column; a list, or for a CSV file a pass over the file), its header, the
    rows that could not even be split into cells with why, how many good
    rows it has, the ladders its ``ladder`` column names, and notices about
    how it was read (an encoding other than UTF-8)."""

    label: str
    rows: Iterable[tuple[int, dict[str, str]]]
    bad_rows: list[str] = []
    columns: list[str] = []
    count: int = 0
    ladder_names: set[str] = msgspec.field(default_factory=set)
    notices: list[str] = []
    #: Numbers may use a decimal comma (``1,5``): a ``;``-separated sheet.
    decimal_comma: bool = False


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
                Message(
                    "{label}: row 1, column {number}: unknown column {column!r} (expected "
                    "{expected} or {prefix}NAME)",
                    label=label,
                    number=number,
                    column=column,
                    expected=", ".join(BASE_COLUMNS + ("side_a", "side_b", "...") + results),
                    prefix=ATTRIBUTE_PREFIX,
                )
            )
    seen: dict[str, int] = {}
    for number, column in enumerate(columns, start=1):
        if column and column in seen:
            # Its second cell would silently replace the first.
            problems.append(
                Message(
                    "{label}: row 1, column {number}: column {column!r} is also column {seen}",
                    label=label,
                    number=number,
                    column=column,
                    seen=seen[column],
                )
            )
        seen.setdefault(column, number)
    required = (
        ("date", "side_a", "side_b") if ladder_given else ("ladder", "date", "side_a", "side_b")
    )
    for column in required:
        if column not in columns:
            problems.append(
                Message("{label}: row 1: missing column {column!r}", label=label, column=column)
            )
    if problems:
        raise Invalid(Lines(problems))


#: What separates cells, found from the header line: ``,`` (the default),
#: ``;`` (French and other Excels, where ``,`` is the decimal mark) or a tab.
DELIMITERS = (",", ";", "\t")
#: How to make a sheet UTF-8, said when a file is in no encoding we read.
SAVE_AS_UTF8 = Message(
    "save it as UTF-8: in Excel, File > Save As > 'CSV UTF-8 (Comma delimited)'; "
    "in LibreOffice, tick 'Edit filter settings' and choose 'Unicode (UTF-8)'"
)
_CHUNK = 1 << 20
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))  # fmt: skip


class CsvFormat(msgspec.Struct, frozen=True):
    """How a CSV file is written: its text encoding and cell separator, and
    what to tell the user about them (a fallback encoding)."""

    encoding: str
    delimiter: str
    notices: tuple[str, ...] = ()
    #: UTF-8 taken on trust (no byte-order mark, the file not read through
    #: yet): the first pass that reads it all confirms it, or finds out.
    assumed: bool = False


class CsvRows:
    """A CSV sheet's data rows, read from the file again on each pass (so a
    sheet of any size takes the memory of one row): ``(row number, {column:
    text})``, blank rows and rows listed in ``bad`` left out."""

    def __init__(self, path: Path, form: CsvFormat, columns: list[str], bad: set[int]) -> None:
        self.path, self.form, self.columns, self.bad = path, form, columns, bad

    def __iter__(self) -> Iterator[tuple[int, dict[str, str]]]:
        columns = self.columns
        for number, cells in self.records():
            yield number, dict(zip(columns, cells, strict=False))

    def records(self) -> Iterator[tuple[int, list[str]]]:
        """The same rows as lists of cells in column order (the importer
        reads most rows by position, making a dict only of rows it checks
        in full)."""
        return _records(self.path, self.form, self.bad)  # type: ignore[return-value]


def _blank(cells: list[str]) -> bool:
    """No cell holds anything but spaces (one join: no generator per row)."""
    return not "".join(cells).strip()


def csv_format(path: Path, scan: bool = True) -> CsvFormat:
    """The encoding and separator of a CSV file.

    A byte-order mark says UTF-8 or UTF-16; else the file must be UTF-8, or
    failing that Windows-1252 (what Excel writes as "CSV" on Windows), read
    with a notice. A file in neither, or mixing UTF-8 with other bytes, is
    refused naming the line and how to save it as UTF-8. The separator is
    the one of ``DELIMITERS`` the header line uses most (outside quotes).

    Without ``scan``, a file without a byte-order mark whose first line is
    UTF-8 is taken as UTF-8 without reading it through (``assumed``): the
    caller reads it through anyway, and asks again with ``scan`` when a
    byte is not.
    """
    try:
        with path.open("rb") as f:
            head = f.read(4)
    except FileNotFoundError:
        raise Invalid(Message("{path}: no such file", path=path)) from None
    except OSError as exc:
        raise Invalid(
            Message("{path}: cannot read: {reason}", path=path, reason=exc.strerror or exc)
        ) from None
    notices: tuple[str, ...] = ()
    encoding = next((enc for bom, enc in _BOMS if head.startswith(bom)), None)
    assumed = encoding is None and not scan
    if encoding is None:
        encoding, notices = ("utf-8", ()) if assumed else _plain_encoding(path)
    try:
        with path.open(encoding=encoding, newline="") as f:
            first = f.readline()
    except UnicodeError as exc:
        if assumed:
            return csv_format(path)
        raise Invalid(
            Message(
                "{path}: not valid {encoding} text ({reason}); {advice}",
                path=path,
                encoding=encoding,
                reason=exc.reason,
                advice=SAVE_AS_UTF8,
            )
        ) from None
    return CsvFormat(encoding, _delimiter(first), notices, assumed)


def _plain_encoding(path: Path) -> tuple[str, tuple[str, ...]]:
    """UTF-8 when every byte of the file is, else Windows-1252 when the file
    is plain ASCII up to its first non-UTF-8 byte (never a mix of both)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    seen_non_ascii = False
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                bad = offset + max(exc.start, 0)
                return _windows_1252(path, bad, seen_non_ascii or not chunk[: exc.start].isascii())
            seen_non_ascii = seen_non_ascii or not chunk.isascii()
            offset += len(chunk)
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return _windows_1252(path, offset, seen_non_ascii)
    return "utf-8", ()


def _windows_1252(path: Path, bad: int, mixed: bool) -> tuple[str, tuple[str, ...]]:
    line, byte = _line_of(path, bad)
    where = Message("line {line}: byte 0x{byte:02X}", line=line, byte=byte)
    if mixed:
        raise Invalid(
            Message(
                "{path}: {where} is not UTF-8, yet earlier lines are: the file mixes two "
                "encodings; {advice}",
                path=path,
                where=where,
                advice=SAVE_AS_UTF8,
            )
        )
    try:
        with path.open(encoding="cp1252") as f:
            while f.read(_CHUNK):
                pass
    except UnicodeDecodeError as exc:
        raise Invalid(
            Message(
                "{path}: {where} is not UTF-8, and the file is not Windows-1252 text "
                "either ({reason}); {advice}",
                path=path,
                where=where,
                reason=exc.reason,
                advice=SAVE_AS_UTF8,
            )
        ) from None
    return "cp1252", (
        Message(
            "{path}: not UTF-8 ({where}): read as Windows-1252, the encoding of Excel's plain "
            "'CSV' on Windows; check accented names, or {advice}",
            path=path,
            where=where,
            advice=SAVE_AS_UTF8,
        ),
    )


def _line_of(path: Path, offset: int) -> tuple[int, int]:
    """The line (1-based) holding byte ``offset`` of a file, and that byte."""
    lines = 1
    with path.open("rb") as f:
        done = 0
        while done < offset and (chunk := f.read(min(_CHUNK, offset - done))):
            lines += chunk.count(b"\n")
            done += len(chunk)
        byte = f.read(1)
    return lines, byte[0] if byte else 0


def _delimiter(line: str) -> str:
    """The separator a header line uses most, outside quoted cells."""
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    for char in line:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in counts:
            counts[char] += 1
    best = max(DELIMITERS, key=lambda d: counts[d])  # ties: the earlier, "," first
    return best if counts[best] else ","


def _records(
    path: Path, form: CsvFormat, skip: set[int] | None = None
) -> Iterator[tuple[int, list[str] | str]]:
    """Each record of a CSV file, numbered as a spreadsheet numbers its rows
    (a quoted cell may hold line breaks: one record, one row), or for a
    record the csv module cannot read, why. Given ``skip`` (the rows found
    bad), only the data rows: not the header, a row of ``skip``, a record
    the csv module cannot read, nor a blank row (left out here, not by
    another generator over this one: a row is handed over once)."""
    with path.open(encoding=form.encoding, newline="") as f:
        # strict: a quote left open or text after a closing quote is an
        # error, never a cell that swallows the rows after it.
        reader = csv.reader(f, delimiter=form.delimiter, strict=True)
        number = 0
        while True:
            # The reader goes on after a record it refused: read on from there.
            try:
                if skip is None:
                    for cells in reader:
                        number += 1
                        yield number, cells
                    return
                for cells in reader:
                    number += 1
                    if number == 1 or number in skip:
                        continue
                    # A first cell with text: not blank, without joining the row.
                    if not (cells and cells[0] and not cells[0].isspace()) and _blank(cells):
                        continue
                    yield number, cells
                return
            except csv.Error as exc:
                number += 1
                if skip is not None:
                    continue
                yield number, _csv_problem(str(exc), reader.line_num)
            except UnicodeDecodeError as exc:
                if form.assumed:
                    raise  # read_csv asks which encoding it is
                raise Invalid(
                    Message(
                        "{path}: row {row}: not {encoding} text ({reason}); {advice}",
                        path=path,
                        row=number + 1,
                        encoding=form.encoding,
                        reason=exc.reason,
                        advice=SAVE_AS_UTF8,
                    )
                ) from None


def _csv_problem(message: str, line: int) -> str:
    """A csv module error in people's words."""
    if "field larger than field limit" in message:
        return Message(
            "a cell longer than {most:,} characters (line {line}; a quote left open?)",
            most=csv.field_size_limit(),
            line=line,
        )
    if "unexpected end of data" in message:
        return Message(
            "a quoted cell is never closed (its quote opens before line {line})", line=line
        )
    if "expected after" in message:
        return Message(
            "text after the closing quote of a cell (line {line}); a quote inside a "
            'quoted cell is written twice ("")',
            line=line,
        )
    return Message("cannot be read as CSV: {message} (line {line})", message=message, line=line)


def read_csv(path: Path) -> Sheet:
    """A CSV sheet: its header and, read on demand, its data rows with their
    spreadsheet row numbers (header = 1).

    The file is read once here, to check its structure (rows with too many
    cells, quotes left open, cells over the csv module's size limit: each in
    ``Sheet.bad_rows``), count its rows and collect the ladders it names;
    ``Sheet.rows`` reads it again on each pass, so memory does not grow with
    the sheet. Cells keep their line breaks (U+2028 and U+0085 are text,
    never row ends); the importer refuses a line break in a name.
    """
    form = csv_format(path, scan=False)
    try:
        return _read_csv(path, form)
    except UnicodeDecodeError:
        # Not UTF-8 after all: read it in the encoding the file is in.
        return _read_csv(path, csv_format(path))


def _read_csv(path: Path, form: CsvFormat) -> Sheet:
    """``read_csv`` in one encoding (its one pass over the file)."""
    header: list[str] | None = None
    columns: list[str] = []
    sheet = Sheet(str(path), [], columns=columns, notices=list(form.notices))
    bad: set[int] = set()
    ladder_column = -1
    width = count = 0
    names = sheet.ladder_names
    last_ladder: str | None = None
    for number, cells in _records(path, form):
        if isinstance(cells, str):
            if header is None:
                raise Invalid(
                    Message("{path}: row 1 (the header): {cells}", path=path, cells=cells)
                )
            sheet.bad_rows.append(
                Message("{path}: row {number}: {cells}", path=path, number=number, cells=cells)
            )
            bad.add(number)
            continue
        if header is None:
            header = cells
            if not any(h.strip() for h in header):
                break
            columns.extend(h.strip().lower() for h in header)
            if "ladder" in columns:
                ladder_column = columns.index("ladder")
            width = len(columns)
            continue
        # A first cell with text: not blank, without joining the row.
        if not (cells and cells[0] and not cells[0].isspace()) and _blank(cells):
            continue  # blank lines
        if len(cells) > width and any(c.strip() for c in cells[width:]):
            sheet.bad_rows.append(
                Message(
                    "{path}: row {number}: {count} cells but only {width} columns{hint}",
                    path=path,
                    number=number,
                    count=len(cells),
                    width=width,
                    hint=_separator_hint(form, cells),
                )
            )
            bad.add(number)
            continue
        count += 1
        if 0 <= ladder_column < len(cells):
            ladder = cells[ladder_column]
            if ladder != last_ladder:  # a sheet names one ladder row after row
                last_ladder = ladder
                names.add(ladder.strip())
    sheet.count = count
    if not columns:
        raise Invalid(
            Message(
                "{path}: the sheet is empty (expected a header row: "
                "ladder,date,side_a,side_b,result,...)",
                path=path,
            )
        )
    if not sheet.count and not sheet.bad_rows:
        raise Invalid(Message("{path}: the sheet has a header but no games", path=path))
    sheet.ladder_names.discard("")
    # Read through: UTF-8 taken on trust is now known to be.
    sheet.rows = CsvRows(path, msgspec.structs.replace(form, assumed=False), columns, bad)
    sheet.decimal_comma = form.delimiter == ";"
    return sheet


def _separator_hint(form: CsvFormat, cells: list[str]) -> str:
    if form.delimiter == ";" and any("," in c for c in cells):
        return ""
    return Message(
        " (cells are separated by {delimiter!r}, as in the header)", delimiter=form.delimiter
    )
