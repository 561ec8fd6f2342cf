"""The site's repeated fragments as HTML strings: data tables and game sections.

A ladder of 100,000 games has millions of table cells and 100,000 game
explanations; rendering each through a Jinja2 macro cost most of a build.
These functions write the same markup directly, escaping every value with
``markupsafe.escape`` (the function Jinja2's autoescaping calls), and hand
the templates ``Markup`` that Jinja2 inserts as is. Pages, headings and
charts stay in the templates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec
from markupsafe import Markup, escape

from projections.site.text import label

try:  # markupsafe's C escaping, without wrapping each result in a Markup
    from markupsafe._speedups import _escape_inner
except ImportError:  # pragma: no cover - the pure-Python markupsafe
    _escape_inner = None

if TYPE_CHECKING:
    from ledger.kernel.translation import Translator
    from projections.site.charts import Chart, Point

_json = msgspec.json.Encoder().encode


class Cell(NamedTuple):
    """A table cell: what it shows, where it links, how it sorts."""

    text: str
    href: str | None = None
    sort: float | str | None = None


class DataTable(msgspec.Struct):
    """A table as a page shows it, and as its downloads hold it."""

    id: str
    caption: str
    columns: list[str]
    numeric: list[bool]
    optional: list[bool]  # hidden on a phone's narrow screen (still in the downloads)
    classes: list[Markup]  # each column's class attribute, made once (not per cell)
    rows: list[list[Cell]]
    raw: list[list[Any]]
    download: str  # file stem relative to the page, e.g. "standings"
    #: The rows as markup already written (a big table's, a row at a time)
    #: instead of ``rows``, which is then empty.
    body: str | None = None
    #: The rows' CSV lines and the ``output.CsvCells`` that wrote their
    #: texts, when the caller wrote them too (else None).
    csv_lines: Any = None


_SPECIAL = re.compile(r"[&<>\"']")


def _e(value: Any) -> str:
    """``value`` as HTML text: what ``markupsafe.escape`` gives, as a str."""
    text = value if type(value) is str else str(value)
    if _escape_inner is not None:
        return _escape_inner(text)
    return text if _SPECIAL.search(text) is None else str(escape(text))


#: ``value`` as HTML text (``markupsafe.escape``'s, as a str).
escape_text = _e


def _body(tbl: DataTable) -> str:
    """The rows of a table: one ``<tr>`` a line."""
    e = _e
    # markupsafe's C escaping called directly on a str (millions of cells).
    esc = _escape_inner or _e
    opens = [f"<td{c}" for c in tbl.classes]
    lines = []
    for row in tbl.rows:
        cells = ["<tr>"]
        for td, (text, href, sort) in zip(opens, row, strict=True):
            # A number's text needs no escaping (most sort keys are numbers).
            if sort is None:
                v = ">"
            elif sort.__class__ is float or sort.__class__ is int:
                v = f' data-v="{sort}">'
            else:
                v = f' data-v="{e(sort)}">'
            shown = esc(text) if text.__class__ is str else e(text)
            if href:
                cells.append(f'{td}{v}<a href="{e(href)}">{shown}</a></td>')
            else:
                cells.append(f"{td}{v}{shown}</td>")
        cells.append("</tr>\n")
        lines.append("".join(cells))
    return "".join(lines)


def data_table(
    tbl: DataTable,
    none: str,
    filter: bool = False,
    heading: str = "h2",
    download: str | None = "",
) -> Markup:
    """A table section: heading, downloads, the table (or ``none`` when it
    has no rows). ``download``: the downloads' file stem ("" for the
    table's own, None for no links)."""
    stem = tbl.download if download == "" else download
    out = [
        f'<section class="table" aria-labelledby="{_e(tbl.id)}-caption">\n'
        f'<div class="table-head">\n<{heading} id="{_e(tbl.id)}-caption">{_e(tbl.caption)}'
        f"</{heading}>\n"
    ]
    if stem is not None:
        out.append(
            f'<p class="downloads"><a href="{_e(stem)}.csv" download>CSV</a> '
            f'<a href="{_e(stem)}.json" download>JSON</a></p>\n'
        )
    out.append("</div>\n")
    if tbl.rows or tbl.body:
        head = "".join(
            f'<th scope="col"{cls}>{_e(col)}</th>'
            for col, cls in zip(tbl.columns, tbl.classes, strict=True)
        )
        out.append(
            f'<div class="scroll">\n<table id="{_e(tbl.id)}" class="data"'
            f"{' data-filter' if filter else ''} data-sortable>\n"
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{_body(tbl) if tbl.body is None else tbl.body}</tbody>\n</table>\n</div>\n"
        )
    else:
        out.append(f'<p class="empty">{_e(none)}</p>\n')
    out.append("</section>\n")
    return Markup("".join(out))


#: Values told apart by (type, value): a result made of these is cached.
_SCALARS = frozenset((str, int, float, bool, type(None)))


def short(value: float | None, sign: str = "") -> str:
    """Rounded to 4 decimals for people, as the CLI's tables show numbers
    (the downloads and the sort keys keep the exact value)."""
    if value is None:
        return ""
    return f"{value:{sign}.4f}".rstrip("0").rstrip(".")


def _value_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(_value_text(v) for v in value)
    if isinstance(value, dict):
        return _json(value).decode()
    return str(value)


def _result_text(result: dict[str, Any], tr: Translator) -> str:
    """``result: a · margin: decisive``: each field that is set, in order,
    its name and its code through their labels in ``tr``'s language."""
    field = tr.gettext("{field}: {value}")
    return " · ".join(
        field.format(
            field=label(tr, "result field", k),
            value=label(tr, k, v) if type(v) is str else _value_text(v),
        )
        for k, v in result.items()
        if v is not None
    )


