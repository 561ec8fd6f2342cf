"""The replay's fast path (``Family.fast_rater``) gives exactly what
``Family.rate`` gives, on random games, states and parameters; families that
override the maths, and families without one, go through ``rate``; and a
replay through the fast path writes the same rows as one without."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.families.adlg import AdlgFamily
from ledger.families.base import Change, Family, Game, PlayerState
from ledger.families.battle_empire import BattleEmpireFamily
from ledger.families.battletech import BattleTechFamily
from ledger.families.bga import BgaFamily
from ledger.families.elo import EloFamily
from projections.replay import Entry, Replay
from projections.views.history import whole_row
from projections.views.source import Facts
from tests.example_family import PointsShareElo
from tests.fragile_family import FragileElo

ratings = st.floats(min_value=0, max_value=3000, allow_nan=False) | st.integers(500, 2500)
states = st.builds(PlayerState, rating=ratings, games=st.integers(0, 60))
roundings = st.sampled_from(["none", "half-up", "half-away", "truncate", "floor"])


@st.composite
def elo_params(draw: st.DrawFn) -> dict[str, Any]:
    rounding = draw(roundings)
    return {
        "initial": draw(st.sampled_from([1000, 1500])),
        "divisor": draw(st.sampled_from([400, 500, 173.7])),
        "k": draw(st.sampled_from([10, 20, 24, 32.5])),
        "k_rules": draw(
            st.sampled_from(
                [
                    [],
                    [{"k": 40, "games_below": 30}, {"k": 10, "rating_at_least": 2400}],
                    [{"k": 50, "games_below": 10}, {"k": 15, "rating_at_least": 1400}],
                ]
            )
        ),  # fmt: skip
        "scores": {"win": 1, "big": 1.5, "draw": 0.5, "loss": 0},
        "probability_places": draw(st.sampled_from([None, 2, 3])),
        "rounding": rounding,
        "integer": rounding != "none" and draw(st.booleans()),
        "difference_cap": draw(st.sampled_from([None, 350, 400])),
        "gain_cap": draw(st.sampled_from([None, 500, 100])),
        "gain_cap_strict": draw(st.booleans()),
        "team": draw(st.sampled_from(["mean", "sum"])),
        "home_advantage": draw(st.sampled_from([0, 35, 100.5])),
    }


families = st.one_of(
    elo_params().map(lambda p: EloFamily(EloFamily.parse_params(p))),
    st.sampled_from(["fr", "en"]).map(
        lambda v: BattleEmpireFamily(BattleEmpireFamily.parse_params({"variant": v}))
    ),
    st.just(AdlgFamily(AdlgFamily.parse_params({}))),
)


def results_for(family: Family) -> st.SearchStrategy[dict[str, Any]]:
    margins = [m for m in family.elo.scores if m not in ("draw", "loss")]  # type: ignore[attr-defined]
    return st.one_of(
        st.just({"result": "draw"}),
        st.builds(lambda r, m: {"result": r, **({"margin": m} if m else {})},
                  st.sampled_from(["a", "b"]), st.sampled_from([None, *margins])),
    )  # fmt: skip


def slow(
    family: Family, result: dict[str, Any], sides: list[list[PlayerState]], neutral: bool
) -> Any:
    game = Game(
        id="g",
        date=date(2025, 1, 1),
        sides=tuple(tuple(f"p{i}{j}" for j in range(len(s))) for i, s in enumerate(sides)),
        result=family.load_result(result),
        neutral=neutral,
    )
    changes: list[list[Change]] = family.rate(game, sides)
    return [[(c.delta, c.s, c.p, c.k) for c in side] for side in changes]


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_the_fast_path_rates_as_rate_does(data: st.DataObject) -> None:
    family = data.draw(families, label="family")
    fast = family.fast_rater()
    assert fast is not None
    result = data.draw(results_for(family), label="result")
    sides = data.draw(st.lists(st.lists(states, min_size=1, max_size=3), min_size=2, max_size=2))
    neutral = data.draw(st.booleans())
    try:
        expected = slow(family, result, sides, neutral)
    except Exception:  # noqa: BLE001 - rate() refuses it: the fast path leaves it to rate()
        assert fast.rate(result, sides, neutral, {}) is None
        return
    assert fast.rate(result, sides, neutral, {}) == expected
    if len(sides[0]) == len(sides[1]) == 1:
        (a,), (b,) = expected
        assert fast.duel(result, sides[0][0], sides[1][0], neutral) == (*a, *b)


def test_what_the_fast_path_cannot_read_goes_through_rate() -> None:
    fast = EloFamily(EloFamily.parse_params({})).fast_rater()
    assert fast is not None
    one, two = PlayerState(1500), PlayerState(1400)
    for result in ({"result": "x"}, {"result": "a", "margin": "huge"}, {"result": "a", "by": 2},
                   {"result": ["a"]}):  # fmt: skip
        assert fast.rate(result, [[one], [two]], False, {}) is None
        assert fast.duel(result, one, two, False) is None


def test_families_that_change_the_maths_have_no_fast_path() -> None:
    class Capped(EloFamily):
        def k_factor(self, state: PlayerState) -> float:
            return 1.0

    params = EloFamily.parse_params({})
    assert Capped(params).fast_rater() is None
    assert FragileElo(FragileElo.parse_params({})).fast_rater() is None
    assert PointsShareElo(PointsShareElo.parse_params({})).fast_rater() is None
    assert BgaFamily(BgaFamily.parse_params({})).fast_rater() is None
    assert BattleTechFamily(BattleTechFamily.parse_params({})).fast_rater() is None


@pytest.mark.parametrize("name", ["elo", "battle-empire", "adlg"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_a_replay_through_the_fast_path_writes_what_rate_does(
    name: str, data: st.DataObject
) -> None:
    players = [f"p{i}" for i in range(6)]
    ruleset = Entry("0", "ruleset", 1, "r", "0001-01-01", {"family": name, "params": {}})
    games = []
    for i in range(data.draw(st.integers(1, 40), label="games")):
        size = data.draw(st.sampled_from([1, 1, 2]))
        picked = data.draw(st.permutations(players))[: 2 * size]
        event = data.draw(st.sampled_from([None, "E1", "E2"]))
        result = data.draw(st.sampled_from([{"result": "a"}, {"result": "b"}, {"result": "draw"}]))
        if name == "battle-empire" and result["result"] != "draw":
            result = {**result, "margin": "decisive"}
        facts = Facts("l", f"2025-01-{1 + i // 10:02d}", [picked[:size], picked[size:]], result,
                      event, 1, i)  # fmt: skip
        games.append(Entry(f"1-{i:04d}", "game", 10 + i, f"g{i}", facts.date, facts))
    entries = [ruleset, *games]
    numbers = {p: i for i, p in enumerate(players)}

    def replay() -> tuple[list[Any], dict[str, PlayerState]]:
        ends = {g.data.event: g.key for g in games if g.data.event}
        run = Replay({}, None, {}, ends, numbers, 1, 0)
        rows: list[Any] = []
        run.run(entries, rows.extend)
        return [whole_row(row) for row in rows], run.states

    fast = replay()
    assert any(row[5] == "game" for row in fast[0])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(EloFamily, "fast_rater", lambda self: None)
        assert replay() == fast
