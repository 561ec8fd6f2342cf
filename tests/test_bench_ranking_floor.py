"""The bench's floor under ``ledger standings`` (``bench/ranking_floor.py``)
prints the ranking ``ledger standings`` prints: the same players in the same
order, with the same ratings, games and last days played. A floor doing
less would make the standings target look further out of reach than it is."""

from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path

from fixtures.generate import write
from tests.conftest import Cli

FLOOR = Path(__file__).resolve().parent.parent / "bench" / "ranking_floor.py"


def _floor_lines(db: str, ladder: str) -> list[str]:
    spec = importlib.util.spec_from_file_location("ranking_floor", FLOOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        module.main(db, ladder)
    return out.getvalue().splitlines()


def test_the_floor_prints_the_ranking_standings_prints(tmp_path: Path) -> None:
    sheet = tmp_path / "games.csv"
    with sheet.open("w", encoding="utf-8", newline="") as f:
        write(f, 400, 40, 2, "elo", 7, "Floor Club")
    cli = Cli(str(tmp_path / "floor.db"))
    cli.ok("ladder", "open", "Floor Club", "--family", "elo")
    cli.ok("import", str(sheet))
    standings = cli.json("standings", "Floor Club")
    assert isinstance(standings, list) and len(standings) > 30

    lines = _floor_lines(cli.db, "Floor Club")
    assert lines[0] == "Floor Club"
    assert lines[1].split() == ["rank", "player", "rating", "games", "last", "played"]
    printed = [line.rstrip() for line in lines[2:]]
    expected = [
        (str(row["rank"]), row["player"], f"{row['rating']:.4f}", str(row["games"]),
         row["last_played"] or "")
        for row in standings
    ]  # fmt: skip
    assert len(printed) == len(expected)
    for line, (rank, player, rating, games, last) in zip(printed, expected, strict=True):
        # Cells padded to their columns: the player's name holds spaces.
        assert line.startswith(rank + " ") and f"  {player} " in line
        assert line.split()[-3:] == [rating, games, last]
