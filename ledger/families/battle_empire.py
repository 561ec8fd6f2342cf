"""Battle Empire (seeds 000 English, 003 French): Elo with margins of victory.

The computation is the generic Elo one (elo.py) with the parameters docs/rules/
fixes; this module holds the vocabulary, the two variants and the grades.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

import msgspec

from ledger.families.base import (
    PlayerState,
    Season,
    SeasonChange,
    example_sides,
)
from ledger.families.elo import Bracket, EloFamily, EloParams, KRule


class BattleEmpireParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``variant``: ``fr`` (the 500-point rule, default) or ``en`` (none)."""

    variant: Annotated[
        Literal["fr", "en"],
        msgspec.Meta(
            description="fr (the French text): a player rated 500 or more above the opposing "
            "side's mean gains nothing; en (the English text): no such rule."
        ),
    ] = "fr"


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
    #: 2: the 500-point rule compares each player's own rating with the
    #: opposing side's mean (team games).
    version = 2
    rules_doc = "docs/rules/battle-empire.md"
    Params = BattleEmpireParams

    @classmethod
    def example_rows(cls, n_sides: int | None = None) -> list[dict[str, str]]:
        """A decisive victory of side A at a tournament, then a draw."""
        base = {
            "ladder": "Battle Empire Club",
            "date": "2025-03-02",
            "event": "BE-2025-LYON",
            "round": "1",
            "table": "3",
        }
        return [
            {**base, **example_sides(["Éric Dupont", "Anne Martin"], n_sides or 2),
             "result": "a", "margin": "decisive"},
            {**base, "table": "4", **example_sides(["Paul Roy", "Jean Vidal"], n_sides or 2),
             "result": "draw", "margin": ""},
        ]  # fmt: skip

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

    def close_season(
        self, season: Season, states: Mapping[str, PlayerState]
    ) -> dict[str, SeasonChange]:
        """The year-end adjustment, for players who already had a rating when
        the year began (Battle Empire's condition alone, docs/rules/battle-empire.md) and played
        no game during it."""
        rated_before = {
            player: state
            for player, state in states.items()
            if state.rated_since is not None and state.rated_since < season.start
        }
        return super().close_season(season, rated_before)

    def grade(self, state: PlayerState, lang: str = "en") -> str:
        for lowest, fr, en in GRADES:
            if state.rating >= lowest:
                return fr if lang == "fr" else en
        return LOWEST_GRADE[0] if lang == "fr" else LOWEST_GRADE[1]
