"""``ledger site build``: pages hold what the queries say, names are escaped,
links resolve, and a second build rewrites only what changed."""

from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path

import pytest

from projections import queries, views
from projections.db import SQLiteDatabase
from projections.site.build import slug
from projections.views import games as kept_games
from tests.browser import pages
from tests.browser.sample import FORMULA, LINK, PLAYERS, SCRIPT, make_sample
from tests.conftest import Cli


@pytest.fixture
def sample(tmp_path: Path) -> tuple[Cli, dict[str, str], Path]:
    cli = Cli(str(tmp_path / "site.db"))
    ids = make_sample(cli)
    out = tmp_path / "site"
    cli.ok("site", "build", str(out))
    return cli, ids, out


def ladder_dir(out: Path, name: str) -> Path:
    return out / slug(name)


def game_section(out: Path, ladder: str, short_id: str) -> tuple[Path, str]:
    """The page holding a game (its event's or its month's) and the game's id."""
    for page in (ladder_dir(out, ladder)).rglob("*.html"):
        match = re.search(rf'<section class="game" id="g-({short_id}[^"]*)"', page.read_text())
        if match:
            return page, match.group(1)
    raise AssertionError(f"no section for game {short_id}")


def sections(root: Path) -> list[str]:
    """The ids of every game section of the site."""
    return [
        m for p in root.rglob("*.html")
        for m in re.findall(r'<section class="game" id="g-([^"]+)"', p.read_text())
    ]  # fmt: skip


def written(output: str) -> int:
    match = re.search(r"(\d+) pages, (\d+) written", output)
    assert match, output
    return int(match.group(2))


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.name != ".ledger-site"
    }


def test_standings_page_matches_standings_json(sample: tuple[Cli, dict[str, str], Path]) -> None:
    cli, _, out = sample
    for ladder in ("Club", "Battle Empire"):
        expected = cli.json("standings", ladder)
        rows = pages.read(ladder_dir(out, ladder) / "index.html").tables["standings"]
        assert [(r[1], float(r[2])) for r in rows] == [
            (e["player"], round(e["rating"], 4)) for e in expected
        ]
        if any(e["grade"] for e in expected):
            assert [r[3] for r in rows] == [e["grade"] or "" for e in expected]
        else:  # no family grade: no grade column
            assert {len(r) for r in rows} == {6}
        # The download beside the table holds the same rows.
        with (ladder_dir(out, ladder) / "standings.csv").open(encoding="utf-8") as f:
            downloaded = list(csv.DictReader(f))
        assert len(downloaded) == len(expected)


def test_hostile_names_are_plain_text(sample: tuple[Cli, dict[str, str], Path]) -> None:
    _, _, out = sample
    every_page = "".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))
    assert SCRIPT not in every_page
    assert "<b>1</b>" not in every_page and "<i>oops</i>" not in every_page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in every_page
    club = pages.read(ladder_dir(out, "Club") / "index.html")
    names = {r[1] for r in club.tables["standings"]}
    assert {SCRIPT, FORMULA, LINK} <= names
    # One script per page: the vendored one (a name never becomes a script).
    for page in out.rglob("*.html"):
        assert pages.read(page).scripts == 1, page
    # The spreadsheet download neutralises formulas; the JSON keeps the name.
    text = (ladder_dir(out, "Club") / "standings.csv").read_text(encoding="utf-8")
    assert "'=1+1" in text and "\n=" not in text and ",=" not in text
    records = json.loads((ladder_dir(out, "Club") / "standings.json").read_text("utf-8"))
    assert {FORMULA, SCRIPT} <= {r["Name"] for r in records}


def test_every_link_resolves(sample: tuple[Cli, dict[str, str], Path]) -> None:
    _, _, out = sample
    reached, broken = pages.broken_links(out)
    assert broken == []
    # Every page is reachable from the index (a voided game's section too).
    assert {p.resolve() for p in out.rglob("*.html")} <= reached
    assert len(list((ladder_dir(out, "Club") / "players").glob("*.html"))) == len(PLAYERS)
    # Every game has a section; every player page links each rated game to it.
    assert len(sections(out)) == 7 + 2
    club_players = ladder_dir(out, "Club") / "players"
    links = {h for p in club_players.glob("*.html") for h in pages.read(p).hrefs if "#g-" in h}
    assert len({h.split("#g-")[1] for h in links}) == 6  # every Club game but the voided one


