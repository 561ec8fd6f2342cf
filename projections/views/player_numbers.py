"""Player ids and the views' numbers of those players, read as they are
asked for.

A catch-up of a game or two (``ledger record``) names a few of a ladder's
players, perhaps among thousands: their numbers are read one at a time, so
its cost does not grow with the ledger's players. One that asks for many (a
correction far back reads its ladder's games back) reads, past ``SINGLE``
single reads, every player at once. A rebuild holds every player anyway and
uses plain dicts.
"""

from __future__ import annotations

from typing import Any

from projections.db import Database

#: Players read one at a time before every player is read at once.
SINGLE = 64


class PlayerNumbers(dict):  # type: ignore[type-arg]
    """Player id -> the views' number of that player (``ids``: the other
    way), each read from ``view_players`` when first asked for. Numbers
    given before their player's row is written (``add``) are kept as given."""

    def __init__(self, conn: Database) -> None:
        super().__init__()
        self._conn = conn
        self._reads = 0
        self._whole = False
        self.ids = _PlayerIds(self)

    def add(self, pid: str, number: int) -> None:
        """A player numbered here (their row not written yet)."""
        dict.__setitem__(self, pid, number)
        dict.__setitem__(self.ids, number, pid)

    def __setitem__(self, pid: str, number: int) -> None:
        self.add(pid, number)

    def __missing__(self, pid: str) -> int:
        if self.read("id", pid) and dict.__contains__(self, pid):
            return dict.__getitem__(self, pid)
        raise KeyError(pid)

    def __contains__(self, pid: object) -> bool:
        return dict.__contains__(self, pid) or (
            self.read("id", pid) and dict.__contains__(self, pid)
        )

    def read(self, column: str, value: Any) -> bool:
        """Read the player whose ``column`` (id or n) is ``value`` (past
        ``SINGLE`` reads, every player); whether anything was read."""
        if self._whole:
            return False
        self._reads += 1
        if self._reads > SINGLE:
            rows = self._conn.execute("SELECT id, n FROM view_players").fetchall()
            self._whole = True
        else:
            found = self._conn.execute(
                f"SELECT id, n FROM view_players WHERE {column}=?", (value,)
            ).fetchone()
            rows = [found] if found is not None else []
        for pid, number in rows:
            if not dict.__contains__(self, pid):
                self.add(pid, number)
        return bool(rows)


class _PlayerIds(dict):  # type: ignore[type-arg]
    """The views' number of a player -> their id (``PlayerNumbers.ids``)."""

    def __init__(self, numbers: PlayerNumbers) -> None:
        super().__init__()
        self._numbers = numbers

    def __missing__(self, number: int) -> str:
        if self._numbers.read("n", number) and dict.__contains__(self, number):
            return dict.__getitem__(self, number)
        raise KeyError(number)
