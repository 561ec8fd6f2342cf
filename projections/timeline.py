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
"""

from __future__ import annotations

from datetime import date
from typing import Any

RANK = {"ruleset": "0", "adjust": "1", "game": "2", "season": "3"}
SEP = "\x1f"  # sorts below every printable character


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
    return _FORMAT % (day, RANK[kind], event or "", round_ or 0, sequence or 0, entry_id)


_FORMAT = SEP.join(("%s", "%s", "%s", "%06d", "%09d", "%s"))
#: A game's key from (date, event or "", round or 0, order of play or 0,
#: id): ``sort_key`` of a game, one format (the projector keys every game).
GAME_KEY = SEP.join(("%s", RANK["game"], "%s", "%06d", "%09d", "%s"))


def order_of_play(facts: Any) -> int | None:
    """A game's place within its date, event and round: the recorded
    sequence, else (games recorded before sequences) the table number."""
    return facts.sequence if facts.sequence is not None else facts.table


def game_key(game_id: str, facts: Any) -> str:
    """The effective-order key of a game (``facts``: the stored game facts,
    typed or lean: ``date``, ``event``, ``round``, ``sequence``, ``table``)."""
    day = facts.date if isinstance(facts.date, str) else facts.date.isoformat()
    order = order_of_play(facts)
    return GAME_KEY % (day, facts.event or "", facts.round or 0, order or 0, game_id)


def key_date(key: str) -> str:
    """The ISO date an effective-order key starts with."""
    return key[:10]
