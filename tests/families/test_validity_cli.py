"""The validity decisions of docs/rules/bga.md and docs/rules/battletech.md
through the command line: a refused ``ledger record`` stores nothing, and an
import naming a refused row is refused whole, with its file, row and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli

DAY = "2025-01-05"


@pytest.mark.parametrize(
    ("family", "sides", "result", "words"),
    [
        ("bga", ["A", "B"], ["--ranks", "1,3"], ["competition ranks", "side 2 has rank 3"]),
        ("bga", ["A", "B"], ["--ranks", "2,2"], ["competition ranks", "side 1 has rank 2"]),
        (
            "battletech",
            ["A", "B"],
            ["--bv", "1000,2000,1000,500"],
            ["BV never grows in play", "side A's ending BV A_e (2000)"],
        ),
        ("battletech", ["A", "B"], ["--bv", "1000,500,1000,-1"], ["B_e", "non-negative"]),
    ],
)
def test_a_refused_record_stores_nothing(
    cli: Cli, family: str, sides: list[str], result: list[str], words: list[str]
) -> None:
    cli.ok("ladder", "open", "L", "--family", family)
    cli.ok("player", "add", *sides)
    before = cli.event_count()
    args = ["record", "L", "--date", DAY]
    for side in sides:
        args += ["--side", side]
    message = cli.fails(*args, *result)
    for word in words:
        assert word in message
    assert cli.event_count() == before
    assert cli.json("standings", "L") == []


@pytest.mark.parametrize(
    ("family", "header", "good", "bad", "column"),
    [
        (
            "bga",
            "ladder,date,side_a,side_b,side_c,ranks",
            'L,2025-01-04,A,B,C,"1,2,2"',
            'L,2025-01-05,A,B,C,"1,3,3"',
            "ranks",
        ),
        (
            "battletech",
            "ladder,date,side_a,side_b,bv",
            'L,2025-01-04,A,B,"5000,3000,5000,1000"',
            'L,2025-01-05,A,B,"1000,2000,1000,500"',
            "bv",
        ),
    ],
)
def test_an_import_naming_a_refused_row_is_refused_whole(
    cli: Cli, tmp_path: Path, family: str, header: str, good: str, bad: str, column: str
) -> None:
    cli.ok("ladder", "open", "L", "--family", family)
    sheet = tmp_path / f"{family}.csv"
    sheet.write_text(f"{header}\n{good}\n{bad}\n", encoding="utf-8")
    before = cli.event_count()
    message = cli.fails("import", str(sheet))
    assert sheet.name in message
    assert f"row 3, column {column}" in message
    assert cli.event_count() == before
    # The good row alone is accepted: only the refused row was at fault.
    sheet.write_text(f"{header}\n{good}\n", encoding="utf-8")
    cli.ok("import", str(sheet))
    assert cli.event_count() > before
