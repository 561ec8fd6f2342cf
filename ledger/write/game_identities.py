"""Every identity a game has had, and its void: what a re-imported row must
not bring back.

A game's id comes from its identity as first recorded (``identity.game_id``);
a correction of its date or players gives it another identity under the same
id, and a void keeps it stored but out of every rating. A result sheet read
again still holds the game as first written, so a row with a former identity
of a corrected game, or any identity of a voided one, is the same game the
referee already dealt with: the import skips it and says why, unless told to
record it again (``again``).

Built from the event store only (the corrections and voids, then those
games' own events), never from the views.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

import msgspec

from ledger.kernel import events as ev
from ledger.kernel.identity import game_id, game_identity, short
from ledger.kernel.translation import Message
from ledger.write.application import LedgerApplication


class Version(msgspec.Struct, frozen=True):
    """The game as one of its events recorded it: the facts, and who
    recorded them when and why."""

    facts: ev.GameFacts
    at: datetime
    by: str
    reason: str | None


class Void(msgspec.Struct, frozen=True):
    at: datetime
    by: str
    reason: str | None


class GameHistory(msgspec.Struct):
    """One corrected or voided game: its versions in order (first recorded,
    then each correction) and its void, if it stands now."""

    id: UUID
    versions: list[Version]
    void: Void | None = None

    @property
    def current(self) -> ev.GameFacts:
        return self.versions[-1].facts

    def corrected_from(self, identity: str) -> Version | None:
        """The correction that last moved the game away from ``identity``."""
        moved = None
        for before, after in zip(self.versions, self.versions[1:], strict=False):
            if game_identity(before.facts) == identity and game_identity(after.facts) != identity:
                moved = after
        return moved


def history(gid: UUID, events: list[Any]) -> GameHistory | None:
    """A game's history from its own events (None: not a game)."""
    found: GameHistory | None = None
    for event in events:
        if isinstance(event, ev.GameRecorded | ev.GameCorrected):
            version = Version(event.game, event.recorded_at, event.recorded_by, event.reason)
            if found is None:
                found = GameHistory(gid, [version])
            else:
                found.versions.append(version)
            if isinstance(event, ev.GameRecorded):
                found.void = None  # recorded again after a void: it counts again
        elif isinstance(event, ev.GameVoided) and found is not None:
            found.void = Void(event.recorded_at, event.recorded_by, event.reason)
    return found


def _when(at: datetime) -> str:
    return at.date().isoformat()


def _why(reason: str | None) -> str:
    return f": {reason}" if reason and reason.strip() else ""


class GameIdentities:
    """The former identities of corrected games and every identity of voided
    games, each with the game it belongs to.

    ``GameIdentities.load(app)`` reads them from the event store;
    ``retired(identity)`` says whether a new record with that identity would
    bring back a game the referee corrected or voided.
    """

    def __init__(self, games: list[GameHistory]) -> None:
        self.games = {g.id: g for g in games}
        self._by_identity: dict[str, list[GameHistory]] = {}
        #: The live corrected games by the identity they hold now, which
        #: their id (made from the identity first recorded) does not give.
        self._holders: dict[str, GameHistory] = {}
        for game in games:
            current = game_identity(game.current)
            if game.void is None and len(game.versions) > 1:
                self._holders[current] = game
            for identity in dict.fromkeys(game_identity(v.facts) for v in game.versions):
                # A live game's current identity is a duplicate, not a retired one.
                if game.void is not None or identity != current:
                    self._by_identity.setdefault(identity, []).append(game)

    @classmethod
    def load(cls, app: LedgerApplication) -> GameIdentities:
        """Every corrected or voided game of the store, with its history."""
        touched: dict[UUID, None] = {}
        for note in app.notifications(topics=(ev.GameCorrected.TOPIC, ev.GameVoided.TOPIC)):
            gid = note.originator_id
            touched[gid if isinstance(gid, UUID) else UUID(str(gid))] = None
        games = []
        for gid in touched:
            game = history(gid, list(app.events.get(gid)))
            if game is not None:
                games.append(game)
        return cls(games)

    def __bool__(self) -> bool:
        """Whether any identity is retired (else ``retired`` is always None)."""
        return bool(self._by_identity)

    def retired(self, identity: str) -> GameHistory | None:
        """The corrected or voided game that once had ``identity`` (a voided
        one first), or None."""
        games = self._by_identity.get(identity)
        if not games:
            return None
        return next((g for g in games if g.void is not None), games[0])

    def holder(self, identity: str) -> GameHistory | None:
        """The live game corrected into ``identity``, or None."""
        return self._holders.get(identity)

    def earlier_version(self, gid: UUID, facts: ev.GameFacts) -> Version | None:
        """The correction that replaced ``facts`` (a former version of game
        ``gid``, order of play aside), or None when the game never held them."""
        game = self.games.get(gid)
        if game is None:
            return None
        wanted = msgspec.structs.replace(facts, sequence=None)
        for before, after in zip(game.versions, game.versions[1:], strict=False):
            if msgspec.structs.replace(before.facts, sequence=None) == wanted:
                return after
        return None


