"""Issue 26, "A family that cannot be loaded" (not installed, not trusted)
gives a one-line error for that ladder in ``standings``, ``explain``,
``teams`` and ``ladder show``; ``site build`` builds every other ladder and
says which it skipped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result

from ledger.families import registry
from tests.conftest import Cli
from tests.test_family_trust import FAMILY, GAME

UNTRUSTED = (
    f"family {FAMILY!r} is neither built in nor registered: loading it would run the code "
    "of module 'tests.example_family'"
)


@pytest.fixture
def untrusting(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No module trusted (the test suite trusts ``tests`` otherwise)."""
    monkeypatch.delenv(registry.TRUST_VARIABLE, raising=False)
    saved = set(registry._trusted)
    registry._trusted.clear()
    registry.registered.cache_clear()
    yield
    registry._trusted.clear()
    registry._trusted.update(saved)
    registry.registered.cache_clear()


@pytest.fixture
def two_ladders(cli: Cli, untrusting: None, monkeypatch: pytest.MonkeyPatch) -> tuple[Cli, str]:
    """Skirmish (a trusted family's, then trusted no more) and Club (elo)."""
    monkeypatch.setenv(registry.TRUST_VARIABLE, "tests")
    cli.ok("ladder", "open", "Skirmish", "--family", FAMILY)
    cli.ok("ladder", "open", "Club", "--family", "elo")
    out = cli.ok("record", "Skirmish", *GAME, "--add-players")
    cli.ok("record", "Club", "--date", "2025-01-01", "--side", "Ann", "--side", "Bob",
           "--result", "a")  # fmt: skip
    monkeypatch.delenv(registry.TRUST_VARIABLE)
    return cli, out.split()[2].rstrip(".")


def one_line(result: Result) -> str:
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_standings_of_the_ladder_alone_fail_in_one_line(
    two_ladders: tuple[Cli, str], fmt: str
) -> None:
    cli, _ = two_ladders
    line = one_line(cli.run("standings", "Skirmish", "--format", fmt))
    assert line.startswith(f"Error: ladder 'Skirmish': {UNTRUSTED}")
    assert "--trust-family tests.example_family" in line
    assert "Ann" in cli.ok("standings", "Club", "--format", fmt)


def test_explain_teams_and_ladder_show_fail_in_one_line(two_ladders: tuple[Cli, str]) -> None:
    cli, game = two_ladders
    assert one_line(cli.run("explain", game)).startswith(f"Error: game {game!r}: {UNTRUSTED}")
    line = one_line(cli.run("teams", "Skirmish", "--camps", "2", "Ann", "Bob"))
    assert line.startswith(f"Error: ladder 'Skirmish': {UNTRUSTED}")
    line = one_line(cli.run("ladder", "show", "Skirmish"))
    assert line.startswith(f"Error: ladder 'Skirmish': {UNTRUSTED}")


@pytest.mark.parametrize("rebuilt", [False, True], ids=["views as they were", "rebuilt"])
def test_site_build_skips_that_ladder_and_builds_the_others(
    two_ladders: tuple[Cli, str], tmp_path: Path, rebuilt: bool
) -> None:
    cli, _ = two_ladders
    if rebuilt:  # the replay itself then fails: the ladder's problem
        cli.ok("rebuild")
    out_dir = tmp_path / "site"
    result = cli.run("site", "build", str(out_dir))
    assert result.exit_code == 0, result.output
    warnings = result.stderr.splitlines()
    assert len(warnings) == 1
    assert warnings[0].startswith("Warning: skipped ladder 'Skirmish'")
    assert UNTRUSTED in warnings[0]
    index = (out_dir / "index.html").read_text()
    assert "Club" in index and "Skirmish" not in index
    assert [p.name for p in out_dir.iterdir() if p.name.startswith("club-")]
    assert not [p for p in out_dir.iterdir() if p.name.startswith("skirmish-")]


def test_a_skipped_ladder_keeps_the_pages_an_earlier_build_published(
    two_ladders: tuple[Cli, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli, _ = two_ladders
    out_dir = tmp_path / "site"
    monkeypatch.setenv(registry.TRUST_VARIABLE, "tests")
    cli.ok("site", "build", str(out_dir))
    published = sorted(p for p in out_dir.rglob("*") if "skirmish-" in str(p) and p.is_file())
    assert published
    monkeypatch.delenv(registry.TRUST_VARIABLE)
    result = cli.run("site", "build", str(out_dir))
    assert result.exit_code == 0, result.output
    assert "skipped ladder 'Skirmish'" in result.stderr
    assert sorted(p for p in out_dir.rglob("*") if "skirmish-" in str(p) and p.is_file()) == (
        published
    )
