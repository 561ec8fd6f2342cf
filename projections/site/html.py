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

try:  # markupsafe's C escaping, without wrapping each result in a Markup
    from markupsafe._speedups import _escape_inner
except ImportError:  # pragma: no cover - the pure-Python markupsafe
    _escape_inner = None

if TYPE_CHECKING:
    from projections.queries import Explanation
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


_SPECIAL = re.compile(r"[&<>\"']")


def _e(value: Any) -> str:
    """``value`` as HTML text: what ``markupsafe.escape`` gives, as a str."""
    text = value if type(value) is str else str(value)
    if _escape_inner is not None:
        return _escape_inner(text)
    return text if _SPECIAL.search(text) is None else str(escape(text))


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
    if tbl.rows:
        head = "".join(
            f'<th scope="col"{cls}>{_e(col)}</th>'
            for col, cls in zip(tbl.columns, tbl.classes, strict=True)
        )
        out.append(
            f'<div class="scroll">\n<table id="{_e(tbl.id)}" class="data"'
            f"{' data-filter' if filter else ''} data-sortable>\n"
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{_body(tbl)}</tbody>\n</table>\n</div>\n"
        )
    else:
        out.append(f'<p class="empty">{_e(none)}</p>\n')
    out.append("</section>\n")
    return Markup("".join(out))


#: Values told apart by (type, value): a result made of these is cached.
_SCALARS = frozenset((str, int, float, bool, type(None)))
_KEYS: dict[str, str] = {}
#: (value names, value types) -> the rows of a player's values as one format
#: string: a family gives every game the same few shapes.
_SHAPES: dict[tuple[tuple[str, ...], tuple[type, ...]], str | None] = {}
#: Types whose text needs no escaping, and how ``_values`` shows each.
_PLAIN = {float: "{:.6g}", int: "{}", bool: "{}"}


def _shape(names: tuple[str, ...], types: tuple[type, ...]) -> str | None:
    """The format string of values of these names and types, or None when a
    value's text must be escaped (a string)."""
    if not all(t in _PLAIN for t in types):
        return None
    return "".join(
        f'<tr><th scope="row">{_e(k).replace("{", "{{").replace("}", "}}")}</th>'
        f"<td>{_PLAIN[t]}</td></tr>\n"
        for k, t in zip(names, types, strict=True)
    )


def _values(values: dict[str, Any]) -> str:
    """A player's computed values as table rows (floats to 6 significant digits)."""
    shape = (tuple(values), tuple(map(type, values.values())))
    fmt = _SHAPES.get(shape, "")
    if fmt == "":
        fmt = _shape(*shape)
        if len(_SHAPES) < 10_000:
            _SHAPES[shape] = fmt
    if fmt is not None:
        return fmt.format(*values.values())
    e, keys = _e, _KEYS
    rows = []
    for k, v in values.items():
        th = keys.get(k)
        if th is None:  # a family's value names are few: each escaped once
            th = f'<tr><th scope="row">{e(k)}</th><td>'
            if len(keys) < 10_000:
                keys[k] = th
        rows.append(f"{th}{v:.6g}</td></tr>\n" if isinstance(v, float)
                    else f"{th}{e(v)}</td></tr>\n")  # fmt: skip
    return "".join(rows)


def short(value: float | None, sign: str = "") -> str:
    """Rounded to 4 decimals for people, as the CLI's tables show numbers
    (the downloads and the sort keys keep the exact value)."""
    if value is None:
        return ""
    return f"{value:{sign}.4f}".rstrip("0").rstrip(".")


