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
from projections.replay import Duel, Entry, duel_event

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


class Scorer:
    """Turns a replay's history rows into predictions as they come
    (``Replay.run``'s ``write``): the comparisons of every game dated from
    ``start`` to ``end`` (inclusive; None: no bound), the rows those of a
    replay of ``entries`` (``Replay.pos`` numbers them from 1), each
    ruleset's family bound by ``load`` as the replay bound it. A game the
    family left unrated for some player (a BGA game someone quit) is not
    scored.

    ``width``: the replay rated that many grid points at once
    (``Family.with_values``), so ``p`` and ``first`` have a column per
    point (a prediction the same for every point fills its row)."""

    def __init__(
        self,
        entries: Sequence[Entry | Duel],
        start: date | None = None,
        end: date | None = None,
        load: Callable[[str, Mapping[str, Any]], Family] = load_family,
        width: int | None = None,
    ) -> None:
        self.entries = entries
        self.low = start.isoformat() if start else ""
        self.high = end.isoformat() if end else "9999"
        self.load = load
        self.width = width
        self.p: list[Any] = []
        self.outcome: list[float] = []
        self.first: list[Any] = []
        self.cluster: list[str] = []
        self.games = 0
        self.any_first = False
        self._families: dict[bytes, Family] = {}
        self._family: Family | None = None
        # The family scores two sides with its own P (``Family.comparisons``).
        self._plain = False
        self._advantage: Any = None
        self._at = 0  # entries before ``_at`` have been walked for rule changes

    def _walk_to(self, pos: int) -> None:
        """Bind the ruleset in force at the entry at ``pos``."""
        entries = self.entries
        while self._at < pos:
            entry = entries[self._at]
            if entry.kind == "ruleset":
                key = msgspec.json.encode([entry.data["family"], entry.data["params"]])
                family = self._families.get(key)
                if family is None:
                    family = self._families[key] = self.load(
                        entry.data["family"], entry.data["params"]
                    )
                self._family = family
                self._plain = type(family).comparisons is Family.comparisons
                self._advantage = family.first_player_expected()
            self._at += 1

    def feed(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Score the games of the next rows (whole entries)."""
        p, outcome, first, cluster = self.p, self.outcome, self.first, self.cluster
        low, high = self.low, self.high
        for pos, sides in _games(rows):
            self._walk_to(pos)
            entry = self.entries[pos - 1]
            if not low <= entry.date <= high or not all(side.rated for side in sides):
                continue
            family, advantage = self._family, self._advantage
            assert family is not None
            if type(entry) is Duel:  # (its facts read without a ``Play`` built)
                event, neutral = duel_event(entry), False
            else:
                event, neutral = entry.data.event, entry.data.neutral
            two = len(sides) == 2
            where = f"event {event}" if event else f"game {entry.id}"
            self.games += 1
            if self._plain and two and len(sides[0].p) == 1 and len(sides[1].p) == 1:
                # A duel, most games: what ``Family.comparisons`` gives, no struct built.
                a, b = sides
                p.append(a.p[0])
                outcome.append(family.outcome(a.s[0], b.s[0]))
                first.append(COIN if neutral or advantage is None else advantage)
                cluster.append(where)
                self.any_first = self.any_first or (advantage is not None and not neutral)
                continue
            plays = [x.play() for x in sides]
            comparisons: list[Comparison] = family.comparisons(plays, neutral)
            favoured = advantage if two and not neutral else None
            self.any_first = self.any_first or favoured is not None
            for c in comparisons:
                p.append(c.p)
                outcome.append(c.outcome)
                first.append(favoured if favoured is not None and (c.a, c.b) == (0, 1) else COIN)
                cluster.append(where)

    def result(self) -> Predictions:
        """The predictions of every game fed."""
        return Predictions(
            p=_column(self.p, self.width),
            outcome=np.asarray(self.outcome, dtype=np.float64),
            first=_column(self.first, self.width),
            cluster=self.cluster,
            games=self.games,
            first_player=self.any_first,
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
