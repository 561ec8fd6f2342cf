"""The generic Elo family: every parameter of the seed families, exposed.

RULES.md "elo": initial rating, divisor, K schedule, score table, probability
rounding, change rounding, integer or fractional ratings, difference cap, gain
cap, per-game or per-event updates, team aggregation, first-player advantage,
and season-close rules (bracket penalties with a floor, or regression).

Battle Empire and AdlG are this same computation with their own parameters
(see battle_empire.py and adlg.py), so the maths lives here once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import msgspec

from projections.families.base import (
    Change,
    Family,
    FamilyError,
    Game,
    Outcome,
    PlayerState,
    Season,
    SeasonChange,
    played_in,
)
from projections.families.rounding import Rounding, apply_rounding, round_half_up


class KRule(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One line of a K schedule: ``k`` applies when every condition given holds.

    ``games_below``: fewer than this many games played before the game.
    ``rating_at_least``: a rating of at least this before the game.
    """

    k: float
    games_below: int | None = None
    rating_at_least: float | None = None

    def applies(self, state: PlayerState) -> bool:
        if self.games_below is not None and state.games >= self.games_below:
            return False
        if self.rating_at_least is not None and state.rating < self.rating_at_least:
            return False
        return True


class Bracket(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Season penalty: a rating strictly above ``above`` loses ``penalty``."""

    above: float
    penalty: float


class EloParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Parameters of the generic ``elo`` family (RULES.md defaults)."""

    initial: float = 1500
    divisor: float = 400
    #: K when no line of ``k_rules`` applies.
    k: float = 20
    #: K schedule: the first rule that applies gives K.
    k_rules: list[KRule] = []
    #: S for each result: ``loss``, ``draw`` and one or more winning margins.
    scores: dict[str, float] = msgspec.field(
        default_factory=lambda: {"win": 1.0, "draw": 0.5, "loss": 0.0}
    )
    #: The winning margin used when a result names none.
    default_margin: str | None = "win"
    #: Decimal places P is rounded to (half-up) before use; None: not rounded.
    probability_places: int | None = None
    rounding: Rounding = "none"
    integer: bool = False
    #: Rating difference clamped to ±this before P is computed.
    difference_cap: float | None = None
    #: A player rated this much above the opponent (or more) gains nothing.
    gain_cap: float | None = None
    #: With ``gain_cap``: True means strictly more than the cap (AdlG).
    gain_cap_strict: bool = False
    update: Literal["game", "event"] = "game"
    team: Literal["mean", "sum"] = "mean"
    #: Added to the first side's rating when P is computed, unless neutral.
    home_advantage: float = 0
    #: Season close: penalties for inactive players, highest bracket first.
    season_penalties: list[Bracket] = []
    season_floor: float | None = None
    #: Season close: every rated player regresses toward the mean by this fraction.
    season_regression: float | None = None
    season_mean: float | None = None


class EloFamily(Family):
    """The generic two-sided Elo family (``--family elo``)."""

    name = "elo"
    Params = EloParams
    Result = Outcome
    result_fields = ("result", "margin")

    def __init__(self, params: Any) -> None:
        super().__init__(params)
        self._elo = self.to_elo(params)
        self._check_params(self._elo)

    @classmethod
    def to_elo(cls, params: Any) -> EloParams:
        """The generic Elo parameters this family's parameters stand for."""
        return params

    @classmethod
    def _check_params(cls, p: Any) -> None:
        for required in ("draw", "loss"):
            if required not in p.scores:
                raise FamilyError(
                    f"parameter 'scores' must have a {required!r} entry", field="scores"
                )
        if p.default_margin is not None and p.default_margin not in p.scores:
            raise FamilyError(
                f"default_margin {p.default_margin!r} is not in scores ({', '.join(p.scores)})",
                field="default_margin",
            )
        if p.integer and p.rounding == "none":
            raise FamilyError("integer ratings need a rounding other than 'none'", field="rounding")
        if p.divisor <= 0:
            raise FamilyError("divisor must be positive", field="divisor")
        if p.season_regression is not None and not 0 <= p.season_regression <= 1:
            raise FamilyError(
                "season_regression is a fraction from 0 to 1", field="season_regression"
            )

    # The seed families built on this one narrow the vocabulary; the maths
    # below reads everything from ``self.elo`` (their parameters mapped here).
    @property
    def elo(self) -> EloParams:
        return self._elo

    @property
    def integer_ratings(self) -> bool:
        return self.elo.integer

    @property
    def per_event(self) -> bool:
        return self.elo.update == "event"

    def initial_rating(self) -> float:
        return self.elo.initial

    def margins(self) -> list[str]:
        """The winning margins the score table names."""
        return [m for m in self.elo.scores if m not in ("draw", "loss")]

    def check_result(self, result: Outcome, n_sides: int) -> None:
        if result.result == "draw":
            if result.margin is not None:
                raise FamilyError("a draw has no margin", field="margin")
            return
        margin = result.margin or self.elo.default_margin
        if margin is None:
            raise FamilyError(
                f"a {self.name} victory needs a margin ({', '.join(self.margins())})",
                field="margin",
            )
        if margin not in self.margins():
            raise FamilyError(
                f"unknown margin {margin!r} (expected one of: {', '.join(self.margins())})",
                field="margin",
            )

    def scores(self, result: Outcome) -> tuple[float, float]:
        """Actual scores (S_A, S_B); the losing side scores ``loss``."""
        table = self.elo.scores
        if result.result == "draw":
            return table["draw"], table["draw"]
        won = table[result.margin or self.elo.default_margin]  # type: ignore[index]
        lost = table["loss"]
        return (won, lost) if result.result == "a" else (lost, won)

    def k_factor(self, state: PlayerState) -> float:
        for rule in self.elo.k_rules:
            if rule.applies(state):
                return rule.k
        return self.elo.k

    def side_rating(self, side: Sequence[PlayerState]) -> float:
        total = sum(s.rating for s in side)
        return total if self.elo.team == "sum" else total / len(side)

    def expected(self, own: float, opponent: float) -> tuple[float, float]:
        """(difference used, P) for a side rated ``own`` against ``opponent``."""
        p = self.elo
        diff = opponent - own
        if p.difference_cap is not None:
            diff = max(-p.difference_cap, min(p.difference_cap, diff))
        expected = 1.0 / (1.0 + 10.0 ** (diff / p.divisor))
        if p.probability_places is not None:
            expected = round_half_up(expected, p.probability_places)
        return diff, expected

    def gains_capped(self, own: float, opponent: float) -> bool:
        cap = self.elo.gain_cap
        if cap is None:
            return False
        lead = own - opponent
        return lead > cap if self.elo.gain_cap_strict else lead >= cap

    def rate(
        self,
        game: Game,
        states: Sequence[Sequence[PlayerState]],
        explain: bool = False,
    ) -> list[list[Change]]:
        p = self.elo
        ratings = [self.side_rating(states[0]), self.side_rating(states[1])]
        advantage = 0.0 if game.neutral else p.home_advantage
        s_a, s_b = self.scores(game.result)
        out: list[list[Change]] = []
        for side, own_s in ((0, s_a), (1, s_b)):
            own = ratings[side] + (advantage if side == 0 else 0.0)
            opp = ratings[1 - side] + (advantage if side == 1 else 0.0)
            diff, expected = self.expected(own, opp)
            capped = self.gains_capped(ratings[side], ratings[1 - side])
            changes = []
            for state in states[side]:
                k = self.k_factor(state)
                raw = k * (own_s - expected)
                delta = apply_rounding(raw, p.rounding)
                if capped and delta > 0:
                    delta = 0.0
                detail = None
                if explain:
                    detail = {
                        "rating before": state.rating,
                        "games played": state.games,
                        "side rating": ratings[side],
                        "opponent side rating": ratings[1 - side],
                        "first-player advantage": advantage if side == 0 else -advantage,
                        "difference used (opp - own)": diff,
                        "P": expected,
                        "S": own_s,
                        "K": k,
                        "K x (S - P)": raw,
                        f"rounded ({p.rounding})": apply_rounding(raw, p.rounding),
                        "gain cap applies": capped,
                        "change": delta,
                    }
                changes.append(Change(delta=delta, s=own_s, p=expected, k=k, detail=detail))
            out.append(changes)
        return out

    def close_season(
        self, season: Season, states: Mapping[str, PlayerState]
    ) -> dict[str, SeasonChange]:
        p = self.elo
        out: dict[str, SeasonChange] = {}
        if p.season_regression is not None:
            mean = p.initial if p.season_mean is None else p.season_mean
            f = p.season_regression
            for player, state in states.items():
                target = mean * f + state.rating * (1 - f)
                delta = apply_rounding(target - state.rating, p.rounding)
                if delta:
                    out[player] = SeasonChange(
                        delta, f"season {season.label}: regression toward {mean:g} by {f:g}"
                    )
            return out
        if not p.season_penalties:
            return out
        for player, state in states.items():
            if played_in(state, season):
                continue
            # Only players who already had a rating when the season began.
            if state.rated_since is None or state.rated_since >= season.start:
                continue
            for bracket in p.season_penalties:
                if state.rating > bracket.above:
                    new = state.rating - bracket.penalty
                    if p.season_floor is not None:
                        new = max(new, min(p.season_floor, state.rating))
                    if new != state.rating:
                        out[player] = SeasonChange(
                            new - state.rating,
                            f"season {season.label}: no game played, rating above "
                            f"{bracket.above:g}",
                        )
                    break
        return out
