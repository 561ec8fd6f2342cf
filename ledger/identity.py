"""Stable identities: the same fact always gets the same id.

Aggregate ids are uuid5 of what identifies the fact, so recording the same
game (or closing the same season) twice collides in the event store instead of
creating a duplicate, and two ledgers holding the same facts share ids.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from datetime import date
from uuid import UUID, uuid5

NAMESPACE = UUID("6f1c1a52-3f7e-5a43-9a57-1e5b0f6c2d10")


def name_key(name: str) -> str:
    """Case- and accent-insensitive form of a name, repeated spaces ignored:
    ``"Éric  Dupont"`` and ``"eric dupont"`` share one key."""
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().split())


def ladder_id(name: str) -> UUID:
    return uuid5(NAMESPACE, "ladder:" + name_key(name))


def player_id(name: str) -> UUID:
    return uuid5(NAMESPACE, "player:" + name_key(name))


def game_id(
    ladder: UUID,
    on: date,
    event: str | None,
    round_: int | None,
    table: int | None,
    players: Iterable[UUID],
) -> UUID:
    """A game is identified by its ladder, date, event, round, table and the
    set of its players: re-recording it is detected as a duplicate."""
    who = ",".join(sorted(str(p) for p in players))
    return uuid5(
        NAMESPACE,
        f"game:{ladder}|{on.isoformat()}|{event or ''}|{round_ or ''}|{table or ''}|{who}",
    )


def season_id(ladder: UUID, label: str) -> UUID:
    return uuid5(NAMESPACE, f"season:{ladder}|{name_key(label)}")


def adjustment_id(ladder: UUID, player: UUID, effective: date, what: str, reason: str) -> UUID:
    return uuid5(NAMESPACE, f"adjust:{ladder}|{player}|{effective.isoformat()}|{what}|{reason}")


def short(uid: UUID | str) -> str:
    """The short form of an id shown to people (like a git short hash)."""
    return str(uid).replace("-", "")[:8]
