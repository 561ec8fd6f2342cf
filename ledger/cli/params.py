"""Click parameter types: input parsed and refused at the option that took it,
so an error names the option (``--date``, ``--set``) and what it expected.
Numbers within the ledger's bounds are ``bounded``'s (they load msgspec)."""

from __future__ import annotations

from datetime import date
from typing import Any

import click

from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Message, headless, said


class DateType(click.ParamType):
    """An ISO date, ``YYYY-MM-DD``."""

    name = "YYYY-MM-DD"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> date:
        if isinstance(value, date):
            return value
        try:
            from ledger.write.game_input import parse_date  # lazily: it loads the write side

            return parse_date(value, param.name if param else "date")
        except Invalid:
            self.fail(
                Message("{value!r} is not a valid date in ISO form YYYY-MM-DD", value=value),
                param,
                ctx,
            )


class KeyValueType(click.ParamType):
    """``KEY=VALUE``; the value is JSON when it parses as JSON (``--set``) or
    kept as text (``--attr``, converted later by the family), or a number
    (``number``: ``--state``)."""

    def __init__(
        self, metavar: str = "KEY=VALUE", json_values: bool = True, number: bool = False
    ) -> None:
        self.name = metavar
        self.json_values = json_values
        self.number = number

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[str, Any]:
        if isinstance(value, tuple):
            return value
        key, sep, text = str(value).partition("=")
        if not sep or not key.strip():
            self.fail(
                Message("expected {form}, got {value!r}", form=self.name, value=value), param, ctx
            )
        if self.number:
            try:
                return key.strip(), float(text)
            except ValueError:
                self.fail(
                    Message(
                        "expected {form}, got {value!r} (not a number)", form=self.name, value=value
                    ),
                    param,
                    ctx,
                )
        from ledger.families.base import parse_param_value  # lazily: the families

        return key.strip(), parse_param_value(text) if self.json_values else text


class VaryType(click.ParamType):
    """``NAME=START:STOP:STEP`` (``k=10:40:2``, STOP included) or ``NAME=VALUE``."""

    name = "NAME=START:STOP:STEP"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from projections.evidence.tune import Vary, parse_vary  # lazily: numpy

        if isinstance(value, Vary):
            return value
        try:
            return parse_vary(str(value))
        except Invalid as exc:
            self.fail(headless(said(exc), "spec", f"--vary {str(value)!r}: "), param, ctx)


DATE = DateType()
SETTING = KeyValueType()
VARY = VaryType()
ATTRIBUTE = KeyValueType("NAME=NUMBER", json_values=False)
STATE_VALUE = KeyValueType("NAME=NUMBER", number=True)


def as_dict(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """Repeated ``KEY=VALUE`` options as a dict (a later key wins)."""
    return dict(pairs)
