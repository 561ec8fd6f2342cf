"""A family with a bug that only shows at replay: it rates a game between
newcomers, and raises once anyone has a rating of their own (the kind of
plugin bug that must not brick a ledger)."""

from __future__ import annotations

from collections.abc import Sequence

from ledger.families.base import Change, Game, PlayerState
from ledger.families.elo import EloFamily


class FragileElo(EloFamily):
    name = "fragile-elo"

    def rate(
        self, game: Game, states: Sequence[Sequence[PlayerState]], explain: bool = False
    ) -> list[list[Change]]:
        if any(s.rating != self.initial_rating() for side in states for s in side):
            raise ZeroDivisionError("a bug in the plugin")
        return super().rate(game, states, explain)
