"""The command group every ``ledger`` command runs in: a refused command
(a LedgerError), a failure of the machine (a full disk, an output file
that cannot be written) or a lost connection to the ledger's database
becomes one clear line and exit status 1, never a traceback.

Kept apart from ``context`` (which opens the ledger) so that starting the
command line imports nothing heavy."""

from __future__ import annotations

import errno
import sys
from typing import Any, NoReturn

import click

from ledger.cli.help import TranslatedGroup
from ledger.kernel.errors import LOST_NOTHING_RECORDED, LedgerError, connection_lost
from ledger.kernel.translation import Message, Translator, in_language, translator


def fail(message: object) -> NoReturn:
    """Print ``Error: message`` on stderr, in the command's language (a
    ``Message`` translated), and exit 1."""
    t = _translator()
    click.echo(t.gettext("Error: {message}").format(message=in_language(message, t)), err=True)
    sys.exit(1)


def _translator() -> Translator:
    """The running command's language (``--lang``), English outside one."""
    ctx = click.get_current_context(silent=True)
    return translator(getattr(ctx.find_root().obj, "lang", "en") if ctx else "en")


def refusal(exc: BaseException) -> object:
    """What a refusal says: its ``Message`` (to translate) or its text."""
    return exc.args[0] if len(exc.args) == 1 else str(exc)


class LedgerGroup(TranslatedGroup):
    """Turns a refused command (LedgerError) into a clear message and exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LedgerError as exc:
            fail(refusal(exc))
        except Exception as exc:
            message = machine_failure(exc)
            if message is None and connection_lost(exc):
                # A write lost while it committed says so itself
                # (ConnectionLost, a LedgerError); lost after its commit,
                # what follows says what was recorded.
                message = LOST_AFTER_RECORDING if getattr(ctx.obj, "wrote", False) else (
                    LOST_NOTHING_RECORDED
                )  # fmt: skip
            if message is None:
                raise
            fail(message)


_ROLLED_BACK = Message(
    "the write in progress was rolled back (each command, and each import, is one "
    "transaction: nothing of it was stored). Free some space and run it again; "
    "'ledger project' brings the views up to date."
)


LOST_AFTER_RECORDING = Message(
    "recorded; then lost the connection to the ledger's database before this command "
    "finished (its views or its report): the next command, or 'ledger project', brings "
    "the views up to date"
)


def machine_failure(exc: BaseException) -> str | None:
    """One line for a failure of the disk or the file system (anywhere in the
    chain of ``exc``'s causes), or None for anything else."""
    seen: BaseException | None = exc
    while seen is not None:
        text = str(seen)
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return Message("disk full: {rolled_back}", rolled_back=_ROLLED_BACK)
        if "database or disk is full" in text or type(seen).__name__ == "DiskFull":
            return Message("disk full: {rolled_back}", rolled_back=_ROLLED_BACK)
        if "disk I/O error" in text:
            return Message(
                "the disk refused a write (full, over a size limit, or failing): {rolled_back}",
                rolled_back=_ROLLED_BACK,
            )
        if "attempt to write a readonly database" in text:
            return Message(
                "the ledger is read-only here (a read-only file or folder: an archived or "
                "published copy?): queries and 'verify' run on it, nothing can be written"
            )
        if isinstance(seen, OSError) and seen.filename is not None:
            return Message("cannot use {file}: {reason}", file=seen.filename, reason=seen.strerror)
        seen = seen.__cause__ or seen.__context__
    return None
