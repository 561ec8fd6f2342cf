"""Re-importing a sheet never brings back what the referee voided or
corrected: a row that is a voided game, or a game as it was
before a correction of its players, date or result, is skipped and reported,
never added; recording it again is an explicit act (``again``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from ledger.kernel.identity import game_identity
from ledger.sheets.importer import import_sheet
from ledger.write.application import LedgerApplication
from ledger.write.commands import Commands
from ledger.write.storage import resolve
from tests.conftest import Cli
from tests.test_import_csv import GOOD_ROWS, HEADER, open_club, refused, sheet

pytestmark = pytest.mark.conformance

TODAY = datetime.now(UTC).date().isoformat()


def game_of(cli: Cli, player: str, on: str) -> str:
    """The short id of ``player``'s game on ``on``, from the history."""
    return next(h["game"] for h in cli.json("history", "Club", player) if h["date"] == on)


def imported(cli: Cli, tmp_path: Path) -> Path:
    open_club(cli)
    path = sheet(tmp_path, "results.csv", HEADER, *GOOD_ROWS)
    cli.ok("import", str(path))
    return path


def commands(cli: Cli) -> Commands:
    return Commands(LedgerApplication(env=resolve(cli.db, cli.schema).app_env()), by="tester")


def test_a_voided_game_is_not_brought_back_by_a_reimport(cli: Cli, tmp_path: Path) -> None:
    path = imported(cli, tmp_path)
    game = game_of(cli, "Eve", "2025-01-12")
    cli.ok("void", game, "--reason", "forfeit: Frank never came")
    count, standings = cli.event_count(), cli.json("standings", "Club")
    note = (
        f"{path}: row 4: not added: game {game} voided on {TODAY} by tester: forfeit: "
        "Frank never came (import with --again to record it as a game again)"
    )
    for dry in (["--dry-run"], []):
        out = cli.ok("import", str(path), *dry)
        verb = "would add" if dry else "added"
        assert out.startswith(f"{path}: 3 rows: {verb} 0 games, skipped 3 already recorded.\n")
        assert f"warning: {note}\n" in out
    report = cli.json("import", str(path))
    assert (report["added"], report["skipped_rows"], report["warnings"]) == (0, [2, 3, 4], [note])
    assert cli.event_count() == count
    assert cli.json("standings", "Club") == standings
    assert cli.json("history", "Club", "Eve") == []


def test_a_voided_game_with_another_result_on_the_sheet_is_still_not_added(
    cli: Cli, tmp_path: Path
) -> None:
    imported(cli, tmp_path)
    cli.ok("void", game_of(cli, "Eve", "2025-01-12"), "--reason", "forfeit")
    count = cli.event_count()
    path = sheet(tmp_path, "other.csv", HEADER, "Club,2025-01-12,Cup,1,2,Eve,Frank,a")
    report = cli.json("import", str(path))
    assert (report["added"], report["skipped"]) == (0, 1)
    assert "voided on" in report["warnings"][0]
    assert cli.event_count() == count


def test_recording_a_voided_game_again_is_an_explicit_act(cli: Cli, tmp_path: Path) -> None:
    path = imported(cli, tmp_path)
    game = game_of(cli, "Eve", "2025-01-12")
    cli.ok("void", game, "--reason", "forfeit")
    plan = import_sheet(commands(cli), path, again=True)
    assert (plan.report.added, plan.report.skipped_rows) == (1, [2, 3])
    assert cli.ok("rebuild")
    assert [h["game"] for h in cli.json("history", "Club", "Eve")] == [game]


@pytest.mark.parametrize(
    ("change", "now"),
    [
        (
            ["--side", "Eve", "--side", "Dan"],
            "2025-01-12, Cup round 1 table 2, Eve v Dan, result b",
        ),
        (["--date", "2025-01-13"], "2025-01-13, Cup round 1 table 2, Eve v Frank, result b"),
        (["--table", "3"], "2025-01-12, Cup round 1 table 3, Eve v Frank, result b"),
    ],
)
def test_a_game_corrected_to_other_players_or_date_is_not_added_again(
    cli: Cli, tmp_path: Path, change: list[str], now: str
) -> None:
    path = imported(cli, tmp_path)
    game = game_of(cli, "Eve", "2025-01-12")
    cli.ok("correct", game, *change, "--reason", "misread the sheet")
    count, standings = cli.event_count(), cli.json("standings", "Club")
    for dry in (["--dry-run"], []):
        report = cli.json("import", str(path), *dry)
        assert (report["added"], report["skipped_rows"]) == (0, [2, 3, 4])
        assert report["warnings"][-1] == (
            f"{path}: row 4: not added: game {game} corrected on {TODAY} by tester to {now}: "
            "misread the sheet (import with --again to record it as a game again)"
        )
    assert cli.event_count() == count
    assert cli.json("standings", "Club") == standings


