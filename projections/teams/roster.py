"""The entrants of a team split: the names a referee gives, each with their
rating and grade in the ladder, or entering at the family's initial rating."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import msgspec

from ledger.families.base import PlayerState
from ledger.families.registry import load_family
from ledger.kernel.errors import NotFound
from ledger.kernel.identity import name_key
from projections import queries
from projections.db import Database
from projections.teams.balance import Entrant, Strength, family_strength


class Roster(msgspec.Struct):
    """The ladder (its name, family and parameters in force), how its family
    rates a side, and the entrants in the order given."""

    ladder: str
    family: str
    params: dict[str, Any]
    strength: Strength
    entrants: list[Entrant]


def roster(
    conn: Database, ladder: str, names: Sequence[str], as_of: date | None = None,
    lang: str = "en",
) -> Roster:  # fmt: skip
    """The entrants called ``names`` in ``ladder``, rated as they stood at the
    end of ``as_of`` (or today). A merged or renamed player is matched under
    any name the ledger knows; a name unknown to the ladder is a new player
    at the family's initial rating (flagged ``new``)."""
    info = queries.ladder_info(conn, ladder, rules=False)
    family = load_family(info.family, info.params)
    rated = {name_key(r.player): r for r in queries.standings(conn, ladder, as_of, lang)}
    known = queries.names(conn)
    entrants = []
    for name in names:
        key = name_key(name)
        row = rated.get(key)
        if row is None:
            try:
                row = rated.get(name_key(known[queries.player_by_name(conn, name)]))
            except (NotFound, KeyError):  # unknown to the ledger: a new player
                row = None
        if row is not None:
            entrants.append(Entrant(row.player, name_key(row.player), row.rating, row.grade))
        else:
            initial = family.initial_rating()
            grade = family.grade(PlayerState(rating=initial), lang)
            entrants.append(Entrant(name, key, initial, grade, new=True))
    return Roster(info.name, info.family, info.params, family_strength(family), entrants)
