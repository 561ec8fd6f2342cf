"""A ladder's rulesets, for the site: the one in force at a game, and its family.

The site shows each game's stored rows (``projections.site.games``); what it
needs of the rules is which ruleset was in force (its family, its effective
date) and whether that family rates a tournament's games together.
"""

from __future__ import annotations

import bisect
from typing import Any

from ledger.families.base import Family, FamilyError
from ledger.families.registry import family_class, load_family


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

    def graded(self) -> bool:
        """Whether any of the ladder's rulesets gives grades (a family that
        does not keeps ``Family.grade``, which gives none)."""
        return any(type(self.family_at(key)).grade is not Family.grade for key in self.keys)


def rules_doc(family: str) -> str | None:
    """The page stating ``family``'s rules (a path from the project's root),
    or None when the family names none or cannot be loaded here."""
    try:
        return family_class(family).rules_doc
    except FamilyError:
        return None


def final(merges: dict[str, str], pid: str) -> str:
    """The player a merged player now is (following merges, cycle-safe)."""
    seen = set()
    while pid in merges and pid not in seen:
        seen.add(pid)
        pid = merges[pid]
    return pid