class GameSections:
    """Writes game sections in one language: the headings and the tables'
    heads are made once, each game is a few f-strings."""

    PLAYER_COLUMNS = (("side", ""), ("name", ""), ("before", "n opt"), ("change", "n"),
                      ("after", "n"), ("K", "n opt"), ("P", "n opt"), ("S", "n opt"))  # fmt: skip
    AUDIT_COLUMNS = (("when", ""), ("who", "opt"), ("kind", ""), ("what", ""), ("why", ""),
                     ("source", "opt"))  # fmt: skip

    def __init__(self, t: dict[str, str]) -> None:
        self.t = t
        self._params_of: dict[int, tuple[dict[str, Any], str]] = {}
        self._results: dict[tuple[tuple[str, type, Any], ...], str] = {}
        e = _e
        self.labels = {k: e(t[k]) for k in (
            "ladder", "date", "event", "round", "status", "family", "result", "note", "game",
            "values", "players", "audit", "none", "corrected", "voided",
        )}  # fmt: skip

        def head(columns: tuple[tuple[str, str], ...]) -> str:
            return "".join(
                f'<th scope="col"{f" class={chr(34)}{c}{chr(34)}" if c else ""}>'
                f"{e(t.get(k, k))}</th>"
                for k, c in columns
            )

        self.players_head = head(self.PLAYER_COLUMNS)
        self.audit_head = head(self.AUDIT_COLUMNS)

    def _params(self, params: dict[str, Any]) -> str:
        """A ruleset's parameters as escaped JSON: every game of a ruleset
        holds the same dict, encoded once."""
        held = self._params_of.get(id(params))
        if held is None or held[0] is not params:
            held = self._params_of[id(params)] = (params, _e(_json(params).decode()))
        return held[1]

    def _result(self, result: dict[str, Any]) -> str:
        """A game's result as escaped JSON (a ladder's results have few
        distinct values: each encoded once)."""
        key = tuple((k, v.__class__, v) for k, v in result.items())
        if not all(kind in _SCALARS for _, kind, _ in key):  # 1 and 1.0 hash alike
            return _e(_json(result).decode())
        text = self._results.get(key)
        if text is None:
            text = _e(_json(result).decode())
            if len(self._results) < 10_000:
                self._results[key] = text
        return text

    def _table(self, tid: str, caption: str, stem: str, head: str, body: str) -> str:
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

    def render(
        self,
        x: Explanation,
        gid: str,
        players: list[tuple[Any, ...]],
        audit: list[tuple[Any, ...]],
        stem: str,
        ladder_href: str,
    ) -> str:
        """One game's explanation and audit trail, as a section of its
        event's (or month's) page whose ``id`` is the game's URL fragment.
        ``players``: (side, name, player page or None, before, change, after,
        K, P, S); ``audit``: (when, who, kind, what, why, source)."""
        e, lab = _e, self.labels
        status = lab[x.status] if x.status in ("corrected", "voided") else e(x.status)
        event = ""
        if x.event:
            rnd = f" · {lab['round']} {e(x.round)}" if x.round is not None else ""
            event = f"<dt>{lab['event']}</dt><dd>{e(x.event)}{rnd}</dd>\n"
        note = f"<dt>{lab['note']}</dt><dd>{e(x.note)}</dd>\n" if x.note else ""
        sid = e(gid)
        rows = []
        for side, name, href, before, change, after, k, p, s in players:
            who = f'<a href="{href}">{e(name)}</a>' if href else e(name)
            # ``short`` inline (six numbers a player, a million a big ladder)
            b, a, k_, p_, s_ = [
                "" if v is None else f"{v:.4f}".rstrip("0").rstrip(".")
                for v in (before, after, k, p, s)
            ]
            c = "" if change is None else f"{change:+.4f}".rstrip("0").rstrip(".")
            rows.append(
                f'<tr><td>{e(side)}</td><td>{who}</td><td class="n opt">{b}</td>'
                f'<td class="n">{c}</td><td class="n">{a}</td>'
                f'<td class="n opt">{k_}</td><td class="n opt">{p_}</td>'
                f'<td class="n opt">{s_}</td></tr>\n'
            )
        lines = "".join(
            f'<tr><td>{e(when)}</td><td class="opt">{e(by)}</td><td>{e(kind)}</td>'
            f'<td>{e(what)}</td><td>{e(why)}</td><td class="opt">{e(source)}</td></tr>\n'
            for when, by, kind, what, why, source in audit
        )
        out = [
            f'<section class="game" id="g-{sid}">\n<h2>{lab["game"]} {e(x.game)}</h2>\n'
            f'<dl class="facts">\n<dt>{lab["ladder"]}</dt><dd><a href="{ladder_href}">'
            f"{e(x.ladder)}</a></dd>\n<dt>{lab['date']}</dt><dd>{e(x.date)}</dd>\n{event}"
            f'<dt>{lab["status"]}</dt><dd class="status-{e(x.status)}">{status}</dd>\n'
            f"<dt>{lab['family']}</dt><dd>{e(x.family)} <code>{self._params(x.params)}"
            f"</code></dd>\n<dt>{lab['result']}</dt><dd><code>{self._result(x.result)}"
            f"</code></dd>\n{note}</dl>\n",
            self._table(
                f"{sid}-players",
                lab["players"],
                f"{stem}.changes",
                self.players_head,
                "".join(rows),
            ),  # fmt: skip
        ]
        if x.players:
            out.append(f'<div class="values">\n<h3>{lab["values"]}</h3>\n')
            for p in x.players:
                who = self.t["explain_player"].format(player=p.player, side=p.side)
                out.append(
                    f"<details open>\n<summary>{e(who)}: {p.before:g} → {p.after:g} "
                    f'({p.change:+g})</summary>\n<table class="values">\n{_values(p.values)}'
                    "</table>\n</details>\n"
                )
            out.append("</div>\n")
        out.append(self._table(f"{sid}-audit", lab["audit"], f"{stem}.audit", self.audit_head,
                               lines))  # fmt: skip
        out.append("</section>\n")
        return "".join(out)


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
