"""A user-defined family written before ``result_columns``: it names its
result fields with a plain ``result_fields`` tuple and gives them no help,
so every text about them is the ledger's own (in the user's language).

    ledger ladder open Tally --family tests.legacy_family:Tally
    ledger record Tally --date 2025-05-01 --side Ann --side Ben --field points='[3, 1]'
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ledger.families.base import Change, Family, Game, PlayerState


class Params(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    initial: float = 0


class Points(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The points of each side."""

    points: list[int] = []


class Tally(Family):
    """A rating that is the sum of the points a player scored."""

    name = "tally"
    version = 1
    Params = Params
    Result = Points
    result_fields = ("points",)

    def rate(
        self, game: Game, states: Sequence[Sequence[PlayerState]], explain: bool = False
    ) -> list[list[Change]]:
        points = list(game.result.points) + [0] * len(states)
        return [
            [Change(delta=float(points[side]), s=0.0, p=0.0, k=1.0) for _ in players]
            for side, players in enumerate(states)
        ]
