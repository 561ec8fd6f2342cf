"""The built site in a real headless Chromium (Debian's ``chromium``), opened
from disk: what a visitor's browser shows, after the page's JavaScript ran.

Without Chromium these tests skip with the reason, unless
LEDGER_TEST_BROWSER=require (set by .ci/run), where they fail instead.
Screenshots of each page kind at phone (390 px) and desktop (1280 px) widths
go to the test's tmp folder (printed with -s).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from projections.site.build import slug
from tests.browser import pages
from tests.browser.sample import PLAYERS, SCRIPT, make_sample
from tests.conftest import Cli

WIDTHS = {"phone": 390, "desktop": 1280}


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    reason = "no chromium on PATH (Debian: apt-get install chromium)"
    if os.environ.get("LEDGER_TEST_BROWSER") == "require":
        pytest.fail(f"LEDGER_TEST_BROWSER=require but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Cli, Path, Path]:
    browser = chromium()
    tmp = tmp_path_factory.mktemp("browser")
    cli = Cli(str(tmp / "ledger.db"))
    make_sample(cli)
    out = tmp / "site"
    cli.ok("site", "build", str(out))
    return cli, out, Path(browser)


def run(browser: Path, tmp: Path, *args: str) -> str:
    profile = tmp / "profile"
    done = subprocess.run(
        [str(browser), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def dom(browser: Path, tmp: Path, page: Path) -> pages.Page:
    """The page's DOM after its scripts ran."""
    return pages.Page(run(browser, tmp, "--dump-dom", page.as_uri()))


def page_kinds(out: Path) -> dict[str, Path]:
    club = out / slug("Club")
    return {
        "index": out / "index.html",
        "ladder": club / "index.html",
        "player": next(p for p in (club / "players").glob("*.html") if SCRIPT in _title(p)),
        "event": next((club / "events").glob("*.html")),
        # Games outside events, on their month's page (each game a section).
        "game": max((club / "games").glob("*.html"), key=lambda p: p.stat().st_size),
    }


def _title(page: Path) -> str:
    import html

    text = page.read_text(encoding="utf-8")
    return html.unescape(text[text.index("<h1>") + 4 : text.index("</h1>")])


def test_standings_in_the_browser_match_the_query(site: tuple[Cli, Path, Path]) -> None:
    cli, out, browser = site
    page = dom(browser, out.parent, out / slug("Club") / "index.html")
    rows = page.tables["standings"]
    expected = cli.json("standings", "Club")
    assert [(r[1], float(r[2])) for r in rows] == [
        (e["player"], round(e["rating"], 4)) for e in expected
    ]
    assert {r[1] for r in rows} == set(PLAYERS)
    # The script ran (sort buttons, a filter box) and a name never became markup.
    html = run(browser, out.parent, "--dump-dom", (out / slug("Club") / "index.html").as_uri())
    assert 'class="sort"' in html and 'type="search"' in html
    assert page.scripts == 1


def test_player_chart_in_the_browser(site: tuple[Cli, Path, Path]) -> None:
    cli, out, browser = site
    page_path = page_kinds(out)["player"]
    page = dom(browser, out.parent, page_path)
    history = cli.json("history", "Club", SCRIPT)
    rated = [h for h in history if h["kind"] == "game"]
    assert len([p for p in page.points if p in ("game", "corrected")]) == len(rated)


def test_no_link_leads_nowhere(site: tuple[Cli, Path, Path]) -> None:
    _, out, browser = site
    reached, broken = pages.broken_links(out)
    assert broken == []
    assert len([p for p in reached if p.suffix == ".html"]) > 10
    # What the browser sees links to the same places as the files.
    for kind, path in page_kinds(out).items():
        seen = dom(browser, out.parent, path).hrefs
        assert set(seen) == set(pages.read(path).hrefs), kind
        for href in seen:
            file, _, fragment = href.partition("#")
            target = (path.parent / file).resolve() if file else path
            assert target.is_file(), (kind, href)
            if fragment:  # a game's section on its event's or month's page
                assert fragment in pages.read(target).ids, (kind, href)


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_screenshots(site: tuple[Cli, Path, Path], width: str) -> None:
    _, out, browser = site
    shots = out.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    for kind, path in page_kinds(out).items():
        png = shots / f"{kind}-{width}.png"
        run(browser, out.parent, f"--window-size={WIDTHS[width]},2200",
            f"--screenshot={png}", path.as_uri())  # fmt: skip
        assert png.stat().st_size > 10_000, png  # a page was drawn, not a blank
        print(png)
