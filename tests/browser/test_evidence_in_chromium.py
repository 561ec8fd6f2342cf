"""Issue 27: each ladder's evidence page in a real headless Chromium, in
English and French: the measures match ``ledger evaluate``, the calibration
chart has a dot per bin sized by its count, the K curve a point per K of
the sweep. Screenshots go to the test's tmp folder (printed with -s)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from projections.site.build import slug
from projections.site.evidence import K_SWEEP
from tests.browser.test_site_in_chromium import WIDTHS, chromium, dom, run
from tests.conftest import Cli
from tests.evidence.test_evaluate import load

LADDERS = ("Chess Club", "BGA Carcassonne", "AdlG Championship")


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[Cli, dict[str, Path], Path]:
    browser = chromium()
    tmp = tmp_path_factory.mktemp("evidence")
    cli = Cli(str(tmp / "ledger.db"))
    for ladder in LADDERS:
        load(cli, ladder)
    out = {}
    for lang in ("en", "fr"):
        out[lang] = tmp / f"site-{lang}"
        cli.ok("site", "build", str(out[lang]), "--lang", lang)
    return cli, out, Path(browser)


def _dots(html: str, kind: str) -> list[float]:
    """The radii of a chart's dots of ``kind`` (not its legend's)."""
    charts = re.findall(r'<svg [^>]*class="(?:calibration|curve)".*?</svg>', html, re.S)
    found = "".join(charts)
    return [float(r) for r in re.findall(rf'<circle class="dot {kind}"[^>]* r="([0-9.]+)"', found)]


@pytest.mark.parametrize("ladder", LADDERS)
def test_the_measures_are_those_of_ledger_evaluate(
    sites: tuple[Cli, dict[str, Path], Path], ladder: str
) -> None:
    cli, out, browser = sites
    path = out["en"] / slug(ladder) / "evidence.html"
    page = dom(browser, path.parent.parent, path)
    report = cli.json("evaluate", ladder)
    shown = {row[0]: row for row in page.tables["measures"]}
    names = {"rules in force": "Rules in force", "always ½": "Always ½",
             "first-player advantage alone": "First-player advantage alone"}  # fmt: skip
    assert set(shown) == {names[line["rules"]] for line in report["lines"]}
    for line in report["lines"]:
        row = shown[names[line["rules"]]]
        assert float(row[3]) == pytest.approx(line["log_loss"], abs=5e-5)
        assert float(row[4]) == pytest.approx(line["brier"], abs=5e-5)
        assert int(row[2]) == line["comparisons"]
    bins = [b for b in report["calibration"] if b["count"]]
    html = run(browser, path.parent.parent, "--dump-dom", path.as_uri())
    radii = _dots(html, "bin")
    assert len(radii) == len(bins) == len(page.tables["calibration"])
    by_count = [r for _, r in sorted(zip([b["count"] for b in bins], radii, strict=True))]
    assert by_count == sorted(radii)  # more comparisons, a bigger dot
    # The ladder's page links here.
    assert "evidence.html" in dom(browser, path.parent.parent, path.parent / "index.html").hrefs


def test_the_k_curve_sweeps_k_where_the_rules_have_one(
    sites: tuple[Cli, dict[str, Path], Path],
) -> None:
    cli, out, browser = sites
    chess = out["en"] / slug("Chess Club") / "evidence.html"
    html = run(browser, chess.parent.parent, "--dump-dom", chess.as_uri())
    points = sum(len(_dots(html, kind)) for kind in ("point", "now", "best"))
    assert points == len(K_SWEEP)
    assert len(_dots(html, "now")) == 1 and len(_dots(html, "best")) == 1  # K in force: 24
    rows = dom(browser, chess.parent.parent, chess).tables["k-curve"]
    tuned = cli.json("tune", "Chess Club", "--vary", "k=8:64:4")
    assert [float(r[1]) for r in rows] == pytest.approx(
        [g["log_loss"] for g in tuned["grid"]], abs=5e-5
    )
    adlg = out["en"] / slug("AdlG Championship") / "evidence.html"
    assert "These rules have no K to vary." in adlg.read_text(encoding="utf-8")


def test_the_page_in_french(sites: tuple[Cli, dict[str, Path], Path]) -> None:
    _, out, browser = sites
    path = out["fr"] / slug("BGA Carcassonne") / "evidence.html"
    text = run(browser, path.parent.parent, "--dump-dom", path.as_uri())
    assert "les règles ont-elles bien prédit" in text
    assert "Perte logarithmique" in text and "Toujours ½" in text
    assert "How well" not in text


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_screenshots(sites: tuple[Cli, dict[str, Path], Path], width: str) -> None:
    _, out, browser = sites
    shots = out["en"].parent / "screenshots"
    shots.mkdir(exist_ok=True)
    for lang, ladder in (("en", "Chess Club"), ("fr", "BGA Carcassonne")):
        path = out[lang] / slug(ladder) / "evidence.html"
        png = shots / f"evidence-{lang}-{width}.png"
        run(browser, out[lang].parent, f"--window-size={WIDTHS[width]},2400",
            f"--screenshot={png}", path.as_uri())  # fmt: skip
        assert png.stat().st_size > 10_000, png
        print(png)
