"""The Glicko-2 family (docs/rules/glicko2.md), as Glickman's paper states it.

Mark E. Glickman, "Example of the Glicko-2 system" (2013): each player has a
rating, a rating deviation (RD) and a volatility; the games of one rating
period are rated together from the values the players had when the period
began. This module holds the whole vocabulary of the family (rating
deviation, volatility, rating periods): nothing else in the tree restates it.

The ledger rates a game when it takes effect, so a period is rated one game
at a time: a player's state keeps the values their period began with and the
period's two sums (Σ g²E(1−E) and Σ g(s−E)); after each game the rating, RD
and volatility are those the period would give if it ended there. After the
period's last game they are exactly the paper's, and each game's change is
what that game added (the changes of a period add up to the period's).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from ledger.families.base import (
    Change,
    Family,
    FamilyError,
    Game,
    Outcome,
    PlayerState,
    ResultColumn,
    example_sides,
)
from ledger.kernel.translation import N_, NC_, Message

#: Glicko-2's scale: μ = (r − 1500) / SCALE, φ = RD / SCALE.
SCALE = 173.7178
CENTRE = 1500.0
#: The convergence tolerance of the volatility iteration (the paper's ε).
EPSILON = 0.000001


class Glicko2Params(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Parameters of the ``glicko2`` family (docs/rules/glicko2.md)."""

    tau: Annotated[
        float,
        Meta(gt=0, description=N_("τ: how much the volatility may change (0.3 to 1.2 is usual).")),
    ] = 0.5
    initial: Annotated[float, Meta(description=N_("The rating a new player starts at."))] = 1500
    initial_rd: Annotated[
        float, Meta(gt=0, description=N_("The rating deviation (RD) a new player starts with."))
    ] = 350
    initial_volatility: Annotated[
        float, Meta(gt=0, description=N_("The volatility σ a new player starts with."))
    ] = 0.06
    max_rd: Annotated[
        float, Meta(gt=0, description=N_("RD never grows above this while a player is away."))
    ] = 350
    period: Annotated[
        Literal["game", "event", "week", "month"],
        Meta(
            description=N_(
                "The rating period: game (each game alone), event (the games of one "
                "event, as AdlG; a game without an event is a period of its own), or the calendar "
                "week (ISO) or month of the game's date."
            )
        ),
    ] = "event"
    ageing: Annotated[
        Literal["week", "month", "none"],
        Meta(
            description=N_(
                "With game or event periods: RD grows once for each calendar week or "
                "month a player sat out between two periods (none: never). Week and month periods "
                "age by their own periods."
            )
        ),
    ] = "month"
    provisional_rd: Annotated[
        float,
        Meta(gt=0, description=N_("A rating whose RD is above this is shown as provisional.")),
    ] = 110
    order: Annotated[
        Literal["rating", "conservative"],
        Meta(description=N_("Rank players by rating, or conservatively by rating − 2 RD.")),
    ] = "rating"


class Opening(msgspec.Struct):
    """A player's values as a rating period opens (Glicko-2 scale), the
    period's sums so far, and how many periods they sat out before it."""

    mu: float
    phi: float
    sigma: float
    v_sum: float
    score_sum: float
    idle: int


def g(phi: float) -> float:
    """g(φ) = 1 / √(1 + 3φ²/π²)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    """E(μ, μj, φj) = 1 / (1 + exp(−g(φj)(μ − μj)))."""
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def new_volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """σ′ by the paper's step 5 (the Illinois algorithm)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def _month(day: date) -> int:
    return day.year * 12 + day.month - 1


def _week(day: date) -> int:
    return (day.toordinal() - 1) // 7  # weeks from Monday 1 January of year 1


def _hashed(text: str) -> float:
    """A period named by text (an event, a game) as a number a state holds
    exactly (48 bits)."""
    return float(int(hashlib.sha1(text.encode()).hexdigest()[:12], 16))


