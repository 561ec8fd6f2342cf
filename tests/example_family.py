"""A complete user-defined family: the worked example of the README.

A club scores its games by points (say, victory points of a skirmish game):
the actual score S is the share of the points a side scored, the expected
score is the usual Elo one with a home advantage, and at each season close
every rated player regresses 10% toward 1500.

    ledger ladder open Skirmish --family tests.example_family:PointsShareElo
    ledger record Skirmish --date 2025-05-01 --side Ann --side Ben \
        --attr points_a=15 --attr points_b=5
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from projections.families.base import (
    Change,
    Family,
    FamilyError,
    Game,
    PlayerState,
    Season,
    SeasonChange,
    side_means,
)


class Params(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    initial: float = 1500
    k: float = 32
    home_advantage: float = 50
    regression: float = 0.1


class NoResult(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Points come as game attributes (``--attr points_a=N``), not a result."""


class PointsShareElo(Family):
    name = "points-share-elo"
    Params = Params
    Result = NoResult
    result_fields = ()

    @property
    def integer_ratings(self) -> bool:
        return False

    def rate(
        self, game: Game, states: Sequence[Sequence[PlayerState]], explain: bool = False
    ) -> list[list[Change]]:
        try:
            points = (game.attributes["points_a"], game.attributes["points_b"])
        except KeyError as missing:
            raise FamilyError(f"needs --attr {missing.args[0]}=N", field="attributes") from None
        total = points[0] + points[1]
        shares = (0.5, 0.5) if total == 0 else (points[0] / total, points[1] / total)
        ratings = side_means(states)
        home = 0.0 if game.neutral else self.params.home_advantage
        out = []
        for side in (0, 1):
            own = ratings[side] + (home if side == 0 else 0.0)
            opp = ratings[1 - side] + (home if side == 1 else 0.0)
            p = 1 / (1 + 10 ** ((opp - own) / 400))
            s = shares[side]
            delta = self.params.k * (s - p)
            detail = (
                {"points": points[side], "S": s, "P": p, "K": self.params.k} if explain else None
            )
            out.append(
                [
                    Change(delta=delta, s=s, p=p, k=self.params.k, detail=detail)
                    for _ in states[side]
                ]
            )
        return out

    def close_season(
        self, season: Season, states: Mapping[str, PlayerState]
    ) -> dict[str, SeasonChange]:
        f = self.params.regression
        return {
            player: SeasonChange(
                delta=(self.params.initial - state.rating) * f,
                reason=f"season {season.label}: {f:.0%} toward {self.params.initial:g}",
            )
            for player, state in states.items()
            if state.rating != self.params.initial
        }
