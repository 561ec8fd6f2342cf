"""Errors a command reports to the user; none of them appends an event."""

from __future__ import annotations

from ledger.kernel.translation import Message


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


class ConnectionLost(LedgerError):
    """The connection to the ledger's database went away (its server
    restarted, the network failed, the session was terminated). The message
    says whether anything may have been recorded."""


#: What a command whose connection was lost before any commit says.
LOST_NOTHING_RECORDED = Message(
    "lost the connection to the ledger's database; nothing was recorded; try again"
)

# SQLSTATEs of a connection that went away: class 08 (connection exception),
# and the server shut down (57P01 admin, 57P02 crash) or still starting (57P03).
_LOST_STATES = ("57P01", "57P02", "57P03")


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc``, or one of its causes, is a lost connection to a
    PostgreSQL server: a driver's operational or interface error with a
    connection's SQLSTATE, or none at all (raised by the client: refused,
    closed, no server within the pool's wait). Recognised by the driver's
    class names, so that the kernel imports no driver."""
    seen: BaseException | None = exc
    hops = 0
    while seen is not None and hops < 20:
        hops += 1
        kinds = {
            cls.__name__
            for cls in type(seen).__mro__
            if cls.__module__.split(".")[0] in ("psycopg", "psycopg_pool")
        }
        if kinds & {"OperationalError", "InterfaceError"}:
            state = getattr(seen, "sqlstate", None)
            if state is None or state.startswith("08") or state in _LOST_STATES:
                return True
        seen = seen.__cause__ or seen.__context__
    return False
