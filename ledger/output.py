"""Printing query results as a table (for people), JSON or CSV (for scripts)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

import msgspec

FORMATS = ("table", "json", "csv")


def _cell(value: Any, exact: bool = False) -> str:
    """A value as text: rounded to 4 decimals for people, exact for scripts."""
    if value is None:
        return ""
    if isinstance(value, float):
        if value == int(value):
            return str(int(value))
        return repr(value) if exact else f"{value:.4f}".rstrip("0").rstrip(".")
    if isinstance(value, (dict, list)):
        return msgspec.json.encode(value).decode()
    return str(value)


def render(
    rows: Sequence[msgspec.Struct] | msgspec.Struct,
    fmt: str,
    title: str = "",
    kind: type[msgspec.Struct] | None = None,
) -> str:
    """Render Structs as ``table``, ``json`` or ``csv`` text; ``kind`` names
    the columns when there are no rows."""
    if fmt == "json":
        return msgspec.json.format(msgspec.json.encode(rows), indent=2).decode()
    items = [rows] if isinstance(rows, msgspec.Struct) else list(rows)
    plain = [msgspec.to_builtins(r) for r in items]
    columns = list(plain[0]) if plain else list(kind.__struct_fields__ if kind else ())
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for r in plain:
            writer.writerow([_cell(r[c], exact=True) for c in columns])
        return out.getvalue().rstrip("\n")
    return _table(columns, [[_cell(r[c]) for c in columns] for r in plain], title)


def _table(columns: list[str], rows: list[list[str]], title: str) -> str:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title or None, show_lines=False, header_style="bold")
    for c in columns:
        table.add_column(c.replace("_", " "))
    for r in rows:
        table.add_row(*r)
    console = Console(width=200, record=True, file=io.StringIO(), color_system=None)
    console.print(table)
    return console.export_text().rstrip("\n")
