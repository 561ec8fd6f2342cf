"""Replaying a ladder into its views, from the last safe place before a
change: its standings (an append after the frontier) or a checkpoint.

An entry the ladder's family cannot apply (a family that cannot be loaded, a
game missing what the family needs, a bug in a community's family) makes
that ladder alone a problem: its derived rows are dropped and the problem is
recorded with the ladder; every other ladder replays normally, and the next
replay that goes through (after a void or a correction) clears it.

A rebuild hands each ladder's entries over as it holds them (``memory``: a
list, or its spilled runs merged, ``views.held``); a catch-up reads those
after the restart place from the views.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from itertools import chain, islice
from typing import NamedTuple

from ledger.families.base import Family
from ledger.families.registry import load_family
from projections.db import Database
from projections.replay import Duel, Entry, EntryFailed, Replay, expand, resolve_merges
from projections.views import problems
from projections.views.held import Held, Spilled
from projections.views.player_numbers import PlayerNumbers
from projections.views.store import LadderStore, ReplayProgress

#: A ladder's entries in effective order as a rebuild holds them.
Ordered = list[Entry | Duel] | Spilled

#: Games between checkpoints (besides event and season closes).
CHECKPOINT_EVERY = 2000


def replay_ladders(
    conn: Database,
    affected: Mapping[int, str],
    memory: Held | None = None,
    numbers: PlayerNumbers | None = None,
    merged_into: Mapping[str, str] | None = None,
    fresh: Mapping[int, ReplayProgress] | None = None,
) -> list[str]:
    """Replay each ladder (by number) from its earliest changed key; returns
    warnings (problems and maths-version mismatches of the ladders
    replayed). What the caller holds is not read again: ``memory``, every
    ladder's entries (a rebuild); ``numbers``, the players' numbers held;
    ``merged_into``, the merges; ``fresh``, every ladder's state in views
    being built."""
    if numbers is None:
        numbers = PlayerNumbers(conn)
    if merged_into is None:
        merged_into = dict(
            conn.execute(
                "SELECT id, merged_into FROM view_players WHERE merged_into IS NOT NULL"
            ).fetchall()
        )
    merges = resolve_merges(merged_into)
    numbers.fetch(merges.values())  # a merged player is rated as the one they joined
    warnings = []
    for ladder, key in sorted(affected.items()):
        # A held timeline is sorted once, its map given up as it is (a
        # rebuild of 1M games holds one ladder's at a time, not both).
        ordered = None if memory is None else memory.take(ladder)
        store = LadderStore(conn, ladder, numbers, fresh=fresh is not None)
        state = fresh[ladder] if fresh is not None else store.state()
        problem = replay_ladder(store, key, merges, ordered, state)
        if problem is not None:
            warnings.append(problem)
        del ordered
        rulesets = store.rulesets()
        warnings += [f"ladder {state.name!r}: {w}" for w in problems.version_warnings(rulesets)]
    return warnings


def replay_ladder(
    store: LadderStore,
    from_key: str,
    merges: Mapping[str, str],
    ordered: Ordered | None = None,
    state: ReplayProgress | None = None,
) -> str | None:
    """Replay a ladder's timeline from ``from_key`` and rewrite its history,
    standings and checkpoints from there; returns the ladder's problem when
    an entry cannot be applied (None when the replay went through).
    ``ordered``: the ladder's every entry in effective order, held by the
    caller (a rebuild: a list, or its spilled runs merged); None reads them
    from the views.

    Appending after the ladder's frontier continues from the current standings
    (cost independent of the ladder's size). Any earlier change restarts from
    the last checkpoint before it, so it costs the entries after that
    checkpoint, not the ladder's size. Either way, when those entries are
    few games, only the states of their players (and, restarting, of the
    players with rows after the checkpoint) are read and written, not the
    ladder's every player's.
    """
    state = store.state() if state is None else state
    try:
        _replay(store, state, from_key, merges, ordered)
    except EntryFailed as failed:
        if isinstance(failed.cause, store.conn.errors):
            raise failed.cause from None
        problem = problems.failure(state.name, failed)
        store.failed(problem)
        return problem
    return None


def _replay(
    store: LadderStore,
    state: ReplayProgress,
    from_key: str,
    merges: Mapping[str, str],
    ordered: Ordered | None,
) -> None:
    # (Read from the views however the entries come: a few rows, where a
    # look through a held timeline is one of every game.)
    rulesets = store.rulesets()
    # Any period rated per event (not only the rules at the frontier) forbids
    # restarting inside one of its events.
    rated_per_event = [_load(r).per_event for r in rulesets]
    per_event = any(rated_per_event)
    # Every period rated per event (AdlG's ladders): each replay keeps the
    # spans of the events after its restart. A stored checkpoint is then
    # inside no event as of the last replay, so only the events a change
    # gave games (at or after its key) can straddle one: a change costs a
    # look at the games after it, not at every game of the ladder.
    kept = per_event and all(rated_per_event)
    had_spans = kept and ordered is None and store.spans_kept()
    spans: list[tuple[str, str, str]] = []
    if ordered is not None:
        spans = _spans(ordered) if per_event else []
    elif had_spans:
        spans = store.changed_spans(from_key)
    elif per_event:  # (a look at every game of the ladder)
        spans = store.event_spans()
    ends = {event: last for event, _, last in spans}
    family = _family_at(rulesets, state.frontier) if state.frontier else None
    # After the frontier the replay continues from the standings, unless the
    # frontier's rules rate per event and an event given games by the change
    # began before it: that event is rated again whole, from a checkpoint
    # before it. (Every event of the games replayed is closed at the
    # frontier, which a replay reaches only at the ladder's end.)
    appending = (
        family is not None
        and from_key > state.frontier
        and (not family.per_event or all(first > state.frontier for _, first, _ in spans))
    )
    appended: Iterable[Entry | Duel] | None = None
    # The players with rows after the restart, before the replay (a restart
    # holding only the states its entries need: None when it holds all).
    earlier: set[str] | None = None
    if appending:
        after: str | None = state.frontier
        pos, since = state.frontier_pos, state.since_checkpoint
        players = None
        if ordered is None:
            # A few games after the frontier (``ledger record``): only their
            # players' states are read (a checkpoint among them reads the
            # others it saves: ``LadderStore.unread``).
            appended, players = _ahead(store, after, merges)
        states = store.standings(players)
        store.appending = True
        if players is not None:
            store.unread = store.standings
        if kept:  # the events after the frontier: all of them began after it
            store.keep_spans(after, spans)
    else:
        restart = _restart_checkpoint(store, from_key, spans if per_event else None)
        after, pos = restart if restart is not None else (None, 0)
        family = None if after is None else _family_at(rulesets, after)
        since = 0
        players = None
        if after is not None and ordered is None:
            appended, players = _ahead(store, after, merges)
        if after is None:
            states = {}
        elif players is None:
            states = store.restore(after)
        else:
            # A few games after the checkpoint (a game of an event begun
            # before the frontier, a correction near the end): the states
            # of their players and of those with rows after it, whose
            # standings it rewrites; every other player's is unchanged.
            earlier = store.players_after(pos)
            states = store.restore(after, players | earlier)
            store.unread = partial(store.restore, after)
        store.clear_after(after, pos)
        if had_spans:  # the events after the restart, whole (none straddles it)
            later = store.event_spans(after)
            ends = {event: last for event, _, last in later}
            store.keep_spans(after, later)
        elif kept:  # every event's, as found above
            store.keep_spans(None, spans)
        else:
            store.forget_spans()

    if appended is not None:
        entries: Iterable[Entry | Duel] = appended
    elif ordered is None:
        entries = store.entries(after)
    else:
        entries = ordered if after is None else (e for e in ordered if e.key > after)
    replay = Replay(states, family, merges, ends, store.numbers.by_id, store.ladder, pos)
    last_key = after or ""

    def tracked() -> Iterator[Entry | Duel]:
        nonlocal last_key
        for entry in entries:
            last_key = entry.key
            yield entry

    if isinstance(entries, list):  # held in memory: the last key is known
        replay.run(entries, store.put_history, store.save_checkpoint, CHECKPOINT_EVERY, since)
        if entries:
            last_key = entries[-1].key
    else:
        replay.run(tracked(), store.put_history, store.save_checkpoint, CHECKPOINT_EVERY, since)
    store.finish_history()
    if appending:
        store.put_standings({p: states[p] for p in replay.touched}, replace=False)
    elif earlier is not None:
        written = replay.touched | earlier
        store.put_standings(
            {p: states[p] for p in written if p in states}, replace=False, compared=True
        )
        store.forget_standings(p for p in earlier if p not in states)
    else:
        store.put_standings(states, replace=True)
    store.replayed(last_key, replay.pos, replay.since_checkpoint)


class _Ahead(NamedTuple):
    """The entries after a key, read ahead (``_ahead``)."""

    #: Every entry when they are few (a list), else the first ones chained
    #: to the rest.
    entries: Iterable[Entry | Duel]
    #: The players they rate (merges followed) when they are few and all
    #: games; None otherwise (every player's state may be needed).
    players: set[str] | None


def _ahead(store: LadderStore, after: str | None, merges: Mapping[str, str]) -> _Ahead:
    """A ladder's entries after key ``after``, the first ``CHECKPOINT_EVERY``
    read to know whether they are few and whose states they need."""
    stream = store.entries(after)
    head = list(islice(stream, CHECKPOINT_EVERY))
    if len(head) < CHECKPOINT_EVERY:  # (every entry after it)
        return _Ahead(head, _players_of(head, merges))
    return _Ahead(chain(head, stream), None)


def _players_of(entries: list[Entry | Duel], merges: Mapping[str, str]) -> set[str] | None:
    """The players (merges followed) of entries that are all games, or None
    when any other entry (a season close rates everyone) is among them."""
    players = set()
    for entry in entries:
        if type(entry) is Duel:
            players.update((merges.get(entry.a, entry.a), merges.get(entry.b, entry.b)))
        elif entry.kind != "game":
            return None
        else:
            for side in entry.data.sides:
                players.update(merges.get(p, p) for p in side)
    return players


def _spans(ordered: Ordered) -> list[tuple[str, str, str]]:
    """(event, key of its first game, key of its last game) of entries in
    effective order."""
    spans: dict[str, list[str]] = {}
    for e in ordered:
        if type(e) is Duel:
            e = expand(e)
        if e.kind == "game" and e.data.event is not None:
            span = spans.get(e.data.event)
            if span is None:
                spans[e.data.event] = [e.key, e.key]
            else:
                span[1] = e.key
    return [(event, lo, hi) for event, (lo, hi) in spans.items()]


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
) -> tuple[str, int] | None:
    """(key, pos) of the latest checkpoint before ``from_key`` that no event
    straddles (``spans`` given when a family rates per event: it rates an
    event from the states before it began)."""
    checkpoints = store.checkpoints_before(from_key)
    if not spans:
        return next(checkpoints, None)
    for key, pos in checkpoints:
        if not any(first <= key < last for _, first, last in spans):
            return key, pos
    return None
