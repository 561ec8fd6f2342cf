"""Rows of new events waiting for their append, in bounded memory.

A batch of games (``ledger.write.game_batch``) is checked whole before any
of it is stored, and a sheet of a million games' events does not fit in
memory. Each event waits as its row of the events table (``EventRow``, its
stored form); past ``BATCH`` rows they go to a temporary file, about the size they take
in the store, and are read back in batches for the append. A few events (one
``ledger record``, a sheet of fewer than ``BATCH`` games) never make a file,
and are stored in the order they came.

Each batch written to the file is put in the order of the events table's key
(aggregate id, version) first. A game's id is a hash, so in the order they
came each new row goes to a random place of the key's B-tree, a cache miss
at every level; in key order the rows of a batch go to neighbouring places,
and SQLite appends a sheet's games in half the time (100,000 games: 5.6 ->
2.5 us a row; 600,000: 8.9 -> 3.9). The games of a large sheet are then
stored in blocks of ``BATCH``, each in id order, not in sheet order: each
still names its sheet row (``Source``), and nothing reads the store's order
as the order of play (each game's sequence is in its event).
"""

from __future__ import annotations

import contextlib
import marshal
from collections.abc import Iterator
from operator import itemgetter
from typing import IO

from ledger.kernel.errors import LedgerError
from ledger.kernel.translation import Message
from ledger.write.recorders import EventRow

#: A row's place in the events table's key: its aggregate id (a batch holds
#: one version of each game).
_KEY = itemgetter(0)


class EventSpill:
    """Event rows kept until they are appended (see the module's docstring).

    The file holds batches, each the rows of ``BATCH`` events in key order,
    marshalled in one call after its length: each batch is written and read
    back in one call, never a row at a time."""

    #: Rows a batch: the more, the closer its keys (a batch of 20,000 holds
    #: about 15 MB of rows).
    BATCH = 20_000

    def __init__(self) -> None:
        self.file: IO[bytes] | None = None  # made when the first batch is full
        self._rows: list[EventRow] = []  # the batch being filled
        self._batches = 0  # batches in the file

    def keep(self, row: EventRow) -> None:
        """Keep an event's row."""
        rows = self._rows
        rows.append(row)
        if len(rows) >= self.BATCH:
            self._dump()

    def _dump(self) -> None:
        """Write the batch being filled to the file."""
        try:
            if self.file is None:
                import tempfile  # (here: a game or a short sheet makes no file)

                self.file = tempfile.TemporaryFile(prefix="ledger-import-")  # noqa: SIM115 - see close
            self._rows.sort(key=_KEY)
            data = marshal.dumps(self._rows)
            self.file.write(len(data).to_bytes(8, "little"))
            self.file.write(data)  # not joined to its length: no copy of the batch
        except OSError as exc:
            raise _refused(exc) from None
        self._rows = []
        self._batches += 1

    def read(self) -> Iterator[list[EventRow]]:
        """The kept rows in batches of ``BATCH`` (read again from the start
        on each call)."""
        if self.file is None:
            if self._rows:
                yield self._rows
            return
        if self._rows:
            self._dump()
        try:
            self.file.flush()
        except OSError as exc:
            raise _refused(exc) from None
        self.file.seek(0)
        read = self.file.read
        for _ in range(self._batches):
            # One read a batch (``marshal.load`` on a file reads per value).
            yield marshal.loads(read(int.from_bytes(read(8), "little")))

    def close(self) -> None:
        """Drop the rows and the file (its last writes may fail: they are not
        wanted)."""
        self._rows = []
        if self.file is not None:
            with contextlib.suppress(OSError):
                self.file.close()

    @property
    def closed(self) -> bool:
        """Whether nothing is kept any more (no file left behind)."""
        return not self._rows and (self.file is None or self.file.closed)


def _refused(exc: OSError) -> LedgerError:
    """The temporary file of checked games could not be written."""
    return LedgerError(
        Message(
            "the disk refused a write (full, over a size limit, or failing) while "
            "keeping the checked games in a temporary file ({reason}): nothing of it "
            "was stored. Free some space (or point TMPDIR to a disk with room) and "
            "run it again.",
            reason=exc.strerror or exc,
        )
    )
