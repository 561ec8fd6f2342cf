"""Numbers that would brick the ledger (issue: hardening, item 1).

Each value below was once stored (NaN as ``null``), after which every
command died with a traceback. Now it is refused where it is typed, with
the field and the allowed range, nothing is appended, and every command
keeps working. The last guard (an event that would not read back as
itself is never stored) is tested on the application directly.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from ledger.kernel import bounds
from ledger.kernel import events as ev
from ledger.kernel.errors import Invalid
from ledger.kernel.identity import ladder_id
from ledger.write.application import LedgerApplication
from ledger.write.commands import Commands
from ledger.write.storage import resolve
from tests.conftest import Cli

pytestmark = pytest.mark.conformance

GAME = ("record", "Club", "--date", "2025-01-01", "--side", "Ann", "--side", "Bob")


@pytest.fixture
def club(cli: Cli) -> Cli:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob")
    cli.ok(*GAME, "--result", "a")
    return cli


def still_works(cli: Cli, events: int) -> None:
    """Nothing was appended, and the commands that used to die still work."""
    assert cli.event_count() == events
    assert [row["player"] for row in cli.json("standings", "Club")] == ["Ann", "Bob"]
    assert "OK" in cli.ok("verify")
    cli.ok("rebuild")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--attr", "points=nan"), "points: nan is not a finite number"),
        (("--attr", "points=inf"), "points: inf is not a finite number"),
        (("--attr", "points=1e309"), "points: inf is not a finite number"),
        (("--attr", "points=1e12"), "points: 1,000,000,000,000 is out of range"),
        (("--round", "99999999999999999999"), "99,999,999,999,999,999,999 is out of range"),
        (("--table", "1000001"), "1,000,001 is out of range (allowed: 0 to 1,000,000)"),
    ],
)
def test_a_game_with_a_number_out_of_range_is_refused(
    club: Cli, args: tuple[str, ...], message: str
) -> None:
    before = club.event_count()
    out = club.fails(*GAME, "--result", "b", *args)
    assert message in out
    assert "Traceback" not in out
    still_works(club, before)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--to", "nan"), "'--to': nan is not a finite number (allowed: 0 to 100,000)"),
        (("--to", "inf"), "'--to': inf is not a finite number"),
        (("--to", "1e308"), "'--to': 1e+308 is out of range (allowed: 0 to 100,000)"),
        (("--to", "-5"), "'--to': -5 is out of range (allowed: 0 to 100,000)"),
        (("--shift", "nan"), "'--shift': nan is not a finite number"),
        (("--shift", "-1e6"), "'--shift': -1,000,000 is out of range"),
    ],
)
def test_an_adjustment_out_of_range_is_refused(
    club: Cli, args: tuple[str, ...], message: str
) -> None:
    before = club.event_count()
    out = club.fails("adjust", "Club", "Ann", *args, "--date", "2025-02-01", "--reason", "x")
    assert message in out
    still_works(club, before)


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (("ladder", "rules", "Club", "--set", "k=inf", "--effective", "2025-02-01",
          "--reason", "x"), "k: inf is not a finite number"),
        (("ladder", "rules", "Club", "--set", "divisor=NaN", "--effective", "2025-02-01",
          "--reason", "x"), "divisor: nan is not a finite number"),
        (("ladder", "open", "Other", "--family", "elo", "--set", "initial=nan"),
         "initial: nan is not a finite number"),
        (("ladder", "open", "Other", "--family", "elo", "--set", "initial=1e309"),
         "initial: inf is not a finite number"),
        (("ladder", "open", "Other", "--family", "elo", "--set", 'k_rules=[{"k":"nan"}]'),
         "k_rules.k: nan is not a finite number"),
        # Negative K and negative ratings (the low list).
        (("ladder", "rules", "Club", "--set", "k=-10", "--effective", "2025-02-01",
          "--reason", "x"), "parameter 'k' of family elo: must be a number ≥ 0 (got -10)"),
        (("ladder", "open", "Other", "--family", "elo", "--set", 'k_rules=[{"k":-1}]'),
         "k_rules' of family elo: must be a number ≥ 0 (item 1, field 'k')"),
        (("ladder", "open", "Other", "--family", "elo", "--set", "initial=-1500"),
         "parameter 'initial' of family elo: must be a number ≥ 0 (got -1500)"),
        (("ladder", "open", "Other", "--family", "bga", "--set", "initial=-1"),
         "parameter 'initial' of family bga: must be a whole number ≥ 0 (got -1)"),
    ],
)  # fmt: skip
def test_a_ruleset_with_a_number_out_of_range_is_refused(
    club: Cli, command: tuple[str, ...], message: str
) -> None:
    before = club.event_count()
    assert message in club.fails(*command)
    still_works(club, before)


def test_battletech_bv_out_of_range_is_refused(cli: Cli) -> None:
    cli.ok("ladder", "open", "Mechs", "--family", "battletech")
    cli.ok("player", "add", "Ann", "Bob")
    before = cli.event_count()
    out = cli.fails("record", "Mechs", "--date", "2025-01-01", "--side", "Ann", "--side", "Bob",
                    "--bv", "1e308,1e308,5000,1000")  # fmt: skip
    assert "bv: 1e+308 is out of range (allowed: -1,000,000,000 to 1,000,000,000)" in out
    assert cli.event_count() == before
    cli.ok("record", "Mechs", "--date", "2025-01-01", "--side", "Ann", "--side", "Bob",
           "--bv", "5000,3000,5000,1000")  # fmt: skip
    assert len(cli.json("standings", "Mechs")) == 2


def test_a_sheet_cell_out_of_range_is_refused_by_dry_run_and_import(
    club: Cli, tmp_path: Path
) -> None:
    sheet = tmp_path / "s.csv"
    sheet.write_text(
        "ladder,date,side_a,side_b,result,attr_points,round\n"
        "Club,2025-01-02,Ann,Bob,a,NaN,\n"
        "Club,2025-01-03,Ann,Bob,a,1,99999999999\n"
    )
    before = club.event_count()
    for dry in (("--dry-run",), ()):
        out = club.fails("import", str(sheet), *dry)
        assert "row 2" in out and "nan is not a finite number" in out
        assert "row 3" in out and "99,999,999,999 is out of range" in out
    still_works(club, before)


def test_a_correction_with_a_number_out_of_range_is_refused(club: Cli) -> None:
    game = club.json("history", "Club", "Ann")[0]["game"]
    before = club.event_count()
    out = club.fails("correct", game, "--attr", "points=-inf", "--reason", "x")
    assert "points: -inf is not a finite number" in out
    still_works(club, before)


def test_help_says_the_ranges(cli: Cli) -> None:
    assert "[0 to 1,000,000]" in cli.ok("record", "--help")
    adjust = " ".join(cli.ok("adjust", "--help").split())
    assert "[0 to 100,000]" in adjust and "[-100,000 to 100,000]" in adjust


# -- the last guard: nothing that cannot be read back is stored -----------------
def test_an_event_that_would_not_read_back_is_never_stored(tmp_path: Path) -> None:
    """Past every input check (a plugin or a bug could build such an event):
    the application refuses it whole and stores nothing."""
    app = LedgerApplication(env=resolve(str(tmp_path / "l.db")).app_env())
    commands = Commands(app, "tester")
    commands.open_ladder("Club", "elo", {})
    stored = app.recorder.max_notification_id()
    at = datetime.now(UTC)
    bad = ev.RulesetAdopted(
        originator_id=ladder_id("Club"),
        originator_version=3,
        recorded_at=at,
        recorded_by="tester",
        family="elo",
        params={"k": math.nan},
        effective=date(2025, 1, 1),
    )
    with pytest.raises(Invalid, match="would not read back as written"):
        app.append([bad])
    assert app.recorder.max_notification_id() == stored
    assert app.ladder("Club").version == 2


def test_a_range_names_the_field_value_and_range() -> None:
    assert bounds.ORDER.check(7, "round") == 7
    with pytest.raises(Invalid, match=r"^round: 1,000,001 is out of range \(allowed: 0 to "):
        bounds.ORDER.check(1_000_001, "round")
    with pytest.raises(Invalid, match=r"^points: nan is not a finite number"):
        bounds.ATTRIBUTE.check(math.nan, "points")
    with pytest.raises(Invalid, match=r"^k: 'x' is not a number"):
        bounds.PARAMETER.check("x", "k")
