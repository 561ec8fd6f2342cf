"""Stable identities: the same fact always gets the same id.

Aggregate ids are uuid5 of what identifies the fact, so recording the same
game (or closing the same season) twice collides in the event store instead of
creating a duplicate, and two ledgers holding the same facts share ids.
"""

from __future__ import annotations

import unicodedata
from datetime import date
from functools import cache, lru_cache
from typing import Any
from uuid import UUID, SafeUUID, uuid5

NAMESPACE = UUID("6f1c1a52-3f7e-5a43-9a57-1e5b0f6c2d10")


@cache
def _namespace_sha1() -> Any:
    """uuid5's hash with the namespace already fed in (an import names a
    million games: ``uuid5`` rebuilds this for each). Made on first use: a
    query matching a name loads no hashing library."""
    import hashlib

    return hashlib.sha1(NAMESPACE.bytes, usedforsecurity=False)


@lru_cache(maxsize=65536)
def name_key(name: str) -> str:
    """Case- and accent-insensitive form of a name, repeated spaces and
    invisible characters (zero-width spaces, joiners: Unicode's format
    characters) ignored: ``"Éric  Dupont"`` and ``"eric dupont"`` share one
    key."""
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(
        c for c in decomposed if not unicodedata.combining(c) and unicodedata.category(c) != "Cf"
    )
    return " ".join(stripped.casefold().split())


def ladder_id(name: str) -> UUID:
    return uuid5(NAMESPACE, "ladder:" + name_key(name))


def player_id(name: str, attempt: int = 0) -> UUID:
    """The id of a player first registered under ``name`` (``attempt`` > 0
    when an earlier holder of the name, since renamed, has the first id)."""
    suffix = f"#{attempt}" if attempt else ""
    return uuid5(NAMESPACE, "player:" + name_key(name) + suffix)


def game_identity(facts: Any) -> str:
    """What identifies a game: its ladder and reference when it has one (BGA's
    table number, a club's game number), else its ladder, date, event,
    round, table and the set of its players (re-recording it is detected as
    a duplicate)."""
    texts, sides = _TEXTS, facts.sides
    ladder = facts.ladder
    if facts.reference is not None:
        # ``ref:`` where the other form has a date: the two never meet.
        return f"{texts.get(ladder.int) or _text(ladder)}|ref:{facts.reference}"
    if len(sides) == 2 and len(sides[0]) == 1 and len(sides[1]) == 1:
        # One player a side (most games): no list to sort.
        a, b = sides[0][0], sides[1][0]
        a, b = texts.get(a.int) or _text(a), texts.get(b.int) or _text(b)
        who = f"{a},{b}" if a < b else f"{b},{a}"
    else:
        who = ",".join(sorted([texts.get(p.int) or _text(p) for side in sides for p in side]))
    on = facts.date
    # A sheet's games share a few thousand dates: each written once (a
    # date's ``isoformat`` goes through C's printf).
    day = _DAYS.get(on) or _day(on)
    return (
        f"{texts.get(ladder.int) or _text(ladder)}|{day}|{facts.event or ''}|"
        f"{facts.round or ''}|{facts.table or ''}|{who}"
    )


def game_id(identity: str, attempt: int = 0) -> UUID:
    """The id of a game with this identity (``attempt`` > 0 when an earlier
    id of the identity was taken by a game corrected since)."""
    # ``_uuid5`` made here: an import names a million games.
    h = _namespace_sha1().copy()
    h.update((f"game:{identity}#{attempt}" if attempt else "game:" + identity).encode())
    return _version5(h.digest())


def _uuid5(name: str) -> UUID:
    """``uuid5(NAMESPACE, name)``, from the namespace's hash state."""
    h = _namespace_sha1().copy()
    h.update(name.encode())
    return _version5(h.digest())


#: The variant and version bits ``UUID(..., version=5)`` clears, then sets.
_V5_CLEAR = ~((0xC000 << 48) | (0xF000 << 64))
_V5_SET = (0x8000 << 48) | (5 << 76)
_new_object = object.__new__
#: UUID's slots, set as ``UUID.__init__`` sets them (without its checks).
_set_int = UUID.int.__set__  # type: ignore[attr-defined]
_set_safe = UUID.is_safe.__set__  # type: ignore[attr-defined]
_from_bytes = int.from_bytes
#: Read once: an enum member read from its class goes through a descriptor.
_UNKNOWN = SafeUUID.unknown


def _version5(digest: bytes) -> UUID:
    """``UUID(bytes=digest[:16], version=5)`` without ``UUID.__init__``'s
    argument checks (an import names a million games); the same bits and
    slots, set as ``UUID`` sets them."""
    uid = _new_object(UUID)
    _set_int(uid, (_from_bytes(digest[:16], "big") & _V5_CLEAR) | _V5_SET)
    _set_safe(uid, _UNKNOWN)
    return uid


def _text(uid: UUID) -> str:
    """An id as text (a game's identity names its ladder and players), kept
    in ``_TEXTS`` by the id as a number: an int hashes in C, a UUID in
    Python (an import names a million games' players)."""
    if len(_TEXTS) >= 65536:
        _TEXTS.clear()
    text = _TEXTS[uid.int] = str(uid)
    return text


#: Ids as text, by the id as a number (see ``_text``).
_TEXTS: dict[int, str] = {}


def _day(on: date) -> str:
    """A date as ISO text, kept in ``_DAYS``."""
    if len(_DAYS) >= 65536:
        _DAYS.clear()
    text = _DAYS[on] = on.isoformat()
    return text


#: Dates as ISO text (see ``_day``).
_DAYS: dict[date, str] = {}


def season_id(ladder: UUID, label: str) -> UUID:
    return uuid5(NAMESPACE, f"season:{ladder}|{name_key(label)}")


def adjustment_id(ladder: UUID, player: UUID, effective: date, what: str, reason: str) -> UUID:
    return uuid5(NAMESPACE, f"adjust:{ladder}|{player}|{effective.isoformat()}|{what}|{reason}")


def short(uid: UUID | str) -> str:
    """The short form of an id shown to people (like a git short hash)."""
    return str(uid).replace("-", "")[:8]
