"""CSV exports neutralise formula cells: a text cell that
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written
with a leading apostrophe, so a spreadsheet shows it as text; numbers, a
negative rating change included, stay numbers. Every CSV the ledger writes
(query ``--format csv``, ``teams``, ``export``, the site's downloads) goes
through ``projections.formats.write_csv``."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from projections.formats import csv_text, neutralise
from tests.conftest import Cli

HOSTILE = ["=1+1", "+SUM(A1)", "@cmd", "-2+3", '=HYPERLINK("http://x")']


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def club(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "--", *HOSTILE, "Bob")
    for date, name in enumerate(HOSTILE, start=1):
        cli.ok("record", "Club", "--date", f"2025-01-0{date}", f"--side={name}", "--side", "Bob",
               "--result", "b")  # fmt: skip


def test_text_cells_are_neutralised_and_numbers_kept() -> None:
    text = csv_text(
        ["name", "change", "note"],
        [["=1+1", -12.5, "\tx"], ["-12.5", 3, "\rcmd"], ["Ann", None, "@A1"]],
    )
    assert text.split("\n") == [
        "name,change,note",
        "'=1+1,-12.5,'\tx",
        '"\'-12.5",3,"\'\rcmd"',  # a CR is a line break to readers: quoted
        "Ann,,'@A1",
    ]
    assert list(csv.reader(io.StringIO(text))) == [
        ["name", "change", "note"],
        ["'=1+1", "-12.5", "'\tx"],
        ["'-12.5", "3", "'\rcmd"],
        ["Ann", "", "'@A1"],
    ]
    assert neutralise(-12.5) == -12.5 and neutralise(7) == 7 and neutralise(None) is None


def test_query_csv_neutralises_names_and_keeps_negative_changes(cli: Cli) -> None:
    club(cli)
    standings = rows(cli.ok("standings", "Club", "--format", "csv"))
    names = {r["player"] for r in standings}
    assert names == {"'" + n for n in HOSTILE} | {"Bob"}
    assert all(float(r["rating"]) for r in standings)  # numbers, unprefixed
    history = rows(cli.ok("history", "Club", "=1+1", "--format", "csv"))
    assert history[0]["opponents"] == "Bob"
    assert history[0]["change"].startswith("-") and float(history[0]["change"]) < 0
    bob = rows(cli.ok("history", "Club", "Bob", "--format", "csv"))
    assert {r["opponents"] for r in bob} == {"'" + n for n in HOSTILE}


def test_teams_csv_neutralises_names(cli: Cli, tmp_path: Path) -> None:
    club(cli)
    out = tmp_path / "camps.csv"
    cli.ok("teams", "Club", *HOSTILE[:3], "Bob", "--camps", "2", "--format", "csv", "-o", str(out))
    camps = rows(out.read_text(encoding="utf-8"))
    assert {r["player"] for r in camps} == {"'=1+1", "'+SUM(A1)", "'@cmd", "Bob"}
    assert all(float(r["rating"]) > 0 and float(r["side_rating"]) > 0 for r in camps)


def _one_row_at_a_time(columns: list[str], rows: list[list[object]]) -> str:
    """The CSV ``write_csv`` wrote before it worked in batches: a row at a
    time, a row holding a carriage return quoted in full."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    careful = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow([neutralise(c) for c in columns])
    for row in rows:
        cells = [neutralise(v) for v in row]
        if any(isinstance(c, str) and "\r" in c for c in cells):
            careful.writerow(cells)
        else:
            writer.writerow(cells)
    return out.getvalue()


def test_batched_writer_writes_what_a_row_at_a_time_wrote() -> None:
    from projections import formats as output

    cells = ["Ann", "=1+1", "", "-3", "a,b", 'q"q', "x\ny", "\rcmd", "x\ry", -12.5, 0.1, 7, None]
    rows = [[cells[(i * 7 + j) % len(cells)] for j in range(4)] for i in range(5000)]
    clean = [row for row in rows if not any(isinstance(c, str) and "\r" in c for c in row)]
    for table in (rows, clean, rows[:3], []):
        out = io.StringIO()
        assert output.write_csv(out, ["a", "=b", "c", "d"], iter(table)) == len(table)
        assert out.getvalue() == _one_row_at_a_time(["a", "=b", "c", "d"], table)
    assert len(rows) > output._BATCH  # more than one batch, some with a CR, some without
