"""The floor under ``ledger history LADDER PLAYER``: a player's history
printed by the standard library alone (no ledger, no click, no msgspec).

    python bench/history_floor.py LEDGER.db LADDER PLAYER

The player's packed history chunks read and unpacked (``struct``), their
games' facts read from the events that hold them and parsed (``json``),
the opponents' names read, and one line a row printed: date, game, event,
round, table, opponents, result, s, p, k, before, after and change. It
reads what ``ledger history`` reads and does less with it (no merges
followed, no margins, no notes, no family state: the bench's ladder has
none), so what it takes is under what any ``ledger history`` could take.
``bench.py`` times it beside ``ledger --version`` and ``python -c pass``.
"""

from __future__ import annotations

import json
import sqlite3
import struct
import sys

#: A chunk's head (format, rows) and each column's type code -> struct code
#: (``projections.views.history``: upper-case, one value for every row).
_HEAD = struct.Struct("<BI")
_COLUMNS = 11


def _unpack(data: bytes) -> list[list[float]]:
    """A chunk's eleven columns: place, seat, entry, kind, side, s, p, k,
    before, change, games before (``history.encode``)."""
    _, count = _HEAD.unpack_from(data)
    at, columns = _HEAD.size, []
    for _ in range(_COLUMNS):
        code = chr(data[at])
        one = code.isupper()
        shape = f"={1 if one else count}{code.lower()}"
        values = list(struct.unpack_from(shape, data, at + 1))
        columns.append(values * count if one else values)
        at += 1 + struct.calcsize(shape)
    return columns


def main(path: str, ladder: str, player: str) -> None:
    """Print ``player``'s history in ``ladder`` from the SQLite ledger at ``path``."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    (lad,) = conn.execute("SELECT n FROM view_ladders WHERE name = ?", (ladder,)).fetchone()
    (who,) = conn.execute("SELECT n FROM view_players WHERE name = ?", (player,)).fetchone()
    rows: list[tuple[float, ...]] = []
    for (data,) in conn.execute(
        "SELECT data FROM view_history_chunks WHERE ladder = ? AND player = ? ORDER BY first",
        (lad, who),
    ):
        rows += zip(*_unpack(data), strict=True)
    numbers = sorted({int(row[2]) for row in rows})
    games = {
        n: (key, json.loads(state)["game"])
        for n, key, state in conn.execute(
            "SELECT g.n, substr(g.key, 1, 10) || lower(hex(substr(g.gid, 1, 4))), e.state "
            "FROM view_games g "
            "JOIN stored_events e ON e.rowid = g.facts_n "
            f"WHERE g.n IN ({','.join('?' * len(numbers))})",
            numbers,
        )
    }
    ids = {p for _, facts in games.values() for side in facts["sides"] for p in side}
    names = dict(
        conn.execute(
            f"SELECT id, name FROM view_players WHERE id IN ({','.join('?' * len(ids))})",
            sorted(ids),
        )
    )
    lines = [f"{player} in {ladder}"]
    for _, _, entry, kind, side, s, p, k, before, change, _ in rows:
        if kind != 0:  # (an adjustment or a season's close: left out, as in a floor)
            continue
        key, facts = games[int(entry)]  # (key: the date, then the short id)
        against = ", ".join(
            names[pid] for at, ids_ in enumerate(facts["sides"]) if at != side for pid in ids_
        )
        code = facts["result"].get("result")
        won = side < 2 and code == "ab"[int(side)]  # (a two-sided result's code)
        result = "drew" if code == "draw" else "won" if won else "lost"
        lines.append(
            "  ".join((
                key[:10], key[10:], facts.get("event") or "",
                str(facts.get("round") or ""), str(facts.get("table") or ""), against, result,
                f"{s:g}", f"{p:.4f}", f"{k:g}", f"{before:.4f}", f"{before + change:.4f}",
                f"{change:+.4f}",
            ))
        )  # fmt: skip
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
