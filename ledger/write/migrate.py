"""Copying a ledger's events to another store (``ledger migrate``).

The copy goes through the target's recorder, so the target writes its own
chain links and write index in the same transactions; the links cover only
what is stored, so the copy's chain head equals the source's.
"""

from __future__ import annotations

from collections.abc import Callable

from eventsourcing.persistence import StoredEvent

from ledger.kernel import collection
from ledger.kernel.errors import Conflict, Invalid
from ledger.kernel.pager import pages
from ledger.kernel.translation import Message
from ledger.write.application import LedgerApplication

BATCH = 2000


@collection.paused()  # (pages of events made and freed: no cycle among them)
def copy_events(
    source: LedgerApplication,
    target: LedgerApplication,
    progress: Callable[[int], None] | None = None,
) -> tuple[int, str]:
    """Copy every event of ``source`` into the empty ``target``, in order;
    returns (events copied, chain head). Refuses a non-empty target, and
    fails if the copy's chain head differs from the source's."""
    if target.recorder.max_notification_id():
        raise Conflict(
            Message("the target already holds events: migrate only into an empty ledger")
        )
    copied = 0
    for notes in pages(source.recorder, 0, BATCH):
        target.recorder.insert_events(
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
        copied += len(notes)
        if progress is not None:
            progress(len(notes))
    head, expected = target.recorder.chain_head(), source.recorder.chain_head()
    if head != expected:
        raise Invalid(
            Message(
                "hash chain differs after the copy: source {expected}, target {head}",
                expected=expected,
                head=head,
            )
        )
    return copied, head
