"""Build the static site: gather each ladder from the views, render its pages.

One ladder is read in two streaming passes over its history: by event
(event pages, which hold their games) and by player (player pages, grade
histories and the standings' recent change). Pages link to each other by
relative paths, so the site works opened from disk or from any web server.

A game has no page of its own (100,000 games would be 100,000 files to
render, compare and serve): its explanation and audit trail are a section of
its event's page, or of its month's page for a game outside events, and its
stable address is that page with the game's id as fragment
(``events/EVENT.html#g-GAME-ID``), which the player pages link to.

Layout under the output directory::

    index.html                         the ladders and the hash-chain head
    static/site.css, static/site.js    vendored, small; pages read fine without JS
    LADDER/index.html                  standings, distribution, rules, seasons
    LADDER/players/PLAYER-ID.html      rating history, games, grades
    LADDER/events/EVENT.html           a tournament's games, total changes, and
                                       each game's explanation and audit trail
    LADDER/games/YYYY-MM.html          the same for a month's games outside events

and beside every table its rows as ``.csv`` and ``.json``.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Iterator
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import msgspec
from markupsafe import Markup

from ledger import chain
from ledger.errors import Invalid
from ledger.identity import short
from projections import queries
from projections.db import Database
from projections.families.base import PlayerState
from projections.site import charts, html, parallel, tables
from projections.site.explain import LadderRules, explain_game, final
from projections.site.html import Cell, DataTable
from projections.site.output import BuildReport, SiteWriter
from projections.site.text import LANGS, WORDS

#: Effective-order keys start with a date: this sorts after every one of them.
ALL = "9999-12-31\x7f"


# -- formatting ---------------------------------------------------------------------
_new = tuple.__new__  # a Cell without NamedTuple's Python-level __new__ (millions are made)
_EMPTY = Cell("")


def num(value: float | None) -> Cell:
    """A number's cell: ``html.short`` text, the exact value to sort by."""
    if value is None:
        return _EMPTY
    return _new(Cell, (f"{value:.4f}".rstrip("0").rstrip("."), None, value))


def signed(value: float | None) -> Cell:
    """``num`` with a sign."""
    if value is None:
        return _EMPTY
    return _new(Cell, (f"{value:+.4f}".rstrip("0").rstrip("."), None, value))


@functools.lru_cache(maxsize=4096)
def slug(text: str) -> str:
    """A file name for a ladder or event name: ASCII words and a short hash
    (two names that read the same still get two files)."""
    ascii_ = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.sub(r"[^a-z0-9]+", "-", ascii_.lower()).strip("-")[:40] or "x"
    return f"{words}-{hashlib.sha256(text.encode()).hexdigest()[:6]}"


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("projections.site", "templates"),
        autoescape=True,  # names, reasons and notes are untrusted input
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    return env


def page_of(event: str | None, day: str) -> str:
    """The page holding a game, relative to its ladder's folder: its event's,
    or its month's for a game outside events."""
    return f"events/{slug(event)}.html" if event else f"games/{day[:7]}.html"


def _table(
    id_: str,
    caption: str,
    columns: list[tuple[str, bool]],
    rows: list[list[Cell]],
    stem: str,
    optional: tuple[int, ...] = (),
) -> DataTable:
    """A table from (heading, numeric) columns; ``optional`` column numbers
    are left out on narrow screens."""
    raw = [[c.sort if c.sort is not None and not isinstance(c.sort, str) else c.text
            for c in row] for row in rows]  # fmt: skip
    numeric = [n for _, n in columns]
    optional_ = [i in optional for i in range(len(columns))]
    classes = []
    for n, o in zip(numeric, optional_, strict=True):
        names = " ".join(c for c, on in (("n", n), ("opt", o)) if on)
        classes.append(Markup(f' class="{names}"' if names else ""))
    return DataTable(
        id_, caption, [c for c, _ in columns], numeric, optional_, classes, rows, raw, stem
    )


