"""Every fact the ledger stores, as frozen msgspec Structs.

Nothing is ever updated or deleted: a correction, a void or a merge is a new
event. Each event names its aggregate (``originator_id``) and its position in
it (``originator_version``); aggregates are small (one per ladder, player,
game, season close or adjustment) so none grows with the ladder.

Every class carries an explicit ``TOPIC`` (stored with the event, so classes
can move between modules) and a ``class_version``; when a shape changes, bump
the version and add ``upcast_vN_vN+1(state: dict)`` static methods.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, ClassVar
from uuid import UUID

import msgspec


class Source(msgspec.Struct, frozen=True):
    """Where an imported fact came from: the file and its row (1-based,
    counting the header as row 1, as a spreadsheet shows it)."""

    file: str
    row: int


class LedgerEvent(msgspec.Struct, frozen=True, kw_only=True):
    """Fields every event carries: who recorded it, when (UTC) and why."""

    TOPIC: ClassVar[str]
    class_version: ClassVar[int] = 1

    originator_id: UUID
    originator_version: int
    recorded_at: datetime
    recorded_by: str
    reason: str | None = None
    source: Source | None = None


# -- ladders ---------------------------------------------------------------
class LadderOpened(LedgerEvent, frozen=True, kw_only=True):
    TOPIC = "ledger:LadderOpened"
    name: str


class RulesetAdopted(LedgerEvent, frozen=True, kw_only=True):
    """The ladder's family and its full parameters from ``effective`` on.

    The parameters are stored whole, so a replay never depends on today's
    code defaults. ``family`` is a built-in name or an import path
    (``package.module:Class``) for a community's own family.
    """

    TOPIC = "ledger:RulesetAdopted"
    class_version = 2
    family: str
    params: dict[str, Any]
    effective: date
    #: The version of the family's maths this ruleset was adopted under
    #: (``Family.version``); rulesets recorded before versions existed read 1.
    family_version: int = 1

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """Rulesets adopted before maths versions were recorded: version 1."""
        state.setdefault("family_version", 1)


# -- players ---------------------------------------------------------------
class PlayerRegistered(LedgerEvent, frozen=True, kw_only=True):
    TOPIC = "ledger:PlayerRegistered"
    name: str


class PlayerRenamed(LedgerEvent, frozen=True, kw_only=True):
    TOPIC = "ledger:PlayerRenamed"
    name: str


class PlayerMerged(LedgerEvent, frozen=True, kw_only=True):
    """This player (the aggregate) is the same person as ``into``: every
    game of theirs is replayed as ``into``'s."""

    TOPIC = "ledger:PlayerMerged"
    into: UUID


class PlayerUnmerged(LedgerEvent, frozen=True, kw_only=True):
    """A merge undone: this player's games are theirs again."""

    TOPIC = "ledger:PlayerUnmerged"


# -- games -----------------------------------------------------------------
class GameFacts(msgspec.Struct, frozen=True):
    """What a game record says: when, where, who, and the result in the
    family's own terms (the family's ``Result`` struct as plain data)."""

    ladder: UUID
    date: date
    sides: list[list[UUID]]
    result: dict[str, Any]
    event: str | None = None
    round: int | None = None
    table: int | None = None
    neutral: bool = False
    attributes: dict[str, float] = {}
    #: The order of play within (date, event, round), a recorded fact: the
    #: table number when one is given, else the next number after the games
    #: already recorded there (docs/rules/README.md, "When each fact takes effect"). None only in
    #: games recorded before sequences existed.
    sequence: int | None = None
    #: The game's own reference where its source has one (BGA's table
    #: number, a club's game number): then it, with the ladder, is what
    #: identifies the game (``identity.game_identity``), so the same players
    #: may play any number of games a day.
    reference: str | None = None


def _sequence_from_table(state: dict[str, Any]) -> None:
    """Games recorded before sequences existed took effect in table order."""
    state["game"].setdefault("sequence", state["game"].get("table"))


class GameRecorded(LedgerEvent, frozen=True, kw_only=True):
    TOPIC = "ledger:GameRecorded"
    class_version = 2
    game: GameFacts

    upcast_v1_v2 = staticmethod(_sequence_from_table)


