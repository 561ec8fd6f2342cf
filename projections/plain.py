"""A ladder's current ranking and a player's history as plain text cells,
read with the database driver alone: the tables ``ledger standings`` and
``ledger history LADDER PLAYER`` print for people.

``projections.queries.standings`` and ``history`` give the same rows as
msgspec Structs (for JSON, CSV, a workbook, a past date), through the same
reads (``projections.reads``); these give them as cells, so that a ranking
of thousands starts about as fast as ``ledger --version`` (msgspec and the
ladder's family load only for a family that grades).
"""

from __future__ import annotations

from itertools import compress
from operator import eq, itemgetter
from typing import Any, NamedTuple

from ledger.kernel.identity import short
from ledger.kernel.translation import Translator, translator
from projections.formats import shown, shown_numbers, shown_texts
from projections.ranking import outcome, ranks
from projections.reads import (
    CURRENT_STANDINGS_WITH_STATE,
    history_subject,
    player_history,
    replayed_ladder_row,
    ruleset_at_sql,
    today_key,
)

#: The ranking's columns, as ``projections.queries.StandingRow`` names them.
RANKING_COLUMNS = ("rank", "player", "rating", "grade", "games", "last_played")
#: The history's columns, as ``projections.queries.HistoryLine`` names them.
HISTORY_COLUMNS = (
    "date", "kind", "game", "event", "round", "table", "opponents", "result", "margin",
    "s", "p", "k", "before", "after", "change", "note",
)  # fmt: skip


class PlainTable(NamedTuple):
    """A table for people: its title, columns and each row's cells."""

    title: str
    columns: tuple[str, ...]
    cells: list[tuple[str, ...]]


def ranking(conn: Any, ladder: str, lang: str = "en") -> PlainTable | None:
    """``ladder``'s ranking today, best first (equal ratings share a rank);
    None for a ladder whose family's ratings know their uncertainty (its
    ranking needs the family: ``queries.standings``)."""
    row = replayed_ladder_row(conn, ladder)
    number = row["n"]
    # One scan of the ladder's standings: the family states come with the
    # rows, and any one of them means ratings with their uncertainty.
    rows = conn.tuples(CURRENT_STANDINGS_WITH_STATE, (number,))
    if list(map(itemgetter(4), rows)).count(None) != len(rows):
        return None  # ratings with their uncertainty: ``queries.standings``
    if not rows:
        return PlainTable(ladder, RANKING_COLUMNS, [])
    # Best first, equal ratings by name in code-point order (sorted here: a
    # PostgreSQL server would order names by its own collation): one stable
    # sort by rating, then each run of equal ratings (rare) by name, rather
    # than a second sort of thousands of names.
    rows.sort(key=itemgetter(1), reverse=True)
    names, ratings, games, last, _ = zip(*rows, strict=True)
    tied = list(compress(range(len(rows) - 1), map(eq, ratings, ratings[1:])))
    if tied:
        for run in _runs(tied):
            rows[run.start : run.stop] = sorted(rows[run.start : run.stop], key=itemgetter(0))
        names, ratings, games, last, _ = zip(*rows, strict=True)
    grade = _grader(conn, number, lang)
    return PlainTable(
        ladder,
        RANKING_COLUMNS,
        list(
            zip(
                map(str, ranks(ratings)),
                shown_texts(names),
                shown_numbers(ratings),
                [grade(r, g) or "" for r, g in zip(ratings, games, strict=True)]
                if grade is not None
                else [""] * len(rows),
                map(str, games),
                [day or "" for day in last],
                strict=True,
            )
        ),
    )


def _runs(tied: list[int]) -> list[range]:
    """The runs of rows sharing a rating, each as the range of its places,
    from the places ``tied`` whose row's rating equals the next row's."""
    runs = []
    at = 0
    while at < len(tied):
        end = at
        while end + 1 < len(tied) and tied[end + 1] == tied[end] + 1:
            end += 1
        runs.append(range(tied[at], tied[end] + 2))
        at = end + 1
    return runs


def _grader(conn: Any, ladder: int, lang: str) -> Any:
    """``grade(rating, games)`` of the family in force today, or None for a
    family that gives no grades (known without loading a built-in one)."""
    from ledger.families.registry import gives_grades, load_family

    # SQLite reads the family's name out of the ruleset itself (no JSON
    # decoder to load when there is no grade to give).
    name = "json_extract(data, '$.family')" if conn.kind == "sqlite" else "NULL"
    family, data = conn.execute(ruleset_at_sql(f"{name}, data"), (ladder, today_key())).fetchone()
    if family is not None and not gives_grades(family):
        return None
    import json

    ruleset = json.loads(data)
    if not gives_grades(ruleset["family"]):
        return None
    from ledger.families.base import PlayerState

    bound = load_family(ruleset["family"], ruleset["params"])
    return lambda rating, games: bound.grade(PlayerState(rating=rating, games=games), lang)


def history(conn: Any, ladder: str, player: str, t: Translator | None = None) -> PlainTable:
    """``player``'s history in ``ladder``, in effective order (its title in
    ``t``'s language)."""
    subject = history_subject(conn, ladder, player)
    lines = player_history(conn, subject.ladder, subject.player)
    cells = []
    for line in lines:
        row, entry, facts = line.row, line.entry, line.facts
        result, margin = outcome(facts["result"], row.side) if facts is not None else (None, None)
        cells.append(
            (
                entry.date,
                row.kind,
                short(entry.id) if row.kind == "game" else "",
                shown(entry.event),
                shown(entry.round),
                shown(facts.get("table") if facts is not None else None),
                shown(", ".join(line.opponents)),
                shown(result),
                shown(margin),
                *shown_numbers((row.s, row.p, row.k, row.before, row.after, row.change)),
                shown(row.note),
            )
        )
    return PlainTable(subject.titled(t or translator()), HISTORY_COLUMNS, cells)
