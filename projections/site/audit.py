"""A ladder's game audit trails for the site, read in one query.

``queries.audit_lines`` answers any filter over the whole audit (each line a
struct, each game summary written from facts decoded again); a site shows
every game's trail, so this reads the lines after games' first records
(corrections, voids, records again: few) in one query per ladder; each
game's first line is written from the facts the site's game pass has
already decoded (``game_page``). The lines are the same as ``queries.audit_lines``'s
(tests/test_site.py compares them).

Reads ``view_audit`` (seq, recorded_at, recorded_by, kind, ladder, subject,
summary, reason, source) with the games those lines name and the facts of
the events they are (``views.games.later_audit_rows``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ledger.kernel.translation import Translator
from projections.db import Database
from projections.queries import game_summary
from projections.views import games
from projections.views.said import sentence

#: An audit line as the site shows it: (seq, recorded at, by, kind, what, why, source).
Line = tuple[int, str, str, str, str, str | None, str | None]


def later_lines(
    conn: Database, ladder: int, who: Mapping[str, str], t: Translator
) -> dict[int, list[Line]]:
    """Game number -> the audit lines of a ladder's games after their first
    record, in recording order; ``who``: player names by id; the
    summaries in ``t``'s language."""
    out: dict[int, list[Line]] = {}
    for r in games.later_audit_rows(conn, ladder):
        what = sentence(r["summary"], t) if r["summary"] is not None else game_summary(r, who, t)
        out.setdefault(r["subject"], []).append(
            (r["seq"], r["recorded_at"], r["recorded_by"], r["kind"], what, r["reason"],
             r["source"])
        )  # fmt: skip
    return out
