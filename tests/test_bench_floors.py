"""The bench's floors under ``ledger standings`` and ``ledger history``
(``bench/ranking_floor.py``, ``bench/history_floor.py``) print what those
commands print: the same players in the same order with the same ratings,
games and last days played; the same rows of a player's history with the
same games, opponents, results and numbers. A floor doing less would make
a target look further out of reach than it is."""

from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path

import pytest

from fixtures.generate import write
from tests.conftest import Cli

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _floor_lines(script: str, *args: str) -> list[str]:
    spec = importlib.util.spec_from_file_location(script, BENCH / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        module.main(*args)
    return out.getvalue().splitlines()


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """A ladder of 400 generated games between 40 players."""
    where = tmp_path_factory.mktemp("floors")
    sheet = where / "games.csv"
    with sheet.open("w", encoding="utf-8", newline="") as f:
        write(f, 400, 40, 2, "elo", 7, "Floor Club")
    cli = Cli(str(where / "floor.db"))
    cli.ok("ladder", "open", "Floor Club", "--family", "elo")
    cli.ok("import", str(sheet))
    return cli


def test_the_floor_prints_the_ranking_standings_prints(club: Cli) -> None:
    standings = club.json("standings", "Floor Club")
    assert isinstance(standings, list) and len(standings) > 30

    lines = _floor_lines("ranking_floor", club.db, "Floor Club")
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


def test_the_floor_prints_the_history_history_prints(club: Cli) -> None:
    standings = club.json("standings", "Floor Club")
    assert isinstance(standings, list)
    for player in (standings[0]["player"], standings[-1]["player"]):
        history = club.json("history", "Floor Club", player)
        assert isinstance(history, list) and len(history) > 5

        lines = _floor_lines("history_floor", club.db, "Floor Club", player)
        assert lines[0] == f"{player} in Floor Club"
        printed = [line.split("  ") for line in lines[1:]]
        expected = [
            [row["date"], row["game"], row["event"] or "", str(row["round"] or ""),
             str(row["table"] or ""), row["opponents"], row["result"], f"{row['s']:g}",
             f"{row['p']:.4f}", f"{row['k']:g}", f"{row['before']:.4f}", f"{row['after']:.4f}",
             f"{row['change']:+.4f}"]
            for row in history
        ]  # fmt: skip
        assert printed == expected
