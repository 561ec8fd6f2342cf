"""The layer rules hold: ``lint-imports`` (run by ``make lint``) passes on the
tree as it is and fails, naming the broken contract, when one module imports a
layer above its own.

Each case copies ``ledger/``, ``projections/`` and ``pyproject.toml`` to a
temporary folder, adds one climbing import there, and runs ``lint-imports``
against the copy: the working tree is never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

KERNEL = "The kernel imports nothing else of the project"
FAMILIES = "Rating families are pure: only the kernel, no storage, no CLI"
WRITE_AND_SHEETS = "The write side and the sheets never import the read side or the CLI"
WRITE = "The write side never imports the sheets"
READ = "The read side imports only the kernel and the families of ledger"

#: (module file, the climbing import added to it, the contract it breaks). An
#: import climbing out of a lower layer may break the contracts of the layers
#: above it too (they reach it indirectly); the one named here is its own.
CLIMBING_IMPORTS = [
    ("ledger/kernel/errors.py", "import projections.views", KERNEL),
    ("ledger/kernel/events.py", "import ledger.families.base", KERNEL),
    ("ledger/families/base.py", "import ledger.cli", FAMILIES),
    ("ledger/families/elo.py", "import sqlite3", FAMILIES),
    ("ledger/write/commands.py", "import projections.queries", WRITE_AND_SHEETS),
    ("ledger/sheets/importer.py", "import ledger.cli.context", WRITE_AND_SHEETS),
    ("ledger/write/application.py", "import ledger.sheets.sheet", WRITE),
    ("projections/queries.py", "import ledger.write.commands", READ),
    ("projections/teams/balance.py", "import ledger.sheets.importer", READ),
]

pytestmark = pytest.mark.skipif(
    not LINT_IMPORTS.exists(), reason="lint-imports is not installed beside this Python"
)


def copy_tree(to: Path) -> Path:
    """The project's packages and its import contracts, copied under ``to``."""
    for package in ("ledger", "projections"):
        shutil.copytree(ROOT / package, to / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", to / "pyproject.toml")
    return to


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` run in ``tree``, importing the copied packages."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_tree_as_it_is_keeps_every_contract(tmp_path: Path) -> None:
    run = lint_imports(copy_tree(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.mark.parametrize(("module", "statement", "contract"), CLIMBING_IMPORTS)
def test_a_climbing_import_breaks_its_contract(
    tmp_path: Path, module: str, statement: str, contract: str
) -> None:
    tree = copy_tree(tmp_path)
    path = tree / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{statement}\n", encoding="utf-8")
    run = lint_imports(tree)
    assert run.returncode != 0, f"{statement!r} in {module} was not refused:\n{run.stdout}"
    assert f"{contract} BROKEN" in run.stdout, run.stdout
    # The report names the import that climbs.
    importer = module.removesuffix(".py").replace("/", ".")
    assert importer in run.stdout, run.stdout