def test_player_chart_has_one_point_per_rated_game(
    sample: tuple[Cli, dict[str, str], Path],
) -> None:
    cli, _, out = sample
    who = dict((v, k) for k, v in SQLiteDatabase(cli.db).execute(
        "SELECT id, name FROM view_players").fetchall())  # fmt: skip
    for name in PLAYERS:
        history = cli.json("history", "Club", name)
        page = pages.read(ladder_dir(out, "Club") / "players" / f"{who[name]}.html")
        games = [h for h in history if h["kind"] == "game"]
        assert len([p for p in page.points if p in ("game", "corrected")]) == len(games)
        assert len(page.points) == len(history)
        assert [float(r[7]) for r in page.tables["games"]] == [
            round(h["after"], 4) for h in history
        ]


def test_corrections_are_visible(sample: tuple[Cli, dict[str, str], Path]) -> None:
    cli, ids, out = sample
    corrected = cli.json("explain", ids["corrected"])
    game, gid = game_section(out, "Club", ids["corrected"])
    text = game.read_text(encoding="utf-8")
    assert "sheet misread &lt;i&gt;oops&lt;/i&gt;" in text  # why, in the audit trail
    audit = pages.read(game).tables[f"{gid}-audit"]
    assert [r[2] for r in audit] == ["game recorded", "game corrected"]
    assert all(r[1] == "tester" for r in audit)
    points = [
        pages.read(ladder_dir(out, "Club") / "players" / f"{p}.html").points
        for p in {f.stem for f in (ladder_dir(out, "Club") / "players").glob("*.html")}
    ]
    assert sum(p.count("corrected") for p in points) == len(corrected["players"])
    voided, _ = game_section(out, "Club", ids["voided"])
    assert "voided: this game changes no rating" in voided.read_text(encoding="utf-8")
    # The page's audit download (linked beside the trail) holds its games' lines.
    assert f'href="{game.stem}.audit.csv"' in text
    with (game.parent / f"{game.stem}.audit.csv").open(encoding="utf-8") as f:
        lines = [r for r in csv.DictReader(f) if r["Game"] == ids["corrected"]]
    assert [r["Kind"] for r in lines] == ["game recorded", "game corrected"]


def _short(value: float) -> str:
    """A number as the site's tables show it (4 decimals, no trailing zeros)."""
    return f"{value:.4f}".rstrip("0").rstrip(".")


def test_game_sections_show_the_numbers_explain_shows(
    sample: tuple[Cli, dict[str, str], Path],
) -> None:
    """A game's section is its stored rows, not the family run again: for
    every game, the same before, change, after, K, P and S as
    ``ledger explain --format json``, the same status, date and note."""
    cli, _, out = sample
    checked = 0
    for ladder in ("Club", "Battle Empire"):
        for page in ladder_dir(out, ladder).rglob("*.html"):
            text = page.read_text("utf-8")
            for gid in re.findall(r'<section class="game" id="g-([^"]+)"', text):
                explained = cli.json("explain", gid)
                section = text[text.index(f'id="g-{gid}"') :]
                end = section.find('<section class="game"', 1)
                section = section[: end if end > 0 else section.index("</main>")]
                assert f"<h2>Game {explained['game']}</h2>" in section
                assert f"<dd>{explained['date']}</dd>" in section
                assert f'class="status-{explained["status"]}"' in section
                assert explained["family"] in section
                # The result as people read it, not as JSON.
                shown = " · ".join(
                    f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}"
                    for k, v in explained["result"].items() if v is not None
                )  # fmt: skip
                assert f"<dd>{html.escape(shown)}</dd>" in section, section
                assert "<code>{" not in section
                if explained.get("note"):
                    assert explained["note"] in section
                rows = pages.read(page).tables.get(f"{gid}-players", [])  # none when voided
                expected = []
                for p in explained["players"]:
                    k, p_, s = (p["values"].get(v) for v in ("K", "P", "S"))
                    expected.append([
                        p["side"], p["player"], _short(p["before"]),
                        f"{p['change']:+.4f}".rstrip("0").rstrip("."), _short(p["after"]),
                        *("" if v is None else _short(v) for v in (k, p_, s)),
                    ])  # fmt: skip
                assert rows == expected, gid
                checked += 1
    assert checked == 7 + 2


