"""The one way anything reads the event log in order: pages of stored events
(notifications) after a position, straight from the recorder.

The write side (rebuilding its index, ``ledger migrate``) and the read side
(catch-up, rebuild, verify, the bench) all page through this function.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

PAGE = 5000


def pages(
    recorder: Any, after: int = 0, limit: int = PAGE, topics: Sequence[str] = ()
) -> Iterator[Sequence[Any]]:
    """Pages of notifications stored after position ``after``, in store
    order (only of ``topics``, when given)."""
    while True:
        page = recorder.select_notifications(after, limit, topics=topics, inclusive_of_start=False)
        if not page:
            return
        yield page
        after = page[-1].id
