"""Recording games, one (``ledger record``) or a sheet's worth (``ledger
import``), along one path.

A batch takes games whose facts are checked (``Commands.check_game``, or
made of what checked games gave), and for each in turn:

- finds its id from its identity (``identity.game_id``): a live game of the
  same identity is a ``DuplicateGame``, a voided one is recorded again as
  its next version, and one corrected into another game since leaves the
  identity's next id;
- refuses a game the referee voided or corrected away (``RetiredGame``),
  unless told to record it ``again``, and the same game twice
  (``RepeatedGame``);
- numbers it in its round's order of play: its table number, else the next
  after the games recorded there and those before it in the batch;
- makes its event and, unless a dry run, its stored form, kept until the
  append (``ledger.write.spill``).

``append`` then stores the players the games register and every game in one
transaction, all or nothing, with the last number each round reaches (the
write index's, ``write_index.Reached``). What the store holds is read game by game for
a few games (``StoredGames``) and at once for many (``StoredGamesAtOnce``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date, datetime
from typing import Any
from uuid import UUID

import msgspec

from ledger.kernel import bounds
from ledger.kernel import events as ev
from ledger.kernel.errors import Conflict, Invalid
from ledger.kernel.identity import game_id, game_identity, short
from ledger.kernel.translation import N_, Message
from ledger.write.application import LedgerApplication, now
from ledger.write.game_identities import (
    GameHistory,
    GameIdentities,
    Version,
    corrected_into,
    history,
    retired_game,
)
from ledger.write.game_input import PlayerBook
from ledger.write.recorders import Batch, EventRow
from ledger.write.spill import EventSpill
from ledger.write.state import GameState
from ledger.write.write_index import Reached, round_key


#: How to enter a game the same players played again on the same date,
#: event and round; ``{reference}`` and ``{table}`` say where the reference
#: and the table number are given (a sheet's columns, ``record``'s options).
def repeat_games(reference: str, table: str) -> Message:
    """How to enter another game between the same players: where its
    reference or table number goes (``reference``, ``table``)."""
    return Message(
        "for another game between the same players, give each game its own reference "
        "{reference} (BGA's table number, a club's game number) or a different table number "
        "{table}",
        reference=reference,
        table=table,
    )


class DuplicateGame(Conflict):
    """A live game with the same identity is already recorded."""

    def __init__(self, gid: UUID, facts: ev.GameFacts) -> None:
        if facts.reference is not None:
            message = Message(
                "this game is already recorded as {id} (same reference {reference}); use "
                "'ledger correct {id}' to change it",
                id=short(gid),
                reference=repr(facts.reference),
            )
        else:
            message = Message(
                "this game is already recorded as {id} (same date, event, round, table and "
                "players); use 'ledger correct {id}' to change it; {repeat}",
                id=short(gid),
                repeat=repeat_games(Message("with --reference"), Message("with --table")),
            )
        super().__init__(message)
        self.gid = gid
        self.facts = facts


class RetiredGame(Conflict):
    """A game with this identity was voided, or corrected into another game,
    by the referee: recorded only when asked to record it ``again``."""

    def __init__(self, game: GameHistory, identity: str) -> None:
        super().__init__(f"game {short(game.id)} was voided or corrected since")
        self.game = game
        self.identity = identity


class RepeatedGame(Invalid):
    """The batch already holds this game (same ladder and reference, or same
    ladder, date, event, round, table and players), first from source row
    ``first``."""

    def __init__(self, first: int, reference: str | None = None) -> None:
        super().__init__(f"the same game as row {first}")
        self.first = first
        self.reference = reference


class StoredGames:
    """What the store holds that new games are placed and numbered by, read
    for each game as it comes (a few games: ``ledger record``)."""

    #: Every game id stored, as a number, when read at once (None: any id
    #: may be stored, ``game`` tells).
    known: set[int] | None = None
    #: Whether any identity may be retired (False: ``holder`` and
    #: ``retired`` are None for every identity, and a batch asks neither).
    retires = True

    def __init__(self, app: LedgerApplication) -> None:
        self.app = app

    def may_hold(self, gid: UUID) -> bool:
        """Whether a game may be stored under ``gid`` (False: surely not)."""
        return self.known is None or gid.int in self.known

    def game(self, gid: UUID) -> GameState | None:
        return self.app.find_game(gid)

    def last_sequence(self, key: str) -> int:
        """The last order-of-play number stored in a round (0: none)."""
        return self.app.last_sequence(key)

    def retired(self, identity: str) -> GameHistory | None:
        """The voided or corrected game that had ``identity``, or None
        (``game_identities.retired_game``: the games first recorded under it)."""
        return retired_game(self.app, identity)

    def holder(self, identity: str) -> GameHistory | None:
        """The live game corrected into ``identity``, or None."""
        return corrected_into(self.app, identity)

    def earlier_version(self, gid: UUID, facts: ev.GameFacts) -> Version | None:
        """The correction that replaced ``facts`` (a former version of game
        ``gid``, order of play aside), or None when the game never held them."""
        game = history(gid, list(self.app.events.get(gid)))
        return None if game is None else GameIdentities([game]).earlier_version(gid, facts)


class StoredGamesAtOnce(StoredGames):
    """``StoredGames`` read once for many games (an import): every game id
    (as a number), each round's last number in the given ladders, every
    identity a game was corrected away from or voided under."""

    def __init__(self, app: LedgerApplication, ladders: Iterable[UUID]) -> None:
        super().__init__(app)
        self.known = app.known_game_ids()
        self.rounds = app.last_sequences(ladders)
        self.identities = GameIdentities.load(app)
        self.retires = bool(self.identities)

    def last_sequence(self, key: str) -> int:
        return self.rounds.get(key, 0)

    def retired(self, identity: str) -> GameHistory | None:
        return self.identities.retired(identity) if self.retires else None

    def holder(self, identity: str) -> GameHistory | None:
        return self.identities.holder(identity) if self.retires else None

    def earlier_version(self, gid: UUID, facts: ev.GameFacts) -> Version | None:
        return self.identities.earlier_version(gid, facts)


def registered(
    pid: UUID, name: str, by: str, at: datetime, source: ev.Source | None
) -> ev.PlayerRegistered:
    """The registration event of a new player."""
    return ev.PlayerRegistered(
        originator_id=pid,
        originator_version=1,
        recorded_at=at,
        recorded_by=by,
        source=source,
        name=name.strip(),
    )


#: A new game's topic in the events table.
_GAME = ev.GameRecorded.TOPIC
#: The stage an import's progress shows while its games are stored.
STORING = N_("storing games")
#: ``bounds.ORDER``'s top: a round numbered past it is refused.
_ORDER_HIGH = int(bounds.ORDER.high)


class _Round:
    """A round of play a batch numbers games in: its key in the write index
    (``write_index.round_key``) and the last number handed out in it."""

    __slots__ = ("key", "last")

    def __init__(self, key: str, last: int) -> None:
        self.key = key
        self.last = last


class GameBatch:
    """Games recorded together as ``by``, at one moment, in one transaction
    (see the module's docstring). ``label``: the sheet they come from (its
    rows are the registrations' source); ``dry_run``: the events are kept
    (``events``), never stored."""

    def __init__(
        self,
        app: LedgerApplication,
        by: str,
        stored: StoredGames,
        again: bool = False,
        label: str | None = None,
        dry_run: bool = False,
    ) -> None:
        self.app = app
        self.by = by
        self.stored = stored
        self.again = again
        self.label = label
        self.dry_run = dry_run
        self.at = now()
        #: Games placed so far.
        self.added = 0
        #: A dry run's games.
        self.events: list[ev.GameRecorded] = []
        #: Whether the games are still kept (see ``discard``).
        self.keeping = True
        self._spill = EventSpill()
        self._encode = app.mapper.stored_state
        # Each game placed, by its id as a number (a million fit in memory),
        # and its source row (0: none).
        self._first: dict[int, int] = {}
        # The rounds games were numbered in, by (ladder id as a number, date,
        # event, round): a tuple hashes in C, and the key's text is made once
        # a round, not once a game.
        self._rounds: dict[tuple[int, date, str | None, int | None], _Round] = {}

    def add(
        self, facts: ev.GameFacts, source: ev.Source | None = None, read_back: bool = True
    ) -> ev.GameRecorded:
        """Place, number and keep a checked game; its event. ``read_back=False``:
        every value of the game is one an event kept before holds, so it reads
        back as written (``MsgspecMapper.stored_state``'s guard is skipped).
        Raises DuplicateGame, RetiredGame, RepeatedGame, or Invalid for a
        value that would not read back."""
        identity = game_identity(facts)
        gid = game_id(identity)
        number = gid.int
        version = 1
        stored = self.stored
        # Asked of the store's attributes, not its methods: an import asks
        # for each of a million games.
        retires = stored.retires
        if retires:
            holder = stored.holder(identity)
            if holder is not None:  # a game corrected into this identity since
                raise DuplicateGame(holder.id, holder.current)
        known = stored.known
        if known is None or number in known:
            gid, version = self._place(identity)
            number = gid.int
        if retires and not self.again:
            retired = stored.retired(identity)
            if retired is not None:
                raise RetiredGame(retired, identity)
        placed = self._first
        first = placed.get(number)
        if first is not None:
            raise RepeatedGame(first, facts.reference)
        placed[number] = 0 if source is None else source.row
        self.added += 1
        where = (facts.ladder.int, facts.date, facts.event, facts.round)
        round_ = self._rounds.get(where)
        if round_ is None:
            key = round_key(facts.ladder, facts.date, facts.event, facts.round)
            round_ = self._rounds[where] = _Round(key, stored.last_sequence(key))
        sequence = facts.table
        if sequence is None:
            sequence = round_.last + 1
            if sequence > _ORDER_HIGH:
                bounds.ORDER.check(sequence, "sequence")
            round_.last = sequence
        elif sequence > round_.last:
            round_.last = sequence
        event = ev.GameRecorded(
            originator_id=gid,
            originator_version=version,
            recorded_at=self.at,
            recorded_by=self.by,
            source=source,
            game=msgspec.structs.replace(facts, sequence=sequence),
        )
        if not self.keeping:
            return event
        if self.dry_run:
            self.events.append(event)
        else:
            self._spill.keep(
                (number.to_bytes(16, "big").hex(), version, _GAME, self._encode(event, read_back))
            )
        return event

    def _place(self, identity: str) -> tuple[UUID, int]:
        """The id and version a game of ``identity`` is recorded under: the
        id of its identity when first recorded; the next id of the identity
        if that one was since corrected into another; a voided game of the
        identity is recorded again (its next version)."""
        stored = self.stored
        for attempt in range(1000):
            gid = game_id(identity, attempt)
            state = stored.game(gid) if stored.may_hold(gid) else None
            if state is None:
                return gid, 1
            if game_identity(state.facts) == identity:
                if state.voided:
                    return gid, state.version + 1
                raise DuplicateGame(gid, state.facts)
        raise Conflict(Message("too many games share this identity: give them --table numbers"))

    def registrations(self, book: PlayerBook) -> list[ev.PlayerRegistered]:
        """The registration events of the new players the games name (from
        the sheet row that first named them, when the batch has a label)."""
        label = self.label
        return [
            registered(
                pid,
                book.new[key],
                self.by,
                self.at,
                None if label is None else ev.Source(label, book.first_row[key]),
            )
            for key, pid in book.new_ids().items()
        ]

    def discard(self) -> None:
        """Keep no more games (nothing will be stored: the batch failed);
        they are still placed, so a repeated game is still told."""
        self.keeping = False
        self.events = []
        self._spill.close()

    def append(
        self,
        registrations: Sequence[ev.PlayerRegistered],
        progress: Callable[[int, int, str], None] | None = None,
    ) -> int:
        """Store ``registrations``, then every game kept, in one transaction
        (all or nothing); how many events were stored. Closes the batch.
        ``progress(done, total, "storing games")`` hears how many events are
        written so far (the commit follows the last)."""
        if self.dry_run or not self.keeping:
            raise RuntimeError("a dry run or a discarded batch stores nothing")
        # What placed the games is not needed for their append; the write
        # index takes the last number of each round they were numbered in.
        reached = Reached({round_.key: round_.last for round_ in self._rounds.values()})
        self._first, self._rounds = {}, {}
        rows = [self._row(e) for e in registrations]
        try:
            appended = _Appended(rows, [*registrations, reached], self._spill)
            if progress is not None:
                appended.told(progress, len(rows) + self.added)
            return self.app.append_batches(appended)
        finally:
            self.close()

    def _row(self, event: ev.LedgerEvent) -> EventRow:
        """An event's row of the events table."""
        uid = event.originator_id
        return (uid.hex, event.originator_version, event.TOPIC, self._encode(event))

    def close(self) -> None:
        """Drop what is kept (and its temporary file)."""
        self._spill.close()


class _Appended:
    """What a batch appends, batch by batch: its registrations, then its
    games; what the write index reads of them (``decoded``: the
    registrations, the rounds the games reach) goes with the first. Read
    again from the start on each pass (a PostgreSQL append whose connection
    fails is retried whole)."""

    def __init__(self, rows: list[EventRow], decoded: list[Any], spill: EventSpill) -> None:
        self.rows, self.decoded, self.spill = rows, decoded, spill
        self.progress: Callable[[int, int, str], None] | None = None
        self.total = 0

    def told(self, progress: Callable[[int, int, str], None], total: int) -> None:
        """Tell ``progress`` how many of ``total`` events are handed over."""
        self.progress, self.total = progress, total

    def __iter__(self) -> Iterator[Batch]:
        batches = self._batches()
        if self.progress is None:
            yield from batches
            return
        done = 0
        for batch in batches:
            self.progress(done, self.total, STORING)
            yield batch
            done += len(batch[0])
        self.progress(done, self.total, STORING)

    def _batches(self) -> Iterator[Batch]:
        decoded = self.decoded
        for rows in itertools.chain([self.rows], self.spill.read()):
            if rows:
                yield rows, decoded
                decoded = []
