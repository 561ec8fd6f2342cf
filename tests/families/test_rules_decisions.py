"""The decisions of docs/rules/ shared by the Elo-based families (team sides and the
opponent's rating, season-change rounding, who a season close applies to,
penalty brackets), tested through the pure family functions."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from ledger.families.adlg import AdlgFamily
from ledger.families.base import Game, Outcome, PlayerState, Season
from ledger.families.battle_empire import BattleEmpireFamily
from ledger.families.elo import EloFamily
from ledger.families.registry import BUILT_IN

SEASON = Season(label="2025", start=date(2025, 1, 1), end=date(2025, 12, 31))
BEFORE = date(2024, 3, 1)


def elo(**params: Any) -> EloFamily:
    return EloFamily(EloFamily.parse_params(params))


def team_game(margin: str | None = None) -> Game:
    return Game(
        id="g",
        date=date(2025, 3, 1),
        sides=(("strong", "weak"), ("x", "y")),
        result=Outcome(result="a", margin=margin),
    )


def team_deltas(
    family: Any, strong: PlayerState, weak: PlayerState, other: PlayerState, margin=None
):
    changes = family.rate(team_game(margin), [[strong, weak], [other, other]])
    return [[c.delta for c in side] for side in changes]


# -- a. team sides: the player's own rating against the opposing side's mean -------
# Decided (docs/rules/): "A rule about "the opponent's rating" (the 500-point rule, a gain
# cap) compares the player's own rating with the opposing side's mean.
# Decision: in a 2-vs-2 game, Strong 1600 with Weak 1000 against two players
# at 1000, Strong is 600 above the opposing mean: under `fr` Strong gains
# nothing from a win, Weak gains as usual."


def test_battle_empire_fr_strong_gains_nothing_weak_gains_as_usual() -> None:
    fr = BattleEmpireFamily(BattleEmpireFamily.parse_params({}))
    en = BattleEmpireFamily(BattleEmpireFamily.parse_params({"variant": "en"}))
    strong, weak = PlayerState(1600, games=20), PlayerState(1000, games=20)
    other = PlayerState(1000, games=20)
    # Side means 1300 and 1000: P(A) = 1 / (1 + 10^(-300/500)) = 0.799 -> 0.80.
    # Strong: K 30 (Marshal), 30 x 0.2 = 6; Weak: K 60, 60 x 0.2 = 12.
    assert team_deltas(fr, strong, weak, other, "marginal") == [[0, 12], [-12, -12]]
    assert team_deltas(en, strong, weak, other, "marginal") == [[6, 12], [-12, -12]]


def test_adlg_more_than_500_rule_uses_own_rating_against_opposing_mean() -> None:
    adlg = AdlgFamily(AdlgFamily.parse_params({}))
    # 40 rounds each: Strong K 15 (1400+), the others K 30. P(A) = 0.79924
    # (not rounded). Strong: 15 x 0.20076 = 3.01, but 600 > 500 above the
    # opposing mean: 0. (The side means differ by only 300.) Weak: 6.02 -> 6.
    strong, weak = PlayerState(1600, games=40), PlayerState(1000, games=40)
    other = PlayerState(1000, games=40)
    assert team_deltas(adlg, strong, weak, other) == [[0, 6], [-6, -6]]


def test_elo_gain_cap_uses_own_rating_against_opposing_mean() -> None:
    capped = elo(gain_cap=500, rounding="half-away", integer=True)
    free = elo(rounding="half-away", integer=True)
    strong, weak, other = PlayerState(1600), PlayerState(1000), PlayerState(1000)
    # P(A) = 1 / (1 + 10^(-300/400)) = 0.849; 20 x 0.151 = 3.02 -> 3.
    assert team_deltas(free, strong, weak, other) == [[3, 3], [-3, -3]]
    assert team_deltas(capped, strong, weak, other) == [[0, 3], [-3, -3]]


def test_a_capped_player_still_loses() -> None:
    fam = elo(gain_cap=500, rounding="half-away", integer=True)
    changes = fam.rate(
        Game(
            id="g",
            date=date(2025, 3, 1),
            sides=(("strong", "weak"), ("x", "y")),
            result=Outcome(result="b"),
        ),
        [[PlayerState(1600), PlayerState(1000)], [PlayerState(1000), PlayerState(1000)]],
    )
    # 20 x (0 - 0.849) = -16.98 -> -17 for both players of the losing side.
    assert [c.delta for c in changes[0]] == [-17, -17]


# -- b. a season change is rounded with the ladder's change rounding --------------
# Decided (docs/rules/): "a season change (penalty or regression) is rounded with the
# ladder's change rounding, like a game's change (no rounding on a fractional
# ladder; `truncate` turns a regression of −2.5 into −2)."


def idle(rating: float, rated_since: date = BEFORE) -> PlayerState:
    return PlayerState(rating, games=10, last_played=None, rated_since=rated_since)


@pytest.mark.parametrize(
    ("params", "delta"),
    [
        ({"integer": True, "rounding": "truncate"}, -2),
        ({"integer": True, "rounding": "half-away"}, -3),
        ({}, -2.5),  # fractional: not rounded
    ],
)
def test_a_regression_is_rounded_like_a_game_change(params: dict[str, Any], delta: float) -> None:
    # 1500 x 0.5 + 1505 x 0.5 = 1502.5: a change of -2.5.
    fam = elo(season_regression=0.5, **params)
    assert fam.close_season(SEASON, {"p": idle(1505)})["p"].delta == delta


@pytest.mark.parametrize(
    ("params", "delta"),
    [
        ({"integer": True, "rounding": "truncate"}, -2),
        ({"integer": True, "rounding": "floor"}, -3),
        ({}, -2.5),
    ],
)
def test_a_penalty_is_rounded_like_a_game_change(params: dict[str, Any], delta: float) -> None:
    fam = elo(season_penalties=[{"above": 1000, "penalty": 2.5}], **params)
    assert fam.close_season(SEASON, {"p": idle(1200)})["p"].delta == delta


# -- c. who a season close applies to ---------------------------------------------
# Decided (docs/rules/): ""already had a rating when that year began" is Battle Empire's
# condition alone; for AdlG and `elo` a rating held at the end date counts,
# including one set by an adjustment."

#: A player given a rating by an adjustment in June who played no game since.
ADJUSTED = idle(1400, rated_since=date(2025, 6, 1))


def test_adlg_penalises_a_rating_set_by_an_adjustment_in_the_season() -> None:
    adlg = AdlgFamily(AdlgFamily.parse_params({}))
    assert adlg.close_season(SEASON, {"p": ADJUSTED})["p"].delta == -100


def test_elo_penalises_a_rating_set_by_an_adjustment_in_the_season() -> None:
    fam = elo(season_penalties=[{"above": 1300, "penalty": 40}])
    assert fam.close_season(SEASON, {"p": ADJUSTED})["p"].delta == -40


def test_battle_empire_spares_a_rating_given_during_the_year() -> None:
    be = BattleEmpireFamily(BattleEmpireFamily.parse_params({}))
    changes = be.close_season(SEASON, {"new": ADJUSTED, "old": idle(1400)})
    assert {p: c.delta for p, c in changes.items()} == {"old": -100}


# -- d. the highest bracket exceeded applies, whatever the order ----------------------
# Decided (docs/rules/): "Of several penalty brackets, the one with the highest threshold
# that the rating exceeds applies, whatever the order they were listed in."


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(
    ("rating", "delta"), [(1400, -100), (1301, -100), (1300, -50), (1100, None)]
)
def test_the_highest_bracket_exceeded_applies(
    reverse: bool, rating: float, delta: float | None
) -> None:
    brackets = [{"above": 1100, "penalty": 50}, {"above": 1300, "penalty": 100}]
    fam = elo(season_penalties=brackets[::-1] if reverse else brackets)
    change = fam.close_season(SEASON, {"p": idle(rating)}).get("p")
    assert (change and change.delta) == delta


# -- versions -----------------------------------------------------------------------


def test_every_built_in_family_declares_the_version_of_its_maths() -> None:
    for cls in BUILT_IN.values():
        assert "version" in vars(cls), cls.name
        assert isinstance(cls.version, int) and cls.version >= 1
    # The decisions above changed the maths of the Elo-based families only.
    assert {name: cls.version for name, cls in BUILT_IN.items()} == {
        "elo": 2,
        "battle-empire": 2,
        "adlg": 2,
        "battletech": 1,
        "bga": 1,
        "glicko2": 1,
        "weng-lin": 1,
    }
