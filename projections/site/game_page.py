"""The games of one event page (or one month's page of games outside events),
gathered a game at a time as the game pass reads them.

Each game adds its row of the page's games table (written as markup, as
``html.data_table`` writes the same cells, and as a download row), its
section (its explanation: the stored rows, and its audit trail), its rows in
the page's ``.changes`` and ``.audit`` downloads and its changes
in the page's totals. Names, events and summaries are escaped with
markupsafe's escaping; a name once per distinct name.
"""

from __future__ import annotations

from typing import Any

from projections import queries
from projections.site.audit import Line
from projections.site.explain import LadderRules
from projections.site.games import Game
from projections.site.html import GameSections, escape_text
from projections.site.text import label
from projections.site.writer import CsvCells
from projections.views.source import Facts


def _n(value: float | None) -> str:
    """``build.num``'s text of a number (4 decimals, no trailing zeros)."""
    return "" if value is None else f"{value:.4f}".rstrip("0").rstrip(".")


class GameContext:
    """What every game of a ladder's pages needs: words, names, rules."""

    def __init__(
        self,
        t: dict[str, str],
        sections: GameSections,
        rules: LadderRules,
        ladder: str,
        ids: dict[int, str],
        names: dict[str, str],
        label: dict[str, str],
        who: dict[str, str],
    ) -> None:
        self.t, self.sections, self.rules = t, sections, rules
        self.ladder_html = escape_text(ladder)
        self.ids, self.names, self.label, self.who = ids, names, label, who
        self.voided = f" ({t['voided']})"
        self.vs = sections.tr.gettext(" vs ")  # an audit line's sides
        #: player number -> (id, name, escaped name, page, CSV cell)
        self.players: dict[int, tuple[str, str, str, str, str]] = {}
        #: a repeated number (K, S) -> its text in a table (``_n``)
        self.numbers: dict[float | None, str] = {}
        #: player id -> (side label, escaped side label): merges followed
        self.labels: dict[str, tuple[str, str]] = {}
        #: ruleset number -> (family text, per-event family)
        self.rulesets: dict[int, tuple[str, bool]] = {}
        #: a result's (type, value) items -> (games table text, summary text, section markup)
        self.results: dict[tuple, tuple[str, str, str]] = {}
        self.csv = CsvCells()

    def status(self, code: str) -> str:
        """A game's stored status (``recorded``, ...) as people read it."""
        return label(self.sections.tr, "status", code)

    def kind(self, code: str) -> str:
        """An audit line's stored kind (``game voided``, ...) as people read it."""
        return label(self.sections.tr, "kind", code)

    def player(self, n: int) -> tuple[str, str, str, str, str]:
        held = self.players.get(n)
        if held is None:
            pid = self.ids[n]
            name = self.names.get(pid, pid)
            held = self.players[n] = (pid, name, escape_text(name), f"../players/{pid}.html",
                                      self.csv(name))  # fmt: skip
        return held

    def number(self, value: float | None) -> str:
        """``_n`` of a value that repeats (K, S): each worked out once."""
        text = self.numbers.get(value)
        if text is None:
            text = _n(value)
            if len(self.numbers) < 10_000:
                self.numbers[value] = text
        return text

    def side_label(self, pid: str) -> tuple[str, str]:
        held = self.labels.get(pid)
        if held is None:
            name = self.label.get(pid, pid)
            held = self.labels[pid] = (name, escape_text(name))
        return held

    def ruleset(self, key: str) -> tuple[str, bool]:
        rules = self.rules
        i = rules.index_at(key)
        held = self.rulesets.get(i)
        if held is None:
            family = rules.family_at(key)
            text = self.sections.family(rules.data[i]["family"], rules.keys[i][:10])
            held = self.rulesets[i] = (text, bool(family.per_event))
        return held

    def result(self, result: dict[str, Any]) -> tuple[str, str, str]:
        key = tuple((k, v.__class__, v) for k, v in result.items())
        try:
            held = self.results.get(key)
        except TypeError:  # an unhashable value: written each time
            held, key = None, None
        if held is None:
            tr = self.sections.tr
            held = (
                " ".join(label(tr, k, v) for k, v in result.items() if v is not None),
                queries.summary_result(result, tr),
                self.sections.result(result),
            )
            if key is not None and len(self.results) < 10_000:
                self.results[key] = held
        return held


