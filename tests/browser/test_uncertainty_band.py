"""A glicko2 ladder's player chart in headless Chromium: the rating's
uncertainty (rating ± RD) drawn as a band around the rating line, wide
for a newcomer and narrowing as they play."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from projections.site.build import slug
from tests.browser.test_site_in_chromium import chromium, run
from tests.conftest import Cli


@pytest.fixture(scope="module")
def band_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Cli, Path, Path]:
    browser = chromium()
    tmp = tmp_path_factory.mktemp("band")
    cli = Cli(str(tmp / "ledger.db"))
    cli.ok("ladder", "open", "Glicko Club", "--family", "glicko2", "--set", "period=month",
           "--set", "provisional_rd=150")  # fmt: skip
    cli.ok("player", "add", "Nova", "Opp1", "Opp2", "Rare")
    cli.ok("record", "Glicko Club", "--date", "2025-06-10", "--side", "Rare", "--side", "Opp1",
           "--result", "draw")  # fmt: skip
    for month in range(1, 13):
        for day, opp, result in ((3, "Opp1", "a"), (17, "Opp2", "b" if month % 3 == 0 else "a")):
            cli.ok("record", "Glicko Club", "--date", f"2025-{month:02d}-{day:02d}",
                   "--side", "Nova", "--side", opp, "--result", result)  # fmt: skip
    out = tmp / "site"
    cli.ok("site", "build", str(out))
    return cli, out, Path(browser)


def _player_page(out: Path, name: str) -> Path:
    for page in (out / slug("Glicko Club") / "players").glob("*.html"):
        if f"<h1>{name}" in page.read_text(encoding="utf-8"):
            return page
    raise AssertionError(f"no page for {name}")


def test_the_band_surrounds_the_rating_line(band_site: tuple[Cli, Path, Path]) -> None:
    cli, out, browser = band_site
    page = _player_page(out, "Nova")
    html = run(browser, out.parent, "--dump-dom", page.as_uri())
    polygon = re.search(r'<polygon class="uncertainty" points="([^"]+)"', html)
    line = re.search(r'<polyline class="line" points="([^"]+)"', html)
    assert polygon and line
    edge = [tuple(map(float, p.split(","))) for p in polygon.group(1).split()]
    points = [tuple(map(float, p.split(","))) for p in line.group(1).split()]
    assert len(edge) == 2 * len(points)
    upper, lower = edge[: len(points)], edge[len(points) :][::-1]
    for (x, y), (xu, yu), (xl, yl) in zip(points, upper, lower, strict=True):
        assert x == xu == xl
        assert yu < y < yl  # SVG's y grows downwards: the band is above and below
    # Wide at first (a newcomer's RD), narrower after a year of games.
    assert (lower[0][1] - upper[0][1]) > 1.5 * (lower[-1][1] - upper[-1][1])
    assert "rating ± deviation" in html
    rows = cli.json("standings", "Glicko Club")
    assert isinstance(rows, list) and all("deviation" in r for r in rows)


def test_the_ranking_shows_deviation_and_provisional(band_site: tuple[Cli, Path, Path]) -> None:
    cli, out, browser = band_site
    html = run(
        browser, out.parent, "--dump-dom", (out / slug("Glicko Club") / "index.html").as_uri()
    )
    rows = cli.json("standings", "Glicko Club")
    assert isinstance(rows, list)
    for r in rows:
        cell = f"± {r['deviation']:.1f}" + (" (provisional)" if r["provisional"] else "")
        assert cell in html, cell
    assert any(r["provisional"] for r in rows) and not all(r["provisional"] for r in rows)


def test_band_screenshot(band_site: tuple[Cli, Path, Path]) -> None:
    _, out, browser = band_site
    for name, page in (("player", _player_page(out, "Nova")),
                       ("ladder", out / slug("Glicko Club") / "index.html")):  # fmt: skip
        png = out.parent / f"band-{name}-desktop.png"
        run(browser, out.parent, "--window-size=1280,1400", f"--screenshot={png}", page.as_uri())
        assert png.stat().st_size > 10_000
        print(png)
