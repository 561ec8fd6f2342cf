"""Finding what a person names by the short id a command printed.

Games, season closes and rating adjustments are aggregates of their own; a
command that acts on one (``void``) takes its id or any unambiguous prefix of
it, as git takes a short hash. The lookup reads the event store's own index
of ids (first events only), never the views.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from ledger.kernel import suggest
from ledger.kernel.errors import Invalid, NotFound
from ledger.kernel.translation import N_, Message


def find(app: Any, ref: str, kinds: Mapping[str, str]) -> tuple[str, UUID]:
    """The (topic, id) of the one aggregate whose id starts with ``ref``
    among those first recorded by the topics of ``kinds`` (topic -> what a
    person calls it: "game", "adjustment")."""
    names = [Message(name) for name in dict.fromkeys(kinds.values())]
    what = names[0]
    for name in names[1:-1]:
        what = Message("{first}, {then}", first=what, then=name)
    if len(names) > 1:
        what = Message("{first} or {last}", first=what, last=names[-1])
    text = ref.strip().lower().replace("-", "")
    if not text or len(text) > 32 or any(c not in "0123456789abcdef" for c in text):
        raise Invalid(
            Message(
                "{ref!r} is not the id of a {what} (the hexadecimal id a command printed)",
                ref=ref,
                what=what,
            )
        )
    low, high = app.recorder.game_prefix_bounds(text)
    marks = ", ".join("?" for _ in kinds)
    rows = app.recorder.query(
        "SELECT topic, originator_id FROM stored_events WHERE originator_id >= ? "
        f"AND originator_id <= ? AND originator_version = 1 AND topic IN ({marks}) LIMIT 2",
        (low, high, *kinds),
    )
    if not rows:
        hint = suggest.hint(
            suggest.close_ids(text, _ids_near(app, text, kinds)),
            N_("see 'ledger audit' or 'ledger history'"),
        )
        if what == "game":  # (the common case, said as the read side says it)
            raise NotFound(Message("unknown game {ref}{hint}", ref=repr(ref), hint=hint))
        raise NotFound(Message("unknown {what} {ref}{hint}", what=what, ref=repr(ref), hint=hint))
    if len(rows) > 1:
        raise Invalid(Message("id {ref!r} is ambiguous: give more of its digits", ref=ref))
    topic, found = rows[0]
    return topic, found if isinstance(found, UUID) else UUID(found)


def _ids_near(app: Any, text: str, kinds: Mapping[str, str]) -> list[str]:
    """Ids of these kinds sharing the longest start with ``text`` that any
    has (a few dozen at most): where a mistyped id's right one is found."""
    marks = ", ".join("?" for _ in kinds)
    for length in range(min(len(text), 7), 1, -1):
        low, high = app.recorder.game_prefix_bounds(text[:length])
        rows = app.recorder.query(
            "SELECT originator_id FROM stored_events WHERE originator_id >= ? "
            f"AND originator_id <= ? AND originator_version = 1 AND topic IN ({marks}) LIMIT 50",
            (low, high, *kinds),
        )
        if rows:
            return [str(r[0]).replace("-", "") for r in rows]
    return []
