"""What an import learned from the rows it checked in full, by cell text.

A result sheet says the same things again and again: one ladder, a few
thousand dates, a thousand players' names, a handful of results. The importer
checks a row in full (``ledger.sheets.importer``) the first time one of its cells is
new; once every cell of a row has been read before in a row that passed, the
row is read from what those cells were read as, with no check made again.

Each memo maps a cell's text, exactly as the sheet holds it, to what the full
check made of it, and only what depends on that text alone:

- the ladder cell: the ladder (a blank cell: the ladder given to the import);
- the date cell, per ladder: the date, the family in force on it (the date
  is not in the future: checked in full once);
- each side cell: its players' ids;
- the event, round and table cells: their values (a reference cell, one
  game's own, is read in every row: ``game_input.parse_reference``);
- for a built-in family (``game_input.GameChecks``: its verdict reads a
  game's shape and result only), the ``neutral``, result and attribute cells
  together with the number of players on each side: the normalised result,
  whether the game is neutral and its attributes.

What a row combines (two sides that share a player, the order of play, the
game's identity) is still checked row by row by the importer. A row is
learnt once its event is kept, and so read back as written (the store's
guard; or once nothing will be stored: a dry run, or an import that already
failed), so an event made only of learnt values reads back too and is kept
without that guard. Each memo is forgotten past ``LIMIT`` entries: memory
stays bounded whatever the sheet.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from datetime import date
from operator import itemgetter
from typing import Any
from uuid import UUID

from ledger.families.base import Family
from ledger.kernel import events as ev
from ledger.kernel.errors import Invalid
from ledger.write.game_input import parse_reference
from ledger.write.state import LadderState

#: A side cell with nothing in it (the side is left out of the game).
BLANK: tuple[()] = ()


class Side:
    """What a side cell reads as: its players, and their ids as numbers (to
    find a player on two sides)."""

    __slots__ = ("ids", "numbers")

    def __init__(self, ids: list[UUID]) -> None:
        self.ids = ids
        self.numbers = frozenset(p.int for p in ids)


class Dated:
    """A ladder on one date: the family in force, and whether its verdict
    reads a game's shape and result only."""

    __slots__ = ("family", "on", "pure")

    def __init__(self, on: date, family: Family, pure: bool) -> None:
        self.on = on
        self.family = family
        self.pure = pure


#: A row read from memory: (ladder, date, sides, result, neutral,
#: attributes, event, round, table, reference).
Known = tuple[
    LadderState, date, list[Side], dict[str, Any], bool, dict[str, float], Any, Any, Any, Any
]


