"""The command group every ``ledger`` command runs in: a refused command
(a LedgerError) becomes one clear line and exit status 1, never a traceback.

Kept apart from ``context`` (which opens the ledger) so that starting the
command line imports nothing heavy."""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import click

from ledger.errors import LedgerError


def fail(message: str) -> NoReturn:
    """Print ``Error: message`` on stderr and exit 1."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(1)


class LedgerGroup(click.Group):
    """Turns a refused command (LedgerError) into a clear message and exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LedgerError as exc:
            fail(str(exc))