def test_audit_trails_are_the_audit_lines(sample: tuple[Cli, dict[str, str], Path]) -> None:
    """Every game's trail on the site (and in the ladder's download) is its
    lines of ``queries.audit_lines``, read in one query per ladder."""
    cli, _, out = sample
    conn = views.connect(SQLiteDatabase(cli.db))
    games = kept_games.ids(conn)
    seq_game = dict(conn.execute(
        "SELECT seq, subject FROM view_audit WHERE kind LIKE 'game %'").fetchall())  # fmt: skip
    expected: dict[str, list[list[str]]] = {}
    for line in queries.audit_lines(conn, "a.kind LIKE 'game %'"):
        gid = games[seq_game.get(line.seq, line.seq)]
        expected.setdefault(gid, []).append([
            line.recorded_at[:19].replace("T", " "), line.by, line.kind, line.summary,
            line.reason or "", line.source or "",
        ])  # fmt: skip
    seen = 0
    for ladder in ("Club", "Battle Empire"):
        for page in ladder_dir(out, ladder).rglob("*.html"):
            read = pages.read(page)
            found = re.findall(r'<section class="game" id="g-([^"]+)"', page.read_text())
            text = page.read_text()
            for gid in found:
                if len(expected[gid]) > 1:  # corrected, voided: the trail as a table
                    assert read.tables[f"{gid}-audit"] == expected[gid], gid
                else:  # recorded once: when, who and where, in the game's facts
                    assert f"{gid}-audit" not in read.tables
                    when, by, _, _, why, source = expected[gid][0]
                    section = text[text.index(f'id="g-{gid}"') :]
                    line = section[section.index("<dt>Recorded</dt><dd>") :].split("</dd>")[0]
                    assert html.unescape(line) == "<dt>Recorded</dt><dd>" + " · ".join(
                        v for v in (when, by, source, why) if v
                    )
                seen += 1
            if not found:
                continue
            # The page's download: the same lines, spreadsheet-safe.
            with (page.parent / f"{page.stem}.audit.csv").open(encoding="utf-8") as f:
                downloaded = [[r[c] for c in ("Game", "When", "Who", "Kind", "What", "Why",
                                              "Source")] for r in csv.DictReader(f)]  # fmt: skip
            assert downloaded == [
                [gid.replace("-", "")[:8], *(v if not v.startswith("=") else "'" + v for v in e)]
                for gid in found for e in expected[gid]
            ]  # fmt: skip
    assert seen == 7 + 2 and any(len(lines) > 1 for lines in expected.values())


def test_second_build_rewrites_only_what_changed(
    sample: tuple[Cli, dict[str, str], Path], tmp_path: Path
) -> None:
    cli, _, out = sample
    foreign = out / "notes.txt"
    foreign.write_text("mine")
    again = cli.ok("site", "build", str(out))
    assert written(again) == 0, again
    before = tree(out)
    out_game = cli.ok("record", "Club", "--date", "2025-03-20", "--side", "Paul Roy",
                      "--side", "Éric Dupont", "--result", "a")  # fmt: skip
    third = cli.ok("site", "build", str(out))
    after = tree(out)
    changed = {k for k in after if before.get(k) != after[k]}
    n_pages = len([k for k in after if k.endswith(".html")])
    # The new game's page, its two players, the ladder and the index; nothing else.
    assert written(third) == len([k for k in changed if k.endswith(".html")])
    assert 3 < written(third) < n_pages / 2, third
    short_id = re.search(r"Recorded game ([0-9a-f]{8})", out_game).group(1)
    page, _ = game_section(out, "Club", short_id)
    assert str(page.relative_to(out)) in changed
    assert not any("Battle" in k or slug("Battle Empire") in k for k in changed)
    # The incremental result is exactly a fresh build.
    fresh = tmp_path / "fresh"
    cli.ok("site", "build", str(fresh))
    assert tree(fresh) == {k: v for k, v in after.items() if k != "notes.txt"}
    assert foreign.read_text() == "mine"  # never touches what the site did not write


