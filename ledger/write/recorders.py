"""The ledger's event-store recorder, declared once: what it does beyond
eventsourcing's ``ApplicationRecorder``, and the append both stores share.

Following eventsourcing's ``persistence`` ABCs, every capability the
application and its commands use is a method of ``LedgerRecorder``; the
SQLite recorder (``ledger.write.sqlite_recorder``) and the PostgreSQL
recorder (``ledger.write.postgres_recorder``, imported only for a PostgreSQL
ledger) implement it. Following eventsourcing's
``examples/searchabletimestamps``, the append writes more than the events in
their own transaction: after the events are inserted (the table is then
locked against other writers), the write index (``ledger.write.write_index``)
is updated and each event's chain link appended. An event never exists
without its link, and a name claimed by two concurrent commands fails one of
them with the store's own IntegrityError. That logic is written here once;
each store gives its dialect only: how rows are inserted and numbered, how
links are inserted, and the cursor the write index writes through.

An import's append comes as batches (``insert_batches``): every batch is
written in the one transaction, so a sheet of any size is stored all or
nothing without ever being held whole in memory.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, StoredEvent

from ledger.kernel import chain
from ledger.write import write_index

#: The PostgreSQL store's shape (``ledger_store_version``); a store of an
#: older one is upgraded by its owner (``Storage.prepare``).
#: 1: no version table; 2: append-only triggers on the events and chain;
#: 3: the write index's name blocks (``write_index.VERSION`` 2).
STORE_VERSION = 3
#: The trigger that keeps stored events and chain links append-only.
APPEND_ONLY = "ledger_append_only"

#: A stored event as a row of the events table: (originator id as 32 hex
#: digits, version, topic, state). An import hands its events over in this
#: form, never as an object each.
EventRow = tuple[str, int, str, bytes]
#: Rows of stored events with what the write index reads of them (see
#: ``decoded_events``; new games give the rounds they reach instead,
#: ``write_index.Reached``), appended together.
Batch = tuple[Sequence[EventRow], Sequence[Any]]


def event_rows(stored: Sequence[StoredEvent]) -> list[EventRow]:
    """Stored events as rows of the events table (an id given as text is
    read as a UUID: every id is stored, and chained, in one form)."""
    return [
        (
            s.originator_id.hex if isinstance(s.originator_id, UUID) else UUID(s.originator_id).hex,
            s.originator_version,
            s.topic,
            s.state,
        )
        for s in stored
    ]


def decoded_events(stored: Sequence[StoredEvent], kwargs: dict[str, Any]) -> Any:
    """The decoded events: passed by the application with ``put`` (so a
    cipher or compressor never gets in the way), else decoded here (a copy
    of stored events, as ``ledger migrate`` makes)."""
    events = kwargs.get("decoded_events")
    return events if events is not None else write_index.decoded(stored)


def chain_rows(
    previous: str, ids: Sequence[int], rows: Sequence[EventRow]
) -> list[tuple[int, str]]:
    """(sequence, link) for each newly stored event, after ``previous``."""
    # The rows as they are (``chain.links`` hashes each id as a UUID's text,
    # how it reads back from either store).
    return list(zip(ids, chain.links(previous, rows), strict=True))


class LedgerRecorder(ApplicationRecorder):
    """An application recorder that also keeps the hash chain and the write
    index, answers the write side's reads, and appends an import's batches.

    Reads and the write index use one SQL: ``?`` placeholders, bare table
    names, the events table called ``stored_events``; ``_cursor`` adapts it
    to the store."""

    #: The store's datastore (eventsourcing's): ``transaction(commit=...)``
    #: yields a cursor of the store.
    datastore: Any

    # -- what the application and commands call -------------------------------
    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read of the write index, the chain or the stored events."""
        with self.datastore.transaction(commit=False) as c:
            return self._cursor(c).rows(sql, params)

    def close_reader(self) -> None:
        """Close any connection ``query`` keeps for itself (reopened if needed)."""

    def chain_head(self) -> str:
        """The last chain link (``chain.GENESIS`` when no event is stored)."""
        rows = self.query(chain.HEAD)
        return chain.hex_link(rows[0][1]) if rows else chain.GENESIS

    def rebuild_index(self, notifications: Iterable[Any]) -> None:
        """Rebuild the write index from every stored event, in one transaction."""
        with self.datastore.transaction(commit=True) as c:
            write_index.rebuild(self._cursor(c), notifications)

    @abstractmethod
    def stored_id(self, aggregate: UUID) -> Any:
        """An aggregate's id as the events table stores it (a query's parameter)."""

    @abstractmethod
    def game_prefix_bounds(self, prefix: str) -> tuple[str, str]:
        """The lowest and highest stored ids that start with ``prefix`` (hex
        digits, no dashes): a game named by a short id is found between them."""

    @abstractmethod
    def insert_batches(self, batches: Iterable[Batch]) -> int:
        """Append batches of event rows, each with its chain links and write
        index, all in one transaction; how many events were stored.
        ``batches`` may be read again from its start (a connection lost on
        the way)."""

    # -- the append, written once -----------------------------------------------
    def _append_batches(
        self,
        cursor: write_index.Cursor,
        batches: Iterable[Batch],
        ids: list[int] | None = None,
    ) -> int:
        """Insert the batches on ``cursor`` (in a transaction of the caller's,
        which has taken the store's write lock), each with its write index
        and chain links; how many events were
        stored (their notification ids into ``ids``)."""
        stored = 0
        for rows, decoded in batches:
            if not rows:
                continue
            batch_ids = self._insert_rows(cursor, rows)
            self._write_side(cursor, rows, batch_ids, decoded)
            stored += len(rows)
            if ids is not None:
                ids += batch_ids
        return stored

    def _write_side(
        self,
        cursor: write_index.Cursor,
        rows: Sequence[EventRow],
        ids: Sequence[int],
        decoded: Iterable[Any],
    ) -> None:
        """The write index and the chain links of the events just inserted.
        Their insert holds the store's write lock: no other writer can extend
        the chain between reading its head and writing the links."""
        write_index.apply(cursor, decoded)
        head = cursor.rows(chain.HEAD)
        previous = chain.hex_link(head[0][1]) if head else chain.GENESIS
        self._insert_links(cursor, chain_rows(previous, ids, rows))

    # -- the dialect ------------------------------------------------------------
    @abstractmethod
    def _cursor(self, c: Any) -> write_index.Cursor:
        """The write index's view of a cursor of the store (see the class)."""

    @abstractmethod
    def _insert_rows(self, cursor: Any, rows: Sequence[EventRow]) -> list[int]:
        """Insert event rows (at least one); their notification ids, in order."""

    @abstractmethod
    def _insert_links(self, cursor: Any, links: Sequence[tuple[int, str]]) -> None:
        """Insert (sequence, link as hex digits) rows into the chain, each
        link in the form the store's column keeps (``chain.stored``)."""
