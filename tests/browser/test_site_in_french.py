"""The site built with ``--lang fr`` in a real headless Chromium: what a
visitor sees, after the page's script ran, is French (issue 26, "French all
the way"): a game's status, result, margin and note, the headings, the
player page. Screenshots of a player page and a game page go to the test's
tmp folder (printed with -s) to be looked at.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from projections.site.build import slug
from tests.browser.sample import SCRIPT, make_sample
from tests.browser.test_site_in_chromium import chromium, page_kinds, run
from tests.conftest import Cli


class Visible(HTMLParser):
    """The text a visitor reads: every text node outside script, style and
    the head."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head"):
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.parts))


@pytest.fixture(scope="module")
def french_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    browser = chromium()
    tmp = tmp_path_factory.mktemp("browser-fr")
    cli = Cli(str(tmp / "ledger.db"))
    make_sample(cli)
    out = tmp / "site"
    cli.ok("site", "build", str(out), "--lang", "fr")
    return out, Path(browser)


def seen(browser: Path, out: Path, page: Path) -> str:
    return Visible(run(browser, out.parent, "--dump-dom", page.as_uri())).text


def test_a_game_page_in_french(french_site: tuple[Path, Path]) -> None:
    out, browser = french_site
    # A month's page of the Club: a corrected game and a voided one.
    pages = sorted((out / slug("Club") / "games").glob("*.html"))
    text = " ".join(seen(browser, out, p) for p in pages)
    for french in (
        "Parties", "Résultat", "État", "enregistrée", "corrigée", "annulée",
        "Note annulée : cette partie ne change aucune cote", "résultat : victoire A",
        "partie corrigée", "Journal d'audit",
    ):  # fmt: skip
        assert french in text, french
    for english in ("recorded", "voided", "result:", "game voided", "changes no rating"):
        assert english not in text, english
    # Battle Empire: a margin through its label.
    be = " ".join(
        seen(browser, out, p) for p in sorted((out / slug("Battle Empire")).rglob("*.html"))
    )
    assert "victoire A décisive" in be and "marge : décisive" in be
    assert "a decisive" not in be and "margin:" not in be


def test_a_player_page_in_french(french_site: tuple[Path, Path]) -> None:
    out, browser = french_site
    text = seen(browser, out, page_kinds(out)["player"])
    assert f"{SCRIPT} Club · Cote : " in text
    for french in ("Historique de la cote", "Adversaires", "Résultat", "Évolution",
                   "Cote après", "partie classée", "gagné"):  # fmt: skip
        assert french in text, french
    for english in ("Rating history", "Opponents", "Change", "won", "lost"):
        assert english not in text, english


@pytest.mark.parametrize("kind", ["player", "game", "voided", "margins"])
def test_french_screenshots(french_site: tuple[Path, Path], kind: str) -> None:
    out, browser = french_site
    shots = out.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    png = shots / f"{kind}-fr.png"
    pages = {
        **page_kinds(out),
        # The page holding the voided game, and Battle Empire's games (margins).
        "voided": next(p for p in sorted((out / slug("Club") / "games").glob("*.html"))
                       if "status-voided" in p.read_text(encoding="utf-8")),
        "margins": next((out / slug("Battle Empire") / "games").glob("*.html")),
    }  # fmt: skip
    run(browser, out.parent, "--window-size=1280,2200", f"--screenshot={png}",
        pages[kind].as_uri())  # fmt: skip
    assert png.stat().st_size > 10_000, png  # a page was drawn, not a blank
    print(png)
