"""The generic Elo family: every parameter of the seed families, exposed.

docs/rules/elo.md: initial rating, divisor, K schedule, score table, probability
rounding, change rounding, integer or fractional ratings, difference cap, gain
cap, per-game or per-event updates, team aggregation, first-player advantage,
and season-close rules (bracket penalties with a floor, or regression).

Battle Empire and AdlG are this same computation with their own parameters
(see battle_empire.py and adlg.py), so the maths lives here once.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from ledger.families.base import (
    Change,
    Family,
    FamilyError,
    FastPath,
    Game,
    Outcome,
    PlayerState,
    ResultColumn,
    Season,
    SeasonChange,
    example_sides,
    listing,
    played_in,
    side_means,
)
from ledger.families.rounding import Rounding, apply_rounding, round_half_up
from ledger.kernel.translation import N_, NC_, Message


class KRule(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One line of a K schedule: ``k`` applies when every condition given holds."""

    k: Annotated[float, Meta(ge=0, description=N_("The K of a player this rule applies to."))]
    games_below: Annotated[
        int | None,
        Meta(description=N_("Applies while the player has played fewer than this many games.")),
    ] = None
    rating_at_least: Annotated[
        float | None,
        Meta(description=N_("Applies when the player's rating before the game is at least this.")),
    ] = None

    def applies(self, state: PlayerState) -> bool:
        if self.games_below is not None and state.games >= self.games_below:
            return False
        if self.rating_at_least is not None and state.rating < self.rating_at_least:
            return False
        return True


