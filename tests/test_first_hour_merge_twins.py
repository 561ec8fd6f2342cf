"""Issue 26, "Typos don't make duplicates": ``player merge`` of two
spellings warns of, and lists, the games that become one game entered twice
(the identity ``record`` refuses a second time)."""

from __future__ import annotations

import pytest

from tests.conftest import Cli


def record(cli: Cli, *sides: str, date: str = "2025-01-05", result: str = "a") -> str:
    args = [a for side in sides for a in ("--side", side)]
    out = cli.ok("record", "Club", "--date", date, *args, "--result", result,
                 "--margin", "decisive", "--add-players")  # fmt: skip
    return out.splitlines()[0].split()[2].rstrip(".")


@pytest.mark.conformance
def test_merge_lists_the_games_entered_under_each_spelling(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "battle-empire")
    kept = record(cli, "Hugo Lemaire", "Ann")
    twin = record(cli, "Hugo Lemair", "Ann")
    record(cli, "Hugo Lemair", "Bob", date="2025-01-06")  # a game of its own: not listed
    other = record(cli, "Hugo Lemair", "Cat", date="2025-01-07", result="b")
    odd = record(cli, "Hugo Lemaire", "Cat", date="2025-01-07", result="a")
    out = cli.ok("player", "merge", "Hugo Lemair", "Hugo Lemaire", "--reason", "typo")
    lines = out.splitlines()
    assert lines[0] == "Merged 'Hugo Lemair' into 'Hugo Lemaire'."
    assert lines[1].startswith("warning: after this merge, 2 games entered once under each name")
    assert "the duplicate 'record' refuses" in lines[1]
    assert lines[2] == f"  {twin} 2025-01-05, Hugo Lemair v Ann, result a margin decisive"
    assert lines[3] == f"    = {kept} 2025-01-05, Hugo Lemaire v Ann, result a margin decisive"
    assert lines[4].startswith(f"  {other} 2025-01-07, Hugo Lemair v Cat, result b")
    assert lines[5].startswith(f"    = {odd} 2025-01-07, Hugo Lemaire v Cat, result a")
    assert lines[5].endswith("(the results differ: check which is right)")
    assert (
        lines[6] == f"Void the one entered twice, e.g. ledger void {twin} --reason 'entered twice'"
    )
    assert len(lines) == 7
    # The same game recorded again now is refused, as the merge said.
    again = cli.fails("record", "Club", "--date", "2025-01-05", "--side", "Hugo Lemaire",
                      "--side", "Ann", "--result", "a", "--margin", "decisive")  # fmt: skip
    assert f"already recorded as {kept}" in again


def test_merge_without_twins_says_nothing_more(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "battle-empire")
    record(cli, "Hugo Lemaire", "Ann")
    record(cli, "Hugo Lemair", "Ann", date="2025-01-06")
    voided = record(cli, "Hugo Lemair", "Bob", date="2025-01-08")
    record(cli, "Hugo Lemaire", "Bob", date="2025-01-08")
    cli.ok("void", voided, "--reason", "entered twice")
    out = cli.ok("player", "merge", "Hugo Lemair", "Hugo Lemaire", "--reason", "typo")
    assert out == "Merged 'Hugo Lemair' into 'Hugo Lemaire'.\n"
