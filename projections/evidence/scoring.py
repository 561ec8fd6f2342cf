"""The predictions a replay puts to the test: every rated game of a window,
turned into comparisons by the family in force at that game
(``Family.comparisons``), with the first-player baseline beside each.

Read from the replay's own history rows: the expected score P and actual
score S of each player, as the family computed them when it rated the game.
No family is named here: a family of one's own is scored the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
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


class _Side(msgspec.Struct, gc=False):
    """One side of a game as its history rows give it, player by player."""

    ratings: list[Any]
    games: list[int]
    s: list[Any]
    p: list[Any]
    rated: bool = True

    def play(self) -> SidePlay:
        """The side as a family's ``comparisons`` reads it."""
        return SidePlay(
            tuple(PlayerState(rating=r, games=g) for r, g in zip(self.ratings, self.games,
                                                                 strict=True)),
            sum(self.s) / len(self.s),
            sum(self.p) / len(self.p),
        )  # fmt: skip


def _games(rows: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, list[_Side]]]:
    """Each rated game's entry position and its sides in order, from
    history rows (``projections.replay.HistoryRow``: short rows for a
    duel, whole rows otherwise; a game's rows are consecutive, by side)."""
    pos, sides, current = -1, [], -1
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
            pos, sides, current = row[1], [], -1
        if side != current:
            one = _Side([], [], [], [])
            sides.append(one)
            current = side
        one.ratings.append(before)
        one.games.append(games)
        one.s.append(s)
        one.p.append(p)
        if not rated:
            one.rated = False
    if sides:
        yield pos, sides


def predictions(
    entries: Sequence[Entry],
    rows: Sequence[tuple[Any, ...]],
    start: date | None = None,
    end: date | None = None,
    load: Callable[[str, Mapping[str, Any]], Family] = load_family,
    width: int | None = None,
) -> Predictions:
    """The comparisons of every game dated from ``start`` to ``end``
    (inclusive; None: no bound) among ``rows``, the history rows of a
    replay of ``entries`` (``Replay.pos`` numbers them from 1), each
    ruleset's family bound by ``load`` as the replay bound it. A game the
    family left unrated for some player (a BGA game someone quit) is not
    scored.

    ``width``: the replay rated that many grid points at once
    (``Family.with_values``), so ``p`` and ``first`` have a column per
    point (a prediction the same for every point fills its row)."""
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
    plain = False  # the family scores two sides with its own P (``Family.comparisons``)
    advantage: Any = None
    at = 0  # entries before ``at`` have been walked for rule changes
    for pos, sides in _games(rows):
        while at < pos:  # the ruleset in force at this game
            entry = entries[at]
            if entry.kind == "ruleset":
                key = msgspec.json.encode([entry.data["family"], entry.data["params"]])
                family = families.get(key)
                if family is None:
                    family = families[key] = load(entry.data["family"], entry.data["params"])
                plain = type(family).comparisons is Family.comparisons
                advantage = family.first_player_expected()
            at += 1
        entry = entries[pos - 1]
        if not low <= entry.date <= high or not all(side.rated for side in sides):
            continue
        assert family is not None
        play = entry.data
        two = len(sides) == 2
        where = f"event {play.event}" if play.event else f"game {entry.id}"
        games += 1
        if plain and two and len(sides[0].p) == 1 and len(sides[1].p) == 1:
            # A duel, most games: what ``Family.comparisons`` gives, no struct built.
            a, b = sides
            p.append(a.p[0])
            outcome.append(family.outcome(a.s[0], b.s[0]))
            first.append(COIN if play.neutral or advantage is None else advantage)
            cluster.append(where)
            any_first = any_first or (advantage is not None and not play.neutral)
            continue
        comparisons: list[Comparison] = family.comparisons([x.play() for x in sides], play.neutral)
        favoured = advantage if two and not play.neutral else None
        any_first = any_first or favoured is not None
        for c in comparisons:
            p.append(c.p)
            outcome.append(c.outcome)
            first.append(favoured if favoured is not None and (c.a, c.b) == (0, 1) else COIN)
            cluster.append(where)
    return Predictions(
        p=_column(p, width),
        outcome=np.asarray(outcome, dtype=np.float64),
        first=_column(first, width),
        cluster=cluster,
        games=games,
        first_player=any_first,
    )


def _column(values: list[Any], width: int | None) -> NDArray[np.float64]:
    """One value per comparison; with ``width``, a row of ``width`` values
    each (a single number repeated along its row)."""
    if width is None:
        return np.asarray(values, dtype=np.float64)
    out = np.empty((len(values), width), dtype=np.float64)
    for i, value in enumerate(values):
        out[i] = value
    return out
