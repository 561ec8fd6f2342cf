"""Build the static site: gather each ladder from the views, render its pages.

One ladder is read in two streaming passes over its history: by effective
order (game and event pages) and by player (player pages, grade histories and
the standings' recent change). Pages link to each other by relative paths, so
the site works opened from disk or from any web server.

Layout under the output directory::

    index.html                         the ladders and the hash-chain head
    static/site.css, static/site.js    vendored, small; pages read fine without JS
    LADDER/index.html                  standings, distribution, rules, seasons
    LADDER/players/PLAYER-ID.html      rating history, games, grades
    LADDER/events/EVENT.html           a tournament's games and total changes
    LADDER/games/GAME-ID.html          explain and the game's audit trail

and beside every table its rows as ``.csv`` and ``.json``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import jinja2
import msgspec
from markupsafe import Markup

from ledger import chain
from ledger.errors import Invalid
from ledger.identity import short
from projections import queries
from projections.db import Database
from projections.families.base import PlayerState
from projections.site import charts, tables
from projections.site.explain import LadderRules, explain_game
from projections.site.output import BuildReport, SiteWriter
from projections.site.text import LANGS, WORDS

#: Effective-order keys start with a date: this sorts after every one of them.
ALL = "9999-12-31\x7f"


class Cell(NamedTuple):
    """A table cell: what it shows, where it links, how it sorts."""

    text: str
    href: str | None = None
    sort: float | str | None = None


class DataTable(msgspec.Struct):
    """A table as a page shows it, and as its downloads hold it."""

    id: str
    caption: str
    columns: list[str]
    numeric: list[bool]
    optional: list[bool]  # hidden on a phone's narrow screen (still in the downloads)
    classes: list[Markup]  # each column's class attribute, made once (not per cell)
    rows: list[list[Cell]]
    raw: list[list[Any]]
    download: str  # file stem relative to the page, e.g. "standings"


# -- formatting ---------------------------------------------------------------------
def _short(value: float, sign: str = "") -> str:
    """Rounded to 4 decimals for people, as the CLI's tables show numbers
    (the downloads and the sort keys keep the exact value)."""
    return f"{value:{sign}.4f}".rstrip("0").rstrip(".")


def num(value: float | None) -> Cell:
    return Cell("" if value is None else _short(value), None, value)


def signed(value: float | None) -> Cell:
    return Cell("" if value is None else _short(value, "+"), None, value)


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
        self.templates = {
            name: self.env.get_template(f"{name}.html")
            for name in ("index", "ladder", "player", "event", "game")
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
        events = self._games_and_events(name, lid, lslug, rules)
        period = self._period(last_date, last_event)
        per_player = self._players(name, lid, lslug, rules, events, period)

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
            [Cell(ev["name"], f"events/{ev['slug']}.html", ev["name"]), Cell(ev["first"]),
             Cell(ev["last"]), num(len(ev["games"])), num(len(ev["totals"]))]
            for ev in sorted(events.values(), key=lambda e: (e["first"], e["name"]))
        ]  # fmt: skip
        events_table = _table("events", t["events"], [
            (t["event"], False), (t["from"], False), (t["to"], False), (t["games"], True),
            (t["players"], True),
        ], event_rows, "events")  # fmt: skip
        ratings = [r.rating for r in standing_rows]
        dist = (
            charts.distribution(t["distribution"], ratings, t["rating_axis"], t["n_players"],
                                t["bar"]) if ratings else None
        )  # fmt: skip
        self.download(f"{lslug}/", standings, rules_table, seasons, events_table)
        self.render(
            f"{lslug}/index.html", "ladder", "../", name=name, info=info, standings=standings,
            rules=rules_table, seasons=seasons, events=events_table, chart=dist, n_games=n_games,
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

    # -- pass 1: games and events in effective order ---------------------------------
    def _games_and_events(
        self, name: str, lid: str, lslug: str, rules: LadderRules
    ) -> dict[str, dict[str, Any]]:
        audit = tables.game_audit(self.conn, lid)
        events: dict[str, dict[str, Any]] = {}
        history = _grouped(tables.history_rows(self.conn, lid, self.cut, by_player=False))
        pending = next(history, None)
        for gid, short_id, key, status, facts, _at, _by in tables.games(self.conn, lid, self.cut):
            while pending is not None and pending[0] < key:
                pending = next(history, None)
            rows = pending[1] if pending is not None and pending[0] == key else {}
            if status != "voided" and not rows:
                continue  # a game of a merged-away identity still being replayed: no rows yet
            x = explain_game(name, gid, short_id, key, status, facts, rows, rules,
                             self.names, self.merges)  # fmt: skip
            ev_name = facts.get("event")
            ev_slug = slug(ev_name) if ev_name else None
            self._game_page(lslug, gid, x, rows, audit.get(short_id, []), ev_slug)
            if ev_name and status != "voided":
                ev = events.setdefault(ev_name, {
                    "name": ev_name, "slug": ev_slug, "first": facts["date"],
                    "last": facts["date"], "games": [], "totals": {},
                })  # fmt: skip
                ev["last"] = max(ev["last"], facts["date"])
                ev["games"].append((facts, gid, short_id, x))
                for pid, row in rows.items():
                    ev["totals"][pid] = ev["totals"].get(pid, 0.0) + row["change"]
        for ev in events.values():
            self._event_page(name, lslug, ev)
        return events

    def _game_page(
        self,
        lslug: str,
        gid: str,
        x: queries.Explanation,
        rows: dict[str, dict[str, Any]],
        audit: list[tuple],
        ev_slug: str | None,
    ) -> None:
        t = self.t
        by_name = {self.names.get(pid, pid): pid for pid in rows}
        player_rows = []
        for p in x.players:
            pid = by_name.get(p.player)
            row = rows.get(pid, {}) if pid else {}
            player_rows.append([
                Cell(p.side), Cell(p.player, f"../players/{pid}.html" if pid else None, p.player),
                num(p.before), signed(p.change), num(p.after), num(row.get("k")),
                num(row.get("p")), num(row.get("s")),
            ])  # fmt: skip
        players = _table("players", t["players"], [
            (t["side"], False), (t["name"], False), (t["before"], True), (t["change"], True),
            (t["after"], True), ("K", True), ("P", True), ("S", True),
        ], player_rows, f"{gid}.players", optional=(2, 5, 6, 7))  # fmt: skip
        audit_rows = [
            [Cell(a[1][:19].replace("T", " ")), Cell(a[2]), Cell(a[3]), Cell(a[4]),
             Cell(a[5] or ""), Cell(a[6] or "")]
            for a in audit
        ]  # fmt: skip
        audit_table = _table("audit", t["audit"], [
            (t["when"], False), (t["who"], False), (t["kind"], False), (t["what"], False),
            (t["why"], False), (t["source"], False),
        ], audit_rows, f"{gid}.audit", optional=(1, 5))  # fmt: skip
        self.download(f"{lslug}/games/", players, audit_table)
        self.render(
            f"{lslug}/games/{gid}.html", "game", "../../", x=x, players=players,
            audit=audit_table, event_href=f"../events/{ev_slug}.html" if ev_slug else None,
            gid=gid,
        )  # fmt: skip

    def _event_page(self, ladder: str, lslug: str, ev: dict[str, Any]) -> None:
        t = self.t
        game_rows = []
        for facts, gid, short_id, x in ev["games"]:
            sides = " — ".join(" & ".join(p.player for p in x.players if p.side == s)
                               for s in sorted({p.side for p in x.players}))  # fmt: skip
            result = " ".join(f"{v}" for v in facts["result"].values() if v is not None)
            game_rows.append([
                Cell(facts["date"]), num(facts.get("round")), num(facts.get("table")),
                Cell(sides), Cell(result), Cell(short_id, f"../games/{gid}.html", short_id),
            ])  # fmt: skip
        games = _table("games", t["games"], [
            (t["date"], False), (t["round"], True), (t["table"], True), (t["players"], False),
            (t["result"], False), (t["game"], False),
        ], game_rows, f"{ev['slug']}.games", optional=(1, 2))  # fmt: skip
        total_rows = [
            [Cell(self.names.get(pid, pid), f"../players/{pid}.html", self.names.get(pid, pid)),
             signed(total)]
            for pid, total in sorted(ev["totals"].items(),
                                     key=lambda kv: (-kv[1], self.names.get(kv[0], kv[0])))
        ]  # fmt: skip
        totals = _table("totals", t["totals"], [
            (t["name"], False), (t["total_change"], True),
        ], total_rows, f"{ev['slug']}.totals")  # fmt: skip
        self.download(f"{lslug}/events/", games, totals)
        self.render(
            f"{lslug}/events/{ev['slug']}.html", "event", "../../", ladder=ladder, ev=ev,
            games=games, totals=totals,
        )  # fmt: skip

    # -- pass 2: players -------------------------------------------------------------
    def _players(
        self,
        name: str,
        lid: str,
        lslug: str,
        rules: LadderRules,
        events: dict[str, dict[str, Any]],
        period: tuple[str, str],
    ) -> dict[str, float]:
        """Render every player page; returns each player's change over ``period``."""
        changes: dict[str, float] = {}
        rows = tables.history_rows(self.conn, lid, self.cut, by_player=True)
        for pid, player_rows in _by_player(rows):
            changes[pid] = _period_change(player_rows, period)
            self._player_page(name, lslug, pid, player_rows, rules, events)
        return changes

    def _player_page(
        self,
        ladder: str,
        lslug: str,
        pid: str,
        rows: list[dict[str, Any]],
        rules: LadderRules,
        events: dict[str, dict[str, Any]],
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
            ev = events.get(r["event"]) if r["event"] else None
            game_href = f"../games/{r['entry']}.html" if is_game else None
            game_rows.append([
                Cell(r["date"], game_href, r["key"]),  # on a phone, the date links the game
                Cell(r["event"] or "", f"../events/{ev['slug']}.html" if ev else None),
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
            chart=chart, games=games, grades=grades, rating=ratings[-1], grade=grade,
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
