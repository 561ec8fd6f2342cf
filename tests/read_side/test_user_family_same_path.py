"""A user-defined family with no special code gives the same views through
the same path (issue 29: one replay path).

``PlainElo`` below is what a community would write from docs/rules/elo.md
with the public Family API alone (``rate``, ``close_season``,
``initial_rating``, a ``Params`` and a ``Result``): no fast path, no private
helper, nothing of ``EloFamily``. Two ladders get the same games — out of
date order, a team game, a correction, a void, an adjustment, a season close —
one under the built-in ``elo``, one under ``PlainElo`` with the same
parameters, through the CLI as a user types it. Standings (now and as of a
past date), every history line and every ``explain`` value must be
identical, after the incremental catch-ups and again after a rebuild: were
the replay to handle a family without special code differently (another
order, other states, a missed correction), the numbers would part.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
import pytest

from ledger.families.base import (
    Change,
    Family,
    FamilyError,
    Game,
    Outcome,
    PlayerState,
    ResultColumn,
    Season,
    SeasonChange,
)
from tests.conftest import Cli

FAMILY = "tests.read_side.test_user_family_same_path:PlainElo"
PARAMS = ["--set", "k=24", "--set", "home_advantage=30", "--set", "season_regression=0.25"]
PLAYERS = ["Ann", "Ben", "Cid", "Dee", "Eve"]


# -- the user's family -----------------------------------------------------------
class PlainParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    initial: float = 1500
    divisor: float = 400
    k: float = 20
    home_advantage: float = 0
    season_regression: float | None = None


class PlainElo(Family):
    """Elo as docs/rules/elo.md states it: P = 1 / (1 + 10^((opp - own) / divisor)),
    change = K x (S - P), a team side rated by its mean, the first side's
    advantage unless neutral, and a season close moving every rated player
    toward the initial rating by ``season_regression``."""

    name = "plain-elo"
    version = 1
    Params = PlainParams
    Result = Outcome

    @classmethod
    def result_columns(cls, params: Any = None) -> tuple[ResultColumn, ...]:
        return (
            ResultColumn("result", "Who won: a, b or draw.", "a", ("a", "b", "draw"),
                         required=True, kind="code"),
        )  # fmt: skip

    def check_result(self, result: Outcome, n_sides: int) -> None:
        if result.margin is not None:
            raise FamilyError("plain-elo scores no margin", field="margin")

    @property
    def integer_ratings(self) -> bool:
        return False

    def rate(
        self, game: Game, states: Sequence[Sequence[PlayerState]], explain: bool = False
    ) -> list[list[Change]]:
        p = self.params
        score = {"a": (1.0, 0.0), "b": (0.0, 1.0), "draw": (0.5, 0.5)}[game.result.result]
        means = [sum(s.rating for s in side) / len(side) for side in states]
        advantage = 0.0 if game.neutral else p.home_advantage
        out = []
        for side in (0, 1):
            own = means[side] + (advantage if side == 0 else 0.0)
            opp = means[1 - side] + (advantage if side == 1 else 0.0)
            expected = 1.0 / (1.0 + 10.0 ** ((opp - own) / p.divisor))
            delta = p.k * (score[side] - expected)
            detail = (
                {"P": expected, "S": score[side], "K": p.k, "change": delta} if explain else None
            )
            out.append(
                [Change(delta=delta, s=score[side], p=expected, k=p.k, detail=detail)
                 for _ in states[side]]
            )  # fmt: skip
        return out

    def close_season(
        self, season: Season, states: Mapping[str, PlayerState]
    ) -> dict[str, SeasonChange]:
        f = self.params.season_regression
        if f is None:
            return {}
        mean = self.params.initial
        out = {}
        for player, state in states.items():
            delta = (mean * f + state.rating * (1 - f)) - state.rating
            if delta:
                out[player] = SeasonChange(
                    delta, f"season {season.label}: regression toward {mean:g} by {f:g}"
                )
        return out


#: What PlainElo defines: the documented API, nothing else.
PUBLIC_API = {
    "name", "version", "Params", "Result", "result_columns", "check_result",
    "integer_ratings", "rate", "close_season",
}  # fmt: skip


# -- the same games in two ladders -----------------------------------------------
def game_id(output: str) -> str:
    match = re.search(r"Recorded game ([0-9a-f]{8})", output)
    assert match, output
    return match.group(1)


def play(cli: Cli, ladder: str) -> list[str]:
    """Record the games, a correction, a void, an adjustment and a season
    close in ``ladder``; the short ids of its games, in recording order."""
    games = [
        ("2025-01-04", "Ann", "Ben", "a", []),
        ("2025-01-04", "Cid", "Dee", "draw", []),
        ("2025-01-11", "Ann", "Cid", "b", []),
        ("2025-01-11", "Ben;Eve", "Dee;Ann", "a", []),  # a team game
        ("2025-01-18", "Eve", "Ann", "a", ["--neutral"]),
        ("2025-01-25", "Dee", "Ben", "b", []),
        ("2025-01-07", "Eve", "Cid", "a", []),  # recorded late: earlier than the games above
        ("2025-02-01", "Ben", "Cid", "draw", []),
    ]
    ids = [
        game_id(cli.ok("record", ladder, "--date", day, "--side", a, "--side", b,
                       "--result", result, *more))
        for day, a, b, result, more in games
    ]  # fmt: skip
    cli.ok("correct", ids[2], "--result", "a", "--reason", "sheet misread")
    cli.ok("void", ids[5], "--reason", "wrong opponent")
    cli.ok("adjust", ladder, "Eve", "--to", "1580", "--date", "2025-01-05",
           "--reason", "known player")  # fmt: skip
    cli.ok("season", "close", ladder, "2025-01", "--from", "2025-01-01", "--to", "2025-01-31")
    ids.append(game_id(cli.ok("record", ladder, "--date", "2025-02-08", "--side", "Ann",
                              "--side", "Eve", "--result", "b")))  # fmt: skip
    return ids


def views_of(cli: Cli, ladder: str, ids: list[str], as_ids: list[str]) -> dict[str, Any]:
    """Everything a reader sees of ``ladder``: standings now and as of a past
    date, each player's history and the whole ladder's, each game explained;
    its game ids written as ``as_ids`` (the other ladder's), and its own name,
    family and parameters left out."""
    rename = dict(zip(ids, as_ids, strict=True))

    def same_ids(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: same_ids(v) for k, v in value.items() if k not in ("ladder", "family")}
        if isinstance(value, list):
            return [same_ids(v) for v in value]
        return rename.get(value, value) if isinstance(value, str) else value

    explained = {}
    for gid in ids:
        e = cli.json("explain", gid)
        assert e["ladder"] == ladder
        e.pop("params")
        # The values both families give: P, S, K and the change (the rest is each family's own).
        for player in e["players"]:
            player["values"] = {k: player["values"].get(k) for k in ("P", "S", "K", "change")}
        explained[rename[gid]] = same_ids(e)
    return {
        "standings": cli.json("standings", ladder),
        "standings as of": cli.json("standings", ladder, "--as-of", "2025-01-12"),
        "history": {p: same_ids(cli.json("history", ladder, p)) for p in PLAYERS},
        "all history": same_ids(cli.json("history", ladder)),
        "explain": explained,
    }


@pytest.fixture
def two_ladders(cli: Cli) -> tuple[list[str], list[str]]:
    cli.ok("player", "add", *PLAYERS)
    cli.ok("ladder", "open", "Built In", "--family", "elo", *PARAMS)
    cli.ok("ladder", "open", "Users Own", "--family", FAMILY, *PARAMS)
    return play(cli, "Built In"), play(cli, "Users Own")


def test_the_user_family_is_plain(cli: Cli) -> None:
    """No special code: only the documented API, and no fast path offered."""
    assert set(vars(PlainElo)) - {"__module__", "__doc__", "__qualname__"} <= PUBLIC_API | {
        "__firstlineno__", "__static_attributes__", "rules_doc",
    }  # fmt: skip
    family = PlainElo(PlainElo.parse_params({"k": "24"}))
    fast_rater = getattr(family, "fast_rater", None)
    assert fast_rater is None or fast_rater() is None


@pytest.mark.conformance  # on SQLite and PostgreSQL
def test_same_views_as_built_in_elo(cli: Cli, two_ladders: tuple[list[str], list[str]]) -> None:
    built_in, users_own = two_ladders
    expected = views_of(cli, "Built In", built_in, built_in)
    seen = views_of(cli, "Users Own", users_own, built_in)
    # Not trivially equal: ratings moved, every kind of line is there.
    ratings = [r["rating"] for r in expected["standings"]]
    assert len(set(ratings)) == len(PLAYERS) and 1500.0 not in ratings
    kinds = {line["kind"] for lines in expected["history"].values() for line in lines}
    assert {"game", "adjust", "season"} <= kinds, kinds
    assert expected["standings as of"] != expected["standings"]
    for view in expected:
        assert seen[view] == expected[view], view
    # A rebuild (the whole ladder replayed at once) gives the same again.
    cli.ok("rebuild")
    assert views_of(cli, "Users Own", users_own, built_in) == expected
    assert views_of(cli, "Built In", built_in, built_in) == expected
