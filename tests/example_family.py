"""A complete user-defined family: the worked example of the README.

A club scores its games by points (say, victory points of a skirmish game):
the actual score S is the share of the points a side scored, the expected
score is the usual Elo one with a home advantage, and at each season close
every rated player regresses 10% toward 1500.

    ledger ladder open Skirmish --family tests.example_family:PointsShareElo
    ledger record Skirmish --date 2025-05-01 --side Ann --side Ben \
        --field points_a=15 --field points_b=5

The points are the family's own result fields, so a result sheet takes them
as columns ``points_a`` and ``points_b``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from ledger.families.base import (
    Change,
    Family,
    FamilyError,
    Game,
    PlayerState,
    ResultColumn,
    Season,
    SeasonChange,
    side_means,
)


class Params(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    initial: float = 1500
    k: float = 32
    home_advantage: float = 50
    regression: float = 0.1


class Points(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The points each side scored."""

    points_a: float
    points_b: float


class PointsShareElo(Family):
    name = "points-share-elo"
    version = 1
    Params = Params
    Result = Points

    @classmethod
    def result_columns(cls, params: object = None) -> tuple[ResultColumn, ...]:
        return (
            ResultColumn(
                "points_a", "Points scored by side A.", "15", required=True, kind="number"
            ),
            ResultColumn("points_b", "Points scored by side B.", "5", required=True, kind="number"),
        )

    def check_result(self, result: Points, n_sides: int) -> None:
        if result.points_a < 0 or result.points_b < 0:
            raise FamilyError("points cannot be negative", field="points_a")

    @property
    def integer_ratings(self) -> bool:
        return False

    def rate(
        self, game: Game, states: Sequence[Sequence[PlayerState]], explain: bool = False
    ) -> list[list[Change]]:
        points = (game.result.points_a, game.result.points_b)
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
