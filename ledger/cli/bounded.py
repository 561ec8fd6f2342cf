"""Number options within one of ``ledger.kernel.bounds``' ranges: refused at the
option that took it, the range shown in ``--help``."""

from __future__ import annotations

from typing import Any

import click

from ledger.kernel import bounds
from ledger.kernel.errors import Invalid
from ledger.kernel.translation import N_, Message, headless, said


class BoundedNumber(click.ParamType):
    """A number within one of ``ledger.kernel.bounds``' ranges; ``--help`` shows it."""

    def __init__(self, bound: bounds.Range) -> None:
        self.bound = bound
        self.name = "INTEGER" if bound.integer else "NUMBER"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return self.name

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value).strip()) if self.bound.integer else float(value)
            except ValueError:
                kind = N_("whole number") if self.bound.integer else N_("number")
                self.fail(
                    Message("{value!r} is not a {kind}", value=value, kind=Message(kind)),
                    param,
                    ctx,
                )
        try:
            return self.bound.check(number, "value")
        except Invalid as exc:
            self.fail(headless(said(exc), "field", "value: "), param, ctx)


def bounded_help(text: str, bound: bounds.Range) -> str:
    """An option's help with its allowed range."""
    return f"{text} [{bound.describe()}]"


ORDER = BoundedNumber(bounds.ORDER)
