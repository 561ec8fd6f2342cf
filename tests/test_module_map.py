"""The README's module map ("How it is built") names every module of the
project, and names only modules that exist.

A module is named by its path in backquotes, e.g. ``ledger/kernel/events.py``.
Package markers (``__init__.py``, ``__main__.py``) need no row.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ledger", "projections")
SECTION = "## How it is built"
NAMED_MODULE = re.compile(r"`((?:ledger|projections)/[\w/]+\.py)`")


def module_map() -> str:
    """The README's "How it is built" section, up to the next section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(SECTION)
    end = readme.find("\n## ", start + len(SECTION))
    return readme[start : end if end >= 0 else len(readme)]


def named_modules() -> set[str]:
    return set(NAMED_MODULE.findall(module_map()))


def project_modules() -> set[str]:
    return {
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if path.name not in ("__init__.py", "__main__.py")
    }


def test_the_map_names_every_module() -> None:
    missing = sorted(project_modules() - named_modules())
    assert not missing, (
        f"README.md's module map ({SECTION!r}) does not name "
        + ", ".join(missing)
        + ": add each to the table of its layer, as `path/to/module.py`"
    )


def test_every_module_the_map_names_exists() -> None:
    stale = sorted(named_modules() - project_modules())
    assert not stale, (
        f"README.md's module map ({SECTION!r}) names modules that do not exist: "
        + ", ".join(stale)
        + ": rename or remove their rows"
    )


def test_the_map_has_one_table_a_layer() -> None:
    text = module_map()
    for layer in (
        "ledger/kernel/",
        "ledger/families/",
        "ledger/write/",
        "ledger/sheets/",
        "ledger/cli/",
        "projections/",
        "projections/views/",
        "projections/site/",
        "projections/teams/",
    ):
        assert f"(`{layer}`):" in text, f"README.md's module map has no table for {layer}"