class GameSections:
    """Writes game sections in one language: the headings and the tables'
    heads are made once, each game is a few f-strings."""

    PLAYER_COLUMNS = (("side", ""), ("name", ""), ("before", "n opt"), ("change", "n"),
                      ("after", "n"), ("K", "n opt"), ("P", "n opt"), ("S", "n opt"))  # fmt: skip
    AUDIT_COLUMNS = (("when", ""), ("who", "opt"), ("kind", ""), ("what", ""), ("why", ""),
                     ("source", "opt"))  # fmt: skip

    def __init__(self, t: dict[str, str], tr: Translator) -> None:
        self.t, self.tr = t, tr
        self._families: dict[tuple[str, str], str] = {}
        self._results: dict[tuple[tuple[str, type, Any], ...], str] = {}
        e = _e
        self.labels = {k: e(t[k]) for k in (
            "ladder", "date", "event", "round", "status", "family", "result", "note", "game",
            "players", "audit", "none", "corrected", "voided", "recorded", "voided_note",
            "per_event_note",
        )}  # fmt: skip

        def head(columns: tuple[tuple[str, str], ...]) -> str:
            return "".join(
                f'<th scope="col"{f" class={chr(34)}{c}{chr(34)}" if c else ""}>'
                f"{e(t.get(k, k))}</th>"
                for k, c in columns
            )

        self.players_head = head(self.PLAYER_COLUMNS)
        self.audit_head = head(self.AUDIT_COLUMNS)
        # A game's players table: its caption and head, made once. It has
        # no heading and download links of its own: the page links its
        # games' changes once, above the sections (100,000 games are
        # 100,000 of these tables).
        self._players_open = '<div class="scroll">\n<table class="data game-players" id="'
        self._players_head = (
            f'">\n<caption>{self.labels["players"]}</caption>\n'
            f"<thead><tr>{self.players_head}</tr></thead>\n<tbody>\n"
        )
        self._players_none = f'<p class="empty">{self.labels["none"]}</p>\n'

    def family(self, family: str, effective: str) -> str:
        """A game's family and the ruleset in force, linking the ladder's
        ruleset history (where its parameters are): one text a ruleset."""
        held = self._families.get((family, effective))
        if held is None:
            when = self.t["from_start"] if effective == "0001-01-01" else effective
            held = self._families[(family, effective)] = (
                f'{_e(family)} (<a href="../index.html#rules-caption">{_e(self.t["rules"])}'
                f"</a>{_e(self.t['colon'])}{_e(when)})"
            )
        return held

    def result(self, result: dict[str, Any]) -> str:
        """A game's result as people read it, escaped: ``result: a ·
        margin: decisive`` (a list's items joined by commas; a ladder's
        results have few distinct values: each written once)."""
        key = tuple((k, v.__class__, v) for k, v in result.items())
        if not all(kind in _SCALARS for _, kind, _ in key):  # 1 and 1.0 hash alike
            return _e(_result_text(result, self.tr))
        text = self._results.get(key)
        if text is None:
            text = _e(_result_text(result, self.tr))
            if len(self._results) < 10_000:
                self._results[key] = text
        return text

    def players(self, gid: str, body: str) -> str:
        """A game's players table (``body``: its rows), with the id
        ``GAME-ID-players``; a line saying none for a voided game."""
        if not body:
            return self._players_none
        return f"{self._players_open}{gid}-players{self._players_head}{body}</tbody>\n</table>\n</div>\n"

    def table(self, tid: str, caption: str, stem: str, head: str, body: str) -> str:
        table = (
            f'<div class="scroll">\n<table id="{tid}" class="data">\n<thead><tr>{head}</tr>'
            f"</thead>\n<tbody>\n{body}</tbody>\n</table>\n</div>\n"
            if body else f'<p class="empty">{self.labels["none"]}</p>\n'
        )  # fmt: skip
        return (
            f'<section class="table" aria-labelledby="{tid}-caption">\n<div class="table-head">'
            f'\n<h3 id="{tid}-caption">{caption}</h3>\n<p class="downloads"><a href="{stem}.csv"'
            f' download>CSV</a> <a href="{stem}.json" download>JSON</a></p>\n</div>\n{table}'
            "</section>\n"
        )


def history_points(points: Iterable[Point]) -> Markup:
    """The rating-history chart's points: a circle per game (larger for a
    corrected one), a square per adjustment or season close, each with its
    tooltip."""
    e = _e
    out = []
    for p in points:
        if p.kind == "other":
            out.append(f'<rect class="pt other" x="{p.x - 3.5:g}" y="{p.y - 3.5:g}" width="7" '
                       f'height="7"><title>{e(p.label)}</title></rect>\n')  # fmt: skip
        else:
            r = 4.5 if p.kind == "corrected" else 3
            out.append(f'<circle class="pt {e(p.kind)}" cx="{p.x:g}" cy="{p.y:g}" r="{r:g}">'
                       f"<title>{e(p.label)}</title></circle>\n")  # fmt: skip
    return Markup("".join(out))


def history_bands(chart: Chart) -> Markup:
    """The rating-history chart's event bands (a player's events can be
    hundreds: a loop in the template cost more than the rest of the chart)."""
    e = _e
    top, height = chart.top, chart.height - chart.top - chart.bottom
    return Markup(
        "".join(
            f'<rect class="band" x="{b.x}" y="{top}" width="{b.width}" height="{height}">'
            f"<title>{e(b.label)}</title></rect>\n"
            for b in chart.bands
        )
    )


def join(parts: Iterable[str]) -> Markup:
    """Fragments made here, already escaped, as one piece of markup."""
    return Markup("".join(parts))
