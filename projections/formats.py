"""Printing query results as a table (for people), JSON or CSV (for scripts),
and the one CSV writer every CSV the ledger writes goes through.

msgspec (for Structs and JSON) and rich (for small tables) are imported only
when used: a large table of plain rows starts as fast as ``ledger --version``.
"""

from __future__ import annotations

import io
import itertools
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

from ledger.kernel import collection
from ledger.kernel.translation import NC_, Translator, translator

if TYPE_CHECKING:
    import msgspec

FORMATS = ("table", "json", "csv")

#: Every column a table for people shows (a Struct's field, ``_`` as a
#: space), marked for the catalogs: ``table_lines`` heads each column with
#: its label in the reader's language (JSON and CSV keep the field names).
COLUMNS = (
    NC_("column", "rank"), NC_("column", "player"), NC_("column", "rating"),
    NC_("column", "grade"), NC_("column", "games"), NC_("column", "last played"),
    NC_("column", "date"), NC_("column", "kind"), NC_("column", "game"),
    NC_("column", "event"), NC_("column", "round"), NC_("column", "table"),
    NC_("column", "opponents"), NC_("column", "result"), NC_("column", "margin"),
    NC_("column", "s"), NC_("column", "p"), NC_("column", "k"), NC_("column", "before"),
    NC_("column", "after"), NC_("column", "change"), NC_("column", "note"),
    NC_("column", "seq"), NC_("column", "recorded at"), NC_("column", "by"),
    NC_("column", "ladder"), NC_("column", "summary"), NC_("column", "reason"),
    NC_("column", "source"), NC_("column", "id"), NC_("column", "name"),
    NC_("column", "merged into"), NC_("column", "registered at"), NC_("column", "family"),
    NC_("column", "players"), NC_("column", "rule changes"), NC_("column", "params"),
    NC_("column", "problem"), NC_("column", "other"), NC_("column", "similarity"),
    NC_("column", "evidence"), NC_("column", "rating from"), NC_("column", "rating to"),
    NC_("column", "events"), NC_("column", "rank now"), NC_("column", "rating now"),
    NC_("column", "rank whatif"), NC_("column", "rating whatif"),
    NC_("column", "rank move"), NC_("column", "rating move"),
)  # fmt: skip
#: Columns whose cells are stored codes (a history's ``game``/``won``/
#: ``decisive``, an audit line's ``game voided``): shown through their label,
#: the column's name as the context (``kind``, ``result``, ``margin``).
CODES = (
    NC_("kind", "game"), NC_("kind", "adjust"), NC_("kind", "season"), NC_("kind", "event"),
    NC_("result", "won"), NC_("result", "lost"), NC_("result", "drew"),
)  # fmt: skip
_CODED = ("kind", "result", "margin")

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
    import csv  # here: a table for people needs no CSV writer

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
        if not exact:
            return shown_numbers((value,))[0]
        return str(int(value)) if value == int(value) else repr(value)
    if isinstance(value, (dict, list)):
        import msgspec

        return msgspec.json.encode(value).decode()
    return str(value)


def shown_numbers(values: Iterable[float | int | None]) -> list[str]:
    """``shown`` of a column of numbers, one comprehension for the whole
    column (a ranking or a long history is thousands of cells): whole
    numbers as they are, floats to 4 decimals with trailing zeros dropped
    ("1512.5", "1500"; zero, either sign, "0"), None empty."""
    return [
        "" if v is None
        else str(v) if v.__class__ is int
        else (f"{v:.4f}".rstrip("0").rstrip(".") if v else "0")
        for v in values
    ]  # fmt: skip


def shown_texts(values: Iterable[str | None]) -> list[str]:
    """``shown`` of a column of text: None empty, control characters
    spelled out."""
    return ["" if v is None else v if v.isprintable() else printable(v) for v in values]


@collection.paused()
def render(
    rows: Sequence[msgspec.Struct] | msgspec.Struct,
    fmt: str,
    title: str = "",
    kind: type[msgspec.Struct] | None = None,
    spare: Sequence[str] = (),
    wide: bool = False,
    t: Translator | None = None,
) -> str:
    """Render Structs as ``table``, ``json`` or ``csv`` text; ``kind`` names
    the columns when there are no rows. A table fits the terminal
    (``table_lines``: ``spare`` columns left out first) unless ``wide``;
    its headings and coded cells are in ``t``'s language (English without).
    Runs with the cyclic garbage collector paused (``collection``: a cell
    for every value of rows held whole; 1M audit lines in csv: 16 full
    collections, 5.2 -> 3.7 s)."""
    import msgspec

    if fmt == "json":
        return msgspec.json.format(msgspec.json.encode(rows, enc_hook=_text), indent=2).decode()
    items = [rows] if isinstance(rows, msgspec.Struct) else list(rows)
    plain = msgspec.to_builtins(items, enc_hook=_text)
    columns = list(plain[0]) if plain else list(kind.__struct_fields__ if kind else ())
    if fmt == "csv":
        return csv_text(columns, ([r[c] for c in columns] for r in plain), _exact)
    rows_shown = [[shown(r[c]) for c in columns] for r in plain]
    lines = table_lines(columns, rows_shown, title, spare, wide, t)
    return "".join(lines).removesuffix("\n")


