"""``ledger verify``: the event log against its hash chain, and the stored
views against views rebuilt in memory from the events alone."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from projections import chain, views
from projections.db import Database

# What a rebuild must reproduce exactly. Checkpoints and the count of games
# since the last one depend on when catch-ups ran, not on the events.
COMPARED: dict[str, tuple[str, str]] = {
    "view_ladders": ("id, name, key, opened_at, opened_by, frontier", "id"),
    "view_players": ("*", "id"),
    "view_games": ("*", "id"),
    "view_entries": ("*", "ladder, key"),
    "view_history": ("*", "ladder, key, player"),
    "view_standings": ("*", "ladder, player"),
    "view_audit": ("*", "seq"),
    "view_tracking": ("*", "name"),
}


class VerifyReport(msgspec.Struct):
    events: int
    head: str
    views_checksum: str
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_chain(conn: Database, recorder: Any, published: str | None) -> list[str]:
    """Recompute the chain from the stored events; name the first event that
    was changed, inserted outside the ledger or deleted."""
    stored = dict(conn.execute("SELECT seq, link FROM ledger_chain").fetchall())
    chained = sorted(stored)
    problems: list[str] = []
    previous, start, position = chain.GENESIS, 0, 0
    while not problems:
        notes = recorder.select_notifications(start, 5000, inclusive_of_start=False)
        if not notes:
            break
        for note in notes:
            start = note.id
            # A chained sequence number skipped by the store: that event is gone.
            while position < len(chained) and chained[position] < note.id:
                problems.append(
                    f"event {chained[position]} is in the hash chain but missing from the "
                    "event store (deleted)"
                )
                break
            if problems:
                break
            link = stored.get(note.id)
            if link is None:
                problems.append(f"event {note.id} ({note.topic}) is not in the hash chain")
                break
            if link != chain.link(previous, note):
                problems.append(
                    f"event {note.id} ({note.topic}, aggregate {note.originator_id} "
                    f"v{note.originator_version}) does not match its chain link: "
                    "it was changed after it was recorded"
                )
                break
            previous = link
            position += 1
    if not problems and position < len(chained):
        problems.append(
            f"event {chained[position]} is in the hash chain but missing from the event store "
            "(deleted)"
        )
    if published is not None and published not in stored.values():
        problems.append(f"the published head {published} is not a link of this ledger's chain")
    return problems


def rows(conn: Database, table: str) -> list[tuple[Any, ...]]:
    columns, order = COMPARED[table]
    return [tuple(r) for r in conn.execute(f"SELECT {columns} FROM {table} ORDER BY {order}")]


def checksum(conn: Database) -> str:
    """SHA-256 over every compared view row, in a fixed order."""
    h = hashlib.sha256()
    for table in COMPARED:
        for row in rows(conn, table):
            h.update(msgspec.json.encode(row))
    return h.hexdigest()


def check_views(conn: Database, recorder: Any) -> tuple[list[str], str]:
    """Rebuild every view in memory; name the first stored row that differs."""
    fresh = views.in_memory(recorder)
    problems = []
    for table in COMPARED:
        mine, theirs = rows(conn, table), rows(fresh, table)
        for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            if a != b:
                problems.append(f"{table} row {index + 1} differs: stored {a}, rebuilt {b}")
                break
        else:
            if len(mine) != len(theirs):
                problems.append(
                    f"{table} has {len(mine)} rows stored but {len(theirs)} rebuilt from the events"
                )
    return problems, checksum(fresh)


def verify(conn: Database, recorder: Any, published: str | None = None) -> VerifyReport:
    problems = check_chain(conn, recorder, published)
    view_problems, digest = check_views(conn, recorder)
    seq, head = chain.head(conn)
    return VerifyReport(
        events=seq, head=head, views_checksum=digest, problems=problems + view_problems
    )
