"""Time travel over record time: the ledger as it was known at a moment, and
what changed between two moments (``--as-known-at``, ``ledger diff``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

import msgspec

from ledger.kernel.errors import Invalid, NotFound
from ledger.kernel.translation import Message, Translator
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
            Message(
                "{text!r} is not an ISO timestamp (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][+00:00])",
                text=text,
            )
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def known_at(recorder: Any, moment: datetime) -> Database:
    """Views holding only the events recorded at or before ``moment``."""
    return views.in_memory(recorder, known_at=moment)


class DiffLine(msgspec.Struct):
    """A player whose rating differs between two moments, and which of
    their own entries changed: ``+`` new, ``-`` no longer counting, ``~``
    changing the rating by another amount."""

    player: str
    rating_from: float | None
    rating_to: float | None
    change: float
    events: list[str]


def diff(
    recorder: Any, ladder: str, start: datetime, end: datetime | None, current: Database
) -> list[DiffLine]:
    """Every player whose rating in ``ladder`` differs between two moments,
    with their own history entries that changed (``changed_entries``; the
    rule changes and season closes recorded in between, which touch every
    player, are ``ladder_events``)."""
    before = known_at(recorder, start)
    after = current if end is None else known_at(recorder, end)
    try:
        old = {r.player: r.rating for r in queries.standings(before, ladder)}
    except NotFound:  # the ladder did not exist yet at ``start``
        old = {}
    new = {r.player: r.rating for r in queries.standings(after, ladder)}
    out = []
    for player in sorted(set(old) | set(new)):
        a, b = old.get(player), new.get(player)
        if a == b:
            continue
        out.append(
            DiffLine(
                player=player,
                rating_from=a,
                rating_to=b,
                change=(b or 0) - (a or 0),
                events=changed_entries(before, after, ladder, player),
            )
        )
    return out


#: The entries a diff line names, at most (then how many more).
ENTRIES_SHOWN = 8


def changed_entries(before: Database, after: Database, ladder: str, player: str) -> list[str]:
    """The entries of ``player``'s history in ``ladder`` that differ between
    two views: new ones, ones gone (voided) and ones whose change differs,
    in effective order, each summarised in a line."""
    was, now = _entries(before, ladder, player), _entries(after, ladder, player)
    lines = []
    for key in sorted(set(was) | set(now), key=lambda k: ((now.get(k) or was[k]).date, k)):
        a, b = was.get(key), now.get(key)
        if a is None and b is not None:
            lines.append(f"+ {_entry_text(b)}: {_signed(b.change)}")
        elif b is None and a is not None:
            lines.append(f"- {_entry_text(a)}: no longer counts (was {_signed(a.change)})")
        elif a is not None and b is not None and round(a.change - b.change, 9):
            lines.append(
                f"~ {_entry_text(b)}{_corrected(a, b)}: {_signed(a.change)} → {_signed(b.change)}"
            )
    if len(lines) > ENTRIES_SHOWN:
        more = len(lines) - ENTRIES_SHOWN
        lines = [*lines[:ENTRIES_SHOWN], f"and {more} more (see 'ledger history')"]
    return lines


def _entries(conn: Database, ladder: str, player: str) -> dict[tuple[str, str], Any]:
    """A player's history lines by what identifies each: a game by its id,
    another entry by its kind, date and note."""
    try:
        lines = queries.history(conn, ladder, player)
    except NotFound:  # not yet in the ladder at that moment
        return {}
    return {
        ("game", line.game) if line.game else (line.kind, f"{line.date} {line.note}"): line
        for line in lines
    }


def _entry_text(line: Any) -> str:
    if line.game:
        return f"{line.date} game {line.game} vs {line.opponents}"
    return f"{line.date} {line.note or line.kind}"


def _corrected(a: Any, b: Any) -> str:
    """What a correction changed of a game, as `` (corrected: won → lost)``
    ("" for an entry whose facts are the same)."""
    fields = ("date", "opponents", "result", "margin", "event", "round")
    changed = [f"{getattr(a, f) or '-'} → {getattr(b, f) or '-'}" for f in fields
               if getattr(a, f) != getattr(b, f)]  # fmt: skip
    return f" (corrected: {', '.join(changed)})" if changed else ""


def _signed(change: float) -> str:
    return f"{change:+.2f}".rstrip("0").rstrip(".")


#: Audit kinds that touch a whole ladder (a rule change is told by what it changed).
LADDER_WIDE = ("season closed", "season voided", "ruleset voided")


def ladder_events(
    current: Database,
    ladder: str,
    start: datetime,
    end: datetime | None,
    t: Translator | None = None,
) -> list[str]:
    """The season closes and voids, and the rule changes voided, recorded
    in ``ladder`` between two moments: a line each, in ``t``'s language."""
    lid = queries.ladder_row(current, ladder)["n"]
    recorded = queries.audit_lines(
        current,
        "a.ladder=? AND a.recorded_at>? " + ("AND a.recorded_at<=? " if end else ""),
        (lid, start.isoformat(), *([end.isoformat()] if end else [])),
        t,
    )
    return [
        f"{r.summary}" + (f" ({r.reason})" if r.reason else "")
        for r in recorded
        if r.kind in LADDER_WIDE
    ]
