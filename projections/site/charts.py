"""The geometry of the site's SVG charts: scales, ticks and shapes, as plain
numbers for the templates (``templates/chart_*.svg``) to draw. No JavaScript
is needed to see a chart; every chart has a title and a description (its text
alternative), and the page beside it has the same data as a table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date

import msgspec

#: The drawing area (viewBox units). Narrow enough that the axis labels stay
#: legible when a phone scales the chart down to ~350 px.
WIDTH, HEIGHT = 440, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 22, 14, 42


class Tick(msgspec.Struct):
    at: float
    label: str
    anchor: str = "middle"  # "start" or "end" near the chart's edges, so labels stay inside


def _anchored(ticks: list[Tick]) -> list[Tick]:
    """x-axis ticks whose labels would spill past the viewBox, anchored inward."""
    for tick in ticks:
        half = 4.2 * len(tick.label)  # about half the label's width at 14px
        if tick.at + half > WIDTH:
            tick.anchor = "end"
        elif tick.at - half < 0:
            tick.anchor = "start"
    return ticks


class Point(msgspec.Struct):
    x: float
    y: float
    kind: str  # "game", "corrected" (a corrected game) or "other" (adjustment, season)
    label: str  # the point's tooltip: date, rating, what happened


class Band(msgspec.Struct):
    x: float
    width: float
    label: str


class Bar(msgspec.Struct):
    x: float
    y: float
    width: float
    height: float
    label: str


class Dot(msgspec.Struct):
    """A point drawn with its own size (``r``): a calibration bin, sized by
    its count, or a point of a curve."""

    x: float
    y: float
    r: float
    kind: str  # "bin"; on a curve "point", "now" (the rules in force) or "best"
    label: str


class Chart(msgspec.Struct):
    """Everything a chart template draws."""

    title: str
    description: str
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    x_label: str
    y_label: str
    line: str = ""
    #: The rating ± its deviation as a polygon (a family whose ratings know
    #: their uncertainty), or "".
    uncertainty: str = ""
    points: list[Point] = []
    bands: list[Band] = []
    bars: list[Bar] = []
    dots: list[Dot] = []
    #: The line a perfect calibration lies on.
    diagonal: str = ""


def nice_step(span: float, target: int = 5) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) giving about
    ``target`` intervals over ``span``."""
    raw = max(span, 1e-9) / target
    power = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 2.5, 5, 10):
        if raw <= mult * power:
            return mult * power
    return 10 * power


def _number(value: float) -> str:
    return f"{value:g}"


def _y_axis(
    low: float, high: float, pad: float = 5, target: int = 5
) -> tuple[float, float, list[float]]:
    """A y axis from ``low`` to ``high`` in round steps (about ``target``
    of them), widened by ``pad`` each way when the values are closer than
    twice that (ratings: 5 points; a log-loss moves in its third decimal)."""
    if high - low < 2 * pad:
        low, high = low - pad, high + pad
    step = nice_step(high - low, target)
    start = math.floor(low / step) * step
    end = math.ceil(high / step) * step
    n = round((end - start) / step)
    return start, end, [round(start + i * step, 12) for i in range(n + 1)]


def _date_ticks(first: date, last: date) -> list[date]:
    """Ticks on year starts, else on month starts, else on the two ends."""
    years = [date(y, 1, 1) for y in range(first.year + 1, last.year + 1)]
    if len(years) >= 2:
        step = max(1, math.ceil(len(years) / 6))
        return years[::step]
    months = []
    y, m = first.year, first.month
    while True:
        m += 1
        if m > 12:
            y, m = y + 1, 1
        if date(y, m, 1) > last:
            break
        months.append(date(y, m, 1))
    if len(months) >= 2:
        step = max(1, math.ceil(len(months) / 5))
        return months[::step]
    return [first, last] if first != last else [first]