class Glicko2Family(Family):
    """``--family glicko2``: results ``a``/``b``/``draw``; rating, RD and
    volatility per player, rated by rating periods."""

    name = "glicko2"
    #: 1: Glickman (2013), periods rated game by game (docs/rules/glicko2.md).
    version = 1
    rules_doc = "docs/rules/glicko2.md"
    Params = Glicko2Params
    Result = Outcome
    state_columns = (
        "rd", "volatility", "period", "period_rating", "period_rd", "period_volatility",
        "v_sum", "score_sum", "day",
    )  # fmt: skip
    #: What ``ledger adjust --state`` may set; the rest is the open period's.
    settable_state = ("rd", "volatility")

    @classmethod
    def result_columns(cls, params: Any = None) -> tuple[ResultColumn, ...]:
        """``result`` alone: a, b or draw."""
        return (
            ResultColumn(
                name="result",
                help=N_(
                    "Who won: a = side A (side_a) won, b = side B (side_b) won, draw = a draw."
                ),
                example="a",
                choices=("a", "b", "draw"),
                required=True,
                kind="code",
            ),
        )

    @classmethod
    def example_rows(cls, n_sides: int | None = None) -> list[dict[str, str]]:
        """Two games of one event: a win of side A, then a draw."""
        base = {"ladder": "Club Glicko", "date": "2025-05-10", "event": "SPRING-OPEN",
                "round": "1"}  # fmt: skip
        return [
            {**base, **example_sides(["Mira Holm", "Tomás Rey"], n_sides or 2), "result": "a"},
            {**base, **example_sides(["Ines Berg", "Karl Dunn"], n_sides or 2),
             "result": "draw"},
        ]  # fmt: skip

    def check_result(self, result: Outcome, n_sides: int) -> None:
        if result.margin is not None:
            raise FamilyError(Message("a glicko2 result has no margin"), field="margin")

    @property
    def integer_ratings(self) -> bool:
        return False

    # -- state --------------------------------------------------------------
    def initial_state(self) -> dict[str, float]:
        p = self.params
        return {"rd": p.initial_rd, "volatility": p.initial_volatility}

    def _values(self, state: PlayerState) -> dict[str, float]:
        """A state's values, a player rated before this family (a rule
        change) taking the initial RD and volatility."""
        return {**self.initial_state(), **(state.extra or {})}

    def deviation(self, state: PlayerState) -> float:
        return self._values(state)["rd"]

    def provisional_threshold(self) -> float:
        return self.params.provisional_rd

    def conservative_rating(self, state: PlayerState) -> float:
        """Rating − 2 RD."""
        return state.rating - 2.0 * self.deviation(state)

    def ranks_conservatively(self) -> bool:
        return self.params.order == "conservative"

    def adjust_state(
        self, extra: dict[str, float] | None, values: Mapping[str, float]
    ) -> dict[str, float]:
        """An adjustment sets RD or volatility and closes the open period:
        the next game opens a new one from the values set."""
        settable = self.settable_state
        kept = {k: v for k, v in (extra or self.initial_state()).items() if k in settable}
        return {**kept, **values}

    # -- periods ------------------------------------------------------------
    def period_of(self, game: Game) -> float:
        """The number of the rating period ``game`` belongs to."""
        kind = self.params.period
        if kind == "month":
            return float(_month(game.date))
        if kind == "week":
            return float(_week(game.date))
        if kind == "event" and game.event is not None:
            return _hashed("event:" + game.event)
        return _hashed("game:" + game.id)

    def periods_away(self, values: Mapping[str, float], period: float, on: date) -> int:
        """How many periods a player sat out between their last period and
        ``period`` (RD grows once for each)."""
        if "day" not in values:  # never rated in a period
            return 0
        kind, last = self.params.period, date.fromordinal(int(values["day"]))
        if kind in ("week", "month"):
            return max(0, int(period - values["period"]) - 1) if "period" in values else 0
        unit = {"week": _week, "month": _month}.get(self.params.ageing)
        return 0 if unit is None else max(0, unit(on) - unit(last) - 1)

    def opening(self, state: PlayerState, period: float, on: date) -> Opening:
        """A player's values as ``period`` opened: kept in their state when
        they already played in it, else their values now, RD grown for the
        periods they sat out (never above the maximum RD)."""
        values = self._values(state)
        if values.get("period") == period and "period_rating" in values:
            return Opening(
                mu=(values["period_rating"] - CENTRE) / SCALE,
                phi=values["period_rd"] / SCALE,
                sigma=values["period_volatility"],
                v_sum=values["v_sum"],
                score_sum=values["score_sum"],
                idle=0,
            )
        idle = self.periods_away(values, period, on)
        sigma = values["volatility"]
        phi = values["rd"] / SCALE
        if idle:
            phi = min(self.params.max_rd / SCALE, math.sqrt(phi * phi + idle * sigma * sigma))
        return Opening(
            mu=(state.rating - CENTRE) / SCALE, phi=phi, sigma=sigma, v_sum=0.0, score_sum=0.0,
            idle=idle,
        )  # fmt: skip

    # -- rating -------------------------------------------------------------
    def rate(
        self,
        game: Game,
        states: Sequence[Sequence[PlayerState]],
        explain: bool = False,
    ) -> list[list[Change]]:
        """Each player against one opponent: the opposing side (its mean μ,
        its players' φ by root mean square; docs/rules/glicko2.md)."""
        period = self.period_of(game)
        opened = [[self.opening(s, period, game.date) for s in side] for side in states]
        result = game.result.result
        scores = (1.0, 0.0) if result == "a" else (0.0, 1.0) if result == "b" else (0.5, 0.5)
        out: list[list[Change]] = []
        for side_no, side in enumerate(states):
            opp = opened[1 - side_no]
            mu_j = sum(o.mu for o in opp) / len(opp)
            phi_j = math.sqrt(sum(o.phi * o.phi for o in opp) / len(opp))
            s = scores[side_no]
            changes = []
            for state, o in zip(side, opened[side_no], strict=True):
                changes.append(self._period_step(game, state, o, period, mu_j, phi_j, s, explain))
            out.append(changes)
        return out

    def _period_step(
        self,
        game: Game,
        state: PlayerState,
        o: Opening,
        period: float,
        mu_j: float,
        phi_j: float,
        s: float,
        explain: bool,
    ) -> Change:
        """One game added to a player's period: the paper's steps 3 to 8 on
        the period's games so far."""
        g_j = g(phi_j)
        e = expected(o.mu, mu_j, phi_j)
        v_sum = o.v_sum + g_j * g_j * e * (1.0 - e)
        score_sum = o.score_sum + g_j * (s - e)
        v = 1.0 / v_sum
        delta = v * score_sum
        sigma = new_volatility(o.phi, o.sigma, delta, v, self.params.tau)
        phi_star = math.sqrt(o.phi * o.phi + sigma * sigma)
        phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        mu_new = o.mu + phi_new * phi_new * score_sum
        rating = SCALE * mu_new + CENTRE
        rd = SCALE * phi_new
        after = {
            "rd": rd,
            "volatility": sigma,
            "period": period,
            "period_rating": SCALE * o.mu + CENTRE,
            "period_rd": SCALE * o.phi,
            "period_volatility": o.sigma,
            "v_sum": v_sum,
            "score_sum": score_sum,
            "day": float(game.date.toordinal()),
        }
        detail = None
        if explain:
            values = self._values(state)
            detail = {
                NC_("explained", "rating before"): state.rating,
                NC_("explained", "RD before"): values["rd"],
                NC_("explained", "volatility before"): values["volatility"],
                NC_("explained", "periods sat out (RD grown)"): o.idle,
                NC_("explained", "period games before this one"): o.v_sum > 0,
                NC_("explained", "rating at the period's start"): SCALE * o.mu + CENTRE,
                NC_("explained", "RD at the period's start"): SCALE * o.phi,
                NC_("explained", "μ"): o.mu,
                NC_("explained", "φ"): o.phi,
                NC_("explained", "σ"): o.sigma,
                NC_("explained", "opponent μj (side mean)"): mu_j,
                NC_("explained", "opponent φj (side root mean square)"): phi_j,
                NC_("explained", "g(φj)"): g_j,
                NC_("explained", "E"): e,
                NC_("explained", "S"): s,
                NC_("explained", "v"): v,
                NC_("explained", "Δ"): delta,
                NC_("explained", "τ"): self.params.tau,
                NC_("explained", "new σ (σ′)"): sigma,
                NC_("explained", "φ*"): phi_star,
                NC_("explained", "φ′"): phi_new,
                NC_("explained", "μ′"): mu_new,
                NC_("explained", "rating after"): rating,
                NC_("explained", "RD after"): rd,
                NC_("explained", "change"): rating - state.rating,
            }
        # K: this game's weight in the change, c·φ′²·g(φj) (the change of a
        # period of one game is K × (S − E)).
        k = SCALE * phi_new * phi_new * g_j
        return Change(delta=rating - state.rating, s=s, p=e, k=k, detail=detail, state=after)
