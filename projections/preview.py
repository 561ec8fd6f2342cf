"""What an import would do to ratings, shown before anything is recorded
(``ledger import --dry-run``): the planned events are projected onto
throwaway in-memory views built from the store."""

from __future__ import annotations

from typing import Any

from ledger.kernel import events as ev
from ledger.kernel.translation import Message
from projections import views
from projections.views import history

#: A result moving a rating by more than this is worth a second look.
BIG_MOVE = 100
#: New players named in the one "first games" line (all are in the report's
#: ``new_players``).
FIRST_GAMES_SHOWN = 10


def preview_warnings(recorder: Any, new: list[Any], label: str) -> list[str]:
    """New players' first games (one line for the sheet), and every result
    that would move a rating by more than ``BIG_MOVE`` points, with the
    sheet row."""
    preview = views.in_memory(recorder)
    views.apply_events(preview, new)
    names = dict(preview.execute("SELECT id, name FROM view_players"))
    ids = dict(preview.execute("SELECT n, id FROM view_players"))
    rows = {str(e.originator_id): e.source.row for e in new if isinstance(e, ev.GameRecorded)}
    warnings = []
    first_seen: dict[str, str] = {}  # player -> "'Name' (row N)", in sheet order
    registered = {str(e.originator_id) for e in new if isinstance(e, ev.PlayerRegistered)}
    game_ids = dict(preview.execute("SELECT n, id FROM view_games"))
    every = [
        row
        for (ladder,) in preview.execute("SELECT n FROM view_ladders ORDER BY n").fetchall()
        for row in history.ladder_rows(preview, ladder)
        if row.kind == "game"
    ]
    for row in every:
        entry, number, change, games_before = (
            game_ids[row.entry],
            row.player,
            row.change,
            row.games_before,
        )
        if entry not in rows:
            continue
        player = ids[number]
        who = names.get(player, player)
        if player in registered and player not in first_seen and games_before == 0:
            first_seen[player] = Message("{name} (row {row})", name=repr(who), row=rows[entry])
        if abs(change) > BIG_MOVE:
            moved = f"{change:+g}"
            warnings.append(
                Message(
                    "{file}: row {row}: moves {name} by {change} points (more than {most})",
                    file=label, row=rows[entry], name=repr(who), change=moved, most=BIG_MOVE,
                )
            )  # fmt: skip
    preview.close()
    if first_seen:
        shown = list(first_seen.values())
        more = len(shown) - FIRST_GAMES_SHOWN
        first = shown[:FIRST_GAMES_SHOWN]
        # The names joined as a Message of their own (no text to translate:
        # each one's "(row N)" is translated with the line).
        places = ", ".join(f"{{p{i}}}" for i in range(len(first)))
        names = {f"p{i}": name for i, name in enumerate(first)}
        listed = Message(places, **names)
        if more > 0:
            listed = Message("{names} and {more} more", names=listed, more=more)
        if len(shown) == 1:
            line = Message("{file}: first game of 1 new player: {names}", file=label, names=listed)
        else:
            line = Message(
                "{file}: first games of {n} new players: {names}",
                file=label, n=len(shown), names=listed,
            )  # fmt: skip
        warnings.insert(0, line)
    return warnings