def rating_history(
    title: str,
    description: str,
    entries: list[tuple[date, float, str, str, float | None]],
    events: list[tuple[str, date, date]],
    x_label: str,
    y_label: str,
) -> Chart:
    """Rating against date: one point per entry ``(date, rating after, kind,
    tooltip, deviation)`` joined by a line, a band per event ``(name, first,
    last)``, and the rating ± its deviation as a shaded band where entries
    give one (None: a rating without uncertainty)."""
    first = min(e[0] for e in entries)
    last = max(e[0] for e in entries)
    days = max((last - first).days, 1)
    spread = [(e[0], e[1], e[4]) for e in entries if e[4] is not None]
    low, high, y_values = _y_axis(
        min([e[1] for e in entries] + [r - d for _, r, d in spread]),
        max([e[1] for e in entries] + [r + d for _, r, d in spread]),
    )
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM

    def x_of(on: date) -> float:
        if first == last:
            return LEFT + plot_w / 2
        return round(LEFT + plot_w * (on - first).days / days, 1)

    def y_of(value: float) -> float:
        return round(TOP + plot_h * (high - value) / (high - low), 1)

    if first == last:
        points = [Point(x_of(on), y_of(r), kind, label) for on, r, kind, label, _ in entries]
    else:  # x_of and y_of inlined: a player page has a point per game
        start, span = first.toordinal(), high - low
        points = [
            Point(round(LEFT + plot_w * (on.toordinal() - start) / days, 1),
                  round(TOP + plot_h * (high - r) / span, 1), kind, label)
            for on, r, kind, label, _ in entries
        ]  # fmt: skip
    line = " ".join(f"{p.x},{p.y}" for p in points)
    # Upper edge left to right, lower edge back: one polygon.
    edge = [(on, r + d) for on, r, d in spread] + [(on, r - d) for on, r, d in reversed(spread)]
    uncertainty = " ".join(f"{x_of(on)},{y_of(v)}" for on, v in edge) if spread else ""
    # Rounded again: a difference of two rounded floats prints as 4.200000000000003.
    bands = [Band(round(x_of(a) - 2, 1), round(max(x_of(b) - x_of(a), 0) + 4, 1), name)
             for name, a, b in events]  # fmt: skip
    if first == last:
        x_ticks = [Tick(x_of(first), first.isoformat())]
    else:
        fmt = "%Y" if (last - first).days > 2 * 366 else "%Y-%m"
        x_ticks = [Tick(x_of(t), t.strftime(fmt)) for t in _date_ticks(first, last)]
    return Chart(
        title=title, description=description, width=WIDTH, height=HEIGHT, left=LEFT,
        right=RIGHT, top=TOP, bottom=BOTTOM, x_ticks=_anchored(x_ticks),
        y_ticks=[Tick(y_of(v), _number(v)) for v in y_values],
        x_label=x_label, y_label=y_label, line=line, uncertainty=uncertainty, points=points,
        bands=bands,
    )  # fmt: skip


