"""The command layer: every rule that decides whether a fact may be recorded.

Each command reads write-side state (small aggregates and the write index of
``LedgerApplication``), refuses with a LedgerError or appends its events in
one transaction, and returns what the CLI prints. Commands never read the
views, so a ledger whose views lag or are being rebuilt still decides right.

    commands = Commands(app, by="referee")
    commands.open_ladder("Club", "elo", {"k": 24})
    commands.add_players(["Ann", "Bob"])
    recorded = commands.record(GameInput("Club", "2025-03-01", [["Ann"], ["Bob"]], {"result": "a"}))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any
from uuid import UUID

import msgspec

from ledger.families.base import FamilyError, Game, PlayerState
from ledger.kernel import bounds
from ledger.kernel import events as ev
from ledger.kernel.errors import Conflict, Invalid, NotFound
from ledger.kernel.identity import (
    adjustment_id,
    game_identity,
    ladder_id,
    name_key,
    season_id,
    short,
)
from ledger.kernel.names import clean_name
from ledger.kernel.translation import N_, Message, said
from ledger.write import refs
from ledger.write.application import LedgerApplication, now
from ledger.write.game_batch import (
    GameBatch,
    RetiredGame,
    StoredGames,
    StoredGamesAtOnce,
    registered,
)
from ledger.write.game_identities import MergeTwin, explain, live_game, twins_after_merge
from ledger.write.game_input import (
    GameChecks,
    GameInput,
    PlayerBook,
    build_facts,
    close_to_known,
    new_player_id,
    parse_date,
    parse_int,
    parse_number,
    parse_reference,
    typo_warning,
)
from ledger.write.state import BEGINNING, LadderState, Ruleset, bind_family


class Recorded(msgspec.Struct):
    """A game just recorded: its id, the players registered with it, and
    warnings (a new player's name close to a known one)."""

    game: str
    short: str
    sequence: int
    new_players: list[str]
    warnings: list[str] = []


class GameChanges(msgspec.Struct):
    """What a correction changes; a field left None keeps its stored value.

    ``sides`` are names (resolved now); leaving them out keeps the stored
    players by id, whatever names they have or whom they were merged into.
    ``result`` fields replace the stored ones; a field given as None is
    removed (a new outcome drops the old margin unless it gives one).
    """

    date: str | None = None
    event: str | None = None
    round: str | int | None = None
    table: str | int | None = None
    #: A new reference; blank removes it.
    reference: str | None = None
    sides: list[list[str]] | None = None
    result: dict[str, Any] = {}
    neutral: bool | None = None
    attributes: dict[str, Any] = {}


def require_reason(reason: str | None) -> str:
    if not reason or not reason.strip():
        raise Invalid(Message("a reason is required (--reason)"), field="reason")
    return reason


class Commands:
    """The ledger's commands, recorded as ``by``."""

    def __init__(self, app: LedgerApplication, by: str, allow_future: bool = False) -> None:
        self.app = app
        self.by = by
        #: Accept games and season closes dated more than a day ahead.
        self.allow_future = allow_future

    def _not_future(self, on: date, what: str) -> None:
        """Refuse a date more than a day ahead (a mistyped year, most often)."""
        today = now().date()
        if on > today + timedelta(days=1) and not self.allow_future:
            raise Invalid(
                Message(
                    "{what} {on} is in the future (today is {today}); give --allow-future if "
                    "that is right",
                    what=what,
                    on=on,
                    today=today,
                ),
                field="date",
            )

    def _meta(self, version: int, aggregate: UUID, **kw: Any) -> dict[str, Any]:
        return dict(
            originator_id=aggregate,
            originator_version=version,
            recorded_at=now(),
            recorded_by=self.by,
            **kw,
        )

    # -- ladders -----------------------------------------------------------------
    def open_ladder(self, name: str, family: str, params: dict[str, Any]) -> str:
        """Open a ladder with its first ruleset (in force from the beginning);
        returns the family's name."""
        name = clean_name(name, "ladder")
        fam = bind_family(family, params)
        _check_params(fam.params_dict())
        lid = ladder_id(name)
        if self.app.exists(lid):
            raise Conflict(Message("ladder {name!r} already exists", name=name))
        self.app.append(
            [
                ev.LadderOpened(**self._meta(1, lid), name=name),
                ev.RulesetAdopted(
                    **self._meta(2, lid),
                    family=family,
                    params=fam.params_dict(),
                    effective=BEGINNING,
                    family_version=_version(fam),
                ),
            ]
        )
        return fam.name

    def change_rules(
        self,
        ladder: str,
        overrides: dict[str, Any],
        effective: date,
        reason: str,
        family: str | None = None,
    ) -> str:
        """Adopt a ruleset from ``effective``: the parameters in force on that
        date with ``overrides`` applied (or a new family's defaults), under the
        family's current maths version (a rule change with nothing to set
        adopts that version alone)."""
        require_reason(reason)
        state = self.app.ladder(ladder)
        base = state.ruleset_on(effective)
        name = family or base.family
        params = dict(overrides) if family else {**base.params, **overrides}
        fam = bind_family(name, params)
        _check_params(fam.params_dict())
        if not overrides and not family and _version(fam) == base.family_version:
            raise Invalid(
                Message(
                    "nothing to change: give --set KEY=VALUE or --family (the rules in force "
                    "already use version {family_version} of the {name} maths)",
                    family_version=base.family_version,
                    name=name,
                )
            )
        self.app.append(
            [
                ev.RulesetAdopted(
                    **self._meta(state.version + 1, state.id, reason=reason),
                    family=name,
                    params=fam.params_dict(),
                    effective=effective,
                    family_version=_version(fam),
                )
            ]
        )
        return fam.name

    # -- players -----------------------------------------------------------------
    def add_players(self, names: Sequence[str]) -> list[UUID]:
        """Register players: all of them, or none if any name is refused."""
        keys: set[str] = set()
        names = [clean_name(name) for name in names]
        for name in names:
            key = name_key(name)
            if key in keys:
                raise Invalid(Message("{name!r} is given twice", name=name))
            keys.add(key)
            if self.app.name_holder(name) is not None:
                raise Conflict(
                    Message("player {name!r} already exists (nobody was added)", name=name)
                )
        at = now()
        ids = [new_player_id(self.app, name) for name in names]
        self.app.append(
            [self.registration(pid, name, at) for pid, name in zip(ids, names, strict=True)]
        )
        return ids

    def typo_warnings(self, names: Sequence[str]) -> list[str]:
        """A warning for each name not held yet that is close to a known one
        (a typo, swapped names, an initial): what ``add_players`` and
        ``record`` registering those names would be told."""
        new = {name_key(name): name.strip() for name in names}
        new = {key: name for key, name in new.items() if self.app.name_holder(name) is None}
        return [
            typo_warning(new[key], close) for key, close in close_to_known(self.app, new).items()
        ]

    def registration(self, pid: UUID, name: str, at: datetime | None = None) -> ev.PlayerRegistered:
        """The registration event of a new player (an import's say where
        they come from: ``GameBatch.registrations``)."""
        return registered(pid, name, self.by, at or now(), None)

    def rename_player(self, old: str, new: str, reason: str | None = None) -> None:
        """Rename a player; the new name must not belong to anyone else."""
        pid = self.app.player_by_name(old, follow_merge=False)
        new = clean_name(new, "new name")
        holder = self.app.name_holder(new)
        if holder is not None and holder != pid:
            raise Conflict(Message("another player is already called {new!r}", new=new))
        state = self.app.player(pid)
        self.app.append(
            [ev.PlayerRenamed(**self._meta(state.version + 1, pid, reason=reason), name=new)]
        )

    def merge_players(self, source: str, into: str, reason: str) -> list[MergeTwin]:
        """Record that ``source`` is the same person as ``into``: refused when
        the two ever played in the same live game. Returns the games the
        merge makes one game entered twice (``twins_after_merge``: each the
        duplicate ``record`` would refuse), for the referee to void one of."""
        require_reason(reason)
        src = self.app.player_by_name(source, follow_merge=False)
        dst = self.app.player_by_name(into)
        if src == dst:
            raise Invalid(Message("cannot merge a player into themselves"))
        state, target = self.app.player(src), self.app.player(dst)
        if state.merged_into is not None:
            raise Conflict(Message("{name!r} is already merged", name=state.name))
        games = self.app.live_games_of([src, dst])  # the store read once for both checks
        if any({src, dst} <= {p for side in g.facts.sides for p in side} for g in games):
            raise Invalid(
                Message(
                    "{source!r} and {into!r} played in the same game; they are not one person",
                    source=source,
                    into=into,
                )
            )
        twins = twins_after_merge(self.app, src, dst, games)
        self.app.append(
            [ev.PlayerMerged(**self._meta(state.version + 1, src, reason=reason), into=target.id)]
        )
        return twins

    def unmerge_player(self, name: str, reason: str) -> None:
        """Undo a merge: the player's games are replayed as theirs again."""
        require_reason(reason)
        pid = self.app.player_by_name(name, follow_merge=False)
        state = self.app.player(pid)
        if state.merged_into is None:
            raise Conflict(Message("{name!r} is not merged into anyone", name=state.name))
        self.app.append([ev.PlayerUnmerged(**self._meta(state.version + 1, pid, reason=reason))])

    # -- games -------------------------------------------------------------------
    def record(self, game: GameInput, add_players: bool = False, again: bool = False) -> Recorded:
        """Record one game (and the new players it names, with ``add_players``).

        A game that was voided, or corrected into another, is recorded again
        only with ``again``: otherwise it is refused, saying what happened."""
        ladder = self.app.ladder(game.ladder)
        book = PlayerBook(self.app, add_players)
        facts = self.check_game(ladder, build_facts(ladder, game, book))
        batch = self.record_batch(again)
        try:
            event = batch.add(facts)
        except RetiredGame as retired:
            said = explain(retired.game, retired.identity, lambda p: self.app.player(p).name)
            raise Conflict(
                Message("{said}; pass --again to record it as a game again", said=said)
            ) from None
        warnings = [
            typo_warning(book.new[key], close)
            for key, close in close_to_known(self.app, book.new).items()
        ]
        batch.append(batch.registrations(book))
        gid = event.originator_id
        return Recorded(
            str(gid), short(gid), event.game.sequence or 0, sorted(book.new.values()), warnings
        )

    def record_batch(
        self,
        again: bool = False,
        label: str | None = None,
        ladders: Sequence[UUID] | None = None,
        dry_run: bool = False,
    ) -> GameBatch:
        """Games to record together, in one transaction (``GameBatch``): the
        one game of ``record``, or a sheet's. ``again``: record games voided
        or corrected since; ``label``: the sheet the games come from;
        ``ladders``: the ladders of many games, whose stored games, rounds
        and retired identities are then read at once rather than game by
        game; ``dry_run``: keep the events, store nothing."""
        stored = StoredGames(self.app) if ladders is None else StoredGamesAtOnce(self.app, ladders)
        return GameBatch(self.app, self.by, stored, again, label, dry_run)

    def check_game(
        self, ladder: LadderState, facts: ev.GameFacts, checks: GameChecks | None = None
    ) -> ev.GameFacts:
        """Validate a whole game with its family: result, attributes, and a
        trial rating from initial states, so a game the family cannot rate is
        refused before it is stored. Returns it with the result normalised.
        ``checks`` (an import's ``game_input.GameChecks``) reuses the verdict
        on a game of the same shape and result by a built-in family."""
        _check_numbers(facts)
        self._not_future(facts.date, Message("the game's date"))
        fam = ladder.family_on(facts.date) if checks is None else checks.family(ladder, facts.date)
        key = None if checks is None else checks.result_key(fam, facts)
        known = None if checks is None else checks.checked(key)
        if known is not None:
            return msgspec.structs.replace(facts, result=known)
        try:
            result = fam.parse_result(facts.result, len(facts.sides))
        except FamilyError as exc:
            raise Invalid(said(exc), field=exc.field or "result") from None
        game = Game(
            id="check",
            date=facts.date,
            sides=tuple(tuple(str(p) for p in side) for side in facts.sides),
            result=result,
            event=facts.event,
            round=facts.round,
            neutral=facts.neutral,
            attributes=facts.attributes,
        )
        try:
            check = getattr(fam, "check_game", None)
            if check is not None:
                check(game)
            start = PlayerState(rating=fam.initial_rating())
            fam.rate(game, [[start] * len(side) for side in facts.sides])
        except FamilyError as exc:
            raise Invalid(said(exc), field=exc.field or "result") from None
        except Exception as exc:  # noqa: BLE001 - a family's own bug or missing input
            raise Invalid(
                Message(
                    "the {name} family cannot rate this game: {kind}: {exc}",
                    name=fam.name,
                    kind=type(exc).__name__,
                    exc=exc,
                )
            ) from None
        # Store the normalised result so a replay reads exactly what was checked.
        normalised = fam.result_dict(result)
        for field, value in normalised.items():
            bounds.check_numbers(value, field, bounds.RESULT_NUMBER)
        if checks is not None:
            checks.remember(key, normalised)
        return msgspec.structs.replace(facts, result=normalised)

    def correct(
        self, ref: str, changes: GameChanges, reason: str, add_players: bool = False
    ) -> str:
        """Correct a game: only the fields given change, on the stored facts;
        players not named keep their stored ids. Returns the game's short id."""
        require_reason(reason)
        state = self.app.game_by_ref(ref)
        if state.voided:
            raise Conflict(
                Message(
                    "game {id} is voided; a voided game cannot be corrected", id=short(state.id)
                )
            )
        old = state.facts
        ladder = self.app.ladder(old.ladder)
        book = PlayerBook(self.app, add_players)
        sides = old.sides
        if changes.sides:
            named = build_facts(
                ladder,
                GameInput(ladder.name, old.date.isoformat(), changes.sides, {}),
                book,
            )
            sides = named.sides
        result = {k: v for k, v in old.result.items() if v is not None}
        if "result" in changes.result and "margin" not in changes.result:
            result.pop("margin", None)  # a new outcome does not inherit the old margin
        result.update(changes.result)
        result = {k: v for k, v in result.items() if v is not None}  # None removes a field
        table = parse_int(changes.table, "table") if changes.table is not None else old.table
        facts = msgspec.structs.replace(
            old,
            date=parse_date(changes.date) if changes.date is not None else old.date,
            event=(changes.event.strip() or None) if changes.event is not None else old.event,
            round=parse_int(changes.round, "round") if changes.round is not None else old.round,
            table=table,
            reference=(
                parse_reference(changes.reference)
                if changes.reference is not None
                else old.reference
            ),
            sides=sides,
            result=result,
            neutral=old.neutral if changes.neutral is None else changes.neutral,
            attributes=(
                {k: parse_number(v, k) for k, v in changes.attributes.items()}
                if changes.attributes
                else old.attributes
            ),
            # The order of play is kept unless the table number changes it.
            sequence=table if changes.table is not None else old.sequence,
        )
        facts = self.check_game(ladder, facts)
        if facts == old:
            raise Invalid(
                Message("the correction changes nothing in game {id}", id=short(state.id))
            )
        identity = game_identity(facts)
        if facts.reference is not None and identity != game_identity(old):
            # A reference names one game: a correction never gives it to a
            # second (a game without one may share its day with another).
            other = live_game(self.app, identity)
            if other is not None and other != state.id:
                raise Conflict(
                    Message(
                        "the correction would make game {id} the same game as {other} ({same}): "
                        "void one of them, or give this one another reference or table",
                        id=short(state.id),
                        other=short(other),
                        same=Message("same reference {reference!r}", reference=facts.reference),
                    )
                )
        new = [self.registration(pid, book.new[key]) for key, pid in book.new_ids().items()]
        self.app.append(
            [
                *new,
                ev.GameCorrected(
                    **self._meta(state.version + 1, state.id, reason=reason), game=facts
                ),
            ]
        )
        return short(state.id)

    def void(self, ref: str, reason: str) -> str:
        """Void a game or a rating adjustment, named by its id: it no longer
        counts. Returns what was voided ("game 1a2b3c4d")."""
        require_reason(reason)
        topic, uid = refs.find(self.app, ref, VOIDABLE)
        what = Message("{kind} {id}", kind=Message(VOIDABLE[topic]), id=short(uid))
        if topic != ev.GameRecorded.TOPIC:
            self._void_entry(uid, what, reason)
            return what
        state = self.app.game(uid)
        if state.voided:
            raise Conflict(Message("{what} is already voided", what=what))
        self.app.append([ev.GameVoided(**self._meta(state.version + 1, uid, reason=reason))])
        return what

    def _void_entry(self, uid: UUID, what: str, reason: str) -> None:
        """Void a season close or a rating adjustment (its own aggregate)."""
        entry = self.app.timeline_entry(uid)
        if entry is None:
            raise NotFound(Message("unknown {what}", what=what))
        if entry.voided:
            raise Conflict(Message("{what} is already voided", what=what))
        voided = ev.SeasonVoided if isinstance(entry.made, ev.SeasonClosed) else ev.AdjustmentVoided
        meta = self._meta(entry.version + 1, uid, reason=reason)
        self.app.append([voided(**meta, ladder=entry.made.ladder)])

    def void_rules(self, ladder: str, effective: date, reason: str) -> Ruleset:
        """Void the rule change that takes effect on ``effective`` (of two
        for one date, the later recorded: the one in force); the rules before
        it apply again. The ladder's first ruleset cannot be voided."""
        require_reason(reason)
        state = self.app.ladder(ladder)
        adopted = [r for r in state.rulesets if r.effective == effective]
        if not adopted:
            raise NotFound(
                Message(
                    "no rule change of ladder {name!r} takes effect on {effective} (see "
                    "'ledger ladder show')",
                    name=state.name,
                    effective=effective,
                )
            )
        target = max(adopted, key=lambda r: r.adopted)
        if target is state.rulesets[0]:
            raise Conflict(
                Message(
                    "the first rules of ladder {name!r} cannot be voided: adopt others with "
                    "'ledger ladder rules'",
                    name=state.name,
                )
            )
        meta = self._meta(state.version + 1, state.id, reason=reason)
        self.app.append([ev.RulesetVoided(**meta, adopted=target.adopted)])
        return target

    # -- seasons and adjustments ------------------------------------------------
    def close_season(self, ladder: str, label: str, start: date, end: date) -> UUID:
        state = self.app.ladder(ladder)
        if end < start:
            raise Invalid(
                Message("the season ends ({end}) before it starts ({start})", end=end, start=start)
            )
        self._not_future(end, Message("the season's end"))
        sid = season_id(state.id, label)
        before = self.app.timeline_entry(sid)
        if before is not None and not before.voided:
            raise Conflict(
                Message(
                    "season {label!r} of ladder {name!r} is already closed",
                    label=label,
                    name=state.name,
                )
            )
        for close in self.app.season_closes(state.id):
            # Two closes of one stretch of time would decay players twice.
            if start <= close.end and close.start <= end:
                raise Conflict(
                    Message(
                        "season {label!r} of ladder {name!r} ({start} to {end}) is already "
                        "closed and overlaps {asked_start} to {asked_end}",
                        label=close.label,
                        name=state.name,
                        start=close.start,
                        end=close.end,
                        asked_start=start,
                        asked_end=end,
                    )
                )
        version = before.version + 1 if before is not None else 1  # closed again after a void
        self.app.append(
            [
                ev.SeasonClosed(
                    **self._meta(version, sid), ladder=state.id, label=label, start=start, end=end
                )
            ]
        )
        return sid

    def void_season(self, ladder: str, label: str, reason: str) -> UUID:
        """Void the close of season ``label``: its decay no longer counts."""
        require_reason(reason)
        state = self.app.ladder(ladder)
        sid = season_id(state.id, label)
        if self.app.timeline_entry(sid) is None:
            raise NotFound(
                Message(
                    "season {label!r} of ladder {name!r} was never closed",
                    label=label,
                    name=state.name,
                )
            )
        self._void_entry(
            sid,
            Message("season {label!r} of ladder {name!r}", label=label, name=state.name),
            reason,
        )
        return sid

    def adjust(
        self,
        ladder: str,
        player: str,
        effective: date,
        reason: str,
        to: float | None = None,
        shift: float | None = None,
        values: Mapping[str, float] | None = None,
    ) -> UUID:
        """Set (``to``) or shift (``shift``) a player's rating from a date;
        ``values``: values of the family's state beyond a rating to set
        (``Family.settable_state``, by the names the family gives them)."""
        require_reason(reason)
        if to is not None and shift is not None:
            raise Invalid(Message("give exactly one of --to (set) or --shift"))
        if to is None and shift is None and not values:
            raise Invalid(
                Message("give exactly one of --to (set) or --shift, or --state NAME=VALUE")
            )
        if to is not None:
            bounds.RATING.check(to, "--to")
        if shift is not None:
            bounds.SHIFT.check(shift, "--shift")
        state = self.app.ladder(ladder)
        if values:
            family = state.family_on(effective)
            for name, value in values.items():
                if name not in family.settable_state:
                    raise Invalid(
                        Message(
                            "--state {name}: the {family} family has no state value {name!r} to set "
                            "(it has: {settable})",
                            name=name,
                            family=family.name,
                            settable=", ".join(family.settable_state) or Message("none"),
                        ),
                        field="state",
                    )
                if not math.isfinite(value):
                    raise Invalid(
                        Message(
                            "--state {name}: {value} is not a finite number", name=name, value=value
                        ),
                        "state",
                    )
        pid = self.app.player_by_name(player)
        what = f"to={to}" if to is not None else f"by={shift}"
        if values:
            what += "".join(f",{name}={value}" for name, value in sorted(values.items()))
        aid = adjustment_id(state.id, pid, effective, what, reason)
        before = self.app.timeline_entry(aid)
        if before is not None and not before.voided:
            raise Conflict(
                Message("this adjustment is already recorded (adjustment {id})", id=short(aid))
            )
        version = before.version + 1 if before is not None else 1  # made again after a void
        self.app.append(
            [
                ev.RatingAdjusted(
                    **self._meta(version, aid, reason=reason),
                    ladder=state.id,
                    player=pid,
                    effective=effective,
                    to=to,
                    by=shift,
                    state=dict(values) if values else None,
                )
            ]
        )
        return aid


#: What ``void`` takes by id: the topic that first records it -> its name.
VOIDABLE = {
    ev.GameRecorded.TOPIC: N_("game"),
    ev.RatingAdjusted.TOPIC: N_("adjustment"),
    ev.SeasonClosed.TOPIC: N_("season close"),
}


def _check_numbers(facts: ev.GameFacts) -> None:
    """Every number of a game within its range (whichever way it arrived)."""
    for field in ("round", "table", "sequence"):
        value = getattr(facts, field)
        if value is not None:
            bounds.ORDER.check(value, field)
    for name, value in facts.attributes.items():
        bounds.ATTRIBUTE.check(value, name)
    for key, value in facts.result.items():
        bounds.check_numbers(value, key, bounds.RESULT_NUMBER)


def _check_params(params: dict[str, Any]) -> None:
    """Every number of a ruleset's parameters (as the family read them: a
    text ``inf`` becomes a number there) finite and within range."""
    for key, value in params.items():
        bounds.check_numbers(value, key, bounds.PARAMETER)


def _version(fam: Any) -> int:
    return int(getattr(type(fam), "version", 1))
