"""A player's history in a ladder as plain rows, read with the database
driver alone: what ``ledger history LADDER PLAYER`` prints for people.

``projections.queries.history`` gives the same rows as msgspec Structs (for
JSON, CSV, a workbook); this read gives them as text cells for a table, so
that a history starts about as fast as ``ledger --version``. Anything it
cannot answer here (an unknown ladder or player, a ladder that cannot be
replayed) it leaves to that query, which says why.
"""

from __future__ import annotations

import json
from typing import Any

from ledger.kernel.identity import name_key, short
from projections.formats import shown, shown_numbers, shown_texts
from projections.opponents import faced
from projections.ranking import outcome

#: The columns, as ``projections.queries.HistoryLine`` names them.
COLUMNS = (
    "date", "kind", "game", "event", "round", "table", "opponents", "result", "margin",
    "s", "p", "k", "before", "after", "change", "note",
)  # fmt: skip


def player_history(conn: Any, ladder: str, player: str) -> tuple[str, list[tuple[str, ...]]] | None:
    """(the table's title, the cells of each row in effective order), or
    None when the full query must answer (see the module's docstring)."""
    found = conn.execute(
        "SELECT n, name, problem FROM view_ladders WHERE key=?", (name_key(ladder),)
    ).fetchone()
    who = _player(conn, player)
    if found is None or found[2] or who is None:
        return None
    number, ladder_name = found[0], found[1]
    pn, name = who
    title = f"{name} in {ladder_name}"
    rows = conn.tuples(
        "SELECT h.pos, h.kind, COALESCE(substr(g.key, 1, 10), e.date), h.side, h.s, h.p, "
        "h.k, h.before, h.after, h.change, h.note, g.id, g.event, g.round, "
        # The table and the result out of the game's facts by the database (a
        # long history holds thousands; results are few, parsed once each).
        f"{conn.json_field('g.facts', 'table')}, {conn.json_field('g.facts', 'result')} "
        "FROM view_history_rows h "
        "LEFT JOIN view_games g ON h.kind = 'game' AND g.n = h.entry "
        "LEFT JOIN view_entries e ON h.kind <> 'game' AND e.n = h.entry "
        "WHERE h.ladder=? AND h.pos IN (SELECT pos FROM view_history_rows "
        "WHERE ladder=? AND player=?) AND h.player=? ORDER BY h.pos, h.seat",
        (number, number, pn, pn),
    )
    if not rows:
        return title, []
    # Column by column, each one comprehension.
    (pos, kind, day, side, s, p, k, before, after, change, note, game, event, round_,
     table, result) = zip(*rows, strict=True)  # fmt: skip
    against = faced(conn, number, pn)
    results: dict[str, Any] = {}
    seen = [
        outcome(results.get(text) or results.setdefault(text, json.loads(text)), at)
        if text is not None
        else (None, None)
        for text, at in zip(result, side, strict=True)
    ]
    return title, list(
        zip(
            day,
            kind,
            [short(g) if g is not None else "" for g in game],
            shown_texts(event),
            shown_numbers(round_),
            [shown(t) for t in table],
            shown_texts(", ".join(against.get(at, ())) for at in zip(pos, side, strict=True)),
            shown_texts(r for r, _ in seen),
            shown_texts(m for _, m in seen),
            *map(shown_numbers, (s, p, k, before, after, change)),
            shown_texts(note),
            strict=True,
        )
    )


def _player(conn: Any, name: str) -> tuple[int, str] | None:
    """(number, name) of the player called ``name``, or of the player they
    were merged into; None for an unknown name."""
    row = conn.execute(
        "SELECT id, merged_into FROM view_players WHERE key=?", (name_key(name),)
    ).fetchone()
    if row is None:
        return None
    pid = row[0]
    if row[1]:  # merged: the player they were merged into (a merge of a merge...)
        pid, seen = row[1], set()
        while pid not in seen:
            seen.add(pid)
            step = conn.execute("SELECT merged_into FROM view_players WHERE id=?", (pid,))
            merged = step.fetchone()
            if merged is None or not merged[0]:
                break
            pid = merged[0]
    found = conn.execute("SELECT n, name FROM view_players WHERE id=?", (pid,)).fetchone()
    return (found[0], found[1]) if found else None