def distribution(
    title: str, ratings: list[float], x_label: str, y_label: str, bar_label: str
) -> Chart:
    """A histogram of ratings: bars of a round width, height = players.
    ``bar_label`` is a format string with ``{low}``, ``{high}`` and ``{n}``."""
    low_r, high_r = min(ratings), max(ratings)
    width = nice_step(max(high_r - low_r, 1), 12)
    start = math.floor(low_r / width) * width
    n_bins = max(1, math.floor((high_r - start) / width) + 1)
    counts = [0] * n_bins
    for r in ratings:
        counts[min(int((r - start) // width), n_bins - 1)] += 1
    top_count = max(counts)
    step = max(1, math.ceil(nice_step(top_count, 4)))
    y_max = math.ceil(top_count / step) * step
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    bar_w = plot_w / n_bins
    bars = []
    for i, n in enumerate(counts):
        h = plot_h * n / y_max
        lo, hi = start + i * width, start + (i + 1) * width
        label = bar_label.format(low=_number(lo), high=_number(hi), n=n)
        bars.append(Bar(round(LEFT + i * bar_w, 1), round(TOP + plot_h - h, 1),
                        round(max(bar_w - 1, 0.5), 1), round(h, 1), label))  # fmt: skip
    every = max(1, math.ceil(n_bins / 6))
    x_ticks = [
        Tick(round(LEFT + i * bar_w, 1), _number(start + i * width))
        for i in range(0, n_bins + 1, every)
    ]
    y_ticks = [
        Tick(round(TOP + plot_h - plot_h * v / y_max, 1), str(v)) for v in range(0, y_max + 1, step)
    ]
    description = "; ".join(b.label for b, n in zip(bars, counts, strict=True) if n)
    return Chart(
        title=title, description=description, width=WIDTH, height=HEIGHT, left=LEFT,
        right=RIGHT, top=TOP, bottom=BOTTOM, x_ticks=_anchored(x_ticks), y_ticks=y_ticks,
        x_label=x_label, y_label=y_label, bars=bars,
    )  # fmt: skip


def _unit_ticks(to_px: Callable[[float], float]) -> list[Tick]:
    return [Tick(to_px(v / 5), f"{v / 5:g}") for v in range(6)]


def calibration(
    title: str,
    description: str,
    bins: list[tuple[float, float, int, str]],
    x_label: str,
    y_label: str,
) -> Chart:
    """Observed outcome against predicted probability, both from 0 to 1:
    a dot per bin ``(predicted, observed, count, tooltip)``, its area
    proportional to its count, over the diagonal a perfect prediction
    follows."""
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM

    def x_of(value: float) -> float:
        return round(LEFT + plot_w * value, 1)

    def y_of(value: float) -> float:
        return round(TOP + plot_h * (1 - value), 1)

    most = max((n for _, _, n, _ in bins), default=0)
    dots = [
        Dot(x_of(p), y_of(o), round(2.5 + 9.5 * math.sqrt(n / most), 1), "bin", label)
        for p, o, n, label in bins
        if n
    ]
    return Chart(
        title=title, description=description, width=WIDTH, height=HEIGHT, left=LEFT,
        right=RIGHT, top=TOP, bottom=BOTTOM, x_ticks=_anchored(_unit_ticks(x_of)),
        y_ticks=_unit_ticks(y_of), x_label=x_label, y_label=y_label, dots=dots,
        diagonal=f"{x_of(0)},{y_of(0)} {x_of(1)},{y_of(1)}",
    )  # fmt: skip


def curve(
    title: str,
    description: str,
    points: list[tuple[float, float, str, str]],
    x_label: str,
    y_label: str,
) -> Chart:
    """A measure against a parameter's value: a point per ``(value,
    measure, kind, tooltip)`` joined by a line (``kind``: ``point``,
    ``now`` or ``best``)."""
    xs = [x for x, _, _, _ in points]
    low_x, high_x = min(xs), max(xs)
    ys = [y for _, y, _, _ in points]
    low, high, y_values = _y_axis(min(ys), max(ys), pad=0.001, target=4)
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM

    def x_of(value: float) -> float:
        if high_x == low_x:
            return LEFT + plot_w / 2
        return round(LEFT + plot_w * (value - low_x) / (high_x - low_x), 1)

    def y_of(value: float) -> float:
        return round(TOP + plot_h * (high - value) / (high - low), 1)

    dots = [
        Dot(x_of(x), y_of(y), 5.0 if kind != "point" else 3.0, kind, label)
        for x, y, kind, label in points
    ]
    step = nice_step(high_x - low_x or 1, 6)
    first = math.ceil(low_x / step) * step
    x_ticks = [Tick(x_of(first + i * step), _number(first + i * step))
               for i in range(int((high_x - first) / step + 1e-9) + 1)]  # fmt: skip
    return Chart(
        title=title, description=description, width=WIDTH, height=HEIGHT, left=LEFT,
        right=RIGHT, top=TOP, bottom=BOTTOM, x_ticks=_anchored(x_ticks),
        y_ticks=[Tick(y_of(v), f"{v:.4g}") for v in y_values], x_label=x_label,
        y_label=y_label, line=" ".join(f"{d.x},{d.y}" for d in dots), dots=dots,
    )  # fmt: skip
