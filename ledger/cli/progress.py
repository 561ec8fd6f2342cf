"""A progress bar for long work, on a terminal only: piped or redirected
output stays plain, and short work shows none. Labels and stages are the
English marked where they are written (``N_``), shown in the command's
language."""

from __future__ import annotations

import sys
from typing import Any

from ledger.kernel.translation import Translator, translator


class ProgressBar:
    """Called as ``bar(done, total)`` (or ``bar(done, total, stage)`` for work
    in stages; a ``total`` of 0: a stage of unknown length); shows a
    transient rich progress bar on standard error once a ``total`` reaches
    ``threshold``. Use as a context manager: the bar is gone when the work
    ends. ``t``: the language the label and stages are shown in."""

    def __init__(self, label: str, threshold: int, t: Translator | None = None) -> None:
        self.label, self.threshold = label, threshold
        self.t = t or translator()
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> ProgressBar:
        return self

    @property
    def shown(self) -> bool:
        """Whether a bar can show at all (standard error is a terminal): a
        caller may skip the work of counting for it otherwise."""
        return sys.stderr.isatty()

    def __call__(self, done: int, total: int, stage: str | None = None) -> None:
        if self.bar is None:
            if total < self.threshold or not sys.stderr.isatty():
                return
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(transient=True, console=Console(stderr=True))
            self.bar.start()
            self.task = self.bar.add_task(self._shown(stage or self.label), total=total)
        if stage is not None and stage != self.label:
            # A new task (rich keeps a task's total once set): a bar that
            # pulses when the stage's length is unknown.
            self.label = stage
            self.bar.remove_task(self.task)
            self.task = self.bar.add_task(self._shown(stage), total=total or None)
        self.bar.update(self.task, completed=done, total=total or None)

    def _shown(self, stage: str) -> str:
        """A label or stage in the command's language; a catch-up's stage
        (``views: reading events``) word by part."""
        views, colon, rest = stage.partition(": ")
        if colon and views == "views":
            return self.t.gettext("views: {stage}").format(stage=self.t.gettext(rest))
        return self.t.gettext(stage)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
