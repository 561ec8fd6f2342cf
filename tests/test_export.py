"""``ledger export``: the whole ladder in one call, spreadsheet-safe, and
every player's history at once."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from openpyxl import load_workbook

from projections import export, queries, views
from projections.db import SQLiteDatabase
from projections.export import all_histories
from tests.browser.sample import FORMULA, LINK, PLAYERS, SCRIPT, make_sample
from tests.conftest import Cli


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    cli = Cli(str(tmp_path / "export.db"))
    make_sample(cli)
    return cli


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def history_lines(cli: Cli, ladder: str) -> int:
    return sum(len(cli.json("history", ladder, p)) for p in PLAYERS if _plays(cli, ladder, p))


def _plays(cli: Cli, ladder: str, player: str) -> bool:
    return any(r["player"] == player for r in cli.json("standings", ladder))


def test_csv_directory(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "club"
    said = cli.ok("export", "Club", "--format", "csv", "-o", str(out))
    assert sorted(p.name for p in out.iterdir()) == ["changes.csv", "games.csv", "players.csv"]
    games = read_csv(out / "games.csv")
    assert len(games) == 7  # the voided game too, marked as such
    assert sorted(g["status"] for g in games).count("voided") == 1
    assert sorted(g["status"] for g in games).count("corrected") == 1
    assert {"game_id", "side_a", "side_b", "result_result", "sequence", "source"} <= set(games[0])
    changes = read_csv(out / "changes.csv")
    assert len(changes) == history_lines(cli, "Club")
    assert f"{len(changes)} changes" in said
    players = read_csv(out / "players.csv")
    standings = {r["player"]: r["rating"] for r in cli.json("standings", "Club")}
    exported = {p["player"].removeprefix("'"): float(p["rating"]) for p in players}
    assert exported == standings
    # Hostile names: plain text, formulas neutralised with a leading apostrophe.
    names = {p["player"] for p in players}
    assert {SCRIPT, "'" + FORMULA, "'" + LINK} <= names
    sides = {g["side_a"] for g in games} | {g["side_b"] for g in games}
    assert "'" + FORMULA in sides and FORMULA not in sides
    # Numbers stay numbers (a negative change is not "neutralised").
    assert any(c["change"].startswith("-") and float(c["change"]) < 0 for c in changes)


def test_xlsx_cells_are_text_not_formulas(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "club.xlsx"
    cli.ok("export", "Club", "--format", "xlsx", "-o", str(path))
    book = load_workbook(path)
    assert book.sheetnames == ["games", "changes", "players"]
    sheet = book["players"]
    header = [c.value for c in sheet[1]]
    cells = [row[header.index("player")] for row in sheet.iter_rows(min_row=2)]
    values = {c.value for c in cells}
    assert {SCRIPT, "'" + FORMULA, "'" + LINK} <= values
    assert all(c.data_type == "s" for c in cells)  # never "f" (a formula)
    assert book["games"].max_row == 1 + 7


def test_json_loads_as_records(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "club.json"
    cli.ok("export", "Club", "--format", "json", "-o", str(out))
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["ladder"] == "Club"
    assert {FORMULA, SCRIPT, LINK} <= {p["player"] for p in data["players"]}  # JSON: as is
    assert len(data["changes"]) == history_lines(cli, "Club")
    game_changes = [c for c in data["changes"] if c["kind"] == "game"]
    assert all(c["k"] is not None and c["p"] is not None for c in game_changes)
    # Standard output when no file is given.
    printed = json.loads(cli.ok("export", "Club", "--format", "json"))
    assert printed == data


def test_all_histories_are_each_players_history(cli: Cli) -> None:
    conn = views.connect(SQLiteDatabase(cli.db))
    lines = list(all_histories(conn, "Club"))
    by_player: dict[str, list[dict]] = {}
    for line in lines:
        record = {k: getattr(line, k) for k in line.__struct_fields__ if k != "player"}
        by_player.setdefault(line.player, []).append(record)
    assert set(by_player) == set(PLAYERS)
    for name, rows in by_player.items():
        expected = queries.history(conn, "Club", name)
        assert rows == [{k: getattr(e, k) for k in e.__struct_fields__} for e in expected]


def test_refusals(cli: Cli, tmp_path: Path) -> None:
    assert "give -o DIRECTORY" in cli.fails("export", "Club", "--format", "csv")
    a_file = tmp_path / "f.csv"
    a_file.write_text("x")
    assert "expected a directory" in cli.fails("export", "Club", "-o", str(a_file))
    assert "needs -o" in cli.fails("export", "Club", "--format", "xlsx")
    assert "unknown ladder" in cli.fails("export", "Nope", "-o", str(tmp_path / "n"))
    assert not (tmp_path / "n").exists()


def test_history_without_a_player_lists_every_players_history(cli: Cli) -> None:
    cli.ok("ladder", "open", "Night", "--family", "elo")
    cli.ok("record", "Night", "--date", "2025-01-05", "--side", "Ann", "--side", "Bob",
           "--result", "a", "--add-players")  # fmt: skip
    cli.ok("record", "Night", "--date", "2025-01-06", "--side", "Bob", "--side", "Cat",
           "--result", "draw", "--add-players")  # fmt: skip
    rows = cli.json("history", "Night")
    assert [(r["player"], r["opponents"]) for r in rows] == [
        ("Ann", "Bob"), ("Bob", "Ann"), ("Bob", "Cat"), ("Cat", "Bob"),
    ]  # fmt: skip
    assert rows == [
        {"player": name, **line}
        for name in ("Ann", "Bob", "Cat")
        for line in cli.json("history", "Night", name)
    ]


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_history_streamed_in_batches_reads_as_the_whole(
    cli: Cli, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``write_history`` (what ``history LADDER`` streams) gives the text
    ``render`` gives for the whole list, whatever the batch size."""
    import io

    from projections.formats import render

    conn = views.connect(SQLiteDatabase(cli.db))
    whole = render(list(all_histories(conn, "Club")), fmt, "", kind=export.PlayerHistoryLine)
    assert cli.ok("history", "Club", "--format", fmt).strip() == whole.strip()
    for batch in (1, 4, 1000):
        monkeypatch.setattr(export, "HISTORY_BATCH", batch)
        out = io.StringIO()
        n = export.write_history(all_histories(conn, "Club"), fmt, out)
        if fmt == "json":
            assert json.loads(out.getvalue()) == json.loads(whole)
            assert n == len(json.loads(whole)) > 10
        else:
            assert out.getvalue().strip() == whole.strip()
            assert n == len(whole.strip().splitlines()) - 1
    empty = io.StringIO()
    assert export.write_history(iter(()), "json", empty) == 0
    assert json.loads(empty.getvalue()) == []
