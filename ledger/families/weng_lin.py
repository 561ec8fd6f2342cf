"""The ``weng-lin`` family (docs/rules/weng-lin.md): Weng and Lin's Bayesian
rating, as the ``openskill`` library computes it.

Each player has a skill μ and its uncertainty σ; a game ranks two or more
sides of one or more players (ties allowed). The maths is openskill's, not
written again here: this module turns a game into openskill's teams and
ranks and reads back each player's new μ and σ. It holds the whole
vocabulary of the family: nothing else in the tree restates it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from ledger.families.base import (
    Change,
    Family,
    FamilyError,
    Game,
    PlayerState,
    ResultColumn,
    example_sides,
)
from ledger.kernel.translation import N_, NC_, Message

#: ``model`` parameter -> openskill's model class name.
MODELS = {
    "plackett-luce": "PlackettLuce",
    "bradley-terry-full": "BradleyTerryFull",
    "bradley-terry-part": "BradleyTerryPart",
    "thurstone-mosteller-full": "ThurstoneMostellerFull",
    "thurstone-mosteller-part": "ThurstoneMostellerPart",
}
Model = Literal[
    "plackett-luce",
    "bradley-terry-full",
    "bradley-terry-part",
    "thurstone-mosteller-full",
    "thurstone-mosteller-part",
]


class WengLinParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Parameters of the ``weng-lin`` family (openskill's defaults)."""

    model: Annotated[
        Model,
        Meta(
            description=N_(
                "openskill's model: plackett-luce (the default), bradley-terry-full, "
                "bradley-terry-part, thurstone-mosteller-full or thurstone-mosteller-part."
            )
        ),
    ] = "plackett-luce"
    mu: Annotated[float, Meta(description=N_("μ: a new player's skill (their rating)."))] = 25.0
    sigma: Annotated[
        float, Meta(gt=0, description=N_("σ: a new player's uncertainty about μ."))
    ] = 25.0 / 3.0
    beta: Annotated[
        float, Meta(gt=0, description=N_("β: the spread of performance around skill."))
    ] = 25.0 / 6.0
    kappa: Annotated[
        float, Meta(gt=0, description=N_("κ: the smallest share of σ² a game may leave."))
    ] = 0.0001
    tau: Annotated[
        float, Meta(ge=0, description=N_("τ: added to σ before each game (skill drifts)."))
    ] = 25.0 / 300.0
    limit_sigma: Annotated[
        bool, Meta(description=N_("Never let a game raise a player's σ (openskill's option)."))
    ] = False
    balance: Annotated[
        bool, Meta(description=N_("Weigh team members by their skill (openskill's option)."))
    ] = False
    provisional_sigma: Annotated[
        float,
        Meta(gt=0, description=N_("A rating whose σ is above this is shown as provisional.")),
    ] = 3.0
    order: Annotated[
        Literal["rating", "conservative"],
        Meta(description=N_("Rank players by μ, or conservatively by μ − 3σ.")),
    ] = "rating"


#: A two-sided result code as ranks (side A's, side B's).
_TWO_SIDED = {"a": (1, 2), "b": (2, 1), "draw": (1, 1)}


