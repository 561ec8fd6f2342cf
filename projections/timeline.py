"""The effective order: when each fact takes effect in a ladder.

Effective order is (date, kind rank, event, round, sequence, id): ruleset
changes open a day, adjustments follow, then games, and season closes end
it. A game's sequence is its order of play within (date, event, round), a
fact recorded with the game (docs/rules/README.md, "When each fact takes effect"); games recorded
before sequences existed fall back to their table number. The id only breaks
ties between such old games. The recording time and the store's
notification ids never decide the order, so the same facts recorded in any
order replay identically. The key is a string that sorts in that order, so a
view can index and compare it.

The key is kept short, as a view stores it once a game (and again in its
index): a round and an order of play are written as their digits after
the count of them (``ordinal``: 3 is ``13``, 12 is ``212``; sorts as the
number), and a game's id as its 32 hex digits (``key_id`` gives it back
as a UUID's text).
"""

from __future__ import annotations

from datetime import date
from typing import Any

RANK = {"ruleset": "0", "adjust": "1", "game": "2", "season": "3"}
SEP = "\x1f"  # sorts below every printable character


def ordinal(value: int) -> str:
    """A round or an order of play (0 to 999,999,999) as the key writes it:
    the count of its digits, then its digits, so that the text sorts as the
    number does."""
    return ORDINALS[value] if value < len(ORDINALS) else _ordinal(value)


def _ordinal(value: int) -> str:
    digits = str(value)
    return f"{len(digits)}{digits}"


#: The first thousand (most rounds and orders of play) as ``ordinal`` writes them.
ORDINALS = tuple(_ordinal(value) for value in range(1000))


def sort_key(
    on: date | str,
    kind: str,
    entry_id: str,
    event: str | None = None,
    round_: int | None = None,
    sequence: int | None = None,
) -> str:
    """The effective-order key of a timeline entry (``on`` a date or its
    ISO text)."""
    day = on if isinstance(on, str) else on.isoformat()
    if kind == "game":
        entry_id = entry_id.replace("-", "")
    return SEP.join(
        (day, RANK[kind], event or "", ordinal(round_ or 0), ordinal(sequence or 0), entry_id)
    )


def order_of_play(facts: Any) -> int | None:
    """A game's place within its date, event and round: the recorded
    sequence, else (games recorded before sequences) the table number."""
    return facts.sequence if facts.sequence is not None else facts.table


def game_key(game_id: str, facts: Any) -> str:
    """The effective-order key of a game (``facts``: the stored game facts,
    typed or lean: ``date``, ``event``, ``round``, ``sequence``, ``table``):
    the one format of a game's key (the projector keys every game)."""
    day = facts.date if isinstance(facts.date, str) else facts.date.isoformat()
    order = order_of_play(facts)
    return SEP.join(
        (day, _GAME, facts.event or "", ordinal(facts.round or 0), ordinal(order or 0),
         game_id.replace("-", ""))
    )  # fmt: skip


_GAME = RANK["game"]


def key_id(key: str) -> str:
    """The id a key ends with: a game's as a UUID's text (its key holds
    the 32 hex digits), another entry's as it is."""
    found = key.rpartition(SEP)[2]
    if len(found) != 32 or key[11:12] != _GAME:
        return found
    return f"{found[:8]}-{found[8:12]}-{found[12:16]}-{found[16:20]}-{found[20:]}"


def key_event(key: str) -> str:
    """The event a key spells ("" none; a ``SEP`` in its name kept)."""
    return SEP.join(key.split(SEP)[2:-3])


def key_date(key: str) -> str:
    """The ISO date an effective-order key starts with."""
    return key[:10]
