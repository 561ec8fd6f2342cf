"""Issue 26, "French all the way": the progress bars speak the command's
language. ``ledger --lang fr import`` shows each phase in French (checking
rows, storing games, the views' catch-up), as do a rebuild and a site
build. Before, every label was English whatever the language.

Run as a user types it, in a terminal (a pseudo-terminal: the bars show on
a terminal only)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixtures.generate import main as generate
from tests.conftest import Cli
from tests.test_first_hour_ctrl_c import in_terminal

GAMES = 25_000
ENGLISH = re.compile(r"checking rows|storing games|reading events|rating games|writing pages")


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("progress-fr")
    sheet = tmp / "season.csv"
    generate(["--games", str(GAMES), "--players", "400", "--out", str(sheet), "--ladder", "Big"])
    cli = Cli(str(tmp / "club.db"))
    cli.ok("ladder", "open", "Big", "--family", "elo")
    run = in_terminal(Path(cli.db), "--lang", "fr", "import", str(sheet))
    assert run.code == 0, run.screen[-2000:]
    return Path(cli.db), run.screen


def test_an_import_in_french_shows_every_phase_in_french(imported: tuple[Path, str]) -> None:
    _, screen = imported
    for stage in ("vérification des lignes", "stockage des parties",
                  "vues : lecture des événements", "vues : calcul des cotes"):  # fmt: skip
        assert stage in screen, screen[-2000:]
    assert ENGLISH.search(screen) is None


def test_a_rebuild_and_a_site_build_in_french(imported: tuple[Path, str], tmp_path: Path) -> None:
    db, _ = imported
    run = in_terminal(db, "rebuild", "--lang", "fr")
    assert run.code == 0, run.screen[-2000:]
    assert "lecture des événements" in run.screen and "calcul des cotes" in run.screen
    run = in_terminal(db, "--lang", "fr", "site", "build", str(tmp_path / "site"))
    assert run.code == 0, run.screen[-2000:]
    assert "écriture des pages" in run.screen
    assert ENGLISH.search(run.screen) is None
