"""A game's facts as the views keep them: compactly.

The event store holds every game's facts with ids (a few hundred bytes); a
game's row (``views.games``) keeps only what its other columns do not (the ladder, the
date, which is its key's, the event and the round are columns), players by
the views' number, and fields left at their default omitted. The audit keeps
a game's facts as an event left them the same way, with the date, event and
round (``whole``). Readers turn them back into the stored shape
(``stored``): the facts as ``ledger.kernel.events.GameFacts`` has them, ids and all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from projections.views import source


class KeptFacts(msgspec.Struct, omit_defaults=True, gc=False):
    """A game's facts in the views (``date``, ``event``, ``round``: only in
    the audit's copies)."""

    sides: list[list[int]]
    result: dict[str, Any]
    table: int | None = None
    sequence: int | None = None
    neutral: bool = False
    attributes: dict[str, float] = {}
    date: str | None = None
    event: str | None = None
    round: int | None = None


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(KeptFacts).decode


def keep(facts: source.Facts, sides: list[list[int]], whole: bool = False) -> str:
    """The views' text of a game's facts, its ``sides`` by number (``whole``:
    with date, event, round)."""
    kept = KeptFacts(
        sides,
        facts.result,
        facts.table,
        facts.sequence,
        facts.neutral,
        facts.attributes,
    )
    if whole:
        kept.date, kept.event, kept.round = facts.date, facts.event, facts.round
    return _encode(kept).decode()


#: The text of each result of one code (``{"result": code}``), as encoded.
_result_texts: dict[str, str] = {}


def keep_duel(facts: source.Facts, a: int, b: int) -> str:
    """``keep`` of a game of player ``a`` against ``b``: the same text,
    written without building a struct for most games (a result of one
    code, neither neutral nor with attributes)."""
    result = facts.result
    code = result.get("result") if len(result) == 1 else None
    if type(code) is not str or facts.neutral or facts.attributes:
        return keep(facts, [[a], [b]])
    text = _result_texts.get(code)
    if text is None:
        text = _result_texts[code] = _encode(result).decode()
    table, sequence = facts.table, facts.sequence
    if table is not None and sequence is not None:
        return f'{{"sides":[[{a}],[{b}]],"result":{text},"table":{table},"sequence":{sequence}}}'
    if table is None and sequence is None:
        return f'{{"sides":[[{a}],[{b}]],"result":{text}}}'
    return keep(facts, [[a], [b]])


def read(text: str | bytes) -> KeptFacts:
    return _decode(text)


def whole(text: str | bytes, key: str, event: str | None, round_: int | None) -> str:
    """A game row's facts with the date (its key's), event and round."""
    kept = read(text)
    kept.date, kept.event, kept.round = key[:10], event, round_
    return _encode(kept).decode()


def stored(
    kept: KeptFacts,
    ladder: str,
    ids: Mapping[int, str],
    date: str | None = None,
    event: str | None = None,
    round_: int | None = None,
) -> dict[str, Any]:
    """The facts in their stored shape (``GameFacts`` as plain data);
    ``date``, ``event`` and ``round_`` from the game's row unless kept."""
    return {
        "ladder": ladder,
        "date": kept.date if kept.date is not None else date,
        "sides": [[ids[n] for n in side] for side in kept.sides],
        "result": kept.result,
        "event": kept.event if kept.date is not None else event,
        "round": kept.round if kept.date is not None else round_,
        "table": kept.table,
        "neutral": kept.neutral,
        "attributes": kept.attributes,
        "sequence": kept.sequence,
    }
