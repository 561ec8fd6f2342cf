"""The effective order: when each fact takes effect in a ladder.

Effective order is (date, kind rank, event, round, table, id): ruleset changes
open a day, adjustments follow, then games, and season closes end it. The
recording time and the store's notification ids never decide the order, so
the same facts recorded in any order replay identically. The key is a string
that sorts in that order, so a view can index and compare it.
"""

from __future__ import annotations

from datetime import date

RANK = {"ruleset": "0", "adjust": "1", "game": "2", "season": "3"}
SEP = "\x1f"  # sorts below every printable character


def sort_key(
    on: date,
    kind: str,
    entry_id: str,
    event: str | None = None,
    round_: int | None = None,
    table: int | None = None,
) -> str:
    """The effective-order key of a timeline entry."""
    return SEP.join(
        (
            on.isoformat(),
            RANK[kind],
            event or "",
            f"{round_ or 0:06d}",
            f"{table or 0:06d}",
            entry_id,
        )
    )
