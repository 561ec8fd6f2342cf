"""The ``bga`` family: Board Game Arena's ELO (docs/rules/bga.md, seed 004).

One ladder per game title. A game ranks N sides (ties allowed); every player
plays one virtual two-player Elo game against each other side::

    S = 1 ranked better, 0.5 tied, 0 ranked worse
    P = 1 / (1 + 10 ** (clamp(R_opp - R_self, ±difference_cap) / divisor))
    change = round_half_away(K × N_capped / 2 × mean over opponents of (S − P))

K is ``k_new`` for a player with fewer than ``new_games`` rated games, else
``k``; N is capped at the title's advised number of players. In a game where
someone quit, only the first quitter is rated: as if finishing last, minus
``quit_penalty`` more points; nobody else's rating moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import msgspec

from ledger.families.base import (
    Change,
    Family,
    FamilyError,
    Game,
    PlayerState,
    ResultColumn,
    example_sides,
    side_means,
)
from ledger.families.rounding import round_half_away
from ledger.kernel.translation import N_, NC_, Message

NOT_RATED = NC_("explained", "not rated: a player quit")

# Levels from the seed, highest first; each is earned strictly above its bound.
LEVELS: tuple[tuple[float, str], ...] = (
    (2000, "Master"),
    (1800, "Expert"),
    (1600, "Good player"),
)


class BgaParams(msgspec.Struct, forbid_unknown_fields=True):
    """A bga ruleset's parameters (docs/rules/bga.md defaults)."""

    initial: Annotated[
        int, msgspec.Meta(ge=0, description=N_("The rating a new player starts at."))
    ] = 1500
    divisor: Annotated[
        float, msgspec.Meta(gt=0, description=N_("P = 1 / (1 + 10^(difference / divisor))."))
    ] = 400
    advised_players: Annotated[
        Annotated[int, msgspec.Meta(ge=2)] | None,
        msgspec.Meta(
            description=N_(
                "The title's advised number of players: N in K x N/2 is capped at "
                "it (none: no cap)."
            )
        ),
    ] = None
    difference_cap: Annotated[
        float,
        msgspec.Meta(ge=0, description=N_("Each rating difference is clamped to ±this.")),
    ] = 600
    k_new: Annotated[
        float, msgspec.Meta(ge=0, description=N_("K of a player with fewer than new_games games."))
    ] = 60
    k: Annotated[float, msgspec.Meta(ge=0, description=N_("K of an experienced player."))] = 40
    new_games: Annotated[
        int,
        msgspec.Meta(ge=0, description=N_("K is k_new while a player has played fewer games.")),
    ] = 30
    quit_penalty: Annotated[
        float,
        msgspec.Meta(
            ge=0, description=N_("Points the first player to quit loses beyond last place.")
        ),
    ] = 10


class BgaResult(msgspec.Struct, forbid_unknown_fields=True):
    """A bga game's result.

    ``ranks`` holds one rank per side in recorded order (1 = best; tied sides
    share a rank, e.g. ``[1, 1, 3]``). ``quit`` is the 1-based number of the
    side whose player quit first, or None when everyone finished.
    """

    ranks: list[int]
    quit: int | None = None