class Ranking(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A game's result: one rank per side in recorded order (1 = best; tied
    sides share a rank)."""

    ranks: list[int]


class WengLinFamily(Family):
    """``--family weng-lin``: ranked games of two or more sides, teams and
    ties; μ and σ per player from openskill."""

    name = "weng-lin"
    #: 1: openskill's models (docs/rules/weng-lin.md).
    version = 1
    rules_doc = "docs/rules/weng-lin.md"
    Params = WengLinParams
    Result = Ranking
    min_sides = 2
    max_sides = 64
    state_columns = ("sigma",)
    settable_state = ("sigma",)

    @classmethod
    def result_columns(cls, params: Any = None) -> tuple[ResultColumn, ...]:
        """``ranks``: one per side; or, for two sides, ``result`` as the
        other families of two sides record it (stored as its ranks)."""
        return (
            ResultColumn(
                name="ranks",
                help=N_(
                    "One rank per side, in side order (side_a first), separated by commas: "
                    "1 = best; tied sides share a rank. E.g. 1,2 (side A won), 1,1 (a draw), "
                    "2,1,3 or 1,1,3."
                ),
                example="1,2",
                kind="integers",
            ),
            ResultColumn(
                name="result",
                help=N_(
                    "For a game of two sides, instead of ranks: a (side A won), b (side B "
                    "won) or draw; kept as its ranks (1,2, 2,1 or 1,1)."
                ),
                choices=tuple(_TWO_SIDED),
                kind="code",
            ),
        )

    def parse_result(self, raw: Mapping[str, Any], n_sides: int) -> Ranking:
        """Ranks as given, or a two-sided ``result`` as its ranks (so a
        ladder's history kept by another family of two sides replays here,
        as ``whatif`` and ``evaluate --family weng-lin`` do)."""
        given = {k: v for k, v in raw.items() if v is not None and v != ""}
        code = given.pop("result", None)
        if code is not None:
            if "ranks" in given:
                raise FamilyError(Message("give ranks or result, not both"), "result")
            ranks = _TWO_SIDED.get(str(code).strip().lower())
            if ranks is None:
                raise FamilyError(
                    Message("result: {code!r} is not a, b or draw", code=code), "result"
                )
            if n_sides != 2:
                raise FamilyError(
                    Message(
                        "result: a, b or draw is for a game of two sides, this one has "
                        "{n_sides}: give ranks",
                        n_sides=n_sides,
                    ),
                    "result",
                )
            given["ranks"] = list(ranks)
        if "ranks" not in given:
            raise FamilyError(
                Message(
                    "a {name} result needs ranks (or, for two sides, result a, b or draw)",
                    name=self.name,
                ),
                "ranks",
            )
        return super().parse_result(given, n_sides)

    def load_result(self, stored: Any) -> Ranking:
        """A stored result: its ranks, or a two-sided result of another
        family (a, b or draw, any margin aside) as its ranks, so that a
        ladder kept by another family replays under these rules."""
        if isinstance(stored, Mapping) and "ranks" not in stored:
            ranks = _TWO_SIDED.get(stored.get("result"))  # type: ignore[arg-type]
            if ranks is not None:
                return Ranking(list(ranks))
        return super().load_result(stored)

    @classmethod
    def example_rows(cls, n_sides: int | None = None) -> list[dict[str, str]]:
        """A game won by side A, then a game with the first two tied."""
        n = n_sides or 2
        names = ["Ada Flint", "Bo Lindqvist", "Cleo Marsh", "Dev Patel"]
        ranks = [str(i + 1) for i in range(n)]
        tied = ["1"] + ranks[:-1]
        base = {"ladder": "Open Table", "date": "2025-06-01"}
        return [
            {**base, **example_sides(names, n), "ranks": ",".join(ranks)},
            {**base, **example_sides(names[::-1], n), "ranks": ",".join(tied)},
        ]

    def __init__(self, params: Any) -> None:
        super().__init__(params)
        import openskill.models  # (loaded with a weng-lin ladder only)

        p = params
        self.model = getattr(openskill.models, MODELS[p.model])(
            mu=p.mu, sigma=p.sigma, beta=p.beta, kappa=p.kappa, tau=p.tau,
            limit_sigma=p.limit_sigma, balance=p.balance,
        )  # fmt: skip

    def check_result(self, result: Ranking, n_sides: int) -> None:
        if len(result.ranks) != n_sides:
            raise FamilyError(
                Message(
                    "ranks: {count} ranks for {n_sides} sides (one per side)",
                    count=len(result.ranks),
                    n_sides=n_sides,
                ),
                "ranks",
            )
        if any(rank < 1 for rank in result.ranks):
            raise FamilyError(Message("ranks: a rank is 1 or more (1 = best)"), "ranks")

    @property
    def integer_ratings(self) -> bool:
        return False

    def initial_rating(self) -> float:
        return self.params.mu

    # -- state --------------------------------------------------------------
    def initial_state(self) -> dict[str, float]:
        return {"sigma": self.params.sigma}

    def sigma(self, state: PlayerState) -> float:
        """A player's σ (a player rated before this family: the initial σ)."""
        return (state.extra or {}).get("sigma", self.params.sigma)

    def deviation(self, state: PlayerState) -> float:
        return self.sigma(state)

    def provisional_threshold(self) -> float:
        return self.params.provisional_sigma

    def conservative_rating(self, state: PlayerState) -> float:
        """μ − 3σ (openskill's ordinal)."""
        return state.rating - 3.0 * self.sigma(state)

    def ranks_conservatively(self) -> bool:
        return self.params.order == "conservative"

    # -- rating -------------------------------------------------------------
    def rate(
        self,
        game: Game,
        states: Sequence[Sequence[PlayerState]],
        explain: bool = False,
    ) -> list[list[Change]]:
        """openskill's ``rate`` on the sides as teams with the game's ranks;
        ``p`` is openskill's ``predict_win`` of the player's side, ``s`` 1
        for a side ranked first alone (shared among sides tied first), else 0."""
        model = self.model
        ranks = list(game.result.ranks)
        teams = [[model.rating(mu=s.rating, sigma=self.sigma(s)) for s in side] for side in states]
        win = model.predict_win(teams)
        rated = model.rate(teams, ranks=ranks)
        best = min(ranks)
        first = ranks.count(best)
        detail_all: dict[str, Any] = {}
        if explain:
            detail_all = {
                NC_("explained", "model"): self.params.model,
                NC_("explained", "draw probability (predict_draw)"): model.predict_draw(teams),
                NC_("explained", "rank probabilities (predict_rank)"): [
                    list(r) for r in model.predict_rank(teams)
                ],
            }
        out: list[list[Change]] = []
        for side_no, side in enumerate(states):
            s = 1.0 / first if ranks[side_no] == best else 0.0
            changes = []
            for i, state in enumerate(side):
                new = rated[side_no][i]
                sigma = self.sigma(state)
                detail = None
                if explain:
                    detail = {
                        NC_("explained", "μ before"): state.rating,
                        NC_("explained", "σ before"): sigma,
                        NC_("explained", "side's μ (sum over its players)"): sum(
                            t.mu for t in teams[side_no]
                        ),
                        NC_("explained", "side's σ² (sum over its players)"): sum(
                            t.sigma * t.sigma for t in teams[side_no]
                        ),
                        NC_("explained", "rank"): ranks[side_no],
                        NC_("explained", "win probability (predict_win)"): win[side_no],
                        **detail_all,
                        NC_("explained", "S (1 for first place, shared by ties)"): s,
                        NC_("explained", "μ after"): new.mu,
                        NC_("explained", "σ after"): new.sigma,
                        NC_("explained", "μ − 3σ after"): new.mu - 3.0 * new.sigma,
                        NC_("explained", "change"): new.mu - state.rating,
                    }
                changes.append(
                    Change(
                        delta=new.mu - state.rating, s=s, p=win[side_no], k=sigma,
                        detail=detail, state={"sigma": new.sigma},
                    )
                )  # fmt: skip
            out.append(changes)
        return out
