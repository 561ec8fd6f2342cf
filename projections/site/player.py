"""A player page's rows in one pass: the games table, the chart's entries,
the events' spans and the grade history.

A ladder of 100,000 games has 200,000 player-game rows: each is written here
as one ``<tr>`` string (the markup ``html.data_table`` writes for the same
cells, escaped with markupsafe's escaping; each name escaped once) and one
download row, instead of a ``Cell`` a value.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from ledger.families.base import PlayerState
from ledger.kernel.identity import short
from projections.site import html
from projections.site.explain import LadderRules
from projections.site.html import Cell
from projections.site.writer import CsvCells

# Places in a history row (``tables.HISTORY_COLUMNS``).
KEY, ENTRY, KIND, DATE, EVENT, OPPONENTS, S, P, K = 0, 1, 2, 4, 5, 8, 9, 10, 11
CHANGE, AFTER, GAMES_AFTER, NOTE, STATUS, STATE = 13, 14, 16, 17, 18, 20


class PlayerRows:
    """Writes the rows of one ladder's player pages in one language."""

    def __init__(
        self,
        t: dict[str, str],
        lang: str,
        names: dict[str, str],
        rules: LadderRules,
        page_of: Any,
        slug: Any,
    ) -> None:
        self.t, self.lang, self.names, self.rules = t, lang, names, rules
        self.page_of, self.slug = page_of, slug
        self.kinds = {"adjust": t["adjust"], "season": t["season_close"],
                      "event": t["event_close"]}  # fmt: skip
        self._names_html: dict[str, str] = {}
        self._events: dict[str, tuple[str, str]] = {}
        self._results: dict[float, tuple[str, str]] = {}
        self._days: dict[str, date] = {}
        self.corrected = f" ({t['corrected']})"
        self.corrected_html = html.escape_text(self.corrected)
        self.csv = CsvCells()
        self.graded = rules.graded()  # no grades: none worked out a row

    def _event(self, event: str) -> tuple[str, str]:
        """An event's page (from a player page) and its escaped name."""
        held = self._events.get(event)
        if held is None:
            held = self._events[event] = (f"../{self.page_of(event, '')}", html.escape_text(event))
        return held

    def _result(self, s: float | None) -> tuple[str, str]:
        """A game's result word and S, as text and escaped."""
        held = self._results.get(s)  # type: ignore[arg-type]
        if held is None:
            t = self.t
            if s is None:
                text = ""
            else:
                word = t["won"] if s > 0.5 else t["lost"] if s < 0.5 else t["draw"]
                text = f"{word} (S {s:g})"
            held = self._results[s] = (text, html.escape_text(text))  # type: ignore[index]
        return held

    def _opponents(self, ids: str) -> tuple[str, str]:
        names, known = self.names, self._names_html
        text, marked = [], []
        for o in ids.split(","):
            if o:
                name = names.get(o, o)
                h = known.get(name)
                if h is None:
                    h = known[name] = html.escape_text(name)
                text.append(name)
                marked.append(h)
        return ", ".join(text), ", ".join(marked)

    def rows(self, rows: list[tuple]) -> dict[str, Any]:
        """A player's history rows (effective order) as their page shows
        them: ``body`` (the games table's rows), ``raw`` (its download
        rows), ``lines`` (their CSV lines, texts from ``self.csv``), ``entries`` (the chart's points), ``spans`` (event: first and
        last day), ``grades`` (grade history rows) and the last ``grade``."""
        t, lang, kinds, e = self.t, self.lang, self.kinds, html.escape_text
        days = self._days
        family_at, graded = self.rules.family_at, self.graded
        body, raw, lines, entries, grade_rows = [], [], [], [], []
        csv = self.csv
        known = csv.known.get
        spans: dict[str, list[date]] = {}
        grade = None
        for r in rows:
            day, kind_, event, key, after, change = (
                r[DATE],
                r[KIND],
                r[EVENT],
                r[KEY],
                r[AFTER],
                r[CHANGE],
            )
            on = days.get(day)
            if on is None:
                on = days[day] = date.fromisoformat(day)
            k, p = r[K], r[P]
            # A family whose ratings know their uncertainty: the chart's band.
            extra = r[STATE]
            deviation = (
                None
                if extra is None
                else family_at(key).deviation(PlayerState(rating=after, extra=extra))
            )
            # Each number's exact text once: the cell's sort key and the CSV's.
            ks = "" if k is None else f"{k}"
            ps = "" if p is None else f"{p}"
            cs, as_ = f"{change}", f"{after}"
            # Numbers sort by their text (site.js reads it as a number): no
            # exact value beside them, 200,000 rows are 18 MB less to write.
            cells = (
                ('<td class="n opt"></td>' if k is None else
                 f'<td class="n opt">{f"{k:.4f}".rstrip("0").rstrip(".")}</td>')
                + ('<td class="n opt"></td>' if p is None else
                   f'<td class="n opt">{f"{p:.4f}".rstrip("0").rstrip(".")}</td>')
                + f'<td class="n">{f"{change:+.4f}".rstrip("0").rstrip(".")}</td>'
                f'<td class="n">{f"{after:.4f}".rstrip("0").rstrip(".")}</td>'
            )  # fmt: skip
            numbers = f"{ks},{ps},{cs},{as_}"
            # The row's place sorts it as its effective key would (rows come in that order).
            sort = len(body)
            if kind_ == "game":
                corrected = r[STATUS] == "corrected"
                mark = self.corrected if corrected else ""
                entries.append((on, after, "corrected" if corrected else "game",
                                f"{day}: {after:g} ({change:+g}) {event or t['game']}{mark}",
                                deviation))  # fmt: skip
                href = f"../{self.page_of(event, day)}#g-{r[ENTRY]}"
                if event:
                    span = spans.get(event)
                    if span is None:
                        spans[event] = [on, on]
                    else:  # rows come in effective order: days never go back
                        span[1] = on
                    event_href, event_html = self._event(event)
                    event_td = f'<td class="opt"><a href="{event_href}">{event_html}</a></td>'
                else:
                    event_td = '<td class="opt"></td>'
                opponents, opponents_html = self._opponents(r[OPPONENTS])
                result, result_html = self._result(r[S])
                game = short(r[ENTRY]) + mark
                game_html = short(r[ENTRY]) + (self.corrected_html if corrected else "")
                body.append(
                    f'<tr><td data-v="{sort}"><a href="{href}">{day}</a></td>{event_td}'
                    f"<td>{opponents_html}</td><td>{result_html}</td>{cells}"
                    f'<td class="opt" data-v="{sort}"><a href="{href}">{game_html}</a></td>'
                    "</tr>\n"
                )
                raw.append([day, event or "", opponents, result, "" if k is None else k,
                            "" if p is None else p, change, after, game])  # fmt: skip
                lines.append(f"{known(day) or csv(day)},{known(event or '') or csv(event or '')},"
                             f"{known(opponents) or csv(opponents)},"
                             f"{known(result) or csv(result)},{numbers},{csv.one(game)}")  # fmt: skip
            else:
                what = kinds.get(kind_, kind_)
                entries.append(
                    (on, after, "other", f"{day}: {after:g} ({change:+g}) {what}", deviation)
                )
                note = r[NOTE] or what
                body.append(
                    f'<tr><td data-v="{sort}">{day}</td><td class="opt"></td><td>{e(note)}</td>'
                    f'<td>{e(what)}</td>{cells}<td class="opt"></td></tr>\n'
                )
                raw.append([day, "", note, what, "" if k is None else k, "" if p is None else p,
                            change, after, ""])  # fmt: skip
                lines.append(f"{csv(day)},,{csv(note)},{csv(what)},{numbers},")
            if graded:
                now = family_at(key).grade(PlayerState(rating=after, games=r[GAMES_AFTER]), lang)
                if now != grade and now is not None:
                    grade_rows.append([Cell(day), Cell(now), _num(after)])
                grade = now
        return {"body": "".join(body), "raw": raw, "lines": lines, "entries": entries, "spans": spans,
                "grades": grade_rows, "grade": grade}  # fmt: skip


def _num(value: float) -> Cell:
    return Cell(f"{value:.4f}".rstrip("0").rstrip("."), None, value)
