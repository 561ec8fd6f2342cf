"""``queries.explain`` for every game of a ladder in one pass.

``queries.explain`` answers one game (it looks up the ruleset, the names and
the history rows each time); a site explains every game, so this keeps the
ladder's rulesets, loaded families and names once and takes each game's
history rows from the caller's streaming read. Its answers are the same as
``queries.explain``'s (tests/test_site.py compares them game by game).
"""

from __future__ import annotations

import bisect
from typing import Any

from projections.families.registry import load_family
from projections.queries import Explanation, explanation


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
    family = rules.family_at(key) if status != "voided" else None
    sides = tuple(tuple(final(merges, p) for p in side) for side in facts["sides"])
    return explanation(
        ladder_name, game_id, short_id, status, facts, rules.at(key), family, sides, rows, names
    )
