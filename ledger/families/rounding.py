"""The rounding rules the rating families name, in one place.

Every family rounds at exactly one point of its computation (see docs/rules/README.md);
these helpers make that point visible and keep the tie-breaking exact.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

Rounding = Literal["none", "half-up", "half-away", "truncate", "floor"]


def round_half_up(value: float, places: int = 0) -> float:
    """Round with halves going up (towards +inf): 0.285 -> 0.29, -2.5 -> -2.

    Uses the decimal *repr* of the float so that 0.285 (stored as
    0.28499999...) rounds the way a person doing it by hand expects.
    """
    quantum = Decimal(1).scaleb(-places)
    d = Decimal(repr(value))
    if d >= 0:
        return float(d.quantize(quantum, rounding=ROUND_HALF_UP))
    # Halves go up: -2.5 -> -2.
    return -float((-d).quantize(quantum, rounding="ROUND_HALF_DOWN"))


def _exact(value: float) -> float:
    """Drop binary noise below 1e-9 so that 30 x 0.05 rounds as 1.5, not as
    1.4999999999999998: the rules are written for decimal arithmetic."""
    return round(value, 9)


def round_half_away(value: float) -> int:
    """Round to an integer, halves away from zero: 6.5 -> 7, -6.5 -> -7."""
    value = _exact(value)
    magnitude = math.floor(abs(value) + 0.5)
    return int(magnitude if value >= 0 else -magnitude)


def truncate(value: float) -> int:
    """Drop the fraction (toward zero): 35.76 -> 35, -14.2 -> -14."""
    return int(_exact(value))


def floor_half_up(value: float) -> int:
    """floor(x + 0.5): nearest integer, halves upward (BattleTech's rule)."""
    return math.floor(_exact(value) + 0.5)


def apply_rounding(value: float, rounding: Rounding) -> float:
    """Apply a named rounding rule to a rating change."""
    if rounding == "none":
        return value
    if rounding == "half-up":
        return float(floor_half_up(value))
    if rounding == "half-away":
        return float(round_half_away(value))
    if rounding == "truncate":
        return float(truncate(value))
    if rounding == "floor":
        return float(math.floor(_exact(value)))
    raise ValueError(f"unknown rounding {rounding!r}")