class GamePage:
    """The games of one event (or one month outside events) as they are
    read: their table rows, sections, downloads and each player's total."""

    def __init__(
        self,
        path: str,
        event: str | None,
        month: str,
        changes: list[list[Any]],
        audit: list[list[Any]],
    ) -> None:
        self.path, self.event, self.month = path, event, month
        self.first: str | None = None
        self.last: str | None = None
        self.rated = 0
        self.games: list[list[Cell]] = []
        self.sections: list[str] = []
        self.totals: dict[str, float] = {}
        # The ladder's downloads of every game's changes and audit lines
        # (one pair of files for the ladder, not four files per page).
        self.changes = changes
        self.audit = audit

    @staticmethod
    def changes_columns(t: dict[str, str]) -> list[str]:
        return [t["game"], t["side"], t["name"], t["before"], t["change"], t["after"],
                "K", "P", "S"]  # fmt: skip

    @staticmethod
    def audit_columns(t: dict[str, str]) -> list[str]:
        return [t["game"], t["when"], t["who"], t["kind"], t["what"], t["why"], t["source"]]

    def add(
        self,
        site: SiteBuilder,
        gid: str,
        x: queries.Explanation,
        facts: dict[str, Any],
        rows: dict[str, dict[str, Any]],
        audit: list[tuple],
    ) -> None:
        """One game: its row in the games table, its section, its rows in
        the page's downloads and its changes in the players' totals."""
        t, names = site.t, site.names
        day = facts["date"]
        voided = x.status == "voided"
        if not voided:
            self.rated += 1
            self.first = min(self.first or day, day)
            self.last = max(self.last or day, day)
            for pid, row in rows.items():
                self.totals[pid] = self.totals.get(pid, 0.0) + row["change"]
        merges = site.merges
        sides = " — ".join(" & ".join(names.get(final(merges, p), p) for p in side)
                           for side in facts["sides"])  # fmt: skip
        result = " ".join(f"{v}" for v in facts["result"].values() if v is not None)
        if voided:
            result += f" ({t['voided']})"
        self.games.append([
            Cell(day), num(facts.get("round")), num(facts.get("table")), Cell(sides),
            Cell(result), Cell(x.game, f"#g-{gid}", x.game),
        ])  # fmt: skip
        by_name = {names.get(pid, pid): pid for pid in rows}
        players = []
        for p in x.players:
            pid = by_name.get(p.player)
            row = rows.get(pid, {}) if pid else {}
            cells = (p.before, p.change, p.after, row.get("k"), row.get("p"), row.get("s"))
            players.append((p.side, p.player, f"../players/{pid}.html" if pid else None, *cells))
            self.changes.append([x.game, p.side, p.player, *cells])
        lines = [
            (a[1][:19].replace("T", " "), a[2], a[3], a[4], a[5] or "", a[6] or "") for a in audit
        ]
        self.audit.extend([x.game, *line] for line in lines)
        self.sections.append(
            site.sections.render(x, gid, players, lines, "../games", "../index.html")
        )