class GameCorrected(LedgerEvent, frozen=True, kw_only=True):
    """The game as it should have been recorded (the whole record)."""

    TOPIC = "ledger:GameCorrected"
    class_version = 2
    game: GameFacts

    upcast_v1_v2 = staticmethod(_sequence_from_table)


class GameVoided(LedgerEvent, frozen=True, kw_only=True):
    TOPIC = "ledger:GameVoided"


# -- seasons and adjustments ------------------------------------------------
class SeasonClosed(LedgerEvent, frozen=True, kw_only=True):
    TOPIC = "ledger:SeasonClosed"
    ladder: UUID
    label: str
    start: date
    end: date


class RatingAdjusted(LedgerEvent, frozen=True, kw_only=True):
    """Set a rating (``to``) or shift it (``by``) from ``effective`` on;
    ``state`` sets values of the family's state beyond a rating (by the
    names the family gives them), with or without a rating change."""

    TOPIC = "ledger:RatingAdjusted"
    ladder: UUID
    player: UUID
    effective: date
    to: float | None = None
    by: float | None = None
    state: dict[str, float] | None = None


# -- voids of the other entries of a ladder's timeline ----------------------
# Like a game's void: the entry stays in the store and the audit, and stops
# counting; the replay runs again from its effective date.
class SeasonVoided(LedgerEvent, frozen=True, kw_only=True):
    """A season close no longer counts (on the season's own aggregate)."""

    TOPIC = "ledger:SeasonVoided"
    ladder: UUID


class AdjustmentVoided(LedgerEvent, frozen=True, kw_only=True):
    """A rating adjustment no longer counts (on its own aggregate)."""

    TOPIC = "ledger:AdjustmentVoided"
    ladder: UUID


class RulesetVoided(LedgerEvent, frozen=True, kw_only=True):
    """A rule change no longer counts (on the ladder's aggregate):
    ``adopted`` is the ladder version that recorded its ``RulesetAdopted``."""

    TOPIC = "ledger:RulesetVoided"
    adopted: int


EVENT_CLASSES: tuple[type[LedgerEvent], ...] = (
    LadderOpened,
    RulesetAdopted,
    PlayerRegistered,
    PlayerRenamed,
    PlayerMerged,
    PlayerUnmerged,
    GameRecorded,
    GameCorrected,
    GameVoided,
    SeasonClosed,
    RatingAdjusted,
    SeasonVoided,
    AdjustmentVoided,
    RulesetVoided,
)
BY_TOPIC: dict[str, type[LedgerEvent]] = {cls.TOPIC: cls for cls in EVENT_CLASSES}


def encode(event: LedgerEvent) -> bytes:
    """The stored form of an event: msgspec JSON, plus ``class_version``
    when above 1 so that older shapes can be upcast on reading."""
    encoded = _encoder.encode(event)
    last = _last_member[type(event)]
    # The struct's JSON object, with its class version as a last member.
    return encoded[:-1] + last if last else encoded


def decode(topic: str, state: bytes) -> LedgerEvent:
    """Decode a stored event; upcasts older class versions first.

    Raises KeyError for a topic this code does not know.
    """
    cls = BY_TOPIC[topic]
    if cls.class_version == 1 or _current[cls] in state:
        # Stored in this code's shape: one typed decode, no upcasting.
        return _decoders[cls].decode(state)
    raw = msgspec.json.decode(state)
    version = raw.pop("class_version", 1)
    while version < cls.class_version:
        getattr(cls, f"upcast_v{version}_v{version + 1}")(raw)
        version += 1
    return msgspec.convert(raw, cls)


_encoder = msgspec.json.Encoder()
_decoders = {cls: msgspec.json.Decoder(cls) for cls in EVENT_CLASSES}
# ``"class_version":N`` cannot occur inside a JSON string (its quotes would be
# escaped), so finding it means the event is stored in version N's shape.
_current = {cls: b'"class_version":%d' % cls.class_version for cls in EVENT_CLASSES}
#: What ``encode`` puts in place of the closing brace: the class version
#: (none at version 1).
_last_member = {
    cls: b",%s}" % _current[cls] if cls.class_version > 1 else b"" for cls in EVENT_CLASSES
}
