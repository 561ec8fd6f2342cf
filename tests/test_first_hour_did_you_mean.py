"""Issue 26, "Typos don't make duplicates": a mistyped player, ladder, game
id or family is answered with the close known one ("did you mean ...?"), on
the queries and on the commands that record alike; ``history`` of an
unknown player never advises ``player add``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli


@pytest.fixture
def club(tmp_path: Path) -> tuple[Cli, str]:
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("ladder", "open", "Club", "--family", "battle-empire")
    cli.ok("player", "add", "Hugo Lemaire", "Ann", "Bob")
    out = cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Hugo Lemaire",
                 "--side", "Ann", "--result", "a", "--margin", "decisive")  # fmt: skip
    return cli, out.split()[2].rstrip(".")


def mistyped(game: str) -> str:
    """The short id with two digits swapped (a different id)."""
    swapped = game[:5] + game[6] + game[5] + game[7:]
    return swapped if swapped != game else game[:7] + ("0" if game[7] != "0" else "1")


def test_history_of_a_mistyped_player(club: tuple[Cli, str]) -> None:
    cli, _ = club
    out = cli.fails("history", "Club", "Hugo Lemair")
    assert out == "Error: unknown player 'Hugo Lemair' (did you mean 'Hugo Lemaire'?)\n"


def test_history_of_an_unknown_player_does_not_advise_adding_one(club: tuple[Cli, str]) -> None:
    cli, _ = club
    out = cli.fails("history", "Club", "Zebulon")
    assert "player add" not in out
    assert out == "Error: unknown player 'Zebulon' (see 'ledger player list')\n"


def test_record_with_a_mistyped_player(club: tuple[Cli, str]) -> None:
    cli, _ = club
    before = cli.event_count()
    out = cli.fails("record", "Club", "--date", "2025-01-06", "--side", "Hugo Lemair",
                    "--side", "Bob", "--result", "a", "--margin", "decisive")  # fmt: skip
    assert "unknown player 'Hugo Lemair' (did you mean 'Hugo Lemaire'?)" in out
    assert cli.event_count() == before
    out = cli.fails("player", "rename", "hugo lemair", "Hugo L")
    assert "did you mean 'Hugo Lemaire'?" in out


def test_mistyped_ladders(club: tuple[Cli, str], tmp_path: Path) -> None:
    cli, _ = club
    assert "unknown ladder 'Clb' (did you mean 'Club'?)" in cli.fails("standings", "Clb")
    out = cli.fails("record", "Clbu", "--date", "2025-01-06", "--side", "Ann", "--side", "Bob",
                    "--result", "a", "--margin", "decisive")  # fmt: skip
    assert "unknown ladder 'Clbu' (did you mean 'Club'?)" in out
    sheet = tmp_path / "s.csv"
    sheet.write_text(
        "ladder,date,side_a,side_b,result,margin\nClubb,2025-01-06,Ann,Bob,a,decisive\n"
    )
    out = cli.fails("import", str(sheet))
    assert "unknown ladder 'Clubb' (did you mean 'Club'?)" in out


def test_mistyped_game_ids(club: tuple[Cli, str]) -> None:
    cli, game = club
    wrong = mistyped(game)
    assert f"unknown game {wrong!r} (did you mean {game!r}?)" in cli.fails("explain", wrong)
    out = cli.fails("void", wrong, "--reason", "typo")
    assert f"(did you mean {game!r}?)" in out


def test_mistyped_family(club: tuple[Cli, str]) -> None:
    cli, _ = club
    out = cli.fails("ladder", "open", "Weekend", "--family", "adgl")
    assert "unknown family 'adgl' (did you mean 'adlg'?" in out
    out = cli.fails("whatif", "Club", "--family", "batle-empire")
    assert "did you mean 'battle-empire'?" in out


def test_nothing_close_offers_nothing(club: tuple[Cli, str]) -> None:
    cli, _ = club
    assert "did you mean" not in cli.fails("standings", "Tournament")
    assert "did you mean" not in cli.fails("explain", "ffffffff")


def test_swapped_words_are_offered(club: tuple[Cli, str]) -> None:
    cli, _ = club
    out = cli.fails("history", "Club", "Lemaire Hugo")
    assert out == "Error: unknown player 'Lemaire Hugo' (did you mean 'Hugo Lemaire'?)\n"
