"""Cyclic garbage collection paused for a block of bulk work.

An import, a catch-up or rebuild, a ladder read whole for a replay in
memory (``whatif``, ``tune``, the evidence) and a table for people each
make many small objects that form no cycle (rows, ids, timeline entries)
and free none of them while they run: every collection they would trigger
walks all the objects the process holds to free nothing. They run inside
``paused``.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (as it was after)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