def _text(value: Any) -> str:
    """A ``str`` subclass (a ``Message`` among a report's warnings) as its
    plain text, for msgspec, which encodes exact types only."""
    if isinstance(value, str):
        return str(value)
    raise NotImplementedError(type(value))


def shown(value: Any) -> str:
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
    if kind is list and all(isinstance(v, str) for v in value):
        return printable("; ".join(value))  # (no warnings, no events: an empty cell)
    return printable(_cell(value))


def _exact(value: Any) -> str:
    return _cell(value, exact=True)


#: rich lays a table out at ~0.2 ms a cell (and takes ~60 ms to import): past
#: this many cells (a large ranking, a long history) print plain aligned
#: columns instead.
RICH_CELLS = 1000
#: The width a long column is folded to, at most, when a table must fit a terminal.
FOLDED = 16
#: Lines of a plain table joined into one write.
_LINES = 1024


def table_lines(
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    title: str = "",
    spare: Sequence[str] = (),
    wide: bool = False,
    t: Translator | None = None,
) -> Iterator[str]:
    """A table for people as chunks of text (each ending in a line break), to
    print one by one: ``rows`` of cells already shown (``shown``), columns
    named by ``columns`` (``last_played`` headed "last played").

    Boxed by rich on a terminal; piped or redirected (to grep, awk, a file),
    plain aligned columns, which is what a reader of a pipe wants and spares
    rich's import and layout; past ``RICH_CELLS``, plain everywhere.

    On a terminal, the table fits its width (unless ``wide``): columns with
    no cell go first, then the ``spare`` ones in that order, with a line
    naming them; what is still too wide is folded (boxed) or cut with "…"
    (plain). Headings, coded cells (``CODES``) and the note are in ``t``'s
    language (English without)."""
    t = t or translator()
    headers = [heading(t, c) for c in columns]
    coded = [i for i, c in enumerate(columns) if c in _CODED]
    if coded:
        rows = _labelled(rows, coded, [columns[i] for i in coded], t)
    terminal = sys.stdout.isatty()
    boxed = terminal and len(rows) * len(headers) <= RICH_CELLS
    width = None if wide or not terminal else terminal_width()
    dropped: list[str] = []
    if width is not None:
        spared = [heading(t, c) for c in spare]
        headers, rows, dropped = fit_columns(headers, rows, width, spared, boxed)
    if boxed:
        yield _rich_table(headers, rows, printable(title), width) + "\n"
    else:
        yield from _plain_table(headers, rows, printable(title), width)
    if dropped:
        import textwrap  # (only for a note under a table cut to fit)

        yield "\n".join(textwrap.wrap(dropped_note(dropped, width or 0, t), width or 80)) + "\n"


def heading(t: Translator, column: str) -> str:
    """A column's heading in ``t``'s language (``last_played``: "last played")."""
    return t.pgettext("column", column.replace("_", " "))


def _labelled(
    rows: Sequence[Sequence[str]], coded: list[int], contexts: list[str], t: Translator
) -> list[tuple[str, ...]]:
    """``rows`` with the cells of the coded columns through their labels
    (each distinct code looked up once)."""
    seen: dict[tuple[int, str], str] = {}
    out = []
    for row in rows:
        cells = list(row)
        for i, context in zip(coded, contexts, strict=True):
            code = cells[i]
            if code:
                shown = seen.get((i, code))
                if shown is None:
                    shown = seen[(i, code)] = t.pgettext(context, code)
                cells[i] = shown
        out.append(tuple(cells))
    return out


def terminal_width() -> int:
    """The terminal's width in columns ($COLUMNS first, as ``less`` does)."""
    import shutil

    return max(shutil.get_terminal_size().columns, 20)


def dropped_note(dropped: Sequence[str], width: int, t: Translator | None = None) -> str:
    """The line under a table that left columns out to fit the terminal."""
    return (
        (t or translator())
        .gettext("Not shown at {width} columns: {columns} (see --wide, or --format csv).")
        .format(width=width, columns=", ".join(dropped))
    )


