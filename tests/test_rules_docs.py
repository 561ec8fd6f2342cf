"""Each family names the page that states its rules, the page exists, and
``--help``, ``ladder show`` and the site show it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli import main
from ledger.families.registry import BUILT_IN
from projections.site.build import slug
from tests.conftest import Cli

ROOT = Path(__file__).resolve().parent.parent
RULES_INDEX = "docs/rules/README.md"
FAMILIES = sorted(BUILT_IN)


@pytest.mark.parametrize("name", FAMILIES)
def test_every_built_in_family_names_a_rules_page_that_exists(name: str) -> None:
    doc = BUILT_IN[name].rules_doc
    assert doc == f"docs/rules/{name}.md", name
    assert (ROOT / doc).is_file(), f"{name}'s rules page {doc} does not exist"


def test_the_index_links_every_family_page_and_every_link_resolves() -> None:
    index = ROOT / RULES_INDEX
    text = index.read_text(encoding="utf-8")
    for name in FAMILIES:
        assert f"({name}.md)" in text, f"{RULES_INDEX} does not link {name}.md"
    for page in (ROOT / "docs/rules").glob("*.md"):
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), f"{page.name} links {target}, which is missing"


def test_the_readme_links_the_rules() -> None:
    assert f"]({RULES_INDEX})" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_ledger_help_names_the_rules_index() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    assert RULES_INDEX in result.output


def test_ladder_open_help_names_every_family_page() -> None:
    result = CliRunner().invoke(main, ["ladder", "open", "--help"])
    assert result.exit_code == 0, result.output
    for name in FAMILIES:
        assert re.search(rf"{re.escape(name)}\s+docs/rules/{re.escape(name)}\.md", result.output)


@pytest.mark.parametrize("name", FAMILIES)
def test_ladder_show_names_the_rules_page(tmp_path: Path, name: str) -> None:
    cli = Cli(str(tmp_path / "ledger.db"))
    cli.ok("ladder", "open", "Club", "--family", name)
    assert f"Rules:    docs/rules/{name}.md\n" in cli.ok("ladder", "show", "Club")


def test_ladder_show_of_a_family_without_a_rules_page(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "ledger.db"))
    cli.ok("ladder", "open", "Skirmish", "--family", "tests.example_family:PointsShareElo")
    assert "Rules:" not in cli.ok("ladder", "show", "Skirmish")


def test_the_site_ladder_page_names_the_rules_page(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "ledger.db"))
    for name in ("bga", "battletech"):
        cli.ok("ladder", "open", f"{name} club", "--family", name)
    out = tmp_path / "site"
    cli.ok("site", "build", str(out))
    for name in ("bga", "battletech"):
        page = (out / slug(f"{name} club") / "index.html").read_text(encoding="utf-8")
        assert f"<code>docs/rules/{name}.md</code>" in page


def test_a_subclass_names_its_own_rules_page_or_none() -> None:
    from ledger.families.elo import EloFamily

    class Skirmish(EloFamily):
        name = "skirmish"

    class Documented(EloFamily):
        name = "documented"
        rules_doc = "docs/skirmish.md"

    assert Skirmish.rules_doc is None
    assert Documented.rules_doc == "docs/skirmish.md"
    assert EloFamily.rules_doc == "docs/rules/elo.md"
