"""Player ids and the views' numbers of those players, read when fetched.

A catch-up of a game or two (``ledger record``) names a few of a ladder's
players, perhaps among thousands: the numbers of the players it is about to
use are fetched first (``fetch``, ``fetch_numbers``), so its cost does not
grow with the ledger's players. One that fetches many (a correction far back
reads its ladder's games back) reads, past ``SINGLE`` players read one at a
time, every player at once. A rebuild holds every player anyway
(``PlayerNumbers.given``): fetching reads nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from projections.db import Database

#: Players read one at a time before every player is read at once.
SINGLE = 64


class PlayerNumbers:
    """Player id -> the views' number of that player (``by_id``) and the
    other way (``by_number``), for the players fetched or added. Reading
    happens in ``fetch`` and ``fetch_numbers`` only: the two dicts are plain."""

    def __init__(self, conn: Database | None) -> None:
        self.by_id: dict[str, int] = {}
        self.by_number: dict[int, str] = {}
        self._conn = conn
        self._reads = 0
        #: Every player is held (read whole, or given whole): nothing to read.
        self._whole = conn is None

    @classmethod
    def given(cls, numbers: Mapping[str, int]) -> PlayerNumbers:
        """Every player's number, held already (a rebuild)."""
        held = cls(None)
        held.by_id = dict(numbers)
        held.by_number = {n: pid for pid, n in held.by_id.items()}
        return held

    def add(self, pid: str, number: int) -> None:
        """A player numbered here (their row perhaps not written yet)."""
        self.by_id[pid] = number
        self.by_number[number] = pid

    def fetch(self, pids: Iterable[str]) -> None:
        """Read the numbers of these players not held yet (those without a
        row are left out)."""
        if not self._whole:
            self._read("id", [p for p in set(pids) if p not in self.by_id])

    def fetch_numbers(self, numbers: Iterable[int]) -> None:
        """Read the ids of these numbers not held yet."""
        if not self._whole:
            self._read("n", [n for n in set(numbers) if n not in self.by_number])

    def _read(self, column: str, missing: list[object]) -> None:
        if not missing:
            return
        assert self._conn is not None
        self._reads += len(missing)
        if self._reads > SINGLE:
            rows = self._conn.tuples("SELECT id, n FROM view_players")
            self._whole = True
        else:
            marks, params = self._conn.in_list(missing)
            rows = self._conn.execute(
                f"SELECT id, n FROM view_players WHERE {column} IN {marks}", params
            ).fetchall()
        by_id = self.by_id
        for pid, number in rows:
            if pid not in by_id:  # a number given before its row is kept
                self.add(pid, number)
