"""Bulk reads that hold a ladder's rows (``ledger export``, ``ledger
verify``) run with the cyclic garbage collector paused, and leave it as
they found it: the rows form no cycle, and every collection set off while
they grow walks them all to free nothing (1M games: 156 full collections
in an export)."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from typing import Any

import pytest

from projections import export, verify
from tests.conftest import Cli


@pytest.fixture
def club(cli: Cli) -> Cli:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Ben")
    for day in range(1, 5):
        cli.ok("record", "Club", "--date", f"2025-01-0{day}", "--side", "Ann", "--side", "Ben",
               "--result", "a")  # fmt: skip
    return cli


def _watched(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[bool]:
    """Whether the collector ran, each time ``module.name`` is called."""
    inner: Callable[..., Any] = getattr(module, name)
    seen: list[bool] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return inner(*args, **kwargs)

    monkeypatch.setattr(module, name, watched)
    return seen


def test_an_export_runs_with_the_collector_paused(
    club: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _watched(monkeypatch, export, "ladder_tables")
    assert gc.isenabled()
    out = club.ok("export", "Club", "--format", "json")
    assert seen == [False]
    assert gc.isenabled()
    assert len(json.loads(out)["games"]) == 4


def test_verify_runs_with_the_collector_paused(club: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _watched(monkeypatch, verify, "compare_views")
    assert gc.isenabled()
    out = club.ok("verify")
    assert seen == [False]
    assert gc.isenabled()
    assert "problem" not in out.lower(), out


def test_rows_are_rendered_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    from projections import formats, queries

    seen = _watched(monkeypatch, formats, "csv_text")
    assert gc.isenabled()
    row = queries.StandingRow(
        rank=1, player="Ann", rating=1516.0, grade=None, games=1, last_played="2025-01-01"
    )
    text = formats.render([row], "csv", kind=queries.StandingRow)
    assert seen == [False]
    assert gc.isenabled()
    assert text.splitlines()[1].startswith("1,Ann,1516")


def test_a_migration_checks_and_copies_with_the_collector_paused(
    club: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from ledger.kernel import chain
    from ledger.write import migrate

    checked = _watched(monkeypatch, chain, "link")  # (the source's chain, event by event)
    inner = migrate.pages
    copied: list[bool] = []

    def pages(*args: Any, **kwargs: Any) -> Any:
        for page in inner(*args, **kwargs):
            copied.append(gc.isenabled())
            yield page

    monkeypatch.setattr(migrate, "pages", pages)
    assert gc.isenabled()
    club.ok("migrate", "--from", club.db, "--to", str(tmp_path / "copy.db"))
    assert checked and set(checked) == {False}
    assert copied and set(copied) == {False}
    assert gc.isenabled()


def test_a_site_is_built_with_the_collector_paused(
    club: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from projections.site import build

    seen = _watched(monkeypatch, build.SiteBuilder, "build")
    assert gc.isenabled()
    club.ok("site", "build", str(tmp_path / "site"))
    assert seen == [False]
    assert gc.isenabled()
    assert (tmp_path / "site" / "index.html").is_file()
