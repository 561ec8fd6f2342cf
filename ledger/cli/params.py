"""Click parameter types: input parsed and refused at the option that took it,
so an error names the option (``--date``, ``--set``) and what it expected."""

from __future__ import annotations

from datetime import date
from typing import Any

import click

from ledger import bounds
from ledger.errors import Invalid


class DateType(click.ParamType):
    """An ISO date, ``YYYY-MM-DD``."""

    name = "YYYY-MM-DD"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> date:
        if isinstance(value, date):
            return value
        try:
            from ledger.game_input import parse_date  # lazily: it loads the write side

            return parse_date(value, param.name if param else "date")
        except Invalid:
            self.fail(f"{value!r} is not a valid date in ISO form YYYY-MM-DD", param, ctx)


class KeyValueType(click.ParamType):
    """``KEY=VALUE``; the value is JSON when it parses as JSON (``--set``) or
    kept as text (``--attr``, converted later by the family)."""

    def __init__(self, metavar: str = "KEY=VALUE", json_values: bool = True) -> None:
        self.name = metavar
        self.json_values = json_values

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[str, Any]:
        if isinstance(value, tuple):
            return value
        key, sep, text = str(value).partition("=")
        if not sep or not key.strip():
            self.fail(f"expected {self.name}, got {value!r}", param, ctx)
        from projections.families.base import parse_param_value  # lazily: the families

        return key.strip(), parse_param_value(text) if self.json_values else text


class BoundedNumber(click.ParamType):
    """A number within one of ``ledger.bounds``' ranges; ``--help`` shows it."""

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
                kind = "whole number" if self.bound.integer else "number"
                self.fail(f"{value!r} is not a {kind}", param, ctx)
        try:
            return self.bound.check(number, "value")
        except Invalid as exc:
            self.fail(str(exc).removeprefix("value: "), param, ctx)


def bounded_help(text: str, bound: bounds.Range) -> str:
    """An option's help with its allowed range."""
    return f"{text} [{bound.describe()}]"


DATE = DateType()
ORDER = BoundedNumber(bounds.ORDER)
SETTING = KeyValueType()
ATTRIBUTE = KeyValueType("NAME=NUMBER", json_values=False)


def as_dict(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """Repeated ``KEY=VALUE`` options as a dict (a later key wins)."""
    return dict(pairs)
