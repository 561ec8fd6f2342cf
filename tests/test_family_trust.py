"""A family is code: the ledger imports one only when it is registered or
trusted (issue: hardening, item 7)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger.families import registry
from tests.conftest import Cli

FAMILY = "tests.example_family:PointsShareElo"
GAME = ("--date", "2025-01-01", "--side", "Ann", "--side", "Bob",
        "--field", "points_a=3", "--field", "points_b=1")  # fmt: skip


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
def booby_trap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A module that leaves a mark when it is imported."""
    mark = tmp_path / "imported"
    (tmp_path / "trap.py").write_text(
        f"open({str(mark)!r}, 'w').write('ran')\n"
        "from tests.example_family import PointsShareElo as Family\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "trap", raising=False)
    return mark


def test_an_untrusted_module_is_refused_before_it_is_imported(
    cli: Cli, untrusting: None, booby_trap: Path
) -> None:
    out = cli.fails("ladder", "open", "Skirmish", "--family", "trap:Family")
    assert "family 'trap:Family' is neither built in nor registered" in out
    assert "--trust-family trap" in out
    assert not booby_trap.exists()
    assert cli.event_count() == 0
    out = cli.fails("ladder", "open", "Zen", "--family", "this:X")
    assert "Beautiful is better than ugly" not in out
    assert "neither built in nor registered" in out


def test_a_trusted_module_is_loaded(
    cli: Cli, untrusting: None, booby_trap: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli.ok("--trust-family", "trap", "ladder", "open", "Skirmish", "--family", "trap:Family")
    assert booby_trap.exists()
    monkeypatch.setenv(registry.TRUST_VARIABLE, "elsewhere, tests")
    cli.ok("ladder", "open", "Other", "--family", FAMILY)  # a module under a trusted one


def test_a_registered_family_needs_no_trust(
    cli: Cli, untrusting: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed package's ``ledger.families`` entry point registers it."""
    dist = tmp_path / "points_share-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: points-share\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[ledger.families]\npoints-share = {FAMILY}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.registered.cache_clear()
    cli.ok("ladder", "open", "ByName", "--family", "points-share")
    cli.ok("ladder", "open", "ByPath", "--family", FAMILY)
    cli.ok("record", "ByName", *GAME, "--add-players")
    assert [r["player"] for r in cli.json("standings", "ByName")] == ["Ann", "Bob"]


def test_a_reader_that_does_not_trust_a_family_loses_that_ladder_alone(
    cli: Cli, untrusting: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(registry.TRUST_VARIABLE, "tests")
    cli.ok("ladder", "open", "Skirmish", "--family", FAMILY)
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("record", "Skirmish", *GAME, "--add-players")
    cli.ok("record", "Club", "--date", "2025-01-01", "--side", "Ann", "--side", "Bob",
           "--result", "a")  # fmt: skip
    monkeypatch.delenv(registry.TRUST_VARIABLE)
    cli.ok("rebuild")
    assert "--trust-family tests.example_family" in cli.fails("standings", "Skirmish")
    assert [r["player"] for r in cli.json("standings", "Club")] == ["Ann", "Bob"]


def test_the_built_in_families_are_named_without_importing_them() -> None:
    """``BUILT_IN`` names each family and says whether it grades without
    importing its module; what it says is what the class says."""
    from ledger.families.base import Family

    assert set(registry.BUILT_IN) == {
        "elo",
        "battle-empire",
        "adlg",
        "battletech",
        "bga",
        "glicko2",
        "weng-lin",
    }
    for name, cls in registry.BUILT_IN.items():
        assert cls.name == name
        assert registry.gives_grades(name) == (cls.grade is not Family.grade), name
    assert registry.gives_grades("elo") is False
    assert registry.gives_grades("battle-empire") is True


def test_a_trusted_family_is_asked_whether_it_grades(untrusting: None) -> None:
    from ledger.families.base import FamilyError

    registry.trust(["tests"])
    assert registry.gives_grades(FAMILY) is False
    with pytest.raises(FamilyError, match="neither built in nor registered"):
        registry.gives_grades("nowhere.module:Nothing")
