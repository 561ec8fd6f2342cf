"""Build the static site: gather each ladder from the views, render its pages.

One ladder is read in two streaming passes over its history: in effective
order (event and month pages, which hold their games: ``game_page``) and by
player (player pages, grade histories and the standings' recent change:
``player``). A big ladder's pages are built in two halves at once (a
stretch of its games' pages and every other player page each; ``parallel``).
Pages link to each other by relative paths, so the site works opened from
disk or from any web server.

A game has no page of its own (100,000 games would be 100,000 files to
render, compare and serve): its explanation (its stored rows: before, change,
after, K, P, S, the numbers ``ledger explain`` shows) and audit trail are a
section of its event's page, or of its month's page for a game outside
events, and its stable address is that page with the game's id as fragment
(``events/EVENT.html#g-GAME-ID``), which the player pages link to.

Layout under the output directory::

    index.html                         the ladders and the hash-chain head
    static/site.css, static/site.js    vendored, small; pages read fine without JS
    LADDER/index.html                  standings, distribution, rules, seasons
    LADDER/players/PLAYER-ID.html      rating history, games, grades (if the rules grade)
    LADDER/events/EVENT.html           a tournament's games, total changes, and
                                       each game's explanation and audit trail
    LADDER/games/YYYY-MM.html          the same for a month's games outside events

and beside every table its rows as ``.csv`` and ``.json`` (an event or
month page's games' changes and audit lines as ``EVENT.changes.*`` and
``EVENT.audit.*``).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterator
from datetime import date
from importlib import resources
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

import jinja2
import msgspec
from markupsafe import Markup

from ledger.families.base import FamilyError
from ledger.families.registry import family_class
from ledger.kernel import chain, collection
from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Message, translator
from projections import queries
from projections.db import Database
from projections.site import charts, evidence, games, html, parallel, tables
from projections.site.audit import later_lines
from projections.site.explain import LadderRules, final, rules_doc
from projections.site.game_page import GameContext, GamePage
from projections.site.html import Cell, DataTable
from projections.site.player import PlayerRows
from projections.site.text import words
from projections.site.writer import BuildReport, CsvCells, SiteWriter, SkippedLadder
from projections.views import ladder_number

#: ``progress(pages written, pages to write)``
Progress = Callable[[int, int], None]


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
    written: tuple[str, list[list[Any]], Any] | None = None,
) -> DataTable:
    """A table from (heading, numeric) columns; ``optional`` column numbers
    are left out on narrow screens. ``written``: the rows as markup and as
    download rows and their CSV lines (``SiteWriter.table``), written by
    the caller (``rows`` then empty)."""
    if written is None:
        raw = [[c.sort if c.sort is not None and not isinstance(c.sort, str) else c.text
                for c in row] for row in rows]  # fmt: skip
    else:
        raw = written[1]
    numeric = [n for _, n in columns]
    optional_ = [i in optional for i in range(len(columns))]
    classes = []
    for n, o in zip(numeric, optional_, strict=True):
        names = " ".join(c for c, on in (("n", n), ("opt", o)) if on)
        classes.append(Markup(f' class="{names}"' if names else ""))
    return DataTable(
        id_,
        caption,
        [c for c, _ in columns],
        numeric,
        optional_,
        classes,
        rows,
        raw,
        stem,
        None if written is None else written[0],
        None if written is None else written[2],
    )


# -- the builder ----------------------------------------------------------------------
class LadderPages(NamedTuple):
    """What every page of one ladder is made with: its name, id, folder
    (``slug``), rules, and the period (kind, first day) its players' change
    is shown over."""

    name: str
    lid: str
    slug: str
    rules: LadderRules
    period: tuple[str, str]


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
        progress: Progress | None = None,
    ) -> None:
        self.tr = translator(lang)  # refuses a language it has no catalog of
        self.conn = conn
        #: Told (pages written, pages to write) as event, month and player
        #: pages are written; a helper process's pages count as the
        #: parent's (the halves are about the same size).
        self.progress = progress
        self.pages_done = self.pages_total = 0
        self.step = 1  # pages a page written counts for (2 with a helper process)
        self.t = words(self.tr)
        self.lang = lang
        self.as_of = as_of
        self.cut = as_of.isoformat() + "\x7f" if as_of else tables.ALL
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
        numbers = {n: (pid, name) for n, pid, name in conn.execute(
            "SELECT n, id, name FROM view_players").fetchall()}  # fmt: skip
        #: Player id by view number; names by id (audit summaries) and
        #: the name a game's side shows (merges followed), by id.
        self.ids = {n: pid for n, (pid, _) in numbers.items()}
        self.who = {pid: name for pid, name in numbers.values()}
        self.label = {
            pid: self.names.get(final(self.merges, pid), pid) for pid, _ in numbers.values()
        }
        self.env = _environment()
        self.table = functools.partial(html.data_table, none=self.t["none"])
        self.sections = html.GameSections(self.t, self.tr)
        self.env.globals["data_table"] = self.table
        self.env.globals["history_bands"] = html.history_bands
        self.templates = {
            name: self.env.get_template(f"{name}.html")
            for name in ("index", "ladder", "player", "event", "evidence")
        }
        self.writer = SiteWriter(out)

    def render(self, rel: str, template: str, root: str, **context: Any) -> None:
        page = self.templates[template].render(
            t=self.t, lang=self.lang, site_title=self.title, root=root, as_of=self.as_of,
            **context,
        )  # fmt: skip
        self.writer.write(rel, page)

    def _pages_to_write(self, lid: str) -> int:
        """A ladder's event, month and player pages, and its evidence page."""
        number = ladder_number(self.conn, lid)
        spans = games.pages(self.conn, -1 if number is None else number, self.cut)
        return len(spans) + tables.counts(self.conn, lid, self.cut)[0] + 1

    def _page_done(self) -> None:
        if self.progress is not None:
            self.pages_done += self.step
            self.progress(min(self.pages_done, self.pages_total), self.pages_total)

    def download(self, prefix: str, *tables_: DataTable) -> None:
        for tbl in tables_:
            self.writer.table(prefix + tbl.download, tbl.columns, tbl.raw, tbl.csv_lines)

    def build(self) -> BuildReport:
        self._static()
        skipped = self._skipped()
        for ladder in skipped:
            # Its pages of an earlier build stay as they were.
            self.writer.keep(slug(ladder.ladder) + "/")
            del self.ladders[ladder.ladder]
        if self.progress is not None:
            self.pages_total = sum(self._pages_to_write(lid) for lid in self.ladders.values())
        summaries = [self._ladder(name, lid) for name, lid in self.ladders.items()]
        seq, head = chain.head(self.conn)
        self.render("index.html", "index", "", ladders=summaries, head=head, events=seq)
        report = self.writer.finish()
        report.skipped = skipped
        return report

    def _skipped(self) -> list[SkippedLadder]:
        """The ladders this build cannot publish: those whose family (of any
        of their rulesets) cannot be loaded here (not installed, not
        trusted), and those that cannot be replayed; every other ladder is
        built."""
        skipped = []
        for name, lid in self.ladders.items():
            problem = queries.ladder_row(self.conn, name)["problem"]
            if not problem:
                for _, ruleset in tables.rulesets(self.conn, lid):
                    try:
                        family_class(ruleset["family"])
                    except FamilyError as exc:
                        problem = str(exc)
                        break
            if problem:
                skipped.append(SkippedLadder(name, problem))
        return skipped

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
        # Two halves of the pages (every other event or month page, every
        # other player page), one on a second core: the halves share nothing
        # but the output folder, where they write different files.
        pages = LadderPages(name, lid, lslug, rules, period)
        # The evidence page's replays in a helper of their own, beside the pages.
        evidence_helper = parallel.start(
            self.conn, lambda conn: evidence.ladder_evidence(conn, name, self.as_of),
            rows=2 * n_games,
        )  # fmt: skip
        helper = parallel.start(
            self.conn, lambda conn: self._half_in(conn, pages, 1), rows=2 * n_games
        )
        halves = 1 if helper is None else 2
        self.step = halves
        per_player, events, months = self._half(pages, 0, halves)
        if helper is not None:
            other, other_events, other_months, seen, counts = helper.join()
            self.writer.merge(seen, counts)
            per_player.update(other)
            events += other_events
            months += other_months
        months.sort(key=lambda m: m["month"])
        events.sort(key=lambda e: (e["first"], e["name"]))

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
        if any(isinstance(r, queries.UncertainStandingRow) for r in standing_rows):
            # Ratings that know their uncertainty: ± deviation beside the
            # rating, and the provisional ones marked.
            columns.insert(3, (t["deviation"], True))
            for row, r in zip(rows, standing_rows, strict=True):
                row.insert(3, _deviation_cell(r, t))
            optional = tuple(i + 1 for i in optional)
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
            chart=dist, n_games=n_games, rules_doc=rules_doc(info.family),
        )  # fmt: skip
        self._evidence(
            name, lslug,
            evidence.ladder_evidence(self.conn, name, self.as_of) if evidence_helper is None
            else evidence_helper.join(),
        )  # fmt: skip
        return {
            "name": name, "href": f"{lslug}/index.html", "family": info.family,
            "players": n_players, "games": n_games, "last": last_date or "",
        }  # fmt: skip

    def _evidence(self, name: str, lslug: str, ev: evidence.LadderEvidence) -> None:
        """The ladder's evidence page: its rules' predictions measured
        beside the baselines, their calibration and the K curve."""
        t = self.t
        measures = _table("measures", t["ev_measures"], [
            (t["ev_rules"], False), (t["games"], True), (t["ev_comparisons"], True),
            (t["ev_log_loss"], True), (t["ev_brier"], True), (t["ev_accuracy"], True),
        ], [
            [Cell(evidence.rules_label(line.rules, t)), num(line.games), num(line.comparisons),
             num(line.log_loss), num(line.brier), num(line.accuracy)]
            for line in ev.lines if line.comparisons
        ], "evidence-measures", optional=(1, 2, 4))  # fmt: skip
        calibration = _table("calibration", t["ev_calibration_table"], [
            (t["ev_bin"], False), (t["ev_predicted"], True), (t["ev_observed"], True),
            (t["ev_count"], True),
        ], [
            [Cell(f"{b.low:g} – {b.high:g}", None, b.low), num(b.predicted), num(b.observed),
             num(b.count)]
            for b in ev.calibration if b.count
        ], "evidence-calibration", optional=(1,))  # fmt: skip
        curve = _table("k-curve", t["ev_k_table"], [
            ("K", True), (t["ev_log_loss"], True), (t["ev_brier"], True),
            (t["ev_accuracy"], True),
        ], [
            [num(g.values[evidence.K]), num(g.log_loss), num(g.brier), num(g.accuracy)]
            for g in ev.curve
        ], "evidence-k-curve", optional=(2,))  # fmt: skip
        self.download(f"{lslug}/", measures, calibration, curve)
        self.render(
            f"{lslug}/evidence.html", "evidence", "../", name=name, measures=measures,
            calibration=calibration, curve=curve,
            calibration_chart=evidence.calibration_chart(ev, t), k_chart=evidence.k_chart(ev, t),
        )  # fmt: skip
        self.step = 1  # written by this process alone
        self._page_done()

    def _period(self, last_date: str | None, last_event: str | None) -> tuple[str, str]:
        """What the standings' change column covers: the ladder's last event,
        or the month of its last result."""
        if last_event:
            return "event", last_event
        if last_date:
            return "month", last_date[:8] + "01"
        return "month", (self.as_of or date.today()).isoformat()[:8] + "01"

    # -- pass 1: event and month pages, each with its games ---------------------------
    def _half(
        self, ladder: LadderPages, half: int, halves: int
    ) -> tuple[dict[str, float], list[dict[str, Any]], list[dict[str, Any]]]:
        """One of ``halves`` parts of a ladder's game and player pages: the
        players' changes over its period and the pages' summaries."""
        events, months = self._game_pages(ladder, half, halves)
        return self._players(ladder, half, halves), events, months

    def _half_in(self, conn: Database, ladder: LadderPages, half: int) -> tuple[Any, ...]:
        """``_half`` in a helper process on its own connection, and what it
        wrote for the parent's writer to take over."""
        self.conn = conn
        self.writer = self.writer.fresh()
        self.progress = None  # the parent tells for both halves
        done = self._half(ladder, half, 2)
        return (*done, self.writer.seen, self.writer.counts())

    def _game_pages(
        self, ladder: LadderPages, half: int, halves: int
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Render every ``halves``-th event page and month page (games
        outside events), from the ``half``-th; returns the summaries of both
        for the ladder's tables."""
        n = ladder_number(self.conn, ladder.lid)
        n = -1 if n is None else n
        upto = queries.cut_pos(self.conn, n, self.cut)
        context = GameContext(self.t, self.sections, ladder.rules, ladder.name, self.ids, self.names,
                              self.label, self.who)  # fmt: skip
        later = later_lines(self.conn, n, self.who, self.tr)
        spans = games.pages(self.conn, n, self.cut)
        # This half's pages: a stretch of the ladder's games, read alone.
        shared = games.share(spans, half, halves)
        mine = {page_of(event, month) for event, month in shared}
        if shared:
            first = min(spans[page][0] for page in shared)
            last = max(spans[page][1] for page in shared)
            since = (first, queries.cut_pos(self.conn, n, first))
            upto = min(upto, queries.cut_pos(self.conn, n, last, through=True))
        else:
            since = ("\x7f", upto)
        events: list[dict[str, Any]] = []
        months: list[dict[str, Any]] = []
        pages: dict[str, GamePage] = {}
        for g in games.ladder_games(self.conn, n, self.cut, upto, since):
            where = page_of(g.event, g.key)
            if where not in mine:
                continue
            page = pages.get(where)
            if page is None:
                page = pages[where] = GamePage(where, g.event, g.key[:7])
            page.add(context, g, g.facts, later.get(g.n, ()))
            # A page is written once its last game is in (pages one at a time in memory).
            if g.key == spans.get((g.event, "" if g.event else g.key[:7]), ("", ""))[1]:
                self._game_page(ladder, pages.pop(where), events, months, context.csv)
        for page in pages.values():
            self._game_page(ladder, page, events, months, context.csv)
        return events, months

    def _game_page(
        self,
        ladder: LadderPages,
        page: GamePage,
        events: list[dict[str, Any]],
        months: list[dict[str, Any]],
        csv: CsvCells,
    ) -> None:
        t = self.t
        stem = page.path.rsplit("/", 1)[1].removesuffix(".html")
        games = _table("games", t["games"], [
            (t["date"], False), (t["round"], True), (t["table"], True), (t["players"], False),
            (t["result"], False), (t["game"], False),
        ], [], f"{stem}.games", optional=(1, 2),
           written=("".join(page.body), page.raw, (page.lines, csv)))  # fmt: skip
        total_rows = [
            [Cell(self.names.get(pid, pid), f"../players/{pid}.html", self.names.get(pid, pid)),
             signed(total)]
            for pid, total in sorted(page.totals.items(),
                                     key=lambda kv: (-kv[1], self.names.get(kv[0], kv[0])))
        ]  # fmt: skip
        totals = _table("totals", t["totals"], [
            (t["name"], False), (t["total_change"], True),
        ], total_rows, f"{stem}.totals")  # fmt: skip
        prefix = f"{ladder.slug}/{page.path.rsplit('/', 1)[0]}/"
        self.download(prefix, games, totals)
        self.writer.table(f"{prefix}{stem}.changes", GamePage.changes_columns(t), page.changes,
                          (page.changes_lines, csv))  # fmt: skip
        self.writer.table(f"{prefix}{stem}.audit", GamePage.audit_columns(t), page.audit,
                          (page.audit_lines, csv))  # fmt: skip
        heading = page.event or t["month_games"].format(month=page.month)
        self.render(
            f"{ladder.slug}/{page.path}", "event", "../../", ladder=ladder.name, heading=heading,
            first=page.first or "", last=page.last or "", games=games, totals=totals,
            sections=html.join(page.sections), stem=stem,
        )  # fmt: skip
        self._page_done()
        summary = {
            "name": heading, "href": page.path, "first": page.first or "",
            "last": page.last or "", "games": page.rated, "players": len(page.totals),
            "month": page.month,
        }  # fmt: skip
        (events if page.event else months).append(summary)

    # -- pass 2: players -------------------------------------------------------------
    def _players(self, ladder: LadderPages, half: int = 0, halves: int = 1) -> dict[str, float]:
        """Render every ``halves``-th player page (by id), from the
        ``half``-th; returns each one's change over the ladder's period."""
        changes: dict[str, float] = {}
        self.player_rows = PlayerRows(self.t, self.lang, self.names, ladder.rules, page_of, slug)
        rows = tables.history_rows(self.conn, ladder.lid, self.cut, by_player=True,
                                   part=(half, halves))  # fmt: skip
        for pid, player_rows in _by_player(rows):
            changes[pid] = _period_change(player_rows, ladder.period)
            self._player_page(ladder, pid, player_rows)
        return changes

    def _player_page(self, ladder: LadderPages, pid: str, rows: list[tuple]) -> None:
        t = self.t
        who = self.names.get(pid, pid)
        done = self.player_rows.rows(rows)
        entries, grade_rows, grade, spans = (
            done["entries"],
            done["grades"],
            done["grade"],
            done["spans"],
        )
        games = _table("games", t["games_of"].format(player=who), [
            (t["date"], False), (t["event"], False), (t["opponents"], False),
            (t["result"], False), ("K", True), ("P", True), (t["change"], True),
            (t["after"], True), (t["game"], False),
        ], [], f"{pid}.games", optional=(1, 4, 5, 8),
           written=(done["body"], done["raw"], (done["lines"], self.player_rows.csv)))  # fmt: skip
        # A ladder whose rules never grade has no grade history to show.
        grades = _table("grades", t["grade_history"], [
            (t["date"], False), (t["grade"], False), (t["rating"], True),
        ], grade_rows, f"{pid}.grades") if self.player_rows.graded else None  # fmt: skip
        ratings = [e[1] for e in entries]
        description = t["chart_desc"].format(
            n=len(entries), first=entries[0][0].isoformat(), r0=f"{ratings[0]:g}",
            last=entries[-1][0].isoformat(), r1=f"{ratings[-1]:g}", lo=f"{min(ratings):g}",
            hi=f"{max(ratings):g}",
        )  # fmt: skip
        chart = charts.rating_history(
            t["player_in"].format(player=who, ladder=ladder.name), description, entries,
            [(n, a, b) for n, (a, b) in sorted(spans.items(), key=lambda kv: kv[1][0])],
            t["date_axis"], t["rating_axis"],
        )  # fmt: skip
        self.download(f"{ladder.slug}/players/", games, *([grades] if grades is not None else []))
        self.render(
            f"{ladder.slug}/players/{pid}.html", "player", "../../", ladder=ladder.name, who=who,
            chart=chart, points=html.history_points(chart.points), games=games, grades=grades,
            rating=ratings[-1], grade=grade,
        )  # fmt: skip
        self._page_done()


def _deviation_cell(row: Any, t: dict[str, str]) -> Cell:
    """A ranking's ± deviation cell, "provisional" beside it when it is."""
    deviation = getattr(row, "deviation", None)
    if deviation is None:
        return Cell("")
    mark = f" ({t['provisional']})" if row.provisional else ""
    return Cell(f"± {deviation:.1f}{mark}", None, deviation)


def _result(s: float | None, t: dict[str, str]) -> str:
    if s is None:
        return ""
    word = t["won"] if s > 0.5 else t["lost"] if s < 0.5 else t["draw"]
    return f"{word} (S {s:g})"


def _by_player(raw: Iterator[tuple]) -> Iterator[tuple[str, list[tuple]]]:
    """History rows in (player, key) order, grouped by player."""
    return ((pid, list(group)) for pid, group in itertools.groupby(raw, itemgetter(3)))


def _period_change(rows: list[tuple], period: tuple[str, str]) -> float:
    """A player's change over the standings' period: their games at the
    ladder's last event, or every entry since the first of its last month."""
    kind, value = period
    if kind == "event":  # (kind, event, change)
        return sum(r[13] for r in rows if r[2] == "game" and r[5] == value)
    before = [r for r in rows if r[4] < value]  # (date)
    start = before[-1][14] if before else rows[0][12]  # (after, before)
    return rows[-1][14] - start


@collection.paused()
def build_site(
    conn: Database,
    out_dir: Path,
    ladders: list[str] | None = None,
    lang: str = "en",
    title: str | None = None,
    as_of: date | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    """Build (or bring up to date) the static site in ``out_dir``: only files
    whose content changed are written; files an earlier build wrote that no
    longer belong to the site are removed; nothing else is touched.
    ``progress(done, total)`` hears how many event, month and player pages
    are written so far. Runs with the cyclic garbage collector paused
    (``collection``: every ladder's rows held while its pages are made; a
    100k-game ladder: 15 full collections, 13.4-13.8 -> 12.2-12.8 s of user
    time, the same peak)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise Invalid(
            Message("OUT_DIR {out_dir}: expected a directory, found a file", out_dir=out_dir)
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    return SiteBuilder(conn, out_dir, ladders, lang, title, as_of, progress).build()
