"""Keeping the views current from the event store's notifications.

``catch_up`` reads new notifications straight from the event store's recorder
(never through aggregates), in pages (``pages``, the one pager that catch-up,
verify, migrate and the benchmarks share), decodes them with msgspec, applies
them to the timeline tables, replays the ladders that changed and moves the
tracking position, all in one transaction: a crash never leaves a view
half-applied. When the store holds nothing past the tracked position it
takes no lock and writes nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from ledger import events as ev
from ledger.pager import pages
from projections.db import Database, SQLiteDatabase
from projections.views import schema
from projections.views.ladder_replay import replay_ladders
from projections.views.projector import Projector

#: Notifications read per page.
PAGE = 5000


class CatchUp(msgspec.Struct):
    """What a catch-up did: events applied, and warnings to show (ladders
    that cannot be replayed, maths versions that differ)."""

    applied: int
    warnings: list[str] = []


def position(conn: Database) -> int:
    """The last notification the views have applied (0 for none)."""
    row = conn.execute("SELECT position FROM view_tracking WHERE name='views'").fetchone()
    return row[0] if row else 0


def is_current(conn: Database, recorder: Any) -> bool:
    """Whether the views have applied every notification in the store."""
    return (recorder.max_notification_id() or 0) <= position(conn)


def catch_up_report(conn: Database, recorder: Any, known_at: datetime | None = None) -> CatchUp:
    """Bring the views up to the last event recorded (recorded at or before
    ``known_at``, when given: the ledger as it was then). Safe to run from
    several processes: the transaction is taken before the tracking
    position is read again."""
    if is_current(conn, recorder):
        return CatchUp(0)
    with conn.transaction():
        return _project(conn, recorder, known_at)


def catch_up(conn: Database, recorder: Any, known_at: datetime | None = None) -> int:
    """``catch_up_report`` returning only the number of events applied."""
    return catch_up_report(conn, recorder, known_at).applied


def rebuild_report(conn: Database, recorder: Any) -> CatchUp:
    """Drop every view and rebuild it from the events alone, in one
    transaction (a failed rebuild leaves the views as they were)."""
    with conn.transaction():
        schema.create(conn)
        return _project(conn, recorder, None)


def rebuild(conn: Database, recorder: Any) -> int:
    """``rebuild_report`` returning only the number of events applied."""
    return rebuild_report(conn, recorder).applied


def in_memory(recorder: Any, known_at: datetime | None = None) -> Database:
    """Throwaway views built from the events alone (for verify, time travel)."""
    conn = schema.connect(SQLiteDatabase(":memory:"))
    catch_up(conn, recorder, known_at=known_at)
    return conn


def apply_events(conn: Database, events: list[Any]) -> list[str]:
    """Project events not (yet) in the store onto ``conn`` (a preview: used by
    ``import --dry-run`` on throwaway in-memory views); returns warnings."""
    with conn.transaction():
        projector = Projector(conn)
        seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM view_audit").fetchone()[0]
        for offset, event in enumerate(events, start=1):
            projector.apply(seq + offset, event)
        projector.flush()
        return replay_ladders(conn, projector.affected)


def _project(conn: Database, recorder: Any, known_at: datetime | None) -> CatchUp:
    """Apply every notification after the tracked position (inside the
    caller's transaction)."""
    start = tracked = position(conn)
    projector = Projector(conn)
    applied = 0
    for page in pages(recorder, start):
        for note in page:
            event = ev.decode(note.topic, note.state)
            if known_at is not None and event.recorded_at > known_at:
                continue
            projector.apply(note.id, event)
            applied += 1
        projector.flush()
        start = page[-1].id
    if start == tracked:
        return CatchUp(0)
    warnings = replay_ladders(conn, projector.affected)
    conn.execute(
        "INSERT INTO view_tracking (name, position) VALUES ('views', ?) "
        "ON CONFLICT (name) DO UPDATE SET position = excluded.position",
        (start,),
    )
    return CatchUp(applied, warnings)