class Bracket(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Season penalty: a rating strictly above ``above`` loses ``penalty``."""

    above: Annotated[float, Meta(description=N_("Applies to a rating strictly above this."))]
    penalty: Annotated[float, Meta(description=N_("Points the rating loses."))]


class EloParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Parameters of the generic ``elo`` family (docs/rules/elo.md defaults)."""

    initial: Annotated[float, Meta(ge=0, description=N_("The rating a new player starts at."))] = (
        1500
    )
    divisor: Annotated[
        float, Meta(description=N_("P = 1 / (1 + 10^(difference / divisor)); must be positive."))
    ] = 400
    k: Annotated[float, Meta(ge=0, description=N_("K when no K rule applies."))] = 20
    k_rules: Annotated[
        list[KRule],
        Meta(
            description=N_(
                "K schedule, as a JSON list: the first rule whose conditions all "
                'hold gives K, e.g. [{"k": 40, "games_below": 30}, {"k": 10, '
                '"rating_at_least": 2400}].'
            )
        ),
    ] = []
    scores: Annotated[
        dict[str, float],
        Meta(
            description=N_(
                "S for each result, as a JSON table: 'loss', 'draw' and one or "
                "more winning margins (each margin is a --margin value), e.g. "
                '{"win": 1, "draw": 0.5, "loss": 0}.'
            )
        ),
    ] = msgspec.field(default_factory=lambda: {"win": 1.0, "draw": 0.5, "loss": 0.0})
    default_margin: Annotated[
        str | None,
        Meta(
            description=N_("The winning margin of a victory recorded without one (none: required).")
        ),
    ] = "win"
    probability_places: Annotated[
        int | None,
        Meta(description=N_("Decimal places P is rounded to (half up); none: not rounded.")),
    ] = None
    rounding: Annotated[
        Rounding,
        Meta(
            description=N_(
                "How a change (of a game or a season close) is rounded: none, half-up "
                "(halves toward +infinity), half-away (halves away from zero), truncate (toward "
                "zero), floor (down)."
            )
        ),
    ] = "none"
    integer: Annotated[
        bool, Meta(description=N_("Integer ratings (needs a rounding other than none)."))
    ] = False
    difference_cap: Annotated[
        float | None,
        Meta(description=N_("The rating difference is clamped to ±this before P is computed.")),
    ] = None
    gain_cap: Annotated[
        float | None,
        Meta(
            description=N_(
                "A player rated this much (or more) above the opposing side's mean "
                "rating gains nothing from the game; a loss stays."
            )
        ),
    ] = None
    gain_cap_strict: Annotated[
        bool, Meta(description=N_("With gain_cap: only strictly more than the cap (AdlG)."))
    ] = False
    update: Annotated[
        Literal["game", "event"],
        Meta(
            description=N_(
                "game: each game changes ratings at once; event: every game of an "
                "event is rated from the ratings before it and applied when it closes."
            )
        ),
    ] = "game"
    team: Annotated[
        Literal["mean", "sum"],
        Meta(description=N_("A team side's rating: the mean or the sum of its players' ratings.")),
    ] = "mean"
    home_advantage: Annotated[
        float,
        Meta(
            description=N_("Added to the first side's rating when P is computed, unless neutral.")
        ),
    ] = 0
    season_penalties: Annotated[
        list[Bracket],
        Meta(
            description=N_(
                "Season close: a player who played no game in the season loses the "
                "penalty of the highest bracket their rating is above (in any order), e.g. "
                '[{"above": 1300, "penalty": 100}, {"above": 1100, "penalty": 50}].'
            )
        ),
    ] = []
    season_floor: Annotated[
        float | None,
        Meta(description=N_("Season penalties never take a rating below this (none: no floor).")),
    ] = None
    season_regression: Annotated[
        float | None,
        Meta(
            description=N_(
                "Season close: every rated player moves toward season_mean by this "
                "fraction (0 to 1): rating = mean × f + rating × (1 − f)."
            )
        ),
    ] = None
    season_mean: Annotated[
        float | None,
        Meta(description=N_("The mean of season_regression (none: the initial rating).")),
    ] = None


#: The result codes of a two-sided game.
OUTCOMES = ("a", "b", "draw")

#: ``explain``'s label of the rounded change, by rounding (the key names it).
ROUNDED: dict[str, str] = {
    "none": NC_("explained", "rounded (none)"),
    "half-up": NC_("explained", "rounded (half-up)"),
    "half-away": NC_("explained", "rounded (half-away)"),
    "truncate": NC_("explained", "rounded (truncate)"),
    "floor": NC_("explained", "rounded (floor)"),
}
#: The fields of a stored two-sided result.
_OUTCOME_FIELDS = frozenset(("result", "margin"))
#: What ``rate`` computes with: a subclass overriding any of them has no
#: fast path (``EloFamily.fast_rater``).
_MATHS = (
    "rate", "elo", "scores", "k_factor", "side_rating", "expected", "gains_capped", "load_result",
)  # fmt: skip


class EloFamily(Family):
    """The generic two-sided Elo family (``--family elo``)."""

    name = "elo"
    #: 2: a gain cap compares each player's own rating with the opposing
    #: side's mean; season changes are rounded like a game's; the highest
    #: bracket exceeded applies; a rating held at the season's end counts.
    version = 2
    rules_doc = "docs/rules/elo.md"
    Params = EloParams
    Result = Outcome

    @classmethod
    def result_columns(cls, params: Any = None) -> tuple[ResultColumn, ...]:
        """``result`` (a, b, draw) and ``margin`` (the score table's winning
        margins, which ``params`` decide)."""
        p = cls.to_elo(cls.default_params() if params is None else params)
        margins = [m for m in p.scores if m not in ("draw", "loss")]
        values = {"margins": listing(margins)}
        if p.default_margin is None:
            template = N_("For a victory, how large it was: {margins}. Leave blank for a draw.")
        else:
            values["default"] = p.default_margin
            template = N_(
                "Optional: the winning margin from the ladder's score table ({margins}); "
                "blank means {default}. Blank for a draw."
            )
        return (
            ResultColumn(
                name="result",
                help=N_(
                    "Who won: a = side A (side_a) won, b = side B (side_b) won, draw = a draw."
                ),
                example="a",
                choices=OUTCOMES,
                required=True,
                kind="code",
            ),
            ResultColumn(
                name="margin",
                help=template.format(**values),
                help_template=template,
                help_values=values,
                example=margins[0] if margins and p.default_margin is None else "",
                choices=tuple(margins),
                kind="code",
            ),
        )

    @classmethod
    def example_rows(cls, n_sides: int | None = None) -> list[dict[str, str]]:
        """A chess-club game won by side A, then a draw."""
        base = {
            "ladder": "Chess Club",
            "date": "2025-03-04",
            "event": "CC-2025-SPRING-RAPID",
            "round": "1",
            "table": "1",
            **example_sides(["Anna Kowalski", "Farid Haddad"], n_sides or 2),
        }
        return [
            {**base, "result": "a"},
            {**base, "table": "2", **example_sides(["Sophie Rosen", "Kenji Watanabe"], n_sides or 2),
             "result": "draw"},
        ]  # fmt: skip

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
                    Message("parameter 'scores' must have a {required!r} entry", required=required),
                    field="scores",
                )
        if p.default_margin is not None and p.default_margin not in p.scores:
            raise FamilyError(
                Message(
                    "default_margin {default_margin!r} is not in scores ({scores})",
                    default_margin=p.default_margin,
                    scores=", ".join(p.scores),
                ),
                field="default_margin",
            )
        if p.integer and p.rounding == "none":
            raise FamilyError(
                Message("integer ratings need a rounding other than 'none'"), field="rounding"
            )
        if p.divisor <= 0:
            raise FamilyError(Message("divisor must be positive"), field="divisor")
        if p.season_regression is not None and not 0 <= p.season_regression <= 1:
            raise FamilyError(
                Message("season_regression is a fraction from 0 to 1"), field="season_regression"
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
                raise FamilyError(Message("a draw has no margin"), field="margin")
            return
        margin = result.margin or self.elo.default_margin
        if not self.margins():
            raise FamilyError(
                Message(
                    "this {name} ladder's score table has no winning margin, so a victory "
                    "cannot be scored: add one to the 'scores' parameter",
                    name=self.name,
                ),
                field="margin",
            )
        if margin is None:
            raise FamilyError(
                Message(
                    "a {name} victory needs a margin ({choices})",
                    name=self.name,
                    choices=listing(self.margins()),
                ),
                field="margin",
            )
        if margin not in self.margins():
            raise FamilyError(
                Message(
                    "unknown margin {margin!r} (expected one of: {choices})",
                    margin=margin,
                    choices=listing(self.margins()),
                ),
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
        return k_of(state, self.elo.k_rules, self.elo.k)

    def side_rating(self, side: Sequence[PlayerState]) -> float:
        total = sum(s.rating for s in side)
        return total if self.elo.team == "sum" else total / len(side)

    def expected(self, own: float, opponent: float) -> tuple[float, float]:
        """(difference used, P) for a side rated ``own`` against ``opponent``."""
        p = self.elo
        return expected_score(own, opponent, p.divisor, p.difference_cap, p.probability_places)

    def gains_capped(self, own: float, opponent: float) -> bool:
        """True when a player rated ``own`` gains nothing against an opposing
        side whose mean rating is ``opponent`` (docs/rules/README.md, team sides: the
        player's own rating against the opposing side's mean)."""
        return gain_capped(own, opponent, self.elo.gain_cap, self.elo.gain_cap_strict)

    def with_values(self, values: Mapping[str, Any]) -> EloFamily | None:
        """The same maths on arrays of parameter values: ``expected_score``,
        ``gain_capped`` and ``rating_change`` take arrays as they take
        numbers; a K schedule by rating, a rounding, P rounded to places or
        a season close raise on them (an array in an ``if``), and ``ledger
        tune`` then replays once per grid point. None for a subclass that
        overrides the maths (as ``fast_rater``)."""
        if self.fast_rater() is None:  # a subclass's own maths: numbers only
            return None
        clone = copy.copy(self)
        clone.params = msgspec.structs.replace(self.params, **values)
        clone._elo = clone.to_elo(clone.params)
        return clone

    def first_player_expected(self) -> float | None:
        """P of the first side between equal ratings: the home advantage
        alone (None when the ladder gives none)."""
        home = self.elo.home_advantage
        if isinstance(home, int | float) and not home:  # (an array: a grid of advantages)
            return None
        return self.expected(home, 0.0)[1]

    def rate(
        self,
        game: Game,
        states: Sequence[Sequence[PlayerState]],
        explain: bool = False,
    ) -> list[list[Change]]:
        p = self.elo
        ratings = [self.side_rating(states[0]), self.side_rating(states[1])]
        means = side_means(states)
        advantage = 0.0 if game.neutral else p.home_advantage
        s_a, s_b = self.scores(game.result)
        out: list[list[Change]] = []
        for side, own_s in ((0, s_a), (1, s_b)):
            own = ratings[side] + (advantage if side == 0 else 0.0)
            opp = ratings[1 - side] + (advantage if side == 1 else 0.0)
            diff, expected = self.expected(own, opp)
            changes = []
            for state in states[side]:
                capped = self.gains_capped(state.rating, means[1 - side])
                k = self.k_factor(state)
                delta = rating_change(k, own_s, expected, p.rounding, capped)
                detail = None
                if explain:
                    raw = k * (own_s - expected)
                    detail = {
                        NC_("explained", "rating before"): state.rating,
                        NC_("explained", "games played"): state.games,
                        NC_("explained", "side rating"): ratings[side],
                        NC_("explained", "opponent side rating"): ratings[1 - side],
                        NC_("explained", "first-player advantage"): advantage
                        if side == 0
                        else -advantage,
                        NC_("explained", "difference used (opp - own)"): diff,
                        NC_("explained", "P"): expected,
                        NC_("explained", "S"): own_s,
                        NC_("explained", "K"): k,
                        NC_("explained", "K x (S - P)"): raw,
                        ROUNDED[p.rounding]: apply_rounding(raw, p.rounding),
                        NC_("explained", "opposing side mean (gain cap)"): means[1 - side],
                        NC_("explained", "gain cap applies"): capped,
                        NC_("explained", "change"): delta,
                    }
                changes.append(Change(delta=delta, s=own_s, p=expected, k=k, detail=detail))
            out.append(changes)
        return out

    def fast_rater(self) -> FastPath | None:
        """``rate`` on plain values: the same functions (``expected_score``,
        ``k_of``, ``gain_capped``, ``rating_change``) on the parameters read
        once, no ``Game`` or ``Change`` built. None when a subclass
        overrides any part of the maths (its own ``rate`` then decides)."""
        cls = type(self)
        if any(getattr(cls, name) is not getattr(EloFamily, name) for name in _MATHS):
            return None
        p = self.elo
        team_sum = p.team == "sum"
        home = p.home_advantage
        divisor, cap, places = p.divisor, p.difference_cap, p.probability_places
        rounding, gain_cap, strict = p.rounding, p.gain_cap, p.gain_cap_strict
        k_default, rules = p.k, p.k_rules
        outcomes: dict[tuple[Any, Any, int], tuple[float, float]] = {}
        scores, load_result = self.scores, self.load_result

        def scores_of(result: Mapping[str, Any]) -> tuple[float, float] | None:
            """What rate() does with a result: load it, look up the scores
            (each distinct result once). A result of one field, or of a
            result and a margin, is looked up by its values; any other shape
            is checked every time."""
            try:
                key = (result.get("result"), result.get("margin"), len(result))
                s = outcomes.get(key)
            except TypeError:  # not a code: load_result refuses it
                return None
            if s is None:
                if not result.keys() <= _OUTCOME_FIELDS:
                    return None
                try:
                    s = scores(load_result(result))
                except Exception:  # noqa: BLE001 - rate() raises it again, as it would
                    return None
                if key[2] == 1 or key[1] is not None:  # the key says its fields
                    outcomes[key] = s
            return s

        def change(
            state: PlayerState, own_s: float, e: float, opp_mean: float
        ) -> tuple[float, float, float, float]:
            # Calls a schedule or cap not given cannot change are skipped: one per game.
            k = k_of(state, rules, k_default) if rules else k_default
            capped = gain_cap is not None and gain_capped(state.rating, opp_mean, gain_cap, strict)
            return rating_change(k, own_s, e, rounding, capped), own_s, e, k

        def rate(
            result: Mapping[str, Any],
            states: Sequence[Sequence[PlayerState]],
            neutral: bool,
            attributes: Mapping[str, float],
        ) -> list[list[tuple[float, float, float, float]]] | None:
            s = scores_of(result) if len(states) == 2 else None
            if s is None:
                return None
            side_a, side_b = states
            # side_rating and side_means: the same sums.
            total_a = sum(st.rating for st in side_a)
            total_b = sum(st.rating for st in side_b)
            mean_a, mean_b = total_a / len(side_a), total_b / len(side_b)
            r_a = total_a if team_sum else mean_a
            r_b = total_b if team_sum else mean_b
            own_a = r_a + (0.0 if neutral else home)
            e_a = expected_score(own_a, r_b, divisor, cap, places)[1]
            e_b = expected_score(r_b, own_a, divisor, cap, places)[1]
            return [
                [change(st, s[0], e_a, mean_b) for st in side_a],
                [change(st, s[1], e_b, mean_a) for st in side_b],
            ]

        def duel(
            result: Mapping[str, Any], a: PlayerState, b: PlayerState, neutral: bool
        ) -> tuple[float, float, float, float, float, float, float, float] | None:
            s = scores_of(result)
            if s is None:
                return None
            # A side of one: its rating (sum or mean) and its mean are its
            # player's. ``change`` written out: this runs once per game of
            # most ladders, and calls a schedule or cap not given cannot
            # change are skipped.
            r_a, r_b = a.rating, b.rating
            own_a = r_a + (0.0 if neutral else home)
            e_a = expected_score(own_a, r_b, divisor, cap, places)[1]
            e_b = expected_score(r_b, own_a, divisor, cap, places)[1]
            s_a, s_b = s
            if rules:
                k_a, k_b = k_of(a, rules, k_default), k_of(b, rules, k_default)
            else:
                k_a = k_b = k_default
            if gain_cap is None:
                capped_a = capped_b = False
            else:
                capped_a = gain_capped(r_a, r_b, gain_cap, strict)
                capped_b = gain_capped(r_b, r_a, gain_cap, strict)
            delta_a = rating_change(k_a, s_a, e_a, rounding, capped_a)
            delta_b = rating_change(k_b, s_b, e_b, rounding, capped_b)
            return (delta_a, s_a, e_a, k_a, delta_b, s_b, e_b, k_b)

        return FastPath(rate, duel)

    def close_season(
        self, season: Season, states: Mapping[str, PlayerState]
    ) -> dict[str, SeasonChange]:
        """Regression of every rated player, or penalties for the players who
        played no game in the season (docs/rules/elo.md, "Season closes").

        Every player with a rating at the season's end counts, including one
        rated only by an adjustment. A change is rounded with the ladder's
        change rounding; of several penalty brackets, the one with the highest
        threshold the rating exceeds applies, whatever the order they were
        listed in.
        """
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
        brackets = sorted(p.season_penalties, key=lambda b: b.above, reverse=True)
        if not brackets:
            return out
        for player, state in states.items():
            if played_in(state, season):
                continue
            bracket = next((b for b in brackets if state.rating > b.above), None)
            if bracket is None:
                continue
            delta = apply_rounding(-bracket.penalty, p.rounding)
            if p.season_floor is not None:
                # The floor never raises a rating already below it.
                delta = max(delta, min(0.0, p.season_floor - state.rating))
            if delta:
                out[player] = SeasonChange(
                    delta,
                    f"season {season.label}: no game played, rating above {bracket.above:g}",
                )
        return out


# -- the maths, on plain values: ``EloFamily.rate`` and its fast path both call these.
def expected_score(
    own: float, opponent: float, divisor: float, cap: float | None, places: int | None
) -> tuple[float, float]:
    """(difference used, P): the expected score of a side rated ``own``
    against ``opponent``, the difference capped at ``cap`` and P rounded to
    ``places`` when given."""
    diff = opponent - own
    if cap is not None:
        # Arrays (``Family.with_values``) clip element by element.
        if hasattr(diff, "clip") or hasattr(cap, "clip"):
            diff = (diff + 0 * cap).clip(-cap, cap)
        else:
            diff = max(-cap, min(cap, diff))
    expected = 1.0 / (1.0 + 10.0 ** (diff / divisor))
    if places is not None:
        expected = round_half_up(expected, places)
    return diff, expected


def k_of(state: PlayerState, rules: Sequence[KRule], default: float) -> float:
    """The K of a player: the first rule of the schedule that applies, else ``default``."""
    for rule in rules:
        if rule.applies(state):
            return rule.k
    return default


def gain_capped(own: float, opponent_mean: float, cap: float | None, strict: bool) -> bool:
    """Whether a player rated ``own`` gains nothing against a side whose
    mean is ``opponent_mean``: their lead reaches ``cap`` (exceeds it, ``strict``)."""
    if cap is None:
        return False
    lead = own - opponent_mean
    return lead > cap if strict else lead >= cap


def rating_change(k: float, s: float, expected: float, rounding: Rounding, capped: bool) -> float:
    """A player's change: K × (S − P), rounded; no gain when ``capped``."""
    delta = k * (s - expected)
    if rounding != "none":  # (most ladders: no call)
        delta = apply_rounding(delta, rounding)
    if capped is True or capped is False:
        return 0.0 if capped and delta > 0 else delta
    return delta * (1 - (capped & (delta > 0)))  # arrays: each grid point's own cap
