"""The event store: an eventsourcing Application with a msgspec mapper, the
ledger's recorders, and the write-side reads commands decide from.

Every read here is of write-side state: one small aggregate (a ladder, a game,
a player), or the write index kept in the append transaction
(``ledger.write.write_index``). Nothing here reads the views. The rules themselves
live in ``ledger.write.commands``.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any, ClassVar
from uuid import UUID

import msgspec
from eventsourcing.application import Application
from eventsourcing.persistence import (
    IntegrityError,
    Mapper,
    MapperDeserialisationError,
    StoredEvent,
    Transcoder,
)
from eventsourcing.utils import get_topic

from ledger.kernel import events as ev
from ledger.kernel import suggest
from ledger.kernel.errors import Conflict, Invalid, NotFound
from ledger.kernel.identity import ladder_id, name_key, short
from ledger.kernel.matching import probing_keys
from ledger.kernel.pager import pages
from ledger.kernel.translation import N_, Message
from ledger.write import refs, write_index
from ledger.write.recorders import Batch, LedgerRecorder
from ledger.write.state import (
    GameState,
    LadderState,
    PlayerRecord,
    TimelineEntry,
    game_state,
    ladder_state,
    player_record,
    timeline_entry,
)


class MsgspecMapper(Mapper):
    """Stores events as msgspec JSON under their explicit TOPIC.

    Honours the library's COMPRESSOR_TOPIC and CIPHER_TOPIC settings, and
    wraps a stored event that cannot be read back as the library's mapper
    does (MapperDeserialisationError naming the event).
    """

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        return StoredEvent(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=domain_event.TOPIC,
            state=self.stored_state(domain_event),
        )

    def stored_state(self, domain_event: Any, read_back: bool = True) -> bytes:
        """The ``state`` an event is stored with (an import keeps only this
        until it appends); ``read_back=False`` when every value of the event
        is known to read back as written (made of an earlier event's values)."""
        state = ev.encode(domain_event)
        if read_back:
            _reads_back(domain_event, state)
        if self.compressor:
            state = self.compressor.compress(state)
        if self.cipher:
            state = self.cipher.encrypt(state)
        return state

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        state = stored_event.state
        try:
            if self.cipher:
                state = self.cipher.decrypt(state)
            if self.compressor:
                state = self.compressor.decompress(state)
            return ev.decode(stored_event.topic, state)
        except Exception as exc:
            raise MapperDeserialisationError(
                f"Failed to deserialise state of stored event with topic "
                f"'{stored_event.topic}', originator_id '{stored_event.originator_id}' and "
                f"originator_version {stored_event.originator_version}: {exc}"
            ) from exc


def _reads_back(event: Any, state: bytes) -> None:
    """Refuse an event that would not read back as itself (JSON has no NaN
    or infinity: msgspec writes them as null), so nothing that cannot be
    read is ever stored. Input is checked first, with clearer messages
    (``ledger.kernel.bounds``); this is the last guard, for every event."""
    try:
        # Just encoded in this code's shape: its class's decoder, no upcast.
        same = _decoder(type(event)).decode(state) == event
    except (msgspec.ValidationError, msgspec.DecodeError):
        same = False
    if not same:
        raise Invalid(
            Message(
                "refused to store {event}: a value in it would not read back as written "
                "(a number that is not finite, or out of range?); nothing was recorded",
                event=event.TOPIC.partition(":")[2],
            )
        )


@cache
def _decoder(cls: type) -> msgspec.json.Decoder[Any]:
    """One JSON decoder per event class (the read-back guard runs on every
    event an import appends)."""
    return msgspec.json.Decoder(cls)


class NullTranscoder(Transcoder):
    """The mapper encodes whole events itself; no transcoder is needed."""

    def encode(self, obj: Any) -> bytes:  # pragma: no cover - never called
        raise NotImplementedError

    def decode(self, data: bytes) -> Any:  # pragma: no cover - never called
        raise NotImplementedError


def current_user(explicit: str | None = None) -> str:
    """Who records: ``--by``, else ``LEDGER_USER``, else the OS user."""
    if explicit:
        return explicit
    if os.environ.get("LEDGER_USER"):
        return os.environ["LEDGER_USER"]
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no passwd entry in some containers
        return "unknown"


def now() -> datetime:
    return datetime.now(UTC)


class LedgerApplication(Application):
    """The ledger's event store and the write-side state commands read."""

    name = "ledger"
    env: ClassVar[dict[str, str]] = {
        "MAPPER_TOPIC": get_topic(MsgspecMapper),
        "TRANSCODER_TOPIC": get_topic(NullTranscoder),
    }

    #: The event store's recorder: SQLite's or PostgreSQL's, both ``LedgerRecorder``.
    recorder: LedgerRecorder

    def __init__(self, env: dict[str, str] | None = None) -> None:
        super().__init__(env)
        self._index_checked = False

    def close(self) -> None:
        """Close the event store's connections, the write-side reads' too."""
        self.recorder.close_reader()
        super().close()

    # -- appending ---------------------------------------------------------------
    def append(self, events: Sequence[Any]) -> None:
        """Append events in one transaction, with their chain links and write
        index; a duplicate id or a taken name is a Conflict."""
        if not events:
            return
        self.ensure_index()
        try:
            # Straight to the event store: these are events, not aggregates,
            # and save()'s protocol checks cost more than the insert.
            self.events.put(list(events), decoded_events=events)
        except IntegrityError as exc:
            raise Conflict(_conflict_message(str(exc))) from None

    def append_batches(
        self,
        batches: Iterable[Batch],
    ) -> int:
        """Append batches of events already mapped for the store, as rows
        (``recorders.EventRow``), each with what the write index reads of
        them (decoded events, the rounds new games reach:
        ``write_index.Reached``), in one transaction: all or none, never
        holding more than a batch. ``batches`` may be read again from its
        start (a PostgreSQL connection lost on the way); how many events were
        stored. A duplicate id or a taken name is a Conflict."""
        self.ensure_index()
        try:
            return int(self.recorder.insert_batches(batches))
        except IntegrityError as exc:
            raise Conflict(_conflict_message(str(exc))) from None

    def ensure_index(self) -> None:
        """Build the write index from the events when the store predates it."""
        if self._index_checked:
            return
        try:
            rows = self.recorder.query("SELECT version FROM ledger_index_version")
        except Exception:  # noqa: BLE001 - table missing: an older store
            rows = []
        if not rows or rows[0][0] != write_index.VERSION:
            self.recorder.rebuild_index(self.notifications())
        self._index_checked = True

    def notifications(self, start: int = 0, topics: Sequence[str] = ()) -> Any:
        """Every stored event after ``start`` (of ``topics``), in store order."""
        for page in pages(self.recorder, start, topics=topics):
            yield from page

    # -- small aggregates ----------------------------------------------------------
    def _events(self, aggregate: UUID) -> list[Any]:
        return list(self.events.get(aggregate))

    def exists(self, aggregate: UUID) -> bool:
        return bool(
            self.recorder.query(
                "SELECT 1 FROM stored_events WHERE originator_id = ? LIMIT 1",
                (self.recorder.stored_id(aggregate),),
            )
        )

    def ladder(self, name_or_id: str | UUID) -> LadderState:
        lid = name_or_id if isinstance(name_or_id, UUID) else ladder_id(name_or_id)
        state = ladder_state(lid, self._events(lid))
        if state is None:
            hint = suggest.hint(
                suggest.close_names(str(name_or_id), self.ladder_names()),
                N_("see 'ledger ladder list'"),
            )
            raise NotFound(Message("unknown ladder {name}{hint}", name=repr(name_or_id), hint=hint))
        return state

    def ladder_names(self) -> list[str]:
        """The name of every ladder (a few: read from their own aggregates)."""
        rows = self.recorder.query(
            "SELECT originator_id FROM stored_events WHERE topic = ? AND originator_version = 1",
            (ev.LadderOpened.TOPIC,),
        )
        found = []
        for (stored,) in rows:
            lid = stored if isinstance(stored, UUID) else UUID(stored)
            state = ladder_state(lid, self._events(lid))
            if state is not None:
                found.append(state.name)
        return found

    def game(self, gid: UUID) -> GameState:
        state = self.find_game(gid)
        if state is None:
            raise NotFound(Message("unknown game {id}", id=short(gid)))
        return state

    def find_game(self, gid: UUID) -> GameState | None:
        return game_state(gid, self._events(gid))

    def player(self, pid: UUID) -> PlayerRecord:
        state = player_record(pid, self._events(pid))
        if state is None:
            raise NotFound(Message("unknown player id {pid}", pid=pid))
        return state

    # -- the write index -----------------------------------------------------------
    def name_holder(self, name: str) -> UUID | None:
        """The player who holds a name now (as matched), merged or not."""
        self.ensure_index()
        rows = self.recorder.query(
            "SELECT player FROM ledger_names WHERE key = ?", (name_key(name),)
        )
        return UUID(rows[0][0]) if rows else None

    def player_by_name(self, name: str, follow_merge: bool = True) -> UUID:
        """The player a name designates; with ``follow_merge``, the player
        their games count for (a merged player's target)."""
        pid = self.find_player(name, follow_merge)
        if pid is None:
            raise NotFound(
                Message("unknown player {name}{hint}", name=repr(name), hint=self.player_hint(name))
            )
        return pid

    def find_player(self, name: str, follow_merge: bool = True) -> UUID | None:
        """``player_by_name``, or None for a name nobody holds (no hint
        looked for: an import meets every new player's name)."""
        pid = self.name_holder(name)
        if pid is not None and follow_merge:
            seen = {pid}
            while (into := self.player(pid).merged_into) is not None and into not in seen:
                seen.add(into)
                pid = into
        return pid

    def player_hint(self, name: str, otherwise: str = N_("see 'ledger player list'")) -> str:
        """The hint of a refused unknown player: the close known names
        (``suggest``, among those the index files near it), else ``otherwise``."""
        return suggest.hint(suggest.close_names(name, self.names_near([name])), otherwise)

    def names_near(self, names: Iterable[str]) -> list[str]:
        """The names held now that a name of ``names`` may be a typo of (or
        swap, or initial for): those sharing a blocking key with one of them
        (``matching``), read from the index rather than every name."""
        self.ensure_index()
        blocks = [block for name in names for block in probing_keys(name)]
        return write_index.names_filed_under(self.recorder.query, blocks)

    def games_corrected_into(self, identity: str) -> list[UUID]:
        """The games a correction gave ``identity`` at some time (few), read
        from the index rather than from every correction of the store."""
        self.ensure_index()
        return [
            UUID(gid) for gid in write_index.games_corrected_into(self.recorder.query, identity)
        ]

    def last_sequence(self, round_key: str) -> int:
        """The last order-of-play number recorded in a round (0: none)."""
        self.ensure_index()
        rows = self.recorder.query("SELECT last FROM ledger_rounds WHERE round = ?", (round_key,))
        return rows[0][0] if rows else 0

    def last_sequences(self, ladders: Iterable[UUID]) -> dict[str, int]:
        """The last order-of-play number of every round recorded in these
        ladders, by round key (an import reads them once, not per round)."""
        self.ensure_index()
        found: dict[str, int] = {}
        for ladder in ladders:
            # Round keys start with the ladder's id (``write_index.round_key``).
            found.update(
                self.recorder.query(
                    "SELECT round, last FROM ledger_rounds WHERE round LIKE ?", (f"{ladder}|%",)
                )
            )
        return found

    def game_by_ref(self, ref: str) -> GameState:
        """A game by its id or any unambiguous prefix of it (as printed)."""
        _, gid = refs.find(self, ref, {ev.GameRecorded.TOPIC: N_("game")})
        return self.game(gid)

    def known_game_ids(self) -> set[int]:
        """Every game id ever recorded, as a number (``UUID.int``: a million
        fit in memory); an import's duplicate check reads aggregates only
        for these."""
        rows = self.recorder.query(
            "SELECT originator_id FROM stored_events WHERE originator_version = 1 AND topic = ?",
            (ev.GameRecorded.TOPIC,),
        )
        return {
            r[0].int if isinstance(r[0], UUID) else int(r[0].replace("-", ""), 16) for r in rows
        }

    def season_closes(self, ladder: UUID) -> list[ev.SeasonClosed]:
        """The seasons of a ladder closed so far and not voided (season
        closes are few)."""
        last: dict[UUID, Any] = {}
        for note in self.notifications(topics=(ev.SeasonClosed.TOPIC, ev.SeasonVoided.TOPIC)):
            event = self.mapper.to_domain_event(note)
            if event.ladder == ladder:
                last[event.originator_id] = event
        return [e for e in last.values() if isinstance(e, ev.SeasonClosed)]

    def timeline_entry(self, aggregate: UUID) -> TimelineEntry | None:
        """A season close or rating adjustment (None if never made)."""
        return timeline_entry(aggregate, self._events(aggregate))

    def live_games_of(self, players: Sequence[UUID]) -> list[GameState]:
        """Live games (as recorded or corrected) in which any of ``players`` appears."""
        marks = [str(p).encode() for p in players]
        candidates = set()
        for note in self.notifications(topics=(ev.GameRecorded.TOPIC, ev.GameCorrected.TOPIC)):
            state = note.state if isinstance(note.state, bytes) else bytes(note.state)
            if any(mark in state for mark in marks):
                candidates.add(note.originator_id)
        found = []
        for gid in sorted(candidates):
            game = self.game(gid)
            if not game.voided and set(players) & {p for side in game.facts.sides for p in side}:
                found.append(game)
        return found


def _conflict_message(detail: str) -> str:
    if "ledger_names" in detail:
        return Message(
            "that name is already taken by another player (names match case- and "
            "accent-insensitively)"
        )
    return Message("already recorded (a concurrent or repeated command)")
