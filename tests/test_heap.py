"""The heap's free pages go back to the system after bulk work
(``ledger.kernel.heap``): what a burst of objects used, once freed, stops
counting in the process's resident memory."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from ledger.kernel import heap

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
    reason="malloc_trim is glibc's; elsewhere give_back does nothing",
)


def _resident_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


def test_memory_freed_in_the_middle_of_the_heap_goes_back() -> None:
    # 1 KB objects come from malloc (past Python's small-object allocator);
    # one kept in 64 pins the heap's top, so glibc trims nothing by itself.
    burst = [bytes(1024) + bytes([i % 256]) for i in range(200_000)]
    kept = burst[::64]
    del burst
    before = _resident_kb()
    heap.give_back()
    after = _resident_kb()
    assert before - after > 100_000, (before, after)  # of some 200 MB freed
    assert len(kept) == 3125
