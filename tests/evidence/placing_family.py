"""A user-defined family of games of two to four sides, for the evidence
tests: each side scores the share of the other sides it placed above, and
moves K × (S − ½). It says nothing about pairs: ``ledger evaluate`` scores
its games with the ``Family`` defaults alone."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ledger.families.base import Change, Family, Game, PlayerState, ResultColumn


class Params(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    initial: float = 1500
    k: float = 40


class Places(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    places: list[int]


class Placing(Family):
    name = "placing"
    Params = Params
    Result = Places
    min_sides = 2
    max_sides = 4

    @classmethod
    def result_columns(cls, params: object = None) -> tuple[ResultColumn, ...]:
        return (
            ResultColumn("places", "Each side's place, 1 first.", "1,2,3", True, kind="integers"),
        )

    @property
    def integer_ratings(self) -> bool:
        return False

    def rate(
        self, game: Game, states: Sequence[Sequence[PlayerState]], explain: bool = False
    ) -> list[list[Change]]:
        places = game.result.places
        n = len(places)
        out = []
        for i, side in enumerate(states):
            s = sum(places[i] < places[j] for j in range(n) if j != i) / (n - 1)
            k = self.params.k
            out.append([Change(delta=k * (s - 0.5), s=s, p=0.5, k=k) for _ in side])
        return out
