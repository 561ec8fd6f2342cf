"""Ctrl-C told truthfully: what the interrupted command stored, and an exit
status that says it.

A command stores all of its changes or none (one transaction), then brings
the views up to date. Interrupted before its transaction commits, nothing
is stored; interrupted after (while the views catch up, which can take a
while after a large import), everything is, and the next command (or
``ledger project``) brings the views up to date.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

#: Exit status of a command interrupted before it stored anything (or a
#: query): 128 + SIGINT, as a shell reports a process Ctrl-C stopped.
INTERRUPTED = 130
#: Exit status of a command interrupted after its changes were stored
#: (while the views caught up): the work is done, the views are behind.
INTERRUPTED_AFTER_STORING = 3

AFTER_STORING = (
    "the views were not brought up to date: the next command does it (or 'ledger project')"
)


def interrupted(wrote: bool, stored: str | None) -> NoReturn:
    """Say what a command Ctrl-C stopped had stored and exit: ``stored``,
    what it stored (None: nothing); ``wrote``, whether it is a command that
    writes (a query stores nothing to speak of)."""
    if stored is not None:
        click.echo(f"Interrupted after storing: {stored}; {AFTER_STORING}.", err=True)
        sys.exit(INTERRUPTED_AFTER_STORING)
    if wrote:
        click.echo(
            "Interrupted: nothing was stored (a command stores all of its changes or none).",
            err=True,
        )
    else:
        click.echo("Interrupted.", err=True)
    sys.exit(INTERRUPTED)