def test_lang_title_and_as_of(sample: tuple[Cli, dict[str, str], Path], tmp_path: Path) -> None:
    cli, _, _ = sample
    out = tmp_path / "fr"
    cli.ok("site", "build", str(out), "--lang", "fr", "--title", "Ligue <Nord>",
           "--as-of", "2025-02-01", "--ladder", "club")  # fmt: skip
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'lang="fr"' in index and "Ligue &lt;Nord&gt;" in index
    assert not (out / slug("Battle Empire")).exists()
    expected = cli.json("standings", "Club", "--as-of", "2025-02-01")
    rows = pages.read(ladder_dir(out, "Club") / "index.html").tables["standings"]
    assert [(r[1], float(r[2])) for r in rows] == [
        (e["player"], round(e["rating"], 4)) for e in expected
    ]
    assert len(sections(out)) == 4  # the games after 2025-02-01 are not published yet
    fr = tmp_path / "be"
    cli.ok("site", "build", str(fr), "--lang", "fr", "--ladder", "Battle Empire")
    grades_fr = {r[3] for r in pages.read(ladder_dir(fr, "Battle Empire") / "index.html")
                 .tables["standings"]}  # fmt: skip
    expected_fr = {e["grade"] for e in cli.json("standings", "Battle Empire", "--lang", "fr")}
    assert grades_fr == expected_fr


def test_index_publishes_the_chain_head(sample: tuple[Cli, dict[str, str], Path]) -> None:
    cli, _, out = sample
    head = cli.ok("audit", "--head").strip()
    index = (out / "index.html").read_text(encoding="utf-8")
    assert f"ledger verify --head {head}" in index
    rows = [r for r in pages.Page(index).hrefs if r.endswith("index.html")]
    assert len(rows) == 2 + 1  # two ladders and the home link
    assert "OK" in cli.ok("verify", "--head", head)


def test_refusals(sample: tuple[Cli, dict[str, str], Path], tmp_path: Path) -> None:
    cli, _, _ = sample
    assert "unknown ladder 'Nope'" in cli.fails("site", "build", str(tmp_path / "x"),
                                                  "--ladder", "Nope")  # fmt: skip
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert cli.fails("site", "build", str(a_file))


