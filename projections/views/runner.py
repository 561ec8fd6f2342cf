"""Keeping the views current from the event store.

``catch_up`` reads new events straight from the event store (raw pages,
never through aggregates: ``source``), applies them to the timeline tables,
replays the ladders that changed and moves the tracking position, all in one
transaction: a crash never leaves a view half-applied. When the store holds
nothing past the tracked position it takes no lock and writes nothing.

``rebuild`` drops every view and builds it again in one transaction, so a
crash at any moment leaves the views as they were, and other commands read
those meanwhile (SQLite; PostgreSQL builds the new ones aside and swaps
them in, ``swap``, so that others wait only for the swap). A rebuild holds each
ladder's timeline instead of reading it back (past a budget, spilled to a
temporary file in sorted runs: ``held``), fills the tables before building
their indexes, and runs with the garbage collector paused (it allocates
many small objects and frees none of them while it runs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import msgspec

from ledger.kernel import collection, heap
from ledger.kernel.pager import pages
from ledger.kernel.translation import N_
from projections.db import Database, SQLiteDatabase
from projections.views import games, schema, swap
from projections.views.held import Held
from projections.views.ladder_replay import replay_ladders
from projections.views.projector import Projector
from projections.views.source import PAGE, raw_pages

__all__ = ["PAGE", "pages"]


#: How many events a catch-up into views holding no game yet must bring for
#: it to be filled as a rebuild fills them (see ``_project``; an import of
#: 1M games: its catch-up 18.5k -> 30.4k games/s CPU held whole, peak 348
#: -> 491 MB, the sheet's batch freed and given back before the fill).
#: Whatever their number: past ``held.BUDGET`` games the timelines held
#: spill to a temporary file (``views.held``).
WHOLE_AFTER = 2_000


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


def catch_up_report(
    conn: Database,
    recorder: Any,
    known_at: datetime | None = None,
    progress: Progress | None = None,
) -> CatchUp:
    """Bring the views up to the last event recorded (recorded at or before
    ``known_at``, when given: the ledger as it was then). Safe to run from
    several processes: the transaction is taken before the tracking
    position is read again. ``progress`` hears how far it is (as a
    rebuild's)."""
    if is_current(conn, recorder):
        return CatchUp(0)
    with conn.transaction():
        return _project(conn, recorder, known_at, progress=progress)


def catch_up(conn: Database, recorder: Any, known_at: datetime | None = None) -> int:
    """``catch_up_report`` returning only the number of events applied."""
    return catch_up_report(conn, recorder, known_at).applied


#: ``progress(stage, done, total)``: events read so far (``"reading
#: events"``), then the ladders replayed (``"rating games"``).
Progress = Callable[[str, int, int], None]


def rebuild_report(conn: Database, recorder: Any, progress: Progress | None = None) -> CatchUp:
    """Drop every view and rebuild it from the events alone, in one
    transaction (a failed or killed rebuild leaves the views as they were).
    On PostgreSQL the new views are built aside and swapped in (``swap``):
    other commands wait only for the swap. ``progress`` hears how far it is."""
    if swap.builds_aside(conn):
        with swap.aside(conn) as built:
            parts = [_fill(conn, recorder, None, progress)]
            # What was recorded while it ran, still aside (nobody waits for
            # it), then what came meanwhile, under the swap's lock.
            parts.append(_project(conn, recorder, None))
            built.swap_in()
            parts.append(_project(conn, recorder, None))
        warnings = [w for part in parts for w in part.warnings]
        return CatchUp(sum(part.applied for part in parts), list(dict.fromkeys(warnings)))
    if conn.kind == "postgres":
        with conn.transaction():
            report = _fill(conn, recorder, None, progress)
        return CatchUp(report.applied, [*report.warnings, swap.why_in_place(conn)])
    # (Set before the transaction: SQLite keeps the temporary store it
    # opened in one, and dropping the old views already reads them all.)
    with conn.filling_whole(), conn.transaction():
        return _fill(conn, recorder, None, progress)


def rebuild(conn: Database, recorder: Any) -> int:
    """``rebuild_report`` returning only the number of events applied."""
    return rebuild_report(conn, recorder).applied


def in_memory(recorder: Any, known_at: datetime | None = None) -> Database:
    """Throwaway views built from the events alone (for verify, time travel)."""
    conn = SQLiteDatabase(":memory:")
    with conn.filling_whole(), conn.transaction():
        _fill(conn, recorder, known_at)
    return conn


def apply_events(conn: Database, events: list[Any]) -> list[str]:
    """Project events not (yet) in the store onto ``conn`` (a preview: used by
    ``import --dry-run`` on throwaway in-memory views); returns warnings."""
    with conn.transaction():
        projector = Projector(conn)
        seq = position(conn)  # numbered after the store's last event, as appending would
        for offset, event in enumerate(events, start=1):
            projector.apply(seq + offset, event)
        projector.flush()
        return replay_ladders(conn, projector.affected, numbers=projector.numbers())


def _fill(
    conn: Database, recorder: Any, known_at: datetime | None, progress: Progress | None = None
) -> CatchUp:
    """Empty views of this version filled from every event (inside the
    caller's transaction), indexes built once their tables are full
    (``_project``)."""
    schema.create(conn, indexes=False)
    return _project(conn, recorder, known_at, rebuild=True, progress=progress)


def _project(
    conn: Database,
    recorder: Any,
    known_at: datetime | None,
    rebuild: bool = False,
    progress: Progress | None = None,
) -> CatchUp:
    """Apply every event after the tracked position (inside the caller's
    transaction)."""
    start = tracked = position(conn)
    applied = 0
    last = recorder.max_notification_id() or 0
    # A rebuild, and a long catch-up into views holding no game yet (a new
    # ledger's first import), fill them whole: every player's row read
    # once, each ladder's timeline held (never read back from the views;
    # past a budget, spilled to a temporary file: ``views.held``), each
    # ladder replayed whole. A catch-up into views holding games (``record``,
    # ``correct``) reads only what it names.
    whole = rebuild or (known_at is None and last - start >= WHOLE_AFTER and not _holds_games(conn))
    if whole:
        # What the work before it in this process freed (an import's
        # append) goes back first: the fill's own peak is then the peak.
        heap.give_back()
    projector = Projector(conn, timeline=whole)
    if whole and not rebuild:
        projector.hold_timelines()  # (along the indexes, before they go)
    held = projector.entries
    with collection.paused(), _indexes_built_after(conn, whole), _closed(held):
        apply = projector.apply_stored
        for page in raw_pages(recorder, start, PAGE):
            if known_at is None:
                projector.apply_page(page)
                applied += len(page)
            else:
                for seq, topic, state in page:
                    applied += apply(seq, topic, state, known_at)
            projector.flush()
            if held is not None:
                held.spill_if_over()
            start = page[-1][0]
            if progress is not None:
                progress(N_("reading events"), start - tracked, last - tracked)
        if start == tracked:
            return CatchUp(0)
        if whole and not rebuild:
            projector.touch_changed()
        if progress is not None:
            progress(N_("rating games"), 0, 0)  # one step, of unknown length
        warnings = replay_ladders(
            conn, projector.affected, held, projector.numbers(),
            projector.merges(), projector.fresh_states() if rebuild else None,
        )  # fmt: skip
    conn.execute(
        "INSERT INTO view_tracking (name, position) VALUES ('views', ?) "
        "ON CONFLICT (name) DO UPDATE SET position = excluded.position",
        (start,),
    )
    return CatchUp(applied, warnings)


def _holds_games(conn: Database) -> bool:
    """Whether the views hold a game (recorded, corrected or voided)."""
    return games.holds_any(conn)


@contextmanager
def _closed(held: Held | None) -> Iterator[None]:
    """The timelines held, their spill file deleted however the fill ends."""
    try:
        yield
    finally:
        if held is not None:
            held.close()


@contextmanager
def _indexes_built_after(conn: Database, whole: bool) -> Iterator[None]:
    """Views filled whole (a rebuild, a first import) are filled without
    their secondary indexes, each then built once from the full tables; an
    error leaves them to the caller's rollback."""
    if not whole:
        yield
        return
    with conn.filling_whole():
        schema.drop_indexes(conn)
        yield
        schema.create_indexes(conn)
