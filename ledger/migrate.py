"""``ledger migrate``: copy a ledger to another store (SQLite to PostgreSQL).

Every event is copied byte for byte in its original order, so the hash chain
(and its head) is the same on the target; the target's views are rebuilt
from the copied events and their standings compared with the source's.
"""

from __future__ import annotations

from typing import Any

import msgspec
from eventsourcing.persistence import StoredEvent

from ledger.application import LedgerApplication
from ledger.errors import Conflict, Invalid
from ledger.storage import Storage
from projections import chain, queries, verify, views

BATCH = 2000


class MigrationReport(msgspec.Struct):
    events: int
    head: str
    ladders: int
    standings_identical: bool


def migrate(source: Storage, target: Storage, progress: Any = None) -> MigrationReport:
    """Copy every event from ``source`` to an empty ``target``; rebuild and
    compare. Refuses a non-empty target and a source whose chain is broken."""
    src_app = LedgerApplication(env=source.app_env())
    src_db = views.connect(source.open_views())
    views.catch_up(src_db, src_app.recorder)
    problems = verify.check_chain(src_db, src_app.recorder, None)
    if problems:
        raise Invalid(f"the source ledger fails verification: {problems[0]}")
    dst_app = LedgerApplication(env=target.app_env())
    if dst_app.recorder.max_notification_id():
        raise Conflict("the target already holds events: migrate only into an empty ledger")
    copied, start = 0, 0
    while True:
        notes = src_app.recorder.select_notifications(start, BATCH, inclusive_of_start=False)
        if not notes:
            break
        dst_app.recorder.insert_events(
            [
                StoredEvent(
                    originator_id=n.originator_id,
                    originator_version=n.originator_version,
                    topic=n.topic,
                    state=bytes(n.state),
                )
                for n in notes
            ]
        )
        start = notes[-1].id
        copied += len(notes)
        if progress is not None:
            progress(len(notes))
    dst_db = views.connect(target.open_views())
    views.rebuild(dst_db, dst_app.recorder)
    _, src_head = chain.head(src_db)
    _, dst_head = chain.head(dst_db)
    if src_head != dst_head:
        raise Invalid(f"hash chain differs after the copy: source {src_head}, target {dst_head}")
    names = [r.name for r in queries.ladders(src_db)]
    identical = all(
        msgspec.to_builtins(queries.standings(src_db, n))
        == msgspec.to_builtins(queries.standings(dst_db, n))
        for n in names
    )
    src_app.close()
    dst_app.close()
    return MigrationReport(
        events=copied, head=dst_head, ladders=len(names), standings_identical=identical
    )
