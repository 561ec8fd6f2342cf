"""``ledger site build``: pages hold what the queries say, names are escaped,
links resolve, and a second build rewrites only what changed."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import msgspec
import pytest

from projections import queries, views
from projections.db import SQLiteDatabase
from projections.site.build import page_of, slug
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
    # The ladder's audit download holds every line of its games' audit trails.
    with (ladder_dir(out, "Club") / "games.audit.csv").open(encoding="utf-8") as f:
        lines = [r for r in csv.DictReader(f) if r["Game"] == ids["corrected"]]
    assert [r["Kind"] for r in lines] == ["game recorded", "game corrected"]


def test_game_pages_explain_like_explain(sample: tuple[Cli, dict[str, str], Path]) -> None:
    """The site's one-pass explanation equals ``queries.explain`` for every game."""
    cli, _, out = sample
    conn = views.connect(SQLiteDatabase(cli.db))
    from projections.site import tables
    from projections.site.explain import LadderRules, explain_game

    for name, lid in tables.ladder_ids(conn).items():
        rules = LadderRules(tables.rulesets(conn, lid))
        rows: dict[str, dict[str, dict]] = {}
        for r in tables.history_rows(conn, lid, "9999", by_player=False):
            row = dict(zip(tables.HISTORY_COLUMNS, r, strict=True))
            rows.setdefault(row["key"], {})[row["player"]] = row
        checked = 0
        for gid, short_id, key, status, facts, _, _ in tables.games(conn, lid, "9999"):
            ours = explain_game(name, gid, short_id, key, status, facts, rows.get(key, {}),
                                rules, tables.player_names(conn), tables.merges(conn))  # fmt: skip
            assert msgspec.to_builtins(ours) == msgspec.to_builtins(queries.explain(conn, gid))
            page = ladder_dir(out, name) / page_of(facts.get("event"), facts["date"])
            text = page.read_text("utf-8")
            section = text[text.index(f'id="g-{gid}"') :]
            section = section[: section.index("</section>\n</section>")]  # its tables' end
            for p in ours.players:
                assert f"{p.before:g} → {p.after:g}" in section
                for value_name in p.values:
                    assert value_name in section
            checked += 1
        assert checked > 0


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
