"""The floor under ``ledger standings``: a ladder's ranking printed by the
standard library alone (no ledger, no click, no msgspec).

    python bench/ranking_floor.py LEDGER.db LADDER

One SQL read of the ladder's standings joined to the players' names, a sort
best first, the rank, name, rating, games and last-played cells formatted
and padded to their columns' widths, every line written to stdout: the
least any command printing the whole ranking does. ``bench.py`` times it
beside ``ledger --version`` and ``python -c pass``: its work beyond
Python's own start-up, added to the ledger's start-up, is the fastest a
``ledger standings`` could be, whatever the ledger did.
"""

from __future__ import annotations

import sqlite3
import sys
from operator import itemgetter


def main(path: str, ladder: str) -> None:
    """Print ``ladder``'s ranking from the views of the SQLite ledger at ``path``."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT p.name, s.rating, s.games, s.last_played FROM view_standings s "
        "JOIN view_players p ON p.n = s.player "
        "JOIN view_ladders l ON l.n = s.ladder WHERE l.name = ?",
        (ladder,),
    ).fetchall()
    rows.sort(key=itemgetter(1), reverse=True)  # (ties left in store order: a floor)
    names, ratings, games, last = zip(*rows, strict=True) if rows else ((),) * 4
    columns = [
        ["rank", *map(str, range(1, len(rows) + 1))],
        ["player", *names],
        ["rating", *(f"{rating:.4f}" for rating in ratings)],
        ["games", *map(str, games)],
        ["last played", *(day or "" for day in last)],
    ]
    line = "  ".join(f"%-{max(map(len, column))}s" for column in columns)
    sys.stdout.write(
        ladder + "\n" + "\n".join(line % cells for cells in zip(*columns, strict=True)) + "\n"
    )


if __name__ == "__main__":
    main(*sys.argv[1:3])
