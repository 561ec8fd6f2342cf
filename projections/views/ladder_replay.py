"""Replaying a ladder into its views, from the last safe place before a
change: its standings (an append after the frontier) or a checkpoint.

An entry the ladder's family cannot apply (a family that cannot be loaded, a
game missing what the family needs, a bug in a community's family) makes
that ladder alone a problem: its derived rows are dropped and the problem is
recorded with the ladder; every other ladder replays normally, and the next
replay that goes through (after a void or a correction) clears it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from projections.db import Database
from projections.families.base import Family
from projections.families.registry import load_family
from projections.replay import Entry, EntryFailed, Replay, resolve_merges
from projections.views import problems
from projections.views.store import LadderState, LadderStore

#: Games between checkpoints (besides event and season closes).
CHECKPOINT_EVERY = 2000


def replay_ladders(conn: Database, affected: Mapping[str, str]) -> list[str]:
    """Replay each ladder from its earliest changed key; returns warnings
    (problems and maths-version mismatches of the ladders replayed)."""
    merges = resolve_merges(
        dict(
            conn.execute(
                "SELECT id, merged_into FROM view_players WHERE merged_into IS NOT NULL"
            ).fetchall()
        )
    )
    warnings = []
    for ladder, key in sorted(affected.items()):
        problem = replay_ladder(conn, ladder, key, merges)
        store = LadderStore(conn, ladder)
        name = store.state().name
        if problem is not None:
            warnings.append(problem)
        warnings += [f"ladder {name!r}: {w}" for w in problems.version_warnings(store.rulesets())]
    return warnings


def replay_ladder(
    conn: Database, ladder: str, from_key: str, merges: Mapping[str, str]
) -> str | None:
    """Replay a ladder's timeline from ``from_key`` and rewrite its history,
    standings and checkpoints from there; returns the ladder's problem when
    an entry cannot be applied (None when the replay went through).

    Appending after the ladder's frontier continues from the current standings
    (cost independent of the ladder's size). Any earlier change restarts from
    the last checkpoint before it, so it costs the entries after that
    checkpoint, not the ladder's size.
    """
    store = LadderStore(conn, ladder)
    state = store.state()
    try:
        _replay(store, state, from_key, merges)
    except EntryFailed as failed:
        if isinstance(failed.cause, conn.errors):
            raise failed.cause from None
        problem = problems.failure(state.name, failed)
        store.failed(problem)
        return problem
    return None


def _replay(
    store: LadderStore, state: LadderState, from_key: str, merges: Mapping[str, str]
) -> None:
    rulesets = store.rulesets()
    spans = store.event_spans()
    # Any period rated per event (not only the rules at the frontier) forbids
    # restarting inside one of its events.
    per_event = any(_load(r).per_event for r in rulesets)
    ends = {event: last for event, _, last in spans} if per_event else {}
    family = _family_at(rulesets, state.frontier) if state.frontier else None
    appending = family is not None and from_key > state.frontier and not family.per_event
    if appending:
        states = store.standings()
        after: str | None = state.frontier
        since = state.since_checkpoint
    else:
        after = _restart_checkpoint(store, from_key, spans if per_event else None)
        states = {} if after is None else store.checkpoint(after)
        family = None if after is None else _family_at(rulesets, after)
        since = 0
        store.clear_after(after)

    replay = Replay(states, family, merges, ends)
    last_key = after or ""

    def entries() -> Iterator[Entry]:
        nonlocal last_key
        for entry in store.entries(after):
            last_key = entry.key
            yield entry

    touched = store.put_history(
        replay.run(entries(), store.save_checkpoint, CHECKPOINT_EVERY, since)
    )
    if appending:
        store.put_standings({p: s for p, s in states.items() if p in touched}, replace=False)
    else:
        store.put_standings(states, replace=True)
    store.replayed(last_key, replay.since_checkpoint)


def _load(ruleset: Entry) -> Family:
    try:
        return load_family(ruleset.data["family"], ruleset.data["params"])
    except Exception as exc:  # noqa: BLE001 - a community's family may raise anything
        raise EntryFailed(ruleset, exc) from exc


def _family_at(rulesets: list[Entry], key: str) -> Family | None:
    """The family of the ruleset in force at ``key``."""
    in_force = [r for r in rulesets if r.key <= key]
    return _load(in_force[-1]) if in_force else None


def _restart_checkpoint(
    store: LadderStore, from_key: str, spans: list[tuple[str, str, str]] | None
) -> str | None:
    """The latest checkpoint before ``from_key`` that no event straddles
    (``spans`` given when a family rates per event: it rates an event from
    the states before it began)."""
    keys = store.checkpoint_keys_before(from_key)
    if not spans:
        return keys[0] if keys else None
    for key in keys:
        if not any(first <= key < last for _, first, last in spans):
            return key
    return None
