"""Result sheets end to end: a template filled by code and imported, a
failed import that leaves the ledger byte-identical, merge and unmerge."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import openpyxl

from tests.conftest import Cli


def _dump(db: str) -> str:
    """Every row of every table (the ledger's content, independent of pages)."""
    with sqlite3.connect(db) as conn:
        return hashlib.sha256("\n".join(conn.iterdump()).encode()).hexdigest()


def _fill(template: Path, out: Path, rows: list[list[object]]) -> None:
    book = openpyxl.load_workbook(template)
    sheet = book["Results"]
    header = [c.value for c in sheet[1]]
    sheet.delete_rows(2, sheet.max_row)  # drop the example row
    for row in rows:
        sheet.append([dict(zip(["ladder", "date", "side_a", "side_b", "result", "margin"],
                               row, strict=True)).get(h) for h in header])  # fmt: skip
    book.save(out)


def test_template_filled_by_code_imports_and_ranks(cli: Cli, tmp_path: Path) -> None:
    cli.ok("ladder", "open", "BE", "--family", "battle-empire")
    template = tmp_path / "template.xlsx"
    cli.ok("template", "--ladder", "BE", str(template))
    filled = tmp_path / "filled.xlsx"
    _fill(template, filled, [
        ["BE", "2025-03-01", "Ann", "Ben", "a", "decisive"],
        ["BE", "2025-03-02", "Ben", "Cid", "draw", None],
    ])  # fmt: skip
    out = cli.ok("import", str(filled))
    assert "added 2 games" in out
    # New players (K = 30), P = 0.5: Ann +30 x 0.75 = +22.5 -> +23, Ben -15;
    # then Ben (985) draws Cid (1000): P(Ben) = 0.48 -> +0.6 -> +1, Cid -1.
    ratings = {r["player"]: r["rating"] for r in cli.json("standings", "BE")}
    assert ratings == {"Ann": 1023.0, "Ben": 986.0, "Cid": 999.0}


def test_an_import_failing_at_its_last_row_changes_no_byte(tmp_path: Path) -> None:
    # SQLite only: the dump compares every row of every table, events and views.
    cli = Cli(str(tmp_path / "ledger.db"))
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("record", "Club", "--date", "2025-01-01", "--side", "Ann", "--side", "Ben",
           "--result", "a", "--add-players")  # fmt: skip
    sheet = tmp_path / "results.csv"
    rows = [f"Club,2025-02-{d:02d},P{d},Q{d},a" for d in range(1, 28)]
    rows.append("Club,2025-02-28,P1,Q1,maybe")  # the last row is wrong
    sheet.write_text("ladder,date,side_a,side_b,result\n" + "\n".join(rows) + "\n")
    cli.ok("standings", "Club")  # views caught up before the snapshot
    before = _dump(cli.db)
    out = cli.fails("import", str(sheet))
    assert "row 29, column result" in out
    assert _dump(cli.db) == before


def test_merge_then_unmerge_restores_both_histories(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("record", "Club", "--date", "2025-01-01", "--side", "Ann", "--side", "Ben",
           "--result", "a", "--add-players")  # fmt: skip
    cli.ok("record", "Club", "--date", "2025-01-02", "--side", "A. Nn", "--side", "Cid",
           "--result", "a", "--add-players")  # fmt: skip
    before = cli.json("standings", "Club")
    cli.ok("player", "merge", "A. Nn", "Ann", "--reason", "same person")
    merged = {r["player"]: r["games"] for r in cli.json("standings", "Club")}
    assert merged == {"Ann": 2, "Ben": 1, "Cid": 1}
    cli.ok("player", "unmerge", "A. Nn", "--reason", "not the same after all")
    assert cli.json("standings", "Club") == before
    out = cli.fails("player", "unmerge", "A. Nn", "--reason", "again")
    assert "not merged" in out