class CellMemo:
    """The memos of one import (see the module's docstring)."""

    LIMIT = 100_000

    def __init__(
        self,
        columns: Sequence[str],
        sides: Sequence[str],
        outcome: Sequence[str],
        default_ladder: str | None,
        pure: Container[type],
    ) -> None:
        """``sides``: the side columns present, in order; ``outcome``: the
        neutral, result and attribute columns present; ``pure``: the family
        classes whose verdict reads a game's shape and result only."""
        at = {c: n for n, c in enumerate(columns)}
        self.width = len(columns)
        self._ladder = at.get("ladder")
        self._date = at["date"]
        self._sides = tuple(at[c] for c in sides)
        self._event, self._round, self._table = at.get("event"), at.get("round"), at.get("table")
        self._reference = at.get("reference")
        outcome_at = [at[c] for c in outcome]
        self._outcome = itemgetter(*outcome_at) if outcome_at else _nothing
        self._quit = at.get("quit") if "quit" in outcome else None
        self._default = default_ladder
        self._pure = pure
        self.ladders: dict[Any, tuple[LadderState, dict[Any, Dated]]] = {}
        self.sides: dict[Any, Side | tuple[()]] = {}
        self.events: dict[Any, str | None] = {}
        self.rounds: dict[Any, int | None] = {}
        self.tables: dict[Any, int | None] = {}
        # (family id, players per side, outcome cells) -> (result, neutral,
        # attributes, family: kept so its id is not reused while remembered)
        self.outcomes: dict[
            tuple[Any, ...], tuple[dict[str, Any], bool, dict[str, float], Any]
        ] = {}

    def cells(self, cells: list[Any]) -> list[Any]:
        """A row's cells, as many as the columns (a short row's missing
        cells read as absent, as its dict's ``get`` gives them)."""
        short = self.width - len(cells)
        return cells + [None] * short if short > 0 else cells

    def known(self, cells: list[Any]) -> Known | None:
        """The row read from memory, or None when a cell is new (the row is
        then checked in full, and ``learn`` is told what it gave)."""
        ladder = self.ladders.get(None if self._ladder is None else cells[self._ladder])
        if ladder is None:
            return None
        state, dates = ladder
        dated = dates.get(cells[self._date])
        if dated is None or not dated.pure:
            return None
        memo = self.sides
        sides = []
        for n in self._sides:
            side = memo.get(cells[n])
            if side is None:
                return None
            if side is not BLANK:
                sides.append(side)
        if len(sides) == 2:
            if not sides[0].numbers.isdisjoint(sides[1].numbers):
                return None  # a player on both sides: said in full
            shape: tuple[int, ...] = (len(sides[0].ids), len(sides[1].ids))
        else:
            shape = tuple(len(s.ids) for s in sides)
            if len(sides) < 2 or len(frozenset().union(*(s.numbers for s in sides))) != sum(shape):
                return None
        outcome = self.outcomes.get((id(dated.family), shape, self._outcome(cells)))
        if outcome is None:
            return None
        e, r, t = self._event, self._round, self._table
        event = self.events.get(None if e is None else cells[e], _MISSING)
        round_ = self.rounds.get(None if r is None else cells[r], _MISSING)
        table = self.tables.get(None if t is None else cells[t], _MISSING)
        if event is _MISSING or round_ is _MISSING or table is _MISSING:
            return None
        reference = None
        if self._reference is not None and cells[self._reference]:
            try:
                reference = parse_reference(cells[self._reference])
            except Invalid:
                return None  # said in full
        return (
            state, dated.on, sides, outcome[0], outcome[1], outcome[2], event, round_, table,
            reference,
        )  # fmt: skip

    def learn(
        self, cells: list[Any], state: LadderState, facts: ev.GameFacts, family: Family
    ) -> None:
        """Remember what a row checked in full gave (``facts``, before its
        order of play; ``family``: the one in force on its date)."""
        ladder_cell = None if self._ladder is None else cells[self._ladder]
        entry = self.ladders.get(ladder_cell)
        if entry is None or entry[0] is not state:
            entry = _put(self.ladders, ladder_cell, (state, {}))
        dates = entry[1]
        dated = dates.get(cells[self._date])
        if dated is None or dated.family is not family:
            pure = type(family) in self._pure
            dated = _put(dates, cells[self._date], Dated(facts.date, family, pure))
        # The side cells that named players are the game's sides, in order.
        named = iter(facts.sides)
        for n in self._sides:
            cell = cells[n]
            if cell and cell.strip():
                ids = next(named)
                if cell not in self.sides:
                    _put(self.sides, cell, Side(list(ids)))  # not the event's own list
            elif cell not in self.sides:
                _put(self.sides, cell, BLANK)
        for memo, at, value in (
            (self.events, self._event, facts.event),
            (self.rounds, self._round, facts.round),
            (self.tables, self._table, facts.table),
        ):
            cell = None if at is None else cells[at]
            if cell not in memo:
                _put(memo, cell, value)
        quit_cell = None if self._quit is None else cells[self._quit]
        if dated.pure and not (quit_cell and quit_cell.strip()):
            # A quitter named in the sheet is read against the game's players:
            # such a result is not the cells' alone.
            shape = tuple(len(side) for side in facts.sides)
            key = (id(family), shape, self._outcome(cells))
            result = {k: list(v) if isinstance(v, list) else v for k, v in facts.result.items()}
            _put(self.outcomes, key, (result, facts.neutral, dict(facts.attributes), family))


def _nothing(cells: list[Any]) -> tuple[()]:
    return ()


#: A cell not in a memo (None is a value: a blank round).
_MISSING: Any = object()


def _put(memo: dict[Any, Any], key: Any, value: Any) -> Any:
    """Remember ``value`` under ``key``, forgetting everything past the limit."""
    if len(memo) >= CellMemo.LIMIT:
        memo.clear()
    memo[key] = value
    return value
