"""What can be wrong with a ladder's replay, said so a person can act on it:
an entry its family cannot apply (the ladder's problem), and rulesets
adopted under another version of their family's maths (a warning)."""

from __future__ import annotations

from datetime import date

from ledger.families.base import FamilyError
from ledger.families.registry import family_class
from ledger.kernel.identity import short
from projections.replay import Entry, EntryFailed


def failure(ladder_name: str, failed: EntryFailed) -> str:
    """The ladder's problem: which entry failed, why, and what to do."""
    entry, cause = failed.entry, failed.cause
    why = str(cause) if isinstance(cause, FamilyError) else f"{type(cause).__name__}: {cause}"
    head = f"ladder {ladder_name!r} cannot be replayed:"
    if entry.kind == "game":
        game = short(entry.id)
        return (
            f"{head} game {game} of {entry.date} fails: {why}. Void or correct that game "
            f"('ledger void {game}' or 'ledger correct {game}') and the ladder replays again."
        )
    if entry.kind == "ruleset":
        family = entry.data.get("family")
        return (
            f"{head} its {family} ruleset {effective(entry.date)} fails: {why}. Install the "
            "family's package, or adopt rules this installation can load ('ledger ladder rules')."
        )
    if entry.kind == "season":
        return f"{head} the close of season {entry.data.get('label')} ({entry.date}) fails: {why}."
    return f"{head} the rating adjustment {short(entry.id)} of {entry.date} fails: {why}."


def version_warnings(rulesets: list[Entry]) -> list[str]:
    """One line per ruleset adopted under another version of its family's
    maths than this installation's (a family that cannot be loaded is the
    ladder's problem, not a warning)."""
    out = []
    for entry in rulesets:
        name = entry.data["family"]
        try:
            cls = family_class(name)
        except FamilyError:
            continue
        recorded = entry.data.get("family_version", 1)
        current = getattr(cls, "version", 1)
        if recorded != current:
            out.append(
                f"the {name} ruleset {effective(entry.date)} was adopted under version "
                f"{recorded} of the family's maths, this installation has version {current}: "
                "ratings replayed now may differ from those shown then"
            )
    return out


def effective(on: date | str) -> str:
    """A ruleset's effective date (or its ISO text) as people read it."""
    return "from the start" if str(on) == START else f"from {on}"


#: The effective date of a ladder's first ruleset.
START = date(1, 1, 1).isoformat()
