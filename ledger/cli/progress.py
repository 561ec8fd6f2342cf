"""A progress bar for long work, on a terminal only: piped or redirected
output stays plain, and short work shows none."""

from __future__ import annotations

import sys
from typing import Any


class ProgressBar:
    """Called as ``bar(done, total)``; shows a transient rich progress bar on
    standard error once ``total`` reaches ``threshold``. Use as a context
    manager: the bar is gone when the work ends."""

    def __init__(self, label: str, threshold: int) -> None:
        self.label, self.threshold = label, threshold
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> ProgressBar:
        return self

    def __call__(self, done: int, total: int) -> None:
        if total < self.threshold or not sys.stderr.isatty():
            return
        if self.bar is None:
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(transient=True, console=Console(stderr=True))
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
