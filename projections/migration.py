"""What a migration proves: the target's views, rebuilt from the copied
events, give every ladder the same standings as the source's."""

from __future__ import annotations

import msgspec

from projections import queries
from projections.db import Database


class MigrationReport(msgspec.Struct):
    """Events copied, the chain's head, and the standings compared."""

    events: int
    head: str
    ladders: int
    standings_identical: bool


def compared(events: int, head: str, source: Database, target: Database) -> MigrationReport:
    """The report of a migration of ``events`` up to ``head``: how many
    ladders the source holds, and whether each one's standings are the same
    in the target's views."""
    names = [r.name for r in queries.ladders(source)]
    identical = all(
        msgspec.to_builtins(queries.standings(source, n))
        == msgspec.to_builtins(queries.standings(target, n))
        for n in names
    )
    return MigrationReport(events, head, len(names), identical)
