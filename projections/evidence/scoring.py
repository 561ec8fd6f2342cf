"""The predictions a replay puts to the test: every rated game of a window,
turned into comparisons by the family in force at that game
(``Family.comparisons``), with the first-player baseline beside each.

Read from the replay's own history rows: the expected score P and actual
score S of each player, as the family computed them when it rated the game.
No family is named here: a family of one's own is scored the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date
from typing import Any

import msgspec
import numpy as np
from numpy.typing import NDArray

from ledger.families.base import Comparison, Family, PlayerState, SidePlay
from ledger.families.registry import load_family
from projections.replay import Entry

#: The baseline that knows nothing: every side as likely to do better as not.
COIN = 0.5


class Predictions(msgspec.Struct):
    """Comparisons of the games scored, one array element each: the
    rules' prediction ``p``, the ``outcome``, the first-player baseline's
    prediction ``first`` (½ when it says nothing) and the ``cluster`` a
    comparison belongs to (its real-world event, else its game), which the
    bootstrap resamples. ``games`` counts the games scored;
    ``first_player`` says whether the rules give a first-player advantage
    anywhere in the window."""

    p: NDArray[np.float64]
    outcome: NDArray[np.float64]
    first: NDArray[np.float64]
    cluster: list[str]
    games: int
    first_player: bool


class _Side(msgspec.Struct):
    states: list[PlayerState]
    s: list[float]
    p: list[float]
    rated: bool = True


def _games(rows: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, dict[int, _Side]]]:
    """Each rated game's entry position and its sides, from history rows
    (``projections.replay.HistoryRow``: short rows for a duel, whole rows
    otherwise; a game's rows are consecutive)."""
    pos, sides = -1, {}
    for row in rows:
        if len(row) == 11:  # short: a rated game, side = seat
            side, s, p, before, games, rated = row[2], row[5], row[6], row[8], row[10], True
        elif row[5] == "game":
            side, s, p, before, games = row[6], row[7], row[8], row[10], row[13]
            rated = row[14] > row[13]
        else:  # an adjustment or a season close: no prediction
            continue
        if row[1] != pos:
            if sides:
                yield pos, sides
            pos, sides = row[1], {}
        one = sides.get(side)
        if one is None:
            one = sides[side] = _Side([], [], [])
        one.states.append(PlayerState(rating=before, games=games))
        one.s.append(s)
        one.p.append(p)
        one.rated = one.rated and rated
    if sides:
        yield pos, sides


def predictions(
    entries: Sequence[Entry],
    rows: Sequence[tuple[Any, ...]],
    start: date | None = None,
    end: date | None = None,
) -> Predictions:
    """The comparisons of every game dated from ``start`` to ``end``
    (inclusive; None: no bound) among ``rows``, the history rows of a
    replay of ``entries`` (``Replay.pos`` numbers them from 1). A game the
    family left unrated for some player (a BGA game someone quit) is not
    scored."""
    low = start.isoformat() if start else ""
    high = end.isoformat() if end else "9999"
    p: list[float] = []
    outcome: list[float] = []
    first: list[float] = []
    cluster: list[str] = []
    games = 0
    any_first = False
    families: dict[bytes, Family] = {}
    family: Family | None = None
    at = 0  # entries before ``at`` have been walked for rule changes
    for pos, sides in _games(rows):
        while at < pos:  # the ruleset in force at this game
            entry = entries[at]
            if entry.kind == "ruleset":
                key = msgspec.json.encode([entry.data["family"], entry.data["params"]])
                family = families.get(key)
                if family is None:
                    family = families[key] = load_family(entry.data["family"], entry.data["params"])
            at += 1
        entry = entries[pos - 1]
        if not low <= entry.date <= high or not all(side.rated for side in sides.values()):
            continue
        assert family is not None
        play = entry.data
        plays = [
            SidePlay(tuple(side.states), sum(side.s) / len(side.s), sum(side.p) / len(side.p))
            for _, side in sorted(sides.items())
        ]
        comparisons: list[Comparison] = family.comparisons(plays, play.neutral)
        advantage = None if play.neutral or len(plays) != 2 else family.first_player_expected()
        any_first = any_first or family.first_player_expected() is not None
        where = f"event {play.event}" if play.event else f"game {entry.id}"
        games += 1
        for c in comparisons:
            p.append(c.p)
            outcome.append(c.outcome)
            first.append(advantage if advantage is not None and (c.a, c.b) == (0, 1) else COIN)
            cluster.append(where)
    return Predictions(
        p=np.asarray(p, dtype=np.float64),
        outcome=np.asarray(outcome, dtype=np.float64),
        first=np.asarray(first, dtype=np.float64),
        cluster=cluster,
        games=games,
        first_player=any_first,
    )
