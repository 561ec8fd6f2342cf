"""Battle Empire (seeds 000 English, 003 French): Elo with margins of victory.

The computation is the generic Elo one (elo.py) with the parameters RULES.md
fixes; this module holds the vocabulary, the two variants and the grades.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from projections.families.base import PlayerState
from projections.families.elo import Bracket, EloFamily, EloParams, KRule


class BattleEmpireParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``variant``: ``fr`` (the 500-point rule, default) or ``en`` (none)."""

    variant: Literal["fr", "en"] = "fr"


# (lowest rating, French grade, English grade), highest first.
GRADES: tuple[tuple[int, str, str], ...] = (
    (1400, "Maréchal d'Empire", "Marshal of the Empire"),
    (1300, "Général en chef", "General in Chief"),
    (1200, "Général de division", "Division General"),
    (1100, "Général de brigade", "Brigadier General"),
    (1000, "Colonel", "Colonel"),
    (900, "Chef de bataillon", "Battalion Chief"),
    (800, "Capitaine", "Captain"),
    (700, "Lieutenant", "Lieutenant"),
)
LOWEST_GRADE = ("Adjudant", "Warrant Officer")


class BattleEmpireFamily(EloFamily):
    """``--family battle-empire``: results ``a``/``b``/``draw`` with a margin
    (``marginal``, ``decisive``, ``overwhelming``) for a victory."""

    name = "battle-empire"
    Params = BattleEmpireParams

    @classmethod
    def to_elo(cls, params: BattleEmpireParams) -> EloParams:
        return EloParams(
            initial=1000,
            divisor=500,
            k=60,
            # K = 30 under 8 games played, or for a Marshal (1400+).
            k_rules=[KRule(k=30, games_below=8), KRule(k=30, rating_at_least=1400)],
            scores={
                "marginal": 1.0,
                "decisive": 1.25,
                "overwhelming": 1.5,
                "draw": 0.5,
                "loss": 0.0,
            },
            default_margin=None,
            probability_places=2,
            rounding="half-away",
            integer=True,
            gain_cap=500 if params.variant == "fr" else None,
            season_penalties=[Bracket(above=1300, penalty=100), Bracket(above=1100, penalty=50)],
        )

    def grade(self, state: PlayerState, lang: str = "en") -> str:
        for lowest, fr, en in GRADES:
            if state.rating >= lowest:
                return fr if lang == "fr" else en
        return LOWEST_GRADE[0] if lang == "fr" else LOWEST_GRADE[1]