def retired_game(app: LedgerApplication, identity: str) -> GameHistory | None:
    """The voided game, or the game corrected away from ``identity``, among
    the games first recorded under ``identity``; None when there is none.

    A point lookup for one new record (``ledger record``): it reads the few
    games whose id comes from ``identity`` and not the whole store, so it
    misses an identity a game only took in a correction and left in a later
    one, which ``GameIdentities.load`` (an import) knows."""
    retired = None
    for attempt in range(1000):
        gid = game_id(identity, attempt)
        game = history(gid, list(app.events.get(gid)))
        if game is None:
            break
        if game_identity(game.current) == identity:
            # Voided, or live: a duplicate (not retired) that place_game refuses.
            return game if game.void is not None else None
        retired = retired or game  # corrected into another game since
    return retired


def corrected_into(app: LedgerApplication, identity: str) -> GameHistory | None:
    """The live game a correction gave ``identity``, or None: a game keeps
    the id of the identity it was first recorded under, so a new record
    of its new identity finds it here, through the write index of the
    identities corrections gave (``ledger record``; an import reads every
    correction once, ``GameIdentities``)."""
    for gid in app.games_corrected_into(identity):
        game = history(gid, list(app.events.get(gid)))
        if game is not None and game.void is None and game_identity(game.current) == identity:
            return game
    return None


def live_game(app: LedgerApplication, identity: str) -> UUID | None:
    """The live game that holds ``identity`` now (recorded under it, or
    corrected into it), or None."""
    for attempt in range(1000):
        gid = game_id(identity, attempt)
        state = app.find_game(gid)
        if state is None:
            break
        if not state.voided and game_identity(state.facts) == identity:
            return gid
    moved = corrected_into(app, identity)
    return None if moved is None else moved.id


def describe(facts: ev.GameFacts, name_of: Callable[[UUID], str]) -> str:
    """A game in words: ``2025-01-06, Cup round 2 table 3, Alice v Carol, result a``."""
    where = " ".join(
        part
        for part in (
            facts.event or "",
            f"round {facts.round}" if facts.round is not None else "",
            f"table {facts.table}" if facts.table is not None else "",
        )
        if part
    )
    who = " v ".join(";".join(name_of(p) for p in side) for side in facts.sides)
    result = " ".join(
        f"{key} {msgspec.json.encode(value).decode() if isinstance(value, list | dict) else value}"
        for key, value in facts.result.items()
        if value is not None
    )
    return ", ".join(part for part in (facts.date.isoformat(), where, who, result) if part)


def explain(game: GameHistory, identity: str, name_of: Callable[[UUID], str]) -> str:
    """Why a row with ``identity`` is this game already dealt with, in words:
    ``game 1a2b3c4d voided on 2025-03-02 by ann: forfeit`` or ``game 1a2b3c4d
    corrected on 2025-03-02 by ann to 2025-01-06, Alice v Carol: misread``.
    ``name_of`` gives a player's name."""
    if game.void is not None:
        return Message(
            "game {id} voided on {when} by {by}{why}",
            id=short(game.id),
            when=_when(game.void.at),
            by=game.void.by,
            why=_why(game.void.reason),
        )
    moved = game.corrected_from(identity) or game.versions[-1]
    return corrected(game.id, moved, name_of)


def corrected(gid: UUID, moved: Version, name_of: Callable[[UUID], str]) -> str:
    """``game 1a2b3c4d corrected on 2025-03-02 by ann to <the facts>: why``."""
    return Message(
        "game {id} corrected on {when} by {by} to {facts}{why}",
        id=short(gid),
        when=_when(moved.at),
        by=moved.by,
        facts=describe(moved.facts, name_of),
        why=_why(moved.reason),
    )


class MergeTwin(msgspec.Struct, frozen=True):
    """Two live games that a merge makes one game twice (the identity
    ``record`` refuses a second time: same ladder, date, event, round, table
    and players): ``kept``, the game of the player merged into, and
    ``twin``, the merged player's, each in words (``describe``)."""

    kept: str
    kept_game: str
    twin: str
    twin_game: str
    same_result: bool


def twins_after_merge(
    app: LedgerApplication, source: UUID, into: UUID, games: list[Any] | None = None
) -> list[MergeTwin]:
    """The games of ``source`` that, once ``source`` is merged into ``into``,
    have the identity of a live game of ``into`` (``game_identity``: what
    ``record`` finds a duplicate by), each with that game. ``games``: the
    live games of either, when the caller has read them."""
    if games is None:
        games = app.live_games_of([source, into])
    theirs: dict[str, Any] = {}
    for game in games:
        players = {p for side in game.facts.sides for p in side}
        if source not in players:
            theirs.setdefault(game_identity(game.facts), game)

    def merged(facts: ev.GameFacts) -> ev.GameFacts:
        sides = [[into if p == source else p for p in side] for side in facts.sides]
        return msgspec.structs.replace(facts, sides=sides)

    def name_of(pid: UUID) -> str:
        return app.player(pid).name

    twins = []
    for game in games:
        if not any(source in side for side in game.facts.sides):
            continue
        kept = theirs.get(game_identity(merged(game.facts)))
        if kept is not None:
            twins.append(
                MergeTwin(
                    kept=short(kept.id),
                    kept_game=describe(kept.facts, name_of),
                    twin=short(game.id),
                    twin_game=describe(game.facts, name_of),
                    same_result=kept.facts.result == game.facts.result,
                )
            )
    return twins
