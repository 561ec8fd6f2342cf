"""``queries.explain`` for every game of a ladder in one pass.

``queries.explain`` answers one game (it looks up the ruleset, the names and
the history rows each time); a site explains every game, so this keeps the
ladder's rulesets, loaded families and names once and takes each game's
history rows from the caller's streaming read. Its answers are the same as
``queries.explain``'s (tests/test_site.py compares them game by game).
"""

from __future__ import annotations

import bisect
from datetime import date
from typing import Any

from projections.families.base import Game, PlayerState
from projections.families.registry import load_family
from projections.queries import Explanation, PlayerExplanation


class LadderRules:
    """A ladder's rulesets in effective order, each family loaded once."""

    def __init__(self, rulesets: list[tuple[str, dict[str, Any]]]) -> None:
        self.keys = [key for key, _ in rulesets]
        self.data = [data for _, data in rulesets]
        self._families: dict[int, Any] = {}

    def index_at(self, key: str) -> int:
        """The ruleset in force at ``key``: the latest adopted at or before it."""
        return max(bisect.bisect_right(self.keys, key) - 1, 0)

    def at(self, key: str) -> dict[str, Any]:
        return self.data[self.index_at(key)]

    def family_at(self, key: str) -> Any:
        i = self.index_at(key)
        if i not in self._families:
            self._families[i] = load_family(self.data[i]["family"], self.data[i]["params"])
        return self._families[i]


def final(merges: dict[str, str], pid: str) -> str:
    """The player a merged player now is (following merges, cycle-safe)."""
    seen = set()
    while pid in merges and pid not in seen:
        seen.add(pid)
        pid = merges[pid]
    return pid


def explain_game(
    ladder_name: str,
    game_id: str,
    short_id: str,
    key: str,
    status: str,
    facts: dict[str, Any],
    rows: dict[str, dict[str, Any]],
    rules: LadderRules,
    names: dict[str, str],
    merges: dict[str, str],
) -> Explanation:
    """The explanation of one game from its history ``rows`` (by player id)."""
    ruleset = rules.at(key)
    base = Explanation(
        game=short_id, ladder=ladder_name, date=facts["date"], event=facts.get("event"),
        round=facts.get("round"), status=status, family=ruleset["family"],
        params=ruleset["params"], result=facts["result"], players=[],
    )  # fmt: skip
    if status == "voided":
        base.note = "voided: this game changes no rating"
        return base
    family = rules.family_at(key)
    sides = tuple(tuple(final(merges, p) for p in side) for side in facts["sides"])
    states = [
        [PlayerState(rating=rows[p]["before"], games=rows[p]["games_before"]) for p in side]
        for side in sides
    ]
    changes = family.rate(
        Game(
            id=game_id,
            date=date.fromisoformat(facts["date"]),
            sides=sides,
            result=family.load_result(facts["result"]),
            event=facts.get("event"),
            round=facts.get("round"),
            neutral=facts.get("neutral", False),
            attributes=facts.get("attributes") or {},
        ),
        states,
        explain=True,
    )
    for side_no, (side, side_changes) in enumerate(zip(sides, changes, strict=True)):
        for player, change in zip(side, side_changes, strict=True):
            row = rows[player]
            base.players.append(
                PlayerExplanation(
                    player=names.get(player, player), side=chr(ord("A") + side_no),
                    before=row["before"], change=row["change"], after=row["after"],
                    values=change.detail or {},
                )
            )  # fmt: skip
    if family.per_event and facts.get("event"):
        base.note = (
            "rated from the ratings before the event; the event's changes are "
            "summed and applied when it closes"
        )
    return base