def test_a_helper_process_builds_the_same_site(
    sample: tuple[Cli, dict[str, str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Big ladders write their player pages in a forked helper: the site is
    the same, and the counts of what was written add up."""
    from projections.site import parallel

    cli, _, out = sample
    forked: list[int] = []
    start = parallel.start
    monkeypatch.setattr(parallel, "MIN_ROWS", 0)
    monkeypatch.setattr(parallel, "start", lambda *a, **k: forked.append(1) or start(*a, **k))
    said = cli.ok("site", "build", str(tmp_path / "forked"))
    assert forked and written(said) == len(list(out.rglob("*.html")))
    assert tree(tmp_path / "forked") == tree(out)
    # Again with nothing new: nothing written, and the manifest keeps every file.
    again = cli.ok("site", "build", str(tmp_path / "forked"))
    assert written(again) == 0, again
    manifest = (tmp_path / "forked" / ".ledger-site").read_text().splitlines()
    assert sorted(manifest) == sorted(tree(out))


def test_site_csv_is_write_csv() -> None:
    """The site's CSV writer (a cell at a time, texts cached) writes what
    ``projections.formats.write_csv`` writes: formulas neutralised, quoting, numbers."""
    import io
    import random

    from projections.formats import write_csv
    from projections.site.writer import csv_text

    rnd = random.Random(13)
    texts = [FORMULA, LINK, SCRIPT, "a,b", 'say "hi"', "two\nlines", "", "-5", "+1", "@x",
             "\tx", "plain", "Éric", " spaced "]  # fmt: skip
    values = [*texts, None, 0, -3, 1.5, -0.25, 1e-05, 1e16, 2.0, True]
    for n_columns in (1, 2, 5):
        rows = [[rnd.choice(values) for _ in range(n_columns)] for _ in range(300)]
        columns = [f"c{i}" for i in range(n_columns - 1)] + ["=sum"]
        out = io.StringIO()
        write_csv(out, columns, rows)
        assert csv_text(columns, rows) == out.getvalue()
    careful = [["a\rb", 1], ["x", 2]]
    out = io.StringIO()
    write_csv(out, ["a", "b"], careful)
    assert csv_text(["a", "b"], careful) == out.getvalue()
    assert "'=1+1" in csv_text(["a", "b"], [[FORMULA, 1]])


def test_grade_history_only_where_the_rules_grade(
    sample: tuple[Cli, dict[str, str], Path],
) -> None:
    """A Battle Empire player page shows its grade history (and its
    downloads); an Elo ladder, whose family gives no grades, has neither."""
    _, _, out = sample
    for ladder, graded in (("Battle Empire", True), ("Club", False)):
        players = ladder_dir(out, ladder) / "players"
        page = next(players.glob("*.html"))
        stem = page.name.removesuffix(".html")
        assert ('id="grades"' in page.read_text("utf-8")) is graded, ladder
        assert (players / f"{stem}.grades.csv").exists() is graded, ladder
        assert (players / f"{stem}.grades.json").exists() is graded, ladder


def test_progress_counts_every_page(
    sample: tuple[Cli, dict[str, str], Path], tmp_path: Path
) -> None:
    """``progress(done, total)`` hears each event, month and player page as
    it is written, and ends with every one of them written."""
    from projections.site.build import build_site

    cli, _, _ = sample
    heard: list[tuple[int, int]] = []
    out = tmp_path / "again"
    build_site(SQLiteDatabase(cli.db), out, progress=lambda d, t: heard.append((d, t)))
    pages_ = [p for p in out.rglob("*.html") if p.name != "index.html"]
    assert heard, "no progress told"
    assert heard == [(done, len(pages_)) for done in range(1, len(pages_) + 1)]


def index_counts(out: Path) -> dict[str, tuple[int, int]]:
    """Ladder name -> (players, games) as the site's index lists them."""
    index = (out / "index.html").read_text(encoding="utf-8")
    return {
        html.unescape(name): (int(players), int(games_))
        for name, players, games_ in re.findall(
            r'<tr><td><a href="[^"]+">([^<]+)</a></td><td>[^<]*</td><td class="n" '
            r'data-v="(\d+)">\d+</td><td class="n" data-v="(\d+)">',
            index,
        )
    }


def test_index_counts_players_and_games(
    sample: tuple[Cli, dict[str, str], Path], tmp_path: Path
) -> None:
    """The index's players and games per ladder: today and as of a date."""
    cli, _, out = sample
    past = tmp_path / "past"
    cli.ok("site", "build", str(past), "--as-of", "2025-02-01")
    for built, as_of in ((out, ()), (past, ("--as-of", "2025-02-01"))):
        counted = index_counts(built)
        assert set(counted) == {"Club", "Battle Empire"}
        for ladder, (players, games_) in counted.items():
            assert players == len(cli.json("standings", ladder, *as_of)), (ladder, as_of)
            statuses = [
                status for page in ladder_dir(built, ladder).rglob("*.html")
                for status in re.findall(r'<dd class="status-(\w+)">', page.read_text("utf-8"))
            ]  # fmt: skip
            assert games_ == len([s for s in statuses if s != "voided"]), (ladder, as_of)
        assert any(games_ for _, games_ in counted.values())
