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
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import msgspec
from markupsafe import Markup, escape

try:  # markupsafe's C escaping, without wrapping each result in a Markup
    from markupsafe._speedups import _escape_inner
except ImportError:  # pragma: no cover - the pure-Python markupsafe
    _escape_inner = None

if TYPE_CHECKING:
    from projections.queries import Explanation
    from projections.site.build import DataTable
    from projections.site.charts import Point

_json = msgspec.json.Encoder().encode


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
    opens = [f"<td{c}" for c in tbl.classes]
    lines = []
    for row in tbl.rows:
        cells = ["<tr>"]
        for td, (text, href, sort) in zip(opens, row, strict=True):
            v = ">" if sort is None else f' data-v="{e(sort)}">'
            if href:
                cells.append(f'{td}{v}<a href="{e(href)}">{e(text)}</a></td>')
            else:
                cells.append(f"{td}{v}{e(text)}</td>")
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


_KEYS: dict[str, str] = {}


def _values(values: dict[str, Any]) -> str:
    """A player's computed values as table rows (floats to 6 significant digits)."""
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


def game_section(
    x: Explanation,
    gid: str,
    t: dict[str, str],
    players: DataTable,
    audit: DataTable,
    table: Callable[..., Markup],
    downloads: str,
    ladder_href: str,
) -> str:
    """One game's explanation and audit trail, as a section of its event's
    (or month's) page whose ``id`` is the game's URL fragment."""
    status = t[x.status] if x.status in ("corrected", "voided") else x.status
    facts = [
        f'<dt>{_e(t["ladder"])}</dt><dd><a href="{ladder_href}">{_e(x.ladder)}</a></dd>',
        f"<dt>{_e(t['date'])}</dt><dd>{_e(x.date)}</dd>",
    ]
    if x.event:
        rnd = f" · {_e(t['round'])} {_e(x.round)}" if x.round is not None else ""
        facts.append(f"<dt>{_e(t['event'])}</dt><dd>{_e(x.event)}{rnd}</dd>")
    facts += [
        f'<dt>{_e(t["status"])}</dt><dd class="status-{_e(x.status)}">{_e(status)}</dd>',
        f"<dt>{_e(t['family'])}</dt><dd>{_e(x.family)} <code>{_e(_json(x.params).decode())}"
        "</code></dd>",
        f"<dt>{_e(t['result'])}</dt><dd><code>{_e(_json(x.result).decode())}</code></dd>",
    ]
    if x.note:
        facts.append(f"<dt>{_e(t['note'])}</dt><dd>{_e(x.note)}</dd>")
    out = [
        f'<section class="game" id="g-{_e(gid)}">\n'
        f"<h2>{_e(t['game'])} {_e(x.game)}</h2>\n"
        f'<dl class="facts">\n' + "\n".join(facts) + "\n</dl>\n",
        table(players, heading="h3", download=f"{downloads}.changes"),
    ]
    if x.players:
        out.append(f'<div class="values">\n<h3>{_e(t["values"])}</h3>\n')
        for p in x.players:
            who = t["explain_player"].format(player=p.player, side=p.side)
            rows = _values(p.values)
            out.append(
                f"<details open>\n<summary>{_e(who)}: {p.before:g} → {p.after:g} "
                f'({p.change:+g})</summary>\n<table class="values">\n{rows}</table>\n'
                "</details>\n"
            )
        out.append("</div>\n")
    out.append(table(audit, heading="h3", download=f"{downloads}.audit"))
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


def join(parts: Iterable[str]) -> Markup:
    """Fragments made here, already escaped, as one piece of markup."""
    return Markup("".join(parts))