def test_every_identity_a_game_had_is_remembered(cli: Cli, tmp_path: Path) -> None:
    """Corrected twice: a sheet with its first or its second form adds nothing."""
    path = imported(cli, tmp_path)
    game = game_of(cli, "Eve", "2025-01-12")
    cli.ok("correct", game, "--date", "2025-01-13", "--reason", "wrong day")
    cli.ok("correct", game, "--side", "Eve", "--side", "Dan", "--reason", "wrong opponent")
    second = sheet(tmp_path, "second.csv", HEADER, "Club,2025-01-13,Cup,1,2,Eve,Frank,b")
    count = cli.event_count()
    for sheet_path, row in ((path, 4), (second, 2)):
        report = cli.json("import", str(sheet_path))
        assert report["added"] == 0
        assert report["warnings"][-1].startswith(
            f"{sheet_path}: row {row}: not added: game {game} corrected on {TODAY} by tester"
        )
    assert cli.event_count() == count


def test_a_game_whose_result_was_corrected_is_skipped_not_refused(cli: Cli, tmp_path: Path) -> None:
    path = imported(cli, tmp_path)
    game = game_of(cli, "Alice", "2025-01-05")
    cli.ok("correct", game, "--result", "b", "--reason", "Bob won")
    count = cli.event_count()
    report = cli.json("import", str(path))
    assert (report["added"], report["skipped_rows"]) == (0, [2, 3, 4])
    assert report["warnings"] == [
        f"{path}: row 2: not added: game {game} corrected on {TODAY} by tester to "
        "2025-01-05, Alice v Bob, result b: Bob won"
    ]
    assert cli.event_count() == count


def test_a_result_never_recorded_still_points_to_correct(cli: Cli, tmp_path: Path) -> None:
    imported(cli, tmp_path)
    game = game_of(cli, "Alice", "2025-01-05")
    cli.ok("correct", game, "--result", "b", "--reason", "Bob won")
    path = sheet(tmp_path, "draw.csv", HEADER, "Club,2025-01-05,,,,Alice,Bob,draw")
    out = cli.fails("import", str(path))
    assert f"game {game} is already recorded with a different result" in out


def test_a_new_game_after_a_void_is_still_added(cli: Cli, tmp_path: Path) -> None:
    """Only the voided game's own identity is set aside, not its players'."""
    imported(cli, tmp_path)
    cli.ok("void", game_of(cli, "Eve", "2025-01-12"), "--reason", "forfeit")
    path = sheet(tmp_path, "next.csv", HEADER, "Club,2025-01-19,Cup,2,2,Eve,Frank,b")
    report = cli.json("import", str(path))
    assert (report["added"], report["warnings"]) == (1, [])


def test_a_new_name_close_to_a_known_one_is_a_warning_or_under_strict_an_error(
    cli: Cli, tmp_path: Path
) -> None:
    open_club(cli)
    cli.ok("player", "add", "Éric Dupont", "Anne Martin")
    path = sheet(tmp_path, "results.csv", HEADER, "Club,2025-01-05,,,,Eric Dupnot,Martin Anne,a")
    report = cli.json("import", str(path), "--dry-run")
    assert report["warnings"][0] == (
        f"{path}: row 2: new player 'Eric Dupnot' is close to 'Éric Dupont': a typo?"
    )
    assert "'Martin Anne' is close to 'Anne Martin'" in report["warnings"][1]
    out = refused(cli, "import", str(path), "--strict")
    assert "'Eric Dupnot' is close to 'Éric Dupont': a typo? (refused under --strict)" in out


def test_one_record_finds_the_game_its_identity_retired(cli: Cli, tmp_path: Path) -> None:
    """The point lookup for ``record``: a voided game, or one corrected away
    from the identity; a live game of the identity is a duplicate, not retired."""
    from ledger.write.game_identities import retired_game

    imported(cli, tmp_path)
    app = commands(cli).app
    voided, corrected, live = (game_of(cli, p, d) for p, d in
                               (("Eve", "2025-01-12"), ("Alice", "2025-01-05"),
                                ("Carol", "2025-01-12")))  # fmt: skip
    identities = {
        short: game_identity(app.game_by_ref(short).facts) for short in (voided, corrected, live)
    }
    cli.ok("void", voided, "--reason", "forfeit")
    cli.ok("correct", corrected, "--date", "2025-01-06", "--reason", "wrong day")
    found = {short: retired_game(app, identity) for short, identity in identities.items()}
    assert found[live] is None
    assert found[voided] is not None and found[voided].void is not None
    assert found[corrected] is not None and found[corrected].void is None
    assert found[corrected].current.date.isoformat() == "2025-01-06"
    assert retired_game(app, identities[live] + "x") is None
