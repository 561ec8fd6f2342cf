"""Errors a command reports to the user; none of them appends an event."""

from __future__ import annotations


class LedgerError(Exception):
    """A command was refused. The message says what is wrong and what was
    expected; the CLI prints it and exits non-zero."""


class NotFound(LedgerError):
    """An unknown ladder, player, game or season."""


class Invalid(LedgerError):
    """Input that breaks a rule: a bad date, result, parameter or row.

    ``field`` names the option or sheet column at fault, when there is one.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Conflict(LedgerError):
    """The ledger already holds something that forbids the command (a season
    closed twice, a voided game corrected, a duplicate record)."""


class Busy(LedgerError):
    """Another writer held the ledger for longer than this one would wait;
    nothing was recorded."""


class Denied(LedgerError):
    """The database role may not do what the command needs (append, bring
    the views up to date, create the schema); nothing was recorded."""
