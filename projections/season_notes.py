"""Notes for a referee: games that land inside a season already closed.

A late result (or a correction that moves a game's date) inside a closed
season changes who sat the season out, so the ladder's replay runs the
close again with it (docs/rules/README.md, "Season closes"). The command that recorded
the games says so; the views, brought up to date, tell which seasons.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from ledger.kernel.translation import Message


def _closed_seasons(conn: Any, ladder: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(ladder, season) of every season close in force (of one ladder);
    the season's data with its ladder's name."""
    sql = (
        "SELECT e.ladder, l.name, e.data FROM view_entries e JOIN view_ladders l "
        "ON l.n = e.ladder WHERE e.kind = 'season'"
    )
    rows = conn.execute(sql + " AND e.ladder = ? ORDER BY e.key", (ladder,)) if ladder else \
        conn.execute(sql + " ORDER BY e.ladder, e.key")  # fmt: skip
    for number, name, data in rows:
        yield number, {**msgspec.json.decode(data), "ladder": name}


def _where(season: dict[str, Any]) -> dict[str, str]:
    """A closed season's placeholders in a note."""
    return {
        "label": repr(season["label"]), "ladder": repr(season["ladder"]),
        "start": season["start"], "end": season["end"],
    }  # fmt: skip


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
    return [
        Message(
            "the game of {day} is inside season {label} of {ladder} ({start} to {end}), already "
            "closed: the close was replayed with it",
            day=played,
            **_where(season),
        )
        for _, season in _closed_seasons(conn, ladder)
        if season["start"] <= played <= season["end"]
    ]


def replayed_closes_of_import(conn: Any, file: str) -> list[str]:
    """One note per closed season that games of the latest import of
    ``file`` fall inside, with how many."""
    (recording,) = conn.execute(
        "SELECT MAX(n) FROM view_recordings WHERE file = ?", (file,)
    ).fetchone()
    if recording is None:
        return []
    notes = []
    for ladder, season in _closed_seasons(conn):
        (count,) = conn.execute(
            "SELECT COUNT(*) FROM view_games WHERE ladder = ? AND key >= ? AND key < ? "
            "AND recording = ? AND status <> 'voided'",
            (ladder, season["start"], season["end"] + "~", recording),
        ).fetchone()
        if count == 1:
            notes.append(Message(
                "1 game of this import is inside season {label} of {ladder} ({start} to {end}), "
                "already closed: the close was replayed with it",
                **_where(season),
            ))  # fmt: skip
        elif count:
            notes.append(Message(
                "{n} games of this import are inside season {label} of {ladder} ({start} to "
                "{end}), already closed: the close was replayed with them",
                n=count,
                **_where(season),
            ))  # fmt: skip
    return notes