# -- the builder ----------------------------------------------------------------------
class SiteBuilder:
    """Renders every page of the site into a ``SiteWriter``."""

    def __init__(
        self,
        conn: Database,
        out: Path,
        ladders: list[str] | None,
        lang: str,
        title: str | None,
        as_of: date | None,
    ) -> None:
        if lang not in LANGS:
            raise Invalid(f"--lang must be one of {', '.join(LANGS)}, got {lang!r}")
        self.conn = conn
        self.t = WORDS[lang]
        self.lang = lang
        self.as_of = as_of
        self.cut = as_of.isoformat() + "\x7f" if as_of else ALL
        self.title = title or self.t["ladders"]
        known = tables.ladder_ids(conn)
        if ladders:
            self.ladders = {
                queries.ladder_row(conn, n)["name"]: queries.ladder_row(conn, n)["id"]
                for n in ladders
            }
        else:
            self.ladders = known
        self.names = tables.player_names(conn)
        self.merges = tables.merges(conn)
        self.env = _environment()
        self.table = functools.partial(html.data_table, none=self.t["none"])
        self.sections = html.GameSections(self.t)
        self.env.globals["data_table"] = self.table
        self.env.globals["history_bands"] = html.history_bands
        self.templates = {
            name: self.env.get_template(f"{name}.html")
            for name in ("index", "ladder", "player", "event")
        }
        self.writer = SiteWriter(out)

    def render(self, rel: str, template: str, root: str, **context: Any) -> None:
        page = self.templates[template].render(
            t=self.t, lang=self.lang, site_title=self.title, root=root, as_of=self.as_of,
            **context,
        )  # fmt: skip
        self.writer.write(rel, page)

    def download(self, prefix: str, *tables_: DataTable) -> None:
        for tbl in tables_:
            self.writer.table(prefix + tbl.download, tbl.columns, tbl.raw)

    def build(self) -> BuildReport:
        self._static()
        summaries = [self._ladder(name, lid) for name, lid in self.ladders.items()]
        seq, head = chain.head(self.conn)
        self.render("index.html", "index", "", ladders=summaries, head=head, events=seq)
        return self.writer.finish()

    def _static(self) -> None:
        for name in ("site.css", "site.js"):
            data = resources.files("projections.site").joinpath("static", name).read_bytes()
            self.writer.write(f"static/{name}", data)

    # -- one ladder ----------------------------------------------------------------
    def _ladder(self, name: str, lid: str) -> dict[str, Any]:
        t = self.t
        lslug = slug(name)
        info = queries.ladder_info(self.conn, name)
        rules = LadderRules(tables.rulesets(self.conn, lid))
        last_date, last_event = tables.last_result(self.conn, lid, self.cut)
        n_players, n_games = tables.counts(self.conn, lid, self.cut)
        period = self._period(last_date, last_event)
        # The player pages on a second core while this process writes the
        # event and month pages (the two passes share nothing but the
        # output folder, where they write different files).
        helper = parallel.start(
            self.conn, lambda conn: self._players_in(conn, name, lid, lslug, rules, period),
            rows=2 * n_games,
        )  # fmt: skip
        events, months = self._game_pages(name, lid, lslug, rules)
        if helper is not None:
            per_player, seen, counts = helper.join()
            self.writer.merge(seen, counts)
        else:
            per_player = self._players(name, lid, lslug, rules, period)

        standing_rows = queries.standings(self.conn, name, self.as_of, self.lang)
        by_name = {self.names.get(pid, pid): pid for pid in per_player}
        rows = []
        for r in standing_rows:
            pid = by_name.get(r.player)
            rows.append([
                Cell(str(r.rank), None, r.rank),
                Cell(r.player, f"players/{pid}.html" if pid else None, r.player),
                num(r.rating), Cell(r.grade or ""), num(r.games),
                Cell(r.last_played or ""),
                signed(per_player.get(pid) if pid else None),
            ])  # fmt: skip
        change_label = (
            t["change_event"].format(event=period[1]) if period[0] == "event"
            else t["change_month"].format(day=period[1])
        )  # fmt: skip
        columns = [
            (t["position"], True), (t["name"], False), (t["rating"], True), (t["grade"], False),
            (t["games"], True), (t["last_played"], False), (change_label, True),
        ]  # fmt: skip
        optional = (4, 5)
        if not any(r.grade for r in standing_rows):  # a family without grades: no empty column
            del columns[3]
            rows = [row[:3] + row[4:] for row in rows]
            optional = (3, 4)
        standings = _table("standings", t["standings"], columns, rows, "standings", optional)
        rule_rows, previous = [], {}
        for r in info.rules:
            if r["effective"] != "from the start" and r["effective"] + "\x7f" > self.cut:
                continue
            # The first ruleset in full; each later one by what it changed.
            changed = {k: v for k, v in r["params"].items() if previous.get(k, object()) != v}
            previous = r["params"]
            rule_rows.append([
                Cell(r["effective"] if r["effective"] != "from the start" else t["from_start"]),
                Cell(r["family"]),
                Cell(", ".join(f"{k}={msgspec.json.encode(v).decode()}"
                               for k, v in changed.items())),
                Cell(r["reason"] or ""), Cell(r["recorded_at"][:19].replace("T", " ")),
                Cell(r["by"]),
            ])  # fmt: skip
        rules_table = _table("rules", t["rules"], [
            (t["effective"], False), (t["family"], False), (t["parameters"], False),
            (t["reason"], False), (t["recorded"], False), (t["by"], False),
        ], rule_rows, "rules", optional=(4, 5))  # fmt: skip
        season_rows = [
            [Cell(s["label"]), Cell(s["start"]), Cell(s["end"])]
            for s in tables.season_closes(self.conn, lid, self.cut)
        ]
        seasons = _table("seasons", t["seasons"], [
            (t["season"], False), (t["from"], False), (t["to"], False),
        ], season_rows, "seasons")  # fmt: skip
        event_rows = [
            [Cell(ev["name"], ev["href"], ev["name"]), Cell(ev["first"]), Cell(ev["last"]),
             num(ev["games"]), num(ev["players"])]
            for ev in events
        ]  # fmt: skip
        events_table = _table("events", t["events"], [
            (t["event"], False), (t["from"], False), (t["to"], False), (t["games"], True),
            (t["players"], True),
        ], event_rows, "events")  # fmt: skip
        month_rows = [
            [Cell(m["month"], m["href"], m["month"]), num(m["games"]), num(m["players"])]
            for m in months
        ]
        months_table = _table("months", t["months"], [
            (t["month"], False), (t["games"], True), (t["players"], True),
        ], month_rows, "months")  # fmt: skip
        ratings = [r.rating for r in standing_rows]
        dist = (
            charts.distribution(t["distribution"], ratings, t["rating_axis"], t["n_players"],
                                t["bar"]) if ratings else None
        )  # fmt: skip
        self.download(f"{lslug}/", standings, rules_table, seasons, events_table, months_table)
        self.render(
            f"{lslug}/index.html", "ladder", "../", name=name, info=info, standings=standings,
            rules=rules_table, seasons=seasons, events=events_table, months=months_table,
            chart=dist, n_games=n_games,
        )  # fmt: skip
        return {
            "name": name, "href": f"{lslug}/index.html", "family": info.family,
            "players": n_players, "games": n_games, "last": last_date or "",
        }  # fmt: skip

    def _period(self, last_date: str | None, last_event: str | None) -> tuple[str, str]:
        """What the standings' change column covers: the ladder's last event,
        or the month of its last result."""
        if last_event:
            return "event", last_event
        if last_date:
            return "month", last_date[:8] + "01"
        return "month", (self.as_of or date.today()).isoformat()[:8] + "01"

    # -- pass 1: event and month pages, each with its games ---------------------------
    def _game_pages(
        self, name: str, lid: str, lslug: str, rules: LadderRules
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Render every event page and every month page (games outside
        events); returns the summaries of both for the ladder's tables."""
        audit = tables.game_audit(self.conn, lid)
        events: list[dict[str, Any]] = []
        months: list[dict[str, Any]] = []
        page: GamePage | None = None
        changes: list[list[Any]] = []
        lines: list[list[Any]] = []
        for gid, short_id, key, status, facts, rows in tables.games_by_page(
            self.conn, lid, self.cut
        ):
            event = facts.get("event")
            where = page_of(event, facts["date"])
            if page is None or page.path != where:
                if page is not None:
                    self._game_page(name, lslug, page, events, months)
                page = GamePage(where, event, facts["date"][:7], changes, lines)
            x = explain_game(name, gid, short_id, key, status, facts, rows, rules,
                             self.names, self.merges)  # fmt: skip
            page.add(self, gid, x, facts, rows, audit.get(gid, []))
        if page is not None:
            self._game_page(name, lslug, page, events, months)
        self.writer.table(f"{lslug}/games.changes", GamePage.changes_columns(self.t), changes)
        self.writer.table(f"{lslug}/games.audit", GamePage.audit_columns(self.t), lines)
        events.sort(key=lambda e: (e["first"], e["name"]))
        return events, months

    def _game_page(
        self,
        ladder: str,
        lslug: str,
        page: GamePage,
        events: list[dict[str, Any]],
        months: list[dict[str, Any]],
    ) -> None:
        t = self.t
        stem = page.path.rsplit("/", 1)[1].removesuffix(".html")
        games = _table("games", t["games"], [
            (t["date"], False), (t["round"], True), (t["table"], True), (t["players"], False),
            (t["result"], False), (t["game"], False),
        ], page.games, f"{stem}.games", optional=(1, 2))  # fmt: skip
        total_rows = [
            [Cell(self.names.get(pid, pid), f"../players/{pid}.html", self.names.get(pid, pid)),
             signed(total)]
            for pid, total in sorted(page.totals.items(),
                                     key=lambda kv: (-kv[1], self.names.get(kv[0], kv[0])))
        ]  # fmt: skip
        totals = _table("totals", t["totals"], [
            (t["name"], False), (t["total_change"], True),
        ], total_rows, f"{stem}.totals")  # fmt: skip
        prefix = f"{lslug}/{page.path.rsplit('/', 1)[0]}/"
        self.download(prefix, games, totals)
        heading = page.event or t["month_games"].format(month=page.month)
        self.render(
            f"{lslug}/{page.path}", "event", "../../", ladder=ladder, heading=heading,
            first=page.first or "", last=page.last or "", games=games, totals=totals,
            sections=html.join(page.sections),
        )  # fmt: skip
        summary = {
            "name": heading, "href": page.path, "first": page.first or "",
            "last": page.last or "", "games": page.rated, "players": len(page.totals),
            "month": page.month,
        }  # fmt: skip
        (events if page.event else months).append(summary)

    # -- pass 2: players -------------------------------------------------------------
    def _players(
        self,
        name: str,
        lid: str,
        lslug: str,
        rules: LadderRules,
        period: tuple[str, str],
    ) -> dict[str, float]:
        """Render every player page; returns each player's change over ``period``."""
        changes: dict[str, float] = {}
        rows = tables.history_rows(self.conn, lid, self.cut, by_player=True)
        for pid, player_rows in _by_player(rows):
            changes[pid] = _period_change(player_rows, period)
            self._player_page(name, lslug, pid, player_rows, rules)
        return changes

    def _players_in(
        self,
        conn: Database,
        name: str,
        lid: str,
        lslug: str,
        rules: LadderRules,
        period: tuple[str, str],
    ) -> tuple[dict[str, float], set[str], tuple[int, int, int, int]]:
        """``_players`` in a helper process on its own connection: the
        changes, and what it wrote for the parent's writer to take over."""
        self.conn = conn
        self.writer = self.writer.fresh()
        changes = self._players(name, lid, lslug, rules, period)
        return changes, self.writer.seen, self.writer.counts()

    def _player_page(
        self,
        ladder: str,
        lslug: str,
        pid: str,
        rows: list[dict[str, Any]],
        rules: LadderRules,
    ) -> None:
        t = self.t
        who = self.names.get(pid, pid)
        kinds = {"adjust": t["adjust"], "season": t["season_close"], "event": t["event_close"]}
        entries, game_rows, grade_rows = [], [], []
        grade = None
        spans: dict[str, list[date]] = {}
        for r in rows:
            on = date.fromisoformat(r["date"])
            is_game = r["kind"] == "game"
            corrected = r["status"] == "corrected"
            kind = ("corrected" if corrected else "game") if is_game else "other"
            what = (
                (r["event"] or t["game"]) + (f" ({t['corrected']})" if corrected else "")
                if is_game else kinds.get(r["kind"], r["kind"])
            )  # fmt: skip
            entries.append((on, r["after"], kind,
                            f"{r['date']}: {r['after']:g} ({r['change']:+g}) {what}"))  # fmt: skip
            if is_game and r["event"]:
                span = spans.setdefault(r["event"], [on, on])
                span[0], span[1] = min(span[0], on), max(span[1], on)
            family = rules.family_at(r["key"])
            now = family.grade(PlayerState(rating=r["after"], games=r["games_after"]), self.lang)
            if now != grade and now is not None:
                grade_rows.append([Cell(r["date"]), Cell(now), num(r["after"])])
            grade = now
            opponents = ", ".join(self.names.get(o, o) for o in r["opponents"].split(",") if o)
            game_href = f"../{page_of(r['event'], r['date'])}#g-{r['entry']}" if is_game else None
            game_rows.append([
                Cell(r["date"], game_href, r["key"]),  # on a phone, the date links the game
                Cell(r["event"] or "", f"../events/{slug(r['event'])}.html" if r["event"] else None),
                Cell(opponents if is_game else (r["note"] or kinds.get(r["kind"], r["kind"]))),
                Cell(_result(r["s"], t) if is_game else kinds.get(r["kind"], r["kind"])),
                num(r["k"]), num(r["p"]), signed(r["change"]), num(r["after"]),
                Cell(short(r["entry"]) + (f" ({t['corrected']})" if corrected else ""),
                     game_href, r["key"]) if is_game else Cell(""),
            ])  # fmt: skip
        games = _table("games", t["games_of"].format(player=who), [
            (t["date"], False), (t["event"], False), (t["opponents"], False),
            (t["result"], False), ("K", True), ("P", True), (t["change"], True),
            (t["after"], True), (t["game"], False),
        ], game_rows, f"{pid}.games", optional=(1, 4, 5, 8))  # fmt: skip
        grades = _table("grades", t["grade_history"], [
            (t["date"], False), (t["grade"], False), (t["rating"], True),
        ], grade_rows, f"{pid}.grades")  # fmt: skip
        ratings = [e[1] for e in entries]
        description = t["chart_desc"].format(
            n=len(entries), first=entries[0][0].isoformat(), r0=f"{ratings[0]:g}",
            last=entries[-1][0].isoformat(), r1=f"{ratings[-1]:g}", lo=f"{min(ratings):g}",
            hi=f"{max(ratings):g}",
        )  # fmt: skip
        chart = charts.rating_history(
            t["player_in"].format(player=who, ladder=ladder), description, entries,
            [(n, a, b) for n, (a, b) in sorted(spans.items(), key=lambda kv: kv[1][0])],
            t["date_axis"], t["rating_axis"],
        )  # fmt: skip
        self.download(f"{lslug}/players/", games, grades)
        self.render(
            f"{lslug}/players/{pid}.html", "player", "../../", ladder=ladder, who=who,
            chart=chart, points=html.history_points(chart.points), games=games, grades=grades,
            rating=ratings[-1], grade=grade,
        )  # fmt: skip


def _result(s: float | None, t: dict[str, str]) -> str:
    if s is None:
        return ""
    word = t["won"] if s > 0.5 else t["lost"] if s < 0.5 else t["draw"]
    return f"{word} (S {s:g})"


def _rows(raw: Iterator[tuple]) -> Iterator[dict[str, Any]]:
    for r in raw:
        yield dict(zip(tables.HISTORY_COLUMNS, r, strict=True))


def _grouped(raw: Iterator[tuple]) -> Iterator[tuple[str, dict[str, dict[str, Any]]]]:
    """History rows in key order, grouped: (key, {player: row})."""
    key, group = None, {}
    for row in _rows(raw):
        if row["key"] != key:
            if key is not None:
                yield key, group
            key, group = row["key"], {}
        group[row["player"]] = row
    if key is not None:
        yield key, group


def _by_player(raw: Iterator[tuple]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """History rows in (player, key) order, grouped by player."""
    pid, group = None, []
    for row in _rows(raw):
        if row["player"] != pid:
            if pid is not None:
                yield pid, group
            pid, group = row["player"], []
        group.append(row)
    if pid is not None:
        yield pid, group


def _period_change(rows: list[dict[str, Any]], period: tuple[str, str]) -> float:
    """A player's change over the standings' period: their games at the
    ladder's last event, or every entry since the first of its last month."""
    kind, value = period
    if kind == "event":
        return sum(r["change"] for r in rows if r["kind"] == "game" and r["event"] == value)
    before = [r for r in rows if r["date"] < value]
    start = before[-1]["after"] if before else rows[0]["before"]
    return rows[-1]["after"] - start


def build_site(
    conn: Database,
    out_dir: Path,
    ladders: list[str] | None = None,
    lang: str = "en",
    title: str | None = None,
    as_of: date | None = None,
) -> BuildReport:
    """Build (or bring up to date) the static site in ``out_dir``: only files
    whose content changed are written; files an earlier build wrote that no
    longer belong to the site are removed; nothing else is touched."""
    if out_dir.exists() and not out_dir.is_dir():
        raise Invalid(f"OUT_DIR {out_dir}: expected a directory, found a file")
    out_dir.mkdir(parents=True, exist_ok=True)
    return SiteBuilder(conn, out_dir, ladders, lang, title, as_of).build()
