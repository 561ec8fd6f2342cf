"""Time travel over record time: the ledger as it was known at a moment, and
what changed between two moments (``--as-known-at``, ``ledger diff``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

import msgspec

from ledger.kernel.errors import Invalid, NotFound
from projections import queries, views
from projections.db import Database


def parse_moment(text: str) -> datetime:
    """An ISO timestamp (UTC when no zone is given); a date alone means the
    end of that day, UTC."""
    try:
        if len(text.strip()) == 10:
            day = date.fromisoformat(text.strip())
            return datetime.combine(day, time.max, UTC)
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise Invalid(
            f"{text!r} is not an ISO timestamp (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][+00:00])"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def known_at(recorder: Any, moment: datetime) -> Database:
    """Views holding only the events recorded at or before ``moment``."""
    return views.in_memory(recorder, known_at=moment)


class DiffLine(msgspec.Struct):
    player: str
    rating_from: float | None
    rating_to: float | None
    change: float
    events: list[str]


def diff(
    recorder: Any, ladder: str, start: datetime, end: datetime | None, current: Database
) -> list[DiffLine]:
    """Every player whose rating in ``ladder`` differs between two moments,
    with the events recorded in between that touch the ladder (the player's
    own first)."""
    before = known_at(recorder, start)
    after = current if end is None else known_at(recorder, end)
    try:
        old = {r.player: r.rating for r in queries.standings(before, ladder)}
    except NotFound:  # the ladder did not exist yet at ``start``
        old = {}
    new = {r.player: r.rating for r in queries.standings(after, ladder)}
    lid = queries.ladder_row(after, ladder)["n"]
    recorded = queries.audit_lines(
        after,
        "a.ladder=? AND a.recorded_at>? " + ("AND a.recorded_at<=? " if end else ""),
        (lid, start.isoformat(), *([end.isoformat()] if end else [])),
    )
    out = []
    for player in sorted(set(old) | set(new)):
        a, b = old.get(player), new.get(player)
        if a == b:
            continue
        own = [r for r in recorded if player in r.summary]
        rest = [r for r in recorded if r not in own]
        out.append(
            DiffLine(
                player=player,
                rating_from=a,
                rating_to=b,
                change=(b or 0) - (a or 0),
                events=[
                    f"#{r.seq} {r.kind}: {r.summary}" + (f" ({r.reason})" if r.reason else "")
                    for r in own + rest
                ],
            )
        )
    return out
