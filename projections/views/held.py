"""Every ladder's timeline as a rebuild holds it, its memory bounded.

A rebuild (and a first import) holds each ladder's entries by key while it
reads the events, so that its replay never reads a game back. Past
``budget`` games held, the games each ladder holds are sorted and written
out as a run to a temporary file, and memory is freed (an external sort):
the replay then reads each ladder's runs merged with what is still held,
in effective order, one chunk of each at a time. Reading them back is
sequential and costs a few microseconds a game, where reading a game back
from the views costs a query and a second decode of its event.

A game taken out once its entry is in a run (a correction, a void) is
remembered as stale: its copies in the runs written before are skipped.
Entries other than games (rulesets, season closes, adjustments) are few
and always held, so the rulesets of a ladder are known without reading a
run.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from operator import attrgetter
from typing import IO

import msgspec

from projections.replay import Duel, Entry

#: How many entries a rebuild holds before it spills its games (about 240
#: bytes a duel held: some 300 MB at this many, with the rest of a rebuild;
#: 10M games held took 3 GB) ...
BUDGET = 1_250_000
#: ... each entry other than a duel counted as this many (a game of several
#: sides or players, its facts held whole: some 860 bytes a BGA game; 1M of
#: them held took a rebuild to 960 MB).
OTHER_WEIGHT = 4
#: Games in one pickled chunk of a run (what the merge holds of each run).
CHUNK = 20_000

_KEY = attrgetter("key")


class Run(msgspec.Struct, frozen=True):
    """A run of one ladder's games in effective order: where its chunks
    are in the spill file (offset, length)."""

    chunks: list[tuple[int, int]]


class Spilled:
    """A ladder's entries in effective order, read again at each iteration:
    its runs merged with the entries still held."""

    def __init__(
        self, file: IO[bytes], runs: list[Run], held: list[Entry | Duel], stale: dict[str, int]
    ) -> None:
        self._file, self._runs, self._held, self._stale = file, runs, held, stale

    def __iter__(self) -> Iterator[Entry | Duel]:
        streams = [self._read(i, run) for i, run in enumerate(self._runs)]
        return heapq.merge(*streams, self._held, key=_KEY)

    def _read(self, index: int, run: Run) -> Iterator[Entry | Duel]:
        import pickle  # (here, as below: only a rebuild past its budget spills)

        stale, file = self._stale, self._file
        for offset, length in run.chunks:
            file.seek(offset)
            for item in pickle.loads(file.read(length)):
                entry = Duel(*item) if type(item) is tuple else item
                # (a copy written before its game was taken out: not current)
                if stale and index < stale.get(entry.key, -1):
                    continue
                yield entry


class Held:
    """Every ladder's held entries by key (``ladders``: the projector adds
    and removes them there, counting in ``others`` those that are not
    duels), their games spilled once more than ``BUDGET`` entries are held
    (``spill_if_over``)."""

    def __init__(self) -> None:
        #: Ladder number -> its entries held in memory, by key.
        self.ladders: dict[int, dict[str, Entry | Duel]] = {}
        #: Entries other than duels added since the last spill (each weighs
        #: ``OTHER_WEIGHT``; one taken out again still counts: a spill comes
        #: a little early, never late).
        self.others = 0
        self._runs: dict[int, list[Run]] = {}
        #: Ladder -> key of a game taken out -> how many of its runs were
        #: written before (their copy of that key is stale).
        self._stale: dict[int, dict[str, int]] = {}
        self._file: IO[bytes] | None = None

    def ladder(self, ladder: int) -> dict[str, Entry | Duel]:
        """The entries held of a ladder (an empty map made for a new one)."""
        held = self.ladders.get(ladder)
        if held is None:
            held = self.ladders[ladder] = {}
        return held

    def drop(self, ladder: int, key: str) -> None:
        """Take out a ladder's entry (held or in a run; none: nothing)."""
        held = self.ladders.get(ladder)
        if (held is None or held.pop(key, None) is None) and ladder in self._runs:
            self._stale.setdefault(ladder, {})[key] = len(self._runs[ladder])

    def spilled(self, ladder: int) -> bool:
        """Whether some of a ladder's games are in runs."""
        return ladder in self._runs

    def spill_if_over(self) -> None:
        """Write every ladder's held games out as a sorted run once more
        than ``BUDGET`` entries are held (an entry other than a duel
        weighing ``OTHER_WEIGHT``)."""
        count = sum(map(len, self.ladders.values()))
        if count + self.others * (OTHER_WEIGHT - 1) <= BUDGET:
            return
        import pickle
        import tempfile

        if self._file is None:
            # (closed by ``close``: it outlives this call)
            self._file = tempfile.TemporaryFile(prefix="ledger-rebuild-")  # noqa: SIM115
        file = self._file
        file.seek(0, 2)
        for ladder, held in self.ladders.items():
            games = sorted(
                (e for e in held.values() if type(e) is Duel or e.kind == "game"), key=_KEY
            )
            if not games:
                continue
            chunks = []
            for at in range(0, len(games), CHUNK):
                # A duel as a plain tuple: pickled and read back faster.
                part = [
                    (e.key, e.n, e.a, e.b, e.result) if type(e) is Duel else e
                    for e in games[at : at + CHUNK]
                ]
                blob = pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
                chunks.append((file.tell(), len(blob)))
                file.write(blob)
            self._runs.setdefault(ladder, []).append(Run(chunks))
            for entry in games:
                del held[entry.key]
        # What stays held is every ladder's entries other than games (a few).
        self.others = sum(map(len, self.ladders.values()))

    def take(self, ladder: int) -> list[Entry | Duel] | Spilled:
        """A ladder's entries in effective order, given up by the holder: a
        list when all are held, else its runs merged with them."""
        # (each held by its own key: sorted by it, not by the keys then
        # looked up one by one, 1M games: 0.27 -> 0.08 s)
        ordered = sorted(self.ladders.pop(ladder, {}).values(), key=_KEY)
        runs = self._runs.pop(ladder, None)
        if runs is None:
            return ordered
        assert self._file is not None
        return Spilled(self._file, runs, ordered, self._stale.pop(ladder, {}))

    def close(self) -> None:
        """Delete the spill file (if any)."""
        if self._file is not None:
            self._file.close()
            self._file = None
