"""The process heap given back to the system after bulk work.

glibc's allocator keeps the pages a burst of small objects used once they
are freed: a follower that runs for months, or a fill that follows an
import's append in the same process, would otherwise carry the high-water
mark of the work before it (``bench/soak.py``, ``bench/bench.py``'s import).
"""

from __future__ import annotations

import functools
from typing import Any


def give_back() -> None:
    """Return the heap's free pages to the system (glibc's ``malloc_trim``;
    nothing elsewhere)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    import ctypes  # (here: only bulk work gives the heap back)

    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
