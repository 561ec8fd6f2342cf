"""The ranges every number the ledger stores must lie in.

A number outside them (NaN, infinity, ``1e309``, a round past any
tournament's, a rating no replay could rate) is refused where it is typed,
with the field and the range, so nothing is stored that a replay could not
rate or a reader could not read back. The same ranges are shown in
``--help`` (``click`` options take them from here).
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Message


class Range(msgspec.Struct, frozen=True):
    """An inclusive range of finite numbers."""

    low: float
    high: float
    integer: bool = False

    def describe(self) -> str:
        return Message("{low} to {high}", low=_figure(self.low), high=_figure(self.high))

    def check(self, value: Any, field: str) -> Any:
        """``value`` unchanged when it is a finite number in range; else an
        Invalid naming ``field``, the value and the range."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            kind = Message("whole number") if self.integer else Message("number")
            raise Invalid(
                Message("{field}: {value!r} is not a {kind}", field=field, value=value, kind=kind),
                field=field,
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise Invalid(
                Message(
                    "{field}: {value} is not a finite number (allowed: {allowed})",
                    field=field,
                    value=value,
                    allowed=self.describe(),
                ),
                field=field,
            )
        if not self.low <= value <= self.high:
            raise Invalid(
                Message(
                    "{field}: {value} is out of range (allowed: {allowed})",
                    field=field,
                    value=_figure(value),
                    allowed=self.describe(),
                ),
                field=field,
            )
        return value


def _figure(value: float) -> str:
    if isinstance(value, float) and abs(value) >= 1e15:
        return f"{value:g}"
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,}"


#: A rating set by hand (``adjust --to``): no family rates below 0.
RATING = Range(0, 100_000)
#: A rating shift (``adjust --shift``).
SHIFT = Range(-100_000, 100_000)
#: Round, table and order-of-play numbers.
ORDER = Range(0, 1_000_000, integer=True)
#: An extra attribute of a game (points scored...).
ATTRIBUTE = Range(-1e9, 1e9)
#: Any number inside a game's result (BV, ranks, points...).
RESULT_NUMBER = Range(-1e9, 1e9)
#: Any number among a ruleset's parameters (K, divisors, initial ratings...);
#: each family refuses what makes no sense to it within this.
PARAMETER = Range(-1_000_000, 1_000_000)


def check_numbers(value: Any, field: str, bound: Range) -> None:
    """Check every number inside ``value`` (nested lists and dicts too)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int | float):
        bound.check(value, field)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_numbers(item, f"{field}.{key}", bound)
    elif isinstance(value, list | tuple):
        for item in value:
            check_numbers(item, field, bound)