def table_width(widths: Sequence[int], boxed: bool) -> int:
    """The width of a table whose columns hold ``widths`` characters: rich's
    box draws a rule before each column and after the last, with a space
    either side of each cell; plain columns are two spaces apart."""
    if boxed:
        return sum(widths) + 3 * len(widths) + 1
    return sum(widths) + 2 * max(len(widths) - 1, 0)


def fit_columns(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int,
    spare: Sequence[str],
    boxed: bool,
) -> tuple[list[str], Sequence[Sequence[str]], list[str]]:
    """``headers`` and ``rows`` without the columns it takes to fit
    ``width``: first the columns with no cell, then the ``spare`` ones in
    that order. Returns the headers, the rows and the spare columns left
    out (the empty ones are not named: they hide nothing)."""
    widths = {
        h: max(len(h), max(map(len, column), default=0))
        for h, column in zip(headers, list(zip(*rows, strict=True)) or [()] * len(headers),
                             strict=True)
    }  # fmt: skip
    if table_width(list(widths.values()), boxed) <= width:
        return list(headers), rows, []
    empty = {h for i, h in enumerate(headers) if all(not r[i] for r in rows)}
    keep = [h for h in headers if h not in empty]
    # Long text (words) folds (boxed) or is cut (plain): such a column
    # counts here as at most ``FOLDED`` wide, so that one long note costs no
    # other column. A column of single words (ids, dates) keeps its width.
    worded = {h for i, h in enumerate(headers) if any(" " in r[i] for r in rows)}
    widths = {h: min(w, FOLDED) if h in worded else w for h, w in widths.items()}
    dropped: list[str] = []
    for name in spare:
        if table_width([widths[h] for h in keep], boxed) <= width:
            break
        if name in keep and len(keep) > 1:
            keep.remove(name)
            dropped.append(name)
    if len(keep) == len(headers):
        return list(headers), rows, []
    index = [headers.index(h) for h in keep]
    return keep, [tuple(r[i] for i in index) for r in rows], dropped


def _rich_table(
    headers: list[str], rows: Sequence[Sequence[str]], title: str, width: int | None
) -> str:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title or None, show_lines=False, header_style="bold")
    for header in headers:
        table.add_column(header, overflow="fold")
    for r in rows:
        table.add_row(*r)
    # markup off: a player called "[bold]" is a name, not a style. Without a
    # width to fit (--wide), wide enough for any table: nothing folds.
    natural = table_width([max(len(h), max((len(r[i]) for r in rows), default=0))
                           for i, h in enumerate(headers)], boxed=True)  # fmt: skip
    console = Console(width=width or max(natural, len(title), 80), file=io.StringIO(),
                      color_system=None, markup=False, emoji=False,
                      highlight=False)  # fmt: skip
    console.print(table)
    return console.file.getvalue().rstrip("\n")


def _plain_table(
    headers: list[str], rows: Sequence[Sequence[str]], title: str, width: int | None
) -> Iterator[str]:
    """Aligned columns, a batch of lines at a time (bounded text in flight);
    within ``width``, when given, the widest columns cut with "…"."""
    columns = list(zip(*rows, strict=True)) or [()] * len(headers)  # (no rows: the headers')
    widths = [
        max(len(h), max(map(len, c), default=0)) for h, c in zip(headers, columns, strict=True)
    ]
    if width is not None and table_width(widths, boxed=False) > width:
        widths = _narrowed(widths, width)
        headers = [_cut(h, w) for h, w in zip(headers, widths, strict=True)]
        rows = [tuple(map(_cut, r, widths)) for r in rows]
        title = _cut(title, width)
    # One format string for every line: a row is one call, not one a cell,
    # and a batch of rows one C loop (map), not one Python step a row;
    # printf-style, which pads as ``{:<w}`` does (code points) but parses
    # its format more cheaply, ten thousand times over for a large ranking.
    line = "  ".join(f"%-{w}s" for w in widths).__mod__
    head = [title] if title else []
    head.append(line(tuple(headers)).rstrip())
    head.append("  ".join("-" * w for w in widths))
    yield "\n".join(head) + "\n"
    for start in range(0, len(rows), _LINES):
        batch = rows[start : start + _LINES]
        yield "\n".join(map(str.rstrip, map(line, map(tuple, batch)))) + "\n"


def _narrowed(widths: list[int], width: int) -> list[int]:
    """Column widths within ``width``: the widest narrowed first, none
    below 4 characters."""
    widths = list(widths)
    while table_width(widths, boxed=False) > width:
        widest = max(range(len(widths)), key=widths.__getitem__)
        if widths[widest] <= 4:
            break
        widths[widest] -= 1
    return widths


def _cut(text: str, width: int) -> str:
    """``text`` within ``width`` characters, cut with "…" when longer."""
    return text if len(text) <= width else text[: width - 1] + "…"