class GamePage:
    """The games of one event (or one month outside events) as they are
    read: their table rows, sections, downloads and each player's total."""

    def __init__(self, path: str, event: str | None, month: str) -> None:
        self.path, self.event, self.month = path, event, month
        self.first: str | None = None
        self.last: str | None = None
        self.rated = 0
        self.body: list[str] = []  # the games table's rows, as markup
        self.raw: list[list[Any]] = []  # and as download rows
        self.lines: list[str] = []  # and as CSV lines
        # The page's downloads of its games' changes and audit lines: rows,
        # and their CSV lines.
        self.changes: list[list[Any]] = []
        self.changes_lines: list[str] = []
        self.audit: list[list[Any]] = []
        self.audit_lines: list[str] = []
        self.stem = path.rsplit("/", 1)[1].removesuffix(".html")
        self.sections: list[str] = []
        self.totals: dict[str, float] = {}

    @staticmethod
    def changes_columns(t: dict[str, str]) -> list[str]:
        return [t["game"], t["side"], t["name"], t["before"], t["change"], t["after"],
                "K", "P", "S"]  # fmt: skip

    @staticmethod
    def audit_columns(t: dict[str, str]) -> list[str]:
        return [t["game"], t["when"], t["who"], t["kind"], t["what"], t["why"], t["source"]]

    def add(self, c: GameContext, g: Game, kept: Facts, later: list[Line]) -> None:
        """One game: its row in the games table, its section, its rows in
        the ladder's downloads and its changes in the players' totals."""
        e, sections = escape_text, c.sections
        lab = sections.labels
        gid, key, status, event, round_ = g.id, g.key, g.status, g.event, g.round
        day = key[:10]
        short_id = gid.replace("-", "")[:8]  # ledger.kernel.identity.short
        voided = status == "voided"
        if not voided:
            self.rated += 1
            if self.first is None:  # games come in effective order
                self.first = day
            self.last = day
        shown, summary_result, result_text = c.result(kept.result)
        # The games table's row: date, round, table, sides, result, game.
        side_label, who = c.side_label, c.who
        duel = len(kept.sides) == 2 and len(kept.sides[0]) == 1 == len(kept.sides[1])
        if duel:
            (a,), (b,) = kept.sides
            (a_text, a_html), (b_text, b_html) = side_label(a), side_label(b)
            sides, sides_html = f"{a_text} — {b_text}", f"{a_html} — {b_html}"
        else:
            parts = [[side_label(p) for p in side] for side in kept.sides]
            sides = " — ".join(" & ".join(p[0] for p in side) for side in parts)
            sides_html = " — ".join(" &amp; ".join(p[1] for p in side) for side in parts)
        if voided:
            shown += c.voided
        table = kept.table
        round_td = (
            '<td class="n opt"></td>' if round_ is None
            else f'<td class="n opt" data-v="{round_}">{_n(round_)}</td>'
        )  # fmt: skip
        table_td = (
            '<td class="n opt"></td>' if table is None
            else f'<td class="n opt" data-v="{table}">{_n(table)}</td>'
        )  # fmt: skip
        self.body.append(
            f"<tr><td>{day}</td>{round_td}{table_td}<td>{sides_html}</td><td>{e(shown)}</td>"
            f'<td data-v="{short_id}"><a href="#g-{gid}">{short_id}</a></td></tr>\n'
        )
        self.raw.append([day, "" if round_ is None else round_, "" if table is None else table,
                         sides, shown, short_id])  # fmt: skip
        csv = c.csv
        known = csv.known.get
        self.lines.append(
            f"{known(day) or csv(day)},{'' if round_ is None else round_},{'' if table is None else table},"
            f"{csv(sides)},{csv(shown)},{short_id}"
        )
        # The players' rows: the numbers ``ledger explain`` shows.
        rows = []
        totals, changes, player = self.totals, self.changes, c.player
        changes_lines, numbers, number = self.changes_lines, c.numbers, c.number
        for n, side, s, p, k, before, change, after in g.rows:
            pid, name, name_html, href, name_csv = player(n)
            if not voided:
                totals[pid] = totals.get(pid, 0.0) + change
            letter = "AB"[side] if side < 2 else chr(65 + side)
            changes.append([short_id, letter, name, before, change, after, k, p, s])
            changes_lines.append(
                f"{short_id},{letter},{name_csv},{before},{change},{after},"
                f"{'' if k is None else k},{'' if p is None else p},{'' if s is None else s}"
            )
            k_ = numbers.get(k) or number(k)
            s_ = numbers.get(s) or number(s)
            p_ = "" if p is None else f"{p:.4f}".rstrip("0").rstrip(".")
            rows.append(
                f'<tr><td>{letter}</td><td><a href="{href}">{name_html}</a></td>'
                f'<td class="n opt">{f"{before:.4f}".rstrip("0").rstrip(".")}</td><td class="n">'
                f'{f"{change:+.4f}".rstrip("0").rstrip(".")}</td><td class="n">'
                f'{f"{after:.4f}".rstrip("0").rstrip(".")}</td><td class="n opt">{k_}</td>'
                f'<td class="n opt">{p_}</td><td class="n opt">{s_}</td></tr>\n'
            )
        # The audit trail: the game's first record, then later lines.
        first = g.first_facts if g.first_facts is not None else kept
        on, where_event, where_round = first.date, first.event, first.round
        if first is kept and duel:
            players_text = f"{who.get(a, a)}{c.vs}{who.get(b, b)}"
        else:
            players_text = c.vs.join(
                " & ".join(who.get(p, p) for p in side) for side in first.sides
            )
        if first is not kept:
            summary_result = queries.summary_result(first.result, sections.tr)
        where = f" {where_event} r{where_round}" if where_event else ""
        what = queries.summary_line(
            short_id, "", f"{on}{where}: {players_text} ({summary_result})", sections.tr
        )
        source = (
            f"{g.file}:{g.source_row}" if g.file is not None and g.source_row is not None else None
        )
        trail = [(g.n, g.recorded_at, g.recorded_by, "game recorded", what, g.reason, source)]
        if later:
            trail = sorted([*trail, *later])
        lines = [
            (a[1][:19].replace("T", " "), a[2], c.kind(a[3]), a[4], a[5] or "", a[6] or "")
            for a in trail
        ]
        audit, audit_lines = self.audit, self.audit_lines
        for when, by, kind, what_, why, src in lines:
            audit.append([short_id, when, by, kind, what_, why, src])
            audit_lines.append(
                f"{short_id},{known(when) or csv(when)},{known(by) or csv(by)},"
                f"{known(kind) or csv(kind)},{csv.one(what_)},{known(why) or csv(why)},"
                f"{known(src) or csv(src)}"
            )
        if len(lines) == 1:
            # Recorded once, never corrected: its one audit line is the facts
            # above and who recorded them when, from where (a line of the
            # facts list; the page's audit download holds the line as is).
            when, by, _, _, why, src = lines[0]
            trail = (
                f"<dt>{lab['recorded']}</dt><dd>{e(when)} · {e(by)}"
                f"{f' · {e(src)}' if src else ''}{f' · {e(why)}' if why else ''}</dd>\n"
            )
            trail_table = ""
        else:
            trail = ""
            trail_table = c.sections.table(
                f"{gid}-audit",
                lab["audit"],
                f"{self.stem}.audit",
                c.sections.audit_head,
                "".join(
                    f'<tr><td>{e(when)}</td><td class="opt">{e(by)}</td><td>{e(kind)}</td>'
                    f'<td>{e(what_)}</td><td>{e(why)}</td><td class="opt">{e(src)}</td></tr>\n'
                    for when, by, kind, what_, why, src in lines
                ),
            )
        # The section.
        family, per_event = c.ruleset(key)
        if voided:
            note = f"<dt>{lab['note']}</dt><dd>{lab['voided_note']}</dd>\n"
        elif per_event and event:
            note = f"<dt>{lab['note']}</dt><dd>{lab['per_event_note']}</dd>\n"
        else:
            note = ""
        status_html = e(c.status(status))
        event_html = ""
        if event:
            rnd = f" · {lab['round']} {round_}" if round_ is not None else ""
            event_html = f"<dt>{lab['event']}</dt><dd>{e(event)}{rnd}</dd>\n"
        self.sections.append(
            f'<section class="game" id="g-{gid}">\n<h2>{lab["game"]} {short_id}</h2>\n'
            f'<dl class="facts">\n<dt>{lab["ladder"]}</dt><dd><a href="../index.html">'
            f"{c.ladder_html}</a></dd>\n<dt>{lab['date']}</dt><dd>{day}</dd>\n{event_html}"
            f'<dt>{lab["status"]}</dt><dd class="status-{e(status)}">{status_html}</dd>\n'
            f"<dt>{lab['family']}</dt><dd>{family}</dd>\n<dt>{lab['result']}</dt><dd>"
            f"{result_text}</dd>\n{note}{trail}</dl>\n"
            + sections.players(gid, "".join(rows))
            + trail_table
            + "</section>\n"
        )  # fmt: skip
