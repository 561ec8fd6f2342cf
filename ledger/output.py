"""Printing query results as a table (for people), JSON or CSV (for scripts),
and the one CSV writer every CSV the ledger writes goes through."""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any

import msgspec

FORMATS = ("table", "json", "csv")

#: What a spreadsheet reads as the start of a formula (or of a DDE payload).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_STARTS = frozenset(FORMULA_STARTS)
#: Rows ``write_csv`` neutralises and writes at a time.
_BATCH = 2048


def neutralise(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula, made plain text by a
    leading apostrophe (OWASP's CSV-injection advice: ``=1+1`` is written
    ``'=1+1``); numbers (``-12.5``) and any other value unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_csv(
    out: IO[str],
    columns: Sequence[str] | None,
    rows: Iterable[Sequence[Any]],
    cell: Callable[[Any], Any] | None = None,
) -> int:
    """Write a CSV table (``columns`` as its header, if given) that a
    spreadsheet opens safely: every text cell neutralised (``neutralise``),
    numbers left numbers. ``cell`` turns other values (numbers, None, lists)
    into what is written. Returns the number of rows written."""
    if columns is not None:
        csv.writer(out, lineterminator="\n").writerow([neutralise(c) for c in columns])
    # A batch of rows at a time (bounded memory), each cell neutralised
    # inline (a function call a cell was most of a big export's time).
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    starts, n, rows = _STARTS, 0, iter(rows)
    while batch := list(itertools.islice(rows, _BATCH)):
        if cell is None:
            cells = [[("'" + v if v[:1] in starts else v) if isinstance(v, str) else v
                      for v in row] for row in batch]  # fmt: skip
        else:
            cells = [[("'" + v if v[:1] in starts else v) if isinstance(v, str) else cell(v)
                      for v in row] for row in batch]  # fmt: skip
        buffer.seek(0)
        buffer.truncate()
        writer.writerows(cells)
        text = buffer.getvalue()
        if "\r" in text:
            # Python 3.11's writer quotes a cell holding "\n" but not one
            # holding "\r", which readers take for a row end: such rows quote
            # every text cell (the writer adds no "\r" of its own, so a batch
            # without one has no such cell).
            plain = csv.writer(out, lineterminator="\n")
            careful = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
            for row in cells:
                if any(isinstance(c, str) and "\r" in c for c in row):
                    careful.writerow(row)
                else:
                    plain.writerow(row)
        else:
            out.write(text)
        n += len(batch)
    return n


def csv_text(
    columns: Sequence[str] | None,
    rows: Iterable[Sequence[Any]],
    cell: Callable[[Any], Any] | None = None,
) -> str:
    """``write_csv`` into a string, without its last line break."""
    out = io.StringIO()
    write_csv(out, columns, rows, cell)
    return out.getvalue().rstrip("\n")


# Characters a terminal would obey rather than show (escape sequences, bell,
# carriage return, bidirectional overrides, line separators): a name stored
# before they were refused is printed with them spelled out, never obeyed.
_UNPRINTABLE = {
    code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    for code in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029,
                 *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}  # fmt: skip


def printable(text: str) -> str:
    """``text`` with every control character spelled out (``\\x1b``)."""
    return text.translate(_UNPRINTABLE)


def _cell(value: Any, exact: bool = False) -> str:
    """A value as text: rounded to 4 decimals for people, exact for scripts."""
    if value is None:
        return ""
    if isinstance(value, float):
        if value == int(value):
            return str(int(value))
        return repr(value) if exact else f"{value:.4f}".rstrip("0").rstrip(".")
    if isinstance(value, (dict, list)):
        return msgspec.json.encode(value).decode()
    return str(value)


def render(
    rows: Sequence[msgspec.Struct] | msgspec.Struct,
    fmt: str,
    title: str = "",
    kind: type[msgspec.Struct] | None = None,
) -> str:
    """Render Structs as ``table``, ``json`` or ``csv`` text; ``kind`` names
    the columns when there are no rows."""
    if fmt == "json":
        return msgspec.json.format(msgspec.json.encode(rows), indent=2).decode()
    items = [rows] if isinstance(rows, msgspec.Struct) else list(rows)
    plain = msgspec.to_builtins(items)
    columns = list(plain[0]) if plain else list(kind.__struct_fields__ if kind else ())
    if fmt == "csv":
        return csv_text(columns, ([r[c] for c in columns] for r in plain), _exact)
    return _table(columns, [[_shown(r[c]) for c in columns] for r in plain], printable(title))


def _shown(value: Any) -> str:
    """A cell for people: rounded, control characters spelled out (text
    that has none, most of it, is checked in one call and kept)."""
    kind = value.__class__
    if kind is str:
        return value if value.isprintable() else printable(value)
    if kind is int:
        return str(value)
    if value is None:
        return ""
    if kind is float:
        return _cell(value)
    return printable(_cell(value))


def _exact(value: Any) -> str:
    return _cell(value, exact=True)


#: rich lays a table out at ~0.2 ms a cell: past this many cells (a large
#: ranking, a long history) print plain aligned columns instead.
RICH_CELLS = 1000


def _table(columns: list[str], rows: list[list[str]], title: str) -> str:
    headers = [c.replace("_", " ") for c in columns]
    if len(rows) * len(headers) > RICH_CELLS:
        return _plain_table(headers, rows, title)
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title or None, show_lines=False, header_style="bold")
    for header in headers:
        table.add_column(header)
    for r in rows:
        table.add_row(*r)
    # markup off: a player called "[bold]" is a name, not a style.
    console = Console(width=200, file=io.StringIO(), color_system=None, markup=False,
                      emoji=False, highlight=False)  # fmt: skip
    console.print(table)
    return console.file.getvalue().rstrip("\n")


def _plain_table(headers: list[str], rows: list[list[str]], title: str) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = [title] if title else []
    lines.append("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip())
    lines.append("  ".join("-" * w for w in widths))
    lines.extend(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )
    return "\n".join(lines)
