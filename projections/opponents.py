"""Who a player faced in each of their games: one statement shared by the
history query and the CLI's plain history table (kept free of msgspec so
that the table starts without the projection's modules)."""

from __future__ import annotations

from typing import Any


def faced(conn: Any, ladder: int, player: int) -> dict[tuple[int, int], list[str]]:
    """The opponents' names of each game of ``player`` in ``ladder``, keyed
    by (the game's place in the ladder, the player's side), in seat order."""
    against: dict[tuple[int, int], list[str]] = {}
    for pos, side, other in conn.execute(
        # The player's rows first (SQLite joins a CROSS JOIN in the order
        # written: without statistics it would start from the opponents).
        "SELECT h.pos, h.side, p.name FROM view_history_rows h "
        "CROSS JOIN view_history_rows o CROSS JOIN view_players p "
        "WHERE h.ladder=? AND h.player=? AND h.kind='game' AND o.ladder = h.ladder "
        "AND o.pos = h.pos AND o.side <> h.side AND p.n = o.player ORDER BY h.pos, o.seat",
        (ladder, player),
    ):
        against.setdefault((pos, side), []).append(other)
    return against
