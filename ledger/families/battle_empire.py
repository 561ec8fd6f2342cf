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
from ledger.kernel.translation import N_, translator


class BattleEmpireParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``variant``: ``fr`` (the 500-point rule, default) or ``en`` (none)."""

    variant: Annotated[
        Literal["fr", "en"],
        msgspec.Meta(
            description=N_(
                "fr (the French text): a player rated 500 or more above the opposing "
                "side's mean gains nothing; en (the English text): no such rule."
            )
        ),
    ] = "fr"


# (lowest rating, grade), highest first. The French names (the rules' own,
# docs/rules/battle-empire.md) are the catalog's: Maréchal d'Empire, Général
# en chef, Général de division, Général de brigade, Colonel, Chef de
# bataillon, Capitaine, Lieutenant, Adjudant.
GRADES: tuple[tuple[int, str], ...] = (
    (1400, N_("Marshal of the Empire")),
    (1300, N_("General in Chief")),
    (1200, N_("Division General")),
    (1100, N_("Brigadier General")),
    (1000, N_("Colonel")),
    (900, N_("Battalion Chief")),
    (800, N_("Captain")),
    (700, N_("Lieutenant")),
)
LOWEST_GRADE = N_("Warrant Officer")


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
        t = translator(lang)
        for lowest, grade in GRADES:
            if state.rating >= lowest:
                return t.gettext(grade)
        return t.gettext(LOWEST_GRADE)
