"""A HiGHS solver that prints nothing: its options set, and the banner it
writes when made ("Running HiGHS ... Copyright") kept off standard output,
where a query's JSON or CSV goes (``teams --format json``)."""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any


def silent_highs(options: dict[str, Any]) -> Any:
    """A new ``highspy.Highs`` with ``options`` set, its output off
    (``output_flag``, ``log_to_console``) and its banner dropped: HiGHS
    prints the banner from C++ as the object is made, before any option
    can be set, so standard output's file descriptor points at /dev/null
    for that moment."""
    import highspy

    with _stdout_silenced():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("log_to_console", False)
    for option, value in options.items():
        h.setOptionValue(option, value)
    return h


@contextmanager
def _stdout_silenced() -> Iterator[None]:
    """File descriptor 1 to /dev/null for the block; C's own buffer is
    flushed before it is given back, so nothing written in the block leaks."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):  # no standard output to protect
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    try:
        yield
    finally:
        with suppress(OSError, AttributeError):  # no C library: nothing buffered there
            ctypes.CDLL(None).fflush(None)
        os.dup2(saved, 1)
        os.close(saved)
