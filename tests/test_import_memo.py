"""Rows read from memory (``ledger.sheets.cell_memo``) give exactly what checking
every row in full gives: the same events, byte for byte but their time of
recording, the same write index, the same report, the same errors."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from fixtures.generate import write
from ledger.kernel.errors import Invalid
from ledger.sheets.cell_memo import CellMemo
from ledger.sheets.importer import import_sheet
from ledger.write.commands import Commands
from tests.conftest import Cli
from tests.test_import_csv import sheet
from tests.test_import_streaming import app_of

pytestmark = pytest.mark.conformance

HEADER = "ladder,date,event,round,table,side_a,side_b,result,neutral,attr_weight"


def varied_rows() -> list[str]:
    """Cells repeated in many combinations, and the odd ones: spaces around
    names, a blank ladder (the default), blank and padded rounds and tables,
    neutral spelt several ways, attributes, a short row."""
    names = ["Ann", " Bob", "Cy ", "Dee", "Éva", "Fox"]
    out = []
    for n in range(120):
        a, b = names[n % 6], names[(n * 5 + 1) % 6]
        if a.strip() == b.strip():
            b = names[(n + 2) % 6]
        ladder = "" if n % 7 == 0 else "Club"
        day = 1 + n // 9
        event = ("Cup", " Cup", "", "League")[n % 4]
        round_ = ("1", "2", "", " 3")[n % 4] if event.strip() else ""
        table = str(n) if n % 3 == 0 else ""
        result = ("a", "b", "draw", "A")[n % 4]
        neutral = ("", "yes", "no", "Y", "0")[n % 5]
        weight = ("", "1.5", "2", "1.50")[n % 4]
        out.append(
            f"{ladder},2025-03-{day:02d},{event},{round_},{table},{a},{b},{result},{neutral},{weight}"
        )
    out.append("Club,2025-04-01,Cup,1,,Ann,Bob,a")  # a short row
    return out


def stored(cli: Cli) -> list[Any]:
    """The stored events with their time of recording blanked, the write
    index's rounds and names."""
    events = [
        (r[0], r[1], r[2], re.sub(rb'"recorded_at":"[^"]*"', b"", bytes(r[3])))
        for r in cli.sql(
            f"SELECT * FROM {cli.events_table} ORDER BY originator_id, originator_version"
        )
    ]
    return [events, cli.sql("SELECT * FROM ledger_rounds ORDER BY round"),
            cli.sql("SELECT * FROM ledger_names ORDER BY key")]  # fmt: skip


def imported(
    cli: Cli, path: Path, memo: bool, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> tuple[Any, ...]:
    """(report or error, dry-run events, store) of one import, with or
    without the memo."""
    if not memo:
        monkeypatch.setattr(CellMemo, "known", lambda self, cells: None)
    try:
        commands = Commands(app_of(cli), by="tester")
        try:
            plan = import_sheet(commands, path, **options)
        except Invalid as exc:
            return str(exc), None, stored(cli)
        events = [msgspec.to_builtins(e) for e in plan.events]
        for event in events:
            event.pop("recorded_at", None)
        return msgspec.to_builtins(plan.report), events, stored(cli)
    finally:
        monkeypatch.undo()


def same_both_ways(
    make_cli: Callable[[str], Cli],
    monkeypatch: pytest.MonkeyPatch,
    prepare: Callable[[Cli], None],
    paths: list[Path],
    **options: Any,
) -> list[tuple[Any, ...]]:
    """Each sheet imported in turn into two ledgers, one with the memo and
    one without: every step gives the same."""
    ledgers = {memo: make_cli(f"memo{int(memo)}") for memo in (True, False)}
    for cli in ledgers.values():
        prepare(cli)
    steps = []
    for path in paths:
        for dry_run in (True, False):
            got = {
                memo: imported(cli, path, memo, monkeypatch, dry_run=dry_run, **options)
                for memo, cli in ledgers.items()
            }
            assert got[True] == got[False], (path, dry_run)
            steps.append(got[True])
    return steps


def open_club(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")


def test_varied_rows_and_a_second_import(
    make_cli: Callable[[str], Cli], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rows = varied_rows()
    first = sheet(tmp_path, "one.csv", HEADER, *rows)
    # Again: every game skipped; then one with a result changed (an error).
    changed = [*rows[:50], rows[50].replace(",a,", ",b,").replace(",draw,", ",a,"), *rows[51:]]
    second = sheet(tmp_path, "two.csv", HEADER, *changed)
    steps = same_both_ways(make_cli, monkeypatch, open_club, [first, first, second], ladder="Club")
    report = steps[1][0]
    assert report["added"] == len(rows) and report["new_players"]
    assert steps[3][0]["skipped"] == len(rows)
    assert "already recorded with a different result" in steps[5][0]


def test_errors_are_the_same(
    make_cli: Callable[[str], Cli], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Rows with a bad cell among rows whose cells are known: each error is
    said, and nothing stored."""
    good = [f"Club,2025-03-0{d},Cup,1,{t},Ann,Bob,a,," for d in (1, 2) for t in (1, 2, 3)]
    bad = [
        "Club,2025-03-01,Cup,1,4,Ann,Ann,a,,",  # a player on both sides
        "Club,2025-03-01,Cup,1,5,Ann,Bob,z,,",  # a result the family does not read
        "Club,2025-03-01,Cup,1,1,Ann,Bob,a,,",  # the same game as row 2
        "Club,2099-03-01,Cup,1,6,Ann,Bob,a,,",  # in the future
        "Club,2025-03-01,Cup,x,7,Ann,Bob,a,,",  # a round that is no number
        "Club,2025-03-01,Cup,1,8,Ann,Bob,a,maybe,",  # neutral neither yes nor no
        "Club,2025-03-01,Cup,1,9,Ann,Bob,a,,heavy",  # an attribute that is no number
        "Nowhere,2025-03-01,Cup,1,10,Ann,Bob,a,,",
        "Nowhere,2025-03-01,Cup,1,11,Ann,Bob,a,,",
    ]
    path = sheet(tmp_path, "bad.csv", HEADER, *good, *bad, *good[:3])
    [dry, real] = same_both_ways(make_cli, monkeypatch, open_club, [path])
    assert dry[0] == real[0]
    message = real[0]
    assert isinstance(message, str)
    for number, column in [(8, "side"), (9, "result"), (11, "date"), (12, "round")]:
        assert f"row {number}, column {column}" in message
    assert "row 10: the same game as row 2" in message
    assert "1 more rows name the unknown ladder 'Nowhere'" in message


@pytest.mark.parametrize("family", ["bga", "battletech", "battle-empire"])
def test_generated_sheets_of_other_families(
    family: str, make_cli: Callable[[str], Cli], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Several sides, a quitter named by name, list results, margins."""
    out = io.StringIO()
    write(out, 600, 30, 2, family, 3, "Games")
    path = tmp_path / f"{family}.csv"
    path.write_text(out.getvalue(), encoding="utf-8")

    def prepare(cli: Cli) -> None:
        cli.ok("ladder", "open", "Games", "--family", family)

    steps = same_both_ways(make_cli, monkeypatch, prepare, [path])
    assert steps[1][0]["added"] == 600
