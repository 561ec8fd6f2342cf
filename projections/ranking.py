"""The ranking rules every reader of the standings and histories shares:
who ties with whom, and how a game's result reads for one side.

Kept apart from ``queries`` (and free of msgspec) so that the CLI's plain
tables, which start without the projection's modules, use the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: Ratings equal to this many decimals tie: below it a difference is
#: floating-point noise, not a result.
TIE_DIGITS = 6
#: Ratings further apart than this never round to the same ``TIE_DIGITS``
#: decimals (ten times their spacing).
_APART = 10.0 ** -(TIE_DIGITS - 1)

#: A two-sided result as the player on side 0 (a) or 1 (b) saw it.
_SEEN = {("a", 0): "won", ("b", 1): "won", ("a", 1): "lost", ("b", 0): "lost"}


def ranks(ratings: Iterable[float]) -> list[int]:
    """Competition ranks ("1224") of ratings in descending order: equal
    ratings (to ``TIE_DIGITS`` decimals) share the rank of the first of
    them."""
    out: list[int] = []
    append = out.append
    rank, previous, previous_tied = 0, None, None
    for place, rating in enumerate(ratings, start=1):
        if previous is None or previous - rating > _APART:
            rank, previous_tied = place, None  # too far apart to round alike
        else:  # rounding is slow (a ranking of thousands is read per query): only here
            tied = round(rating, TIE_DIGITS)
            if previous_tied is None:
                previous_tied = round(previous, TIE_DIGITS)
            if tied != previous_tied:
                rank = place
            previous_tied = tied
        previous = rating
        append(rank)
    return out


def outcome(result: Mapping[str, Any], side: int) -> tuple[str | None, str | None]:
    """A game's result for the player on ``side`` (won, lost, drew; the
    result's fields as recorded when it names no winner) and the winner's
    margin, if any."""
    code = result.get("result")
    margin = result.get("margin") or None
    if isinstance(code, str) and set(result) <= {"result", "margin"}:
        if code == "draw":
            return "drew", margin
        if (code, side) in _SEEN:
            return _SEEN[code, side], margin
    text = " ".join(f"{k}={v}" for k, v in result.items() if v is not None)
    return text or None, margin if isinstance(margin, str) else None
