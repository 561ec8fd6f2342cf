"""Write-side state: what a command knows of a ladder, a game or a player,
folded from that one small aggregate's events.

Each fold is a ``functools.singledispatch`` mutator (eventsourcing's
``examples/aggregate7`` shape): an event class without a case is ignored, so
adding an event never breaks an old fold.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from functools import singledispatch
from typing import Any
from uuid import UUID

import msgspec

from ledger.families.base import Family, FamilyError
from ledger.families.registry import load_family
from ledger.kernel import events as ev
from ledger.kernel.errors import Invalid
from ledger.kernel.translation import said

BEGINNING = date(1, 1, 1)


class Ruleset(msgspec.Struct, frozen=True):
    family: str
    params: dict[str, Any]
    effective: date
    family_version: int = 1
    #: The ladder version that adopted it (what a ``RulesetVoided`` names).
    adopted: int = 0


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
            self._families[key] = bind_family(ruleset.family, ruleset.params)
        return self._families[key]


class GameState(msgspec.Struct):
    id: UUID
    version: int
    facts: ev.GameFacts
    voided: bool


class TimelineEntry(msgspec.Struct):
    """A season close or a rating adjustment, folded from its own aggregate:
    the event that made it and whether it has been voided since."""

    id: UUID
    version: int
    made: ev.SeasonClosed | ev.RatingAdjusted
    voided: bool


class PlayerRecord(msgspec.Struct):
    id: UUID
    version: int
    name: str
    merged_into: UUID | None


def bind_family(name: str, params: dict[str, Any]) -> Family:
    """A family bound to its parameters; a refusal names the parameter."""
    try:
        return load_family(name, params)
    except FamilyError as exc:
        raise Invalid(said(exc), field=exc.field) from None


def ladder_state(aggregate: UUID, events: Iterable[Any]) -> LadderState | None:
    state = None
    for e in events:
        state = _ladder(e, state) if state is not None else LadderState(aggregate, e.name, 0, [])
        state.version = e.originator_version
    return state


@singledispatch
def _ladder(event: Any, state: LadderState) -> LadderState:
    return state


@_ladder.register
def _(event: ev.RulesetAdopted, state: LadderState) -> LadderState:
    state.rulesets.append(
        Ruleset(
            event.family,
            event.params,
            event.effective,
            event.family_version,
            event.originator_version,
        )
    )
    return state


@_ladder.register
def _(event: ev.RulesetVoided, state: LadderState) -> LadderState:
    state.rulesets = [r for r in state.rulesets if r.adopted != event.adopted]
    return state


def game_state(aggregate: UUID, events: Iterable[Any]) -> GameState | None:
    state = None
    for e in events:
        if state is None:
            state = GameState(aggregate, 0, e.game, False)
        _game(e, state)
        state.version = e.originator_version
    return state


@singledispatch
def _game(event: Any, state: GameState) -> None:
    pass


@_game.register(ev.GameRecorded)
@_game.register(ev.GameCorrected)
def _(event: ev.GameRecorded | ev.GameCorrected, state: GameState) -> None:
    # Recorded again after a void: the game counts again.
    state.facts, state.voided = event.game, False


@_game.register
def _(event: ev.GameVoided, state: GameState) -> None:
    state.voided = True


def timeline_entry(aggregate: UUID, events: Iterable[Any]) -> TimelineEntry | None:
    state = None
    for e in events:
        if isinstance(e, ev.SeasonClosed | ev.RatingAdjusted):
            # Closed again after a void: the close counts again.
            state = TimelineEntry(aggregate, 0, e, False)
        elif state is not None and isinstance(e, ev.SeasonVoided | ev.AdjustmentVoided):
            state.voided = True
        if state is not None:
            state.version = e.originator_version
    return state


def player_record(aggregate: UUID, events: Iterable[Any]) -> PlayerRecord | None:
    state = None
    for e in events:
        if state is None:
            state = PlayerRecord(aggregate, 0, e.name, None)
        _player(e, state)
        state.version = e.originator_version
    return state


@singledispatch
def _player(event: Any, state: PlayerRecord) -> None:
    pass


@_player.register
def _(event: ev.PlayerRenamed, state: PlayerRecord) -> None:
    state.name = event.name


@_player.register
def _(event: ev.PlayerMerged, state: PlayerRecord) -> None:
    state.merged_into = event.into


@_player.register
def _(event: ev.PlayerUnmerged, state: PlayerRecord) -> None:
    state.merged_into = None