class BgaFamily(Family):
    """Board Game Arena's multi-player ELO.

    ``Change.k`` is the effective K, i.e. K × N_capped / 2 (so that, before
    rounding and the quit penalty, ``delta == k × (s − p)``); ``s`` and ``p``
    are the means of S and P over the player's virtual games.
    """

    name = "bga"
    version = 1
    rules_doc = "docs/rules/bga.md"
    Params = BgaParams
    Result = BgaResult
    min_sides = 2
    max_sides = 64

    params: BgaParams

    @classmethod
    def result_columns(cls, params: Any = None) -> tuple[ResultColumn, ...]:
        """``ranks`` (one per side) and ``quit`` (who quit first, if anyone)."""
        return (
            ResultColumn(
                name="ranks",
                help=N_(
                    "One rank per side, in side order (side_a first), separated by commas: "
                    "1 = best; tied sides share a rank. E.g. 1,3,2,4 or 1,1,3. The column is "
                    "formatted as text so Excel keeps the commas."
                ),
                example="1,3,2,4",
                required=True,
                kind="integers",
            ),
            ResultColumn(
                name="quit",
                help=N_(
                    "Leave blank when everyone finished. Otherwise the name of the player "
                    "who quit first (or their side number, 1 for side_a): only that player is "
                    "rated, as if last and with a penalty; nobody else's rating moves."
                ),
                kind="player",
            ),
        )

    @classmethod
    def example_rows(cls, n_sides: int | None = None) -> list[dict[str, str]]:
        """A finished game of ``n_sides`` players (default 4), then one a
        player quit."""
        n = n_sides or 4
        sides = example_sides(["MeepleMarie", "RoadBuilder", "CloisterKing", "FarmerJo"], n)
        ranks = list(range(1, n + 1))
        if n >= 3:  # not in side order: 1,3,2,4
            ranks[1], ranks[2] = ranks[2], ranks[1]
        cells = ",".join(map(str, ranks))
        base = {"ladder": "BGA Carcassonne", "date": "2025-01-05", **sides}
        return [
            {**base, "table": "1", "ranks": cells, "quit": ""},
            {**base, "table": "2", "ranks": cells, "quit": sides["side_b"]},
        ]

    def check_result(self, result: BgaResult, n_sides: int) -> None:
        """One rank (>= 1) per side, in standard competition ranking (each
        rank is 1 + the number of sides ranked better, e.g. ``1,2,2,4``);
        ``quit`` names an existing side."""
        if len(result.ranks) != n_sides:
            raise FamilyError(
                Message(
                    "bga ranks need one entry per side: {n_sides} sides, got {count} ranks",
                    n_sides=n_sides,
                    count=len(result.ranks),
                ),
                field="ranks",
            )
        for rank in result.ranks:
            if rank < 1:
                raise FamilyError(
                    Message("bga ranks start at 1, got {rank}", rank=rank), field="ranks"
                )
        # Standard competition ranking ("1224"): a rank is 1 + the number of
        # sides ranked strictly better, so a gap or a shared rank with nobody
        # above it (``1,3``, ``2,2``) is a typing error, not a result.
        for side, rank in enumerate(result.ranks, start=1):
            better = sum(1 for other in result.ranks if other < rank)
            if rank != better + 1:
                if better == 0:
                    ahead = "no side ranks"
                elif better == 1:
                    ahead = "1 side ranks"
                else:
                    ahead = f"{better} sides rank"
                raise FamilyError(
                    Message(
                        'bga ranks are competition ranks ("1224": each is 1 + the number of '
                        "sides ranked better): side {side} has rank {rank}, but {ahead} better, "
                        "so its rank is {expected}",
                        side=side,
                        rank=rank,
                        ahead=ahead,
                        expected=better + 1,
                    ),
                    field="ranks",
                )
        if result.quit is not None and not 1 <= result.quit <= n_sides:
            raise FamilyError(
                Message(
                    "bga quit is a side number from 1 to {n_sides}, got {quit}",
                    n_sides=n_sides,
                    quit=result.quit,
                ),
                field="quit",
            )

    def k_factor(self, state: PlayerState) -> float:
        """K before the N/2 multiplier: k_new for fewer than new_games played."""
        return self.params.k_new if state.games < self.params.new_games else self.params.k

    def n_capped(self, n: int) -> int:
        """N capped at the advised number of players (no cap when unset)."""
        advised = self.params.advised_players
        return n if advised is None else min(n, advised)

    def pairwise_expected(self, own: Sequence[PlayerState], other: Sequence[PlayerState]) -> float:
        """P of one virtual game: the side means' difference clamped to
        ±difference_cap, over the divisor (what ``rate`` uses)."""
        own_mean, other_mean = side_means([own, other])
        cap = self.params.difference_cap
        diff = max(-cap, min(cap, other_mean - own_mean))
        return 1 / (1 + 10 ** (diff / self.params.divisor))

    def rate(
        self,
        game: Game,
        states: Sequence[Sequence[PlayerState]],
        explain: bool = False,
    ) -> list[list[Change]]:
        """Each player's change per side, in recorded order.

        N is the number of sides (each side is usually one player; a team side
        is rated on its players' mean rating, each player with their own K).
        When the first quitter's side is a team, every player of that side is
        rated as a quitter.
        """
        result: BgaResult = game.result
        ranks = result.ranks
        n = len(states)
        if len(ranks) != n:
            raise FamilyError(
                Message(
                    "bga game {id}: {n} sides but {count} ranks", id=game.id, n=n, count=len(ranks)
                )
            )
        means = side_means(states)
        n_capped = self.n_capped(n)
        multiplier = n_capped / 2
        cap = self.params.difference_cap
        divisor = self.params.divisor

        changes: list[list[Change]] = []
        for i, side in enumerate(states):
            quitter = result.quit == i + 1
            rated = result.quit is None or quitter
            virtual: list[dict[str, Any]] = []
            for j in range(n):
                if j == i:
                    continue
                raw_diff = means[j] - means[i]
                diff = max(-cap, min(cap, raw_diff))
                if quitter:
                    s = 0.0  # finishes last, below even those tied last
                elif ranks[i] < ranks[j]:
                    s = 1.0
                elif ranks[i] == ranks[j]:
                    s = 0.5
                else:
                    s = 0.0
                p = 1 / (1 + 10 ** (diff / divisor))
                virtual.append(
                    {
                        NC_("explained", "opponent"): j + 1,
                        NC_("explained", "opponent rating"): means[j],
                        NC_("explained", "difference"): raw_diff,
                        NC_("explained", "clamped difference"): diff,
                        NC_("explained", "S"): s,
                        NC_("explained", "P"): p,
                        NC_("explained", "S - P"): s - p,
                    }
                )
            mean_s = sum(v["S"] for v in virtual) / len(virtual)
            mean_p = sum(v["P"] for v in virtual) / len(virtual)
            mean_sp = sum(v["S - P"] for v in virtual) / len(virtual)

            side_changes: list[Change] = []
            for state in side:
                k = self.k_factor(state)
                if not rated:
                    # Nobody but the first quitter is rated; no points at stake.
                    detail = (
                        {
                            NC_("explained", "rated"): False,
                            NC_("explained", "reason"): NOT_RATED,
                            NC_("explained", "quit"): result.quit,
                        }
                        if explain
                        else None
                    )
                    side_changes.append(
                        Change(0, mean_s, mean_p, 0.0, detail, rated=False, note=NOT_RATED)
                    )
                    continue
                unrounded = k * multiplier * mean_sp
                penalty = self.params.quit_penalty if quitter else 0.0
                # One rounding, after the penalty (same as rounding first when
                # the penalty is whole, since a quitter's change is never > 0).
                delta = round_half_away(unrounded - penalty)
                detail = None
                if explain:
                    detail = {
                        NC_("explained", "side"): i + 1,
                        NC_("explained", "rank"): ranks[i],
                        NC_("explained", "rating"): means[i],
                        NC_("explained", "games played"): state.games,
                        NC_("explained", "N"): n,
                        NC_("explained", "advised players"): self.params.advised_players,
                        NC_("explained", "N_capped"): n_capped,
                        NC_("explained", "K"): k,
                        NC_("explained", "multiplier"): multiplier,
                        NC_("explained", "effective K"): k * multiplier,
                        NC_("explained", "virtual games"): [dict(v) for v in virtual],
                        NC_("explained", "mean S"): mean_s,
                        NC_("explained", "mean P"): mean_p,
                        NC_("explained", "mean (S - P)"): mean_sp,
                        NC_("explained", "unrounded"): unrounded,
                    }
                    if quitter:
                        detail[NC_("explained", "quit")] = NC_(
                            "explained", "quit first: rated as last"
                        )
                        detail[NC_("explained", "quit penalty")] = penalty
                    detail[NC_("explained", "change")] = delta
                side_changes.append(Change(delta, mean_s, mean_p, k * multiplier, detail))
            changes.append(side_changes)
        return changes

    def grade(self, state: PlayerState, lang: str = "en") -> str | None:
        """The BGA level: strictly above 1600 Good player, 1800 Expert, 2000
        Master.

        The seed names no level at or below 1600, so that returns None. The
        seed gives the names in English only; ``lang`` is ignored.
        """
        for bound, level in LEVELS:
            if state.rating > bound:
                return level
        return None
