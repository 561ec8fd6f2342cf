"""Notes for a referee: a game that lands inside a season already closed.

A late result (or a correction that moves a game's date) inside a closed
season changes who sat the season out, so the ladder's replay runs the
close again with it (RULES.md, "Season close"). The command that recorded
the game says so; the views, brought up to date, tell which seasons.
"""

from __future__ import annotations

from typing import Any

import msgspec


def replayed_closes(conn: Any, game: str) -> list[str]:
    """One note per closed season of its ladder that the game (its id or
    the short id printed) falls inside."""
    found = conn.execute(
        "SELECT ladder, substr(key, 1, 10) FROM view_games WHERE id >= ? AND id <= ? "
        "AND status <> 'voided' LIMIT 1",
        (game, game + "~"),
    ).fetchone()
    if found is None:
        return []
    ladder, played = found
    notes = []
    for (data,) in conn.execute(
        "SELECT data FROM view_entries WHERE ladder = ? AND kind = 'season' ORDER BY key",
        (ladder,),
    ):
        season = msgspec.json.decode(data)
        if season["start"] <= played <= season["end"]:
            notes.append(
                f"the game of {played} is inside season {season['label']!r} "
                f"({season['start']} to {season['end']}), already closed: the close "
                "was replayed with it"
            )
    return notes
