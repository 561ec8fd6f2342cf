"""Spreadsheet-safe text cells (CSV and XLSX exports and site downloads)."""

from __future__ import annotations

from typing import Any

#: What a spreadsheet reads as the start of a formula (or of a DDE payload).
DANGEROUS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula, made plain text by a
    leading apostrophe (``=1+1`` becomes ``'=1+1``); numbers and any other
    value unchanged."""
    if isinstance(value, str) and value.startswith(DANGEROUS):
        return "'" + value
    return value
