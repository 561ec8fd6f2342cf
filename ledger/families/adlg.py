"""L'Art de la Guerre (seed 001): Elo applied at the end of each tournament.

The computation is the generic Elo one (elo.py) with the parameters docs/rules/
fixes; this module holds the K schedule, the ranks and their rounds-played
conditions.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ledger.families.base import PlayerState, ResultColumn, example_sides
from ledger.families.elo import Bracket, EloFamily, EloParams, KRule


class AdlgParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """AdlG has no options: the rules are fixed by the federation."""


# (lowest rating, rounds played needed, rank), highest first. A player short
# of a rank's rounds takes the highest rank whose conditions are met.
RANKS: tuple[tuple[int, int, str], ...] = (
    (1600, 30, "Strategist"),
    (1400, 20, "Great Master"),
    (1300, 10, "Master"),
    (1300, 0, "Seneschal"),
    (1200, 0, "Champion"),
    (1100, 0, "Knight"),
    (900, 0, "Soldier"),
    (800, 0, "Reservist"),
    (700, 0, "Militiaman"),
)
LOWEST_RANK = "Quartermaster"


class AdlgFamily(EloFamily):
    """``--family adlg``: results ``a``/``b``/``draw``; games of one event are
    rated from the ratings before the event and applied when it closes."""

    name = "adlg"
    #: 2: the more-than-500 rule compares each player's own rating with the
    #: opposing side's mean; a rating held at a season's end counts, even
    #: one set by an adjustment during the season.
    version = 2
    rules_doc = "docs/rules/adlg.md"
    Params = AdlgParams

    @classmethod
    def result_columns(cls, params: Any = None) -> tuple[ResultColumn, ...]:
        """``result`` alone: AdlG scores no margins."""
        return tuple(c for c in super().result_columns(params) if c.name == "result")

    @classmethod
    def example_rows(cls, n_sides: int | None = None) -> list[dict[str, str]]:
        """A draw in round 2 of a tournament, then a win of side B."""
        base = {"ladder": "AdlG Championship", "date": "2025-04-12", "event": "ADLG-2025-TOURS",
                "round": "2"}  # fmt: skip
        return [
            {**base, "table": "4", **example_sides(["Bertrand Du Guesclin", "Gaston Phébus"],
             n_sides or 2), "result": "draw"},
            {**base, "table": "5", **example_sides(["Aliénor Chastel", "Olivier Marbot"],
             n_sides or 2), "result": "b"},
        ]  # fmt: skip

    @classmethod
    def to_elo(cls, params: AdlgParams) -> EloParams:
        return EloParams(
            initial=1000,
            divisor=500,
            k=30,
            # K = 50 under 10 rounds; 15 from 10 rounds at 1400 or more.
            k_rules=[KRule(k=50, games_below=10), KRule(k=15, rating_at_least=1400)],
            rounding="truncate",
            integer=True,
            gain_cap=500,
            gain_cap_strict=True,
            update="event",
            season_penalties=[Bracket(above=1000, penalty=100)],
            season_floor=1000,
        )

    def grade(self, state: PlayerState, lang: str = "en") -> str:
        for lowest, rounds, rank in RANKS:
            if state.rating >= lowest and state.games >= rounds:
                return rank
        return LOWEST_RANK
