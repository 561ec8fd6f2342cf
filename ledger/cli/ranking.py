"""A ladder's current ranking as plain rows, read with the database driver
alone: what ``ledger standings`` prints for people.

``projections.queries.standings`` gives the same rows as msgspec Structs (for
JSON, CSV, a workbook, a past date); this read gives them as text cells for a
table, so that a ranking of thousands starts about as fast as ``ledger
--version`` (msgspec and the ladder's family load only for a family that
grades). Anything it cannot answer here (an unknown ladder, one that cannot
be replayed) it leaves to that query, which says why.
"""

from __future__ import annotations

from datetime import date
from operator import itemgetter
from typing import Any

from ledger.kernel.identity import name_key
from projections.formats import shown_numbers, shown_texts
from projections.ranking import ranks

#: The columns, as ``projections.queries.StandingRow`` names them.
COLUMNS = ("rank", "player", "rating", "grade", "games", "last_played")


def current(conn: Any, ladder: str, lang: str = "en") -> list[tuple[str, ...]] | None:
    """The cells of each row of ``ladder``'s ranking today, best first, or
    None when the full query must answer (see the module's docstring)."""
    found = conn.execute(
        "SELECT n, problem FROM view_ladders WHERE key=?", (name_key(ladder),)
    ).fetchone()
    if found is None or found[1]:
        return None
    number = found[0]
    rows = conn.tuples(
        # Names by join: one statement, one pass over the ladder's standings.
        "SELECT p.name, s.rating, s.games, s.last_played FROM view_standings s "
        "JOIN view_players p ON p.n = s.player WHERE s.ladder=?",
        (number,),
    )
    # Best first, equal ratings by name in code-point order (sorted here: a
    # PostgreSQL server would order names by its own collation): by name,
    # then by rating, which keeps the names' order among equals.
    rows.sort(key=itemgetter(0))
    rows.sort(key=itemgetter(1), reverse=True)
    if not rows:
        return []
    # Column by column, each one comprehension (a ranking may be thousands).
    names, ratings, games, last = zip(*rows, strict=True)
    grade = _grader(conn, number, lang)
    return list(
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
    )


def _grader(conn: Any, ladder: int, lang: str) -> Any:
    """``grade(rating, games)`` of the family in force today, or None for a
    family that gives no grades (known without loading a built-in one)."""
    from ledger.families.registry import gives_grades, load_family

    # SQLite reads the family's name out of the ruleset itself (no JSON
    # decoder to load when there is no grade to give).
    name = "json_extract(data, '$.family')" if conn.kind == "sqlite" else "NULL"
    family, data = conn.execute(
        f"SELECT {name}, data FROM view_entries WHERE ladder=? AND kind='ruleset' AND key<=? "
        "ORDER BY key DESC LIMIT 1",
        (ladder, date.today().isoformat() + "\x7f"),
    ).fetchone()
    if family is not None and not gives_grades(family):
        return None
    import json

    ruleset = json.loads(data)
    if not gives_grades(ruleset["family"]):
        return None
    from ledger.families.base import PlayerState

    bound = load_family(ruleset["family"], ruleset["params"])
    return lambda rating, games: bound.grade(PlayerState(rating=rating, games=games), lang)
