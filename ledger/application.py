"""The write side: an eventsourcing Application whose commands validate and
append events.

Each command either appends its events in one transaction or raises a
LedgerError and appends nothing. Aggregates are tiny (a ladder's rulesets, one
player, one game), so a command reads only the few events it needs.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from typing import Any, ClassVar
from uuid import UUID

import msgspec
from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError, Mapper, StoredEvent, Transcoder
from eventsourcing.utils import get_topic

from ledger import events as ev
from ledger.errors import Conflict, Invalid, NotFound
from ledger.identity import (
    adjustment_id,
    game_id,
    game_identity,
    ladder_id,
    name_key,
    player_id,
    season_id,
    short,
)
from projections.families.base import Family, FamilyError
from projections.families.registry import load_family


class MsgspecMapper(Mapper):
    """Stores events as msgspec JSON under their explicit TOPIC."""

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        return StoredEvent(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=domain_event.TOPIC,
            state=ev.encode(domain_event),
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        return ev.decode(stored_event.topic, stored_event.state)


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


BEGINNING = date(1, 1, 1)


class Ruleset(msgspec.Struct, frozen=True):
    family: str
    params: dict[str, Any]
    effective: date


class LadderState(msgspec.Struct):
    id: UUID
    name: str
    version: int
    rulesets: list[Ruleset]
    # Families bound to each ruleset, built once (an import checks many games).
    _families: dict[int, Family] = msgspec.field(default_factory=dict)

    def ruleset_on(self, on: date) -> Ruleset:
        """The ruleset in force on a date (the latest adopted on or before;
        of two adopted for the same date, the later recorded)."""
        current = self.rulesets[0]
        for rs in sorted(self.rulesets, key=lambda r: r.effective):
            if rs.effective <= on:
                current = rs
        return current

    def family_on(self, on: date) -> Family:
        """The family, bound to its parameters, in force on a date."""
        ruleset = self.ruleset_on(on)
        key = id(ruleset)
        if key not in self._families:
            self._families[key] = _family(ruleset.family, ruleset.params)
        return self._families[key]


class GameState(msgspec.Struct):
    id: UUID
    version: int
    facts: ev.GameFacts
    voided: bool


class PlayerState(msgspec.Struct):
    id: UUID
    version: int
    name: str
    merged_into: UUID | None


GameLookup = Callable[[UUID], "GameState | None"]


class DuplicateGame(Conflict):
    """A live game with the same identity is already recorded."""

    def __init__(self, gid: UUID, facts: ev.GameFacts) -> None:
        super().__init__(
            f"this game is already recorded as {short(gid)} (same date, event, round, table "
            f"and players); use 'ledger correct {short(gid)}' to change it, or give --table"
        )
        self.gid = gid
        self.facts = facts


class LedgerApplication(Application):
    """The ledger's event store and its commands."""

    name = "ledger"
    env: ClassVar[dict[str, str]] = {
        "MAPPER_TOPIC": get_topic(MsgspecMapper),
        "TRANSCODER_TOPIC": get_topic(NullTranscoder),
    }

    # -- reading small aggregates ---------------------------------------------
    def _events(self, aggregate: UUID) -> list[Any]:
        return list(self.events.get(aggregate))

    def ladder(self, name_or_id: str | UUID) -> LadderState:
        lid = name_or_id if isinstance(name_or_id, UUID) else ladder_id(name_or_id)
        events = self._events(lid)
        if not events:
            raise NotFound(f"unknown ladder {name_or_id!r} (see 'ledger ladder list')")
        state = LadderState(id=lid, name=events[0].name, version=0, rulesets=[])
        for e in events:
            state.version = e.originator_version
            if isinstance(e, ev.RulesetAdopted):
                state.rulesets.append(Ruleset(e.family, e.params, e.effective))
        return state

    def game(self, gid: UUID) -> GameState:
        events = self._events(gid)
        if not events:
            raise NotFound(f"unknown game {short(gid)}")
        state = GameState(id=gid, version=0, facts=events[0].game, voided=False)
        for e in events:
            state.version = e.originator_version
            if isinstance(e, ev.GameRecorded | ev.GameCorrected):
                # Recorded again after a void: the game counts again.
                state.facts, state.voided = e.game, False
            elif isinstance(e, ev.GameVoided):
                state.voided = True
        return state

    def player(self, pid: UUID) -> PlayerState:
        events = self._events(pid)
        if not events:
            raise NotFound(f"unknown player id {pid}")
        state = PlayerState(id=pid, version=0, name=events[0].name, merged_into=None)
        for e in events:
            state.version = e.originator_version
            if isinstance(e, ev.PlayerRenamed):
                state.name = e.name
            elif isinstance(e, ev.PlayerMerged):
                state.merged_into = e.into
            elif isinstance(e, ev.PlayerUnmerged):
                state.merged_into = None
        return state

    def _player_name(self, pid: UUID) -> str:
        try:
            return self.player(pid).name
        except NotFound:  # a player registered with this very game
            return f"id {short(pid)}"

    def _append(self, *events: Any) -> None:
        """Append events in one transaction; a duplicate id is a Conflict."""
        try:
            # Straight to the event store: these are events, not aggregates,
            # and save()'s protocol checks cost more than the insert.
            self.events.put(list(events))
        except IntegrityError as exc:
            raise Conflict(f"already recorded (a concurrent or repeated command): {exc}") from None

    @staticmethod
    def _meta(
        by: str, version: int, aggregate: UUID, at: datetime | None = None, **kw: Any
    ) -> dict[str, Any]:
        return dict(
            originator_id=aggregate,
            originator_version=version,
            recorded_at=at or now(),
            recorded_by=by,
            **kw,
        )

    # -- ladders -----------------------------------------------------------------
    def open_ladder(self, name: str, family: str, params: dict[str, Any], by: str) -> Family:
        """Open a ladder with its first ruleset (in force from the beginning)."""
        if not name_key(name):
            raise Invalid("a ladder needs a name")
        fam = _family(family, params)
        lid = ladder_id(name)
        if self._events(lid):
            raise Conflict(f"ladder {name!r} already exists")
        self._append(
            ev.LadderOpened(**self._meta(by, 1, lid), name=name),
            ev.RulesetAdopted(
                **self._meta(by, 2, lid),
                family=family,
                params=fam.params_dict(),
                effective=BEGINNING,
            ),
        )
        return fam

    def change_rules(
        self,
        ladder: str,
        overrides: dict[str, Any],
        effective: date,
        reason: str,
        by: str,
        family: str | None = None,
    ) -> Family:
        """Adopt a ruleset from ``effective``: the parameters in force on that
        date with ``overrides`` applied (or a new family's defaults)."""
        _require_reason(reason)
        state = self.ladder(ladder)
        base = state.ruleset_on(effective)
        name = family or base.family
        params = dict(overrides) if family else {**base.params, **overrides}
        fam = _family(name, params)
        self._append(
            ev.RulesetAdopted(
                **self._meta(by, state.version + 1, state.id, reason=reason),
                family=name,
                params=fam.params_dict(),
                effective=effective,
            )
        )
        return fam

    # -- players -----------------------------------------------------------------
    def add_players(self, names: Sequence[str], by: str) -> list[UUID]:
        """Register players: all of them, or none if any name is refused."""
        keys: set[str] = set()
        for name in names:
            key = name_key(name)
            if not key:
                raise Invalid("a player needs a name")
            if key in keys:
                raise Invalid(f"{name!r} is given twice")
            keys.add(key)
            if self._events(player_id(name)):
                raise Conflict(f"player {name!r} already exists (nobody was added)")
        at = now()
        self._append(*(self.new_player_event(name, by, None, at) for name in names))
        return [player_id(name) for name in names]

    def new_player_event(
        self, name: str, by: str, source: ev.Source | None, at: datetime | None = None
    ) -> Any:
        """The registration event for a new player (appended with an import)."""
        return ev.PlayerRegistered(
            **self._meta(by, 1, player_id(name), at, source=source), name=name
        )

    def rename_player(self, pid: UUID, name: str, by: str, reason: str | None = None) -> None:
        state = self.player(pid)
        if not name_key(name):
            raise Invalid("a player needs a name")
        self._append(
            ev.PlayerRenamed(**self._meta(by, state.version + 1, pid, reason=reason), name=name)
        )

    def merge_players(self, source: UUID, into: UUID, reason: str, by: str) -> None:
        """Record that ``source`` is the same person as ``into``."""
        _require_reason(reason)
        if source == into:
            raise Invalid("cannot merge a player into themselves")
        state = self.player(source)
        target = self.player(into)
        if state.merged_into is not None:
            raise Conflict(f"{state.name!r} is already merged")
        if target.merged_into is not None:
            raise Conflict(f"{target.name!r} is itself merged into another player")
        self._append(
            ev.PlayerMerged(**self._meta(by, state.version + 1, source, reason=reason), into=into)
        )

    def unmerge_player(self, pid: UUID, reason: str, by: str) -> None:
        """Undo a merge: the player's games are replayed as theirs again."""
        _require_reason(reason)
        state = self.player(pid)
        if state.merged_into is None:
            raise Conflict(f"{state.name!r} is not merged into anyone")
        self._append(ev.PlayerUnmerged(**self._meta(by, state.version + 1, pid, reason=reason)))

    # -- games -------------------------------------------------------------------
    def game_event(
        self,
        ladder: LadderState,
        facts: ev.GameFacts,
        by: str,
        source: ev.Source | None = None,
        at: datetime | None = None,
        lookup: GameLookup | None = None,
    ) -> ev.GameRecorded:
        """Validate a game against the ruleset in force on its date and return
        the event that records it (not yet appended).

        Raises DuplicateGame when a live game with the same identity (ladder,
        date, event, round, table, players) is already recorded. ``lookup``
        finds a recorded game by id (default: from the event store).
        """
        facts = self.check_game(ladder, facts)
        gid, version = self.place_game(facts, lookup or self._lookup)
        return ev.GameRecorded(**self._meta(by, version, gid, at, source=source), game=facts)

    def _lookup(self, gid: UUID) -> GameState | None:
        try:
            return self.game(gid)
        except NotFound:
            return None

    @staticmethod
    def place_game(facts: ev.GameFacts, lookup: GameLookup) -> tuple[UUID, int]:
        """The id and version a new game is recorded under.

        A game's id comes from its identity when first recorded. If that id is
        taken by a game since corrected into another identity, the next id of
        the same identity is tried; a voided game of the same identity is
        recorded again (its next version).
        """
        identity = game_identity(facts)
        for attempt in range(1000):
            gid = game_id(identity, attempt)
            state = lookup(gid)
            if state is None:
                return gid, 1
            if game_identity(state.facts) == identity:
                if state.voided:
                    return gid, state.version + 1
                raise DuplicateGame(gid, state.facts)
        raise Conflict("too many games share this identity: give them --table numbers")

    def check_game(self, ladder: LadderState, facts: ev.GameFacts) -> ev.GameFacts:
        """Validate a game; return it with its result in normalised form."""
        seen: set[UUID] = set()
        for side in facts.sides:
            if not side:
                raise Invalid("every side needs at least one player", field="side")
            for p in side:
                if p in seen:
                    raise Invalid(
                        f"player {self._player_name(p)!r} appears twice in one game",
                        field="side",
                    )
                seen.add(p)
        fam = ladder.family_on(facts.date)
        try:
            result = fam.parse_result(facts.result, len(facts.sides))
        except FamilyError as exc:
            raise Invalid(str(exc), field=exc.field or "result") from None
        # Store the normalised result so a replay reads exactly what was checked.
        return msgspec.structs.replace(facts, result=fam.result_dict(result))

    def record_many(self, new: Sequence[Any]) -> None:
        """Append prepared events (an import) in one transaction."""
        if new:
            self._append(*new)

    def correct_game(self, gid: UUID, facts: ev.GameFacts, reason: str, by: str) -> None:
        _require_reason(reason)
        state = self.game(gid)
        if state.voided:
            raise Conflict(f"game {short(gid)} is voided; a voided game cannot be corrected")
        ladder = self.ladder(facts.ladder)
        facts = self.check_game(ladder, facts)
        if facts == state.facts:
            raise Invalid(f"the correction changes nothing in game {short(gid)}")
        self._append(
            ev.GameCorrected(**self._meta(by, state.version + 1, gid, reason=reason), game=facts)
        )

    def void_game(self, gid: UUID, reason: str, by: str) -> None:
        _require_reason(reason)
        state = self.game(gid)
        if state.voided:
            raise Conflict(f"game {short(gid)} is already voided")
        self._append(ev.GameVoided(**self._meta(by, state.version + 1, gid, reason=reason)))

    # -- seasons and adjustments ------------------------------------------------
    def close_season(self, ladder: str, label: str, start: date, end: date, by: str) -> UUID:
        state = self.ladder(ladder)
        if end < start:
            raise Invalid(f"the season ends ({end}) before it starts ({start})")
        sid = season_id(state.id, label)
        if self._events(sid):
            raise Conflict(f"season {label!r} of ladder {state.name!r} is already closed")
        self._append(
            ev.SeasonClosed(
                **self._meta(by, 1, sid), ladder=state.id, label=label, start=start, end=end
            )
        )
        return sid

    def adjust_rating(
        self,
        ladder: str,
        player: UUID,
        effective: date,
        reason: str,
        by: str,
        to: float | None = None,
        shift: float | None = None,
    ) -> UUID:
        _require_reason(reason)
        if (to is None) == (shift is None):
            raise Invalid("give exactly one of --to (set) or --by (shift)")
        state = self.ladder(ladder)
        self.player(player)
        what = f"to={to}" if to is not None else f"by={shift}"
        aid = adjustment_id(state.id, player, effective, what, reason)
        if self._events(aid):
            raise Conflict("this adjustment is already recorded")
        self._append(
            ev.RatingAdjusted(
                **self._meta(by, 1, aid, reason=reason),
                ladder=state.id,
                player=player,
                effective=effective,
                to=to,
                by=shift,
            )
        )
        return aid


def _family(name: str, params: dict[str, Any]) -> Family:
    try:
        return load_family(name, params)
    except FamilyError as exc:
        raise Invalid(str(exc), field=exc.field) from None


def _require_reason(reason: str | None) -> None:
    if not reason or not reason.strip():
        raise Invalid("a reason is required (--reason)")
