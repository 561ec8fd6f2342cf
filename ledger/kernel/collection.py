"""Cyclic garbage collection paused for a block of bulk work.

Bulk work (an import, a catch-up or rebuild, a ladder read whole for a
replay in memory, an export, ``verify`` and the chain's check, a
migration's copy, a site build, rows rendered for people or scripts) makes
many small objects that form no cycle (rows, ids, timeline entries) and
frees none of them while it runs: every collection it would trigger walks
all the objects the process holds to free nothing. It runs inside
``paused``, as a ``with`` block or as a decorator of its entry point.
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
