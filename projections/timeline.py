"""The effective order: when each fact takes effect in a ladder.

Effective order is (date, kind rank, event, round, sequence, id): ruleset
changes open a day, adjustments follow, then games, and season closes end
it. A game's sequence is its order of play within (date, event, round), a
fact recorded with the game (RULES.md, order of effect); games recorded
before sequences existed fall back to their table number. The id only breaks
ties between such old games. The recording time and the store's
notification ids never decide the order, so the same facts recorded in any
order replay identically. The key is a string that sorts in that order, so a
view can index and compare it.
"""

from __future__ import annotations

from datetime import date

from ledger.events import GameFacts

RANK = {"ruleset": "0", "adjust": "1", "game": "2", "season": "3"}
SEP = "\x1f"  # sorts below every printable character


def sort_key(
    on: date,
    kind: str,
    entry_id: str,
    event: str | None = None,
    round_: int | None = None,
    sequence: int | None = None,
) -> str:
    """The effective-order key of a timeline entry."""
    return SEP.join(
        (
            on.isoformat(),
            RANK[kind],
            event or "",
            f"{round_ or 0:06d}",
            f"{sequence or 0:09d}",
            entry_id,
        )
    )


def order_of_play(facts: GameFacts) -> int | None:
    """A game's place within its date, event and round: the recorded
    sequence, else (games recorded before sequences) the table number."""
    return facts.sequence if facts.sequence is not None else facts.table


def game_key(game_id: str, facts: GameFacts) -> str:
    """The effective-order key of a game."""
    return sort_key(facts.date, "game", game_id, facts.event, facts.round, order_of_play(facts))
