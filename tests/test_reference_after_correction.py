"""Issue 26, BGA references: a game keeps the id of the identity it was
first recorded under (its reference, or its date, event, round, table and
players). After ``ledger correct G --reference 78`` (or ``--table 5``), a
new record of that identity is the same game again and is refused as a
duplicate, naming G, in a ``record`` as in an import. Before, the write
side looked the identity up by the id it gives, missed G and recorded a
second game.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli


def _recorded(output: str) -> str:
    found = re.search(r"Recorded game (\w+)", output)
    assert found, output
    return found.group(1)


def _games(cli: Cli) -> list[str]:
    return [row["game"] for row in cli.json("history", "Ladder", "Ann")]  # type: ignore[index, union-attr]


def _ladder(tmp_path: Path) -> Cli:
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("ladder", "open", "Ladder", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob")
    return cli


def test_a_reference_given_in_a_correction_identifies_the_game(tmp_path: Path) -> None:
    cli = _ladder(tmp_path)
    game = _recorded(cli.ok("record", "Ladder", "--date", "2025-01-05", "--side", "Ann",
                            "--side", "Bob", "--result", "a", "--reference", "12"))  # fmt: skip
    cli.ok("correct", game, "--reference", "78", "--reason", "mistyped table number")
    again = ["record", "Ladder", "--date", "2025-01-06", "--side", "Ann", "--side", "Bob",
             "--result", "b", "--reference", "78"]  # fmt: skip
    said = cli.fails(*again)
    assert f"this game is already recorded as {game} (same reference '78')" in said
    assert _games(cli) == [game]
    sheet = tmp_path / "bga.csv"
    sheet.write_text(
        "ladder,date,side_a,side_b,result,reference\nLadder,2025-01-06,Ann,Bob,b,78\n",
        encoding="utf-8",
    )
    said = cli.fails("import", str(sheet))
    assert f"row 2: game {game} is already recorded with a different result" in said
    assert _games(cli) == [game]


def test_a_table_given_in_a_correction_identifies_the_game(tmp_path: Path) -> None:
    cli = _ladder(tmp_path)
    game = _recorded(cli.ok("record", "Ladder", "--date", "2025-01-05", "--side", "Ann",
                            "--side", "Bob", "--result", "a"))  # fmt: skip
    cli.ok("correct", game, "--table", "5", "--reason", "it was table 5")
    said = cli.fails("record", "Ladder", "--date", "2025-01-05", "--side", "Bob",
                     "--side", "Ann", "--result", "b", "--table", "5")  # fmt: skip
    assert f"this game is already recorded as {game}" in said
    assert _games(cli) == [game]
    # The game at its former identity is another game: recorded.
    other = _recorded(cli.ok("record", "Ladder", "--date", "2025-01-05", "--side", "Ann",
                             "--side", "Bob", "--result", "a", "--again"))  # fmt: skip
    assert other != game and sorted(_games(cli)) == sorted([game, other])


def test_a_correction_never_makes_a_game_the_duplicate_of_another(tmp_path: Path) -> None:
    cli = _ladder(tmp_path)
    first = _recorded(cli.ok("record", "Ladder", "--date", "2025-01-05", "--side", "Ann",
                             "--side", "Bob", "--result", "a", "--reference", "1"))  # fmt: skip
    second = _recorded(cli.ok("record", "Ladder", "--date", "2025-01-05", "--side", "Ann",
                              "--side", "Bob", "--result", "b", "--reference", "2"))  # fmt: skip
    said = cli.fails("correct", second, "--reference", "1", "--reason", "typo")
    assert (
        f"the correction would make game {second} the same game as {first} (same reference '1')"
    ) in said
    said = cli.fails("--lang", "fr", "correct", second, "--reference", "1", "--reason", "typo")
    assert f"la correction ferait de la partie {second} la même partie que {first}" in said
    # Into an identity no live game holds, and back to its own: corrected.
    cli.ok("correct", second, "--reference", "3", "--reason", "typo")
    cli.ok("correct", second, "--reference", "2", "--reason", "typo back")
    assert sorted(_games(cli)) == sorted([first, second])


def test_a_record_finds_a_corrected_game_through_the_index_not_every_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The identities corrections gave are kept in the write index
    (``ledger_corrections``): a ``record`` looks its identity up there, never
    reading every correction of the store (a scan of every stored event,
    which made a record at the end of a 1M-game ladder twice as dear as on a
    small one). A store whose index predates the table gets it rebuilt."""
    from ledger.kernel import events as ev
    from ledger.write.application import LedgerApplication

    cli = _ladder(tmp_path)
    game = _recorded(cli.ok("record", "Ladder", "--date", "2025-01-05", "--side", "Ann",
                            "--side", "Bob", "--result", "a", "--reference", "12"))  # fmt: skip
    cli.ok("correct", game, "--reference", "78", "--reason", "mistyped table number")
    with sqlite3.connect(tmp_path / "club.db") as db:  # an index of the version before
        db.execute("DROP TABLE ledger_corrections")
        db.execute("UPDATE ledger_index_version SET version = 2")
    read = LedgerApplication.notifications

    def no_scan_of_corrections(self: Any, start: int = 0, topics: Any = ()) -> Any:
        assert ev.GameCorrected.TOPIC not in topics, "a record read every correction"
        return read(self, start, topics)

    monkeypatch.setattr(LedgerApplication, "notifications", no_scan_of_corrections)
    said = cli.fails("record", "Ladder", "--date", "2025-01-06", "--side", "Ann", "--side",
                     "Bob", "--result", "b", "--reference", "78")  # fmt: skip
    assert f"this game is already recorded as {game} (same reference '78')" in said
    with sqlite3.connect(tmp_path / "club.db") as db:
        assert db.execute("SELECT COUNT(*) FROM ledger_corrections").fetchone()[0] == 1
