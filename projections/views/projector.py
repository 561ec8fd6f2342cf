"""The projector: applies events to the timeline tables (ladders, players,
games, the other entries of each ladder) and the audit log, and notes per
ladder the earliest effective key that changed (where its replay starts).

One handler per event class (``HANDLERS``, checked against the ledger's
event classes by a test). Games recorded or corrected, the bulk of a ledger,
arrive lean (``source.GameNote``: ids and dates as text). The views keep
no copy of a game's facts: a game's row notes the store position of the
event whose facts are current (``games``); views with no event store beside
them (in memory) keep the game events they apply (``view_events``).

Writes are batched: rows wait in memory until ``flush`` (once per page of
events), and a later event of the same page changes them there. A rebuild
(``timeline=True``) also keeps every ladder's entries in memory, so its
replay never reads them back: most games as one small struct each
(``replay.Duel``), the others as ``Entry``. ``apply_page`` applies a page of
stored events, every game through ``game_note``.

Every row is numbered by the store position of the event that first
recorded it (``schema``). A game's first record is audited on the game's own
row; any later game event has an audit line of its own, its facts those of
the event at its ``seq`` (``queries.audit`` writes every game event's
summary when asked).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import msgspec

from ledger.kernel import events as ev
from ledger.kernel.identity import name_key
from ledger.kernel.translation import Message
from projections.db import Database
from projections.replay import Duel, Entry, Play, Shared, is_duel
from projections.timeline import ORDINALS as _ORDINALS
from projections.timeline import SEP, ordinal, sort_key
from projections.views import games, history, source
from projections.views.held import Held
from projections.views.player_numbers import PlayerNumbers
from projections.views.problems import START
from projections.views.said import said
from projections.views.store import ReplayProgress, every_ladder_entry

KIND_NAMES = {
    ev.LadderOpened: "ladder opened",
    ev.RulesetAdopted: "ruleset adopted",
    ev.PlayerRegistered: "player registered",
    ev.PlayerRenamed: "player renamed",
    ev.PlayerMerged: "player merged",
    ev.PlayerUnmerged: "player unmerged",
    ev.GameRecorded: "game recorded",
    ev.GameCorrected: "game corrected",
    ev.GameVoided: "game voided",
    ev.SeasonClosed: "season closed",
    ev.RatingAdjusted: "rating adjusted",
    ev.SeasonVoided: "season voided",
    ev.AdjustmentVoided: "adjustment voided",
    ev.RulesetVoided: "ruleset voided",
}

_json = msgspec.json.Encoder()

#: A game's key (``timeline.game_key``): date, event, round, order, id.
#: A game's key up to its id (``timeline.game_key``, less SEP and the id).
_GAME_HEAD = SEP.join(("%s", "2", "%s", "%s", "%s"))
_FEW = len(_ORDINALS)

# Positions in a game's row (``games.COLUMNS``, in order).
N, LADDER, KEY, GID, STATUS, EVENT, ROUND, VERSION, FACTS_N = range(9)
_NO_ATTRIBUTES: dict[str, float] = {}
_CORRECTED = ev.GameCorrected.TOPIC
_current_note = source.current_note


def _text(data: Any) -> str:
    return _json.encode(data).decode()


#: A player's row of ``view_players``, as the projector holds it (a list).
_PLAYER = "n, id, name, key, merged_into, registered_at"


class Projector:
    """Applies events to the timeline tables of ``conn`` (inside the
    caller's transaction); ``affected`` maps each ladder's number to the
    earliest effective key that changed. With ``timeline``, every ladder's
    entries are also kept in ``entries`` (ladder number -> key -> Entry)."""

    #: The handler of each event class (a method name).
    HANDLERS: dict[type[ev.LedgerEvent], str] = {
        ev.LadderOpened: "_ladder_opened",
        ev.RulesetAdopted: "_ruleset_adopted",
        ev.PlayerRegistered: "_player_registered",
        ev.PlayerRenamed: "_player_renamed",
        ev.PlayerMerged: "_player_merged",
        ev.PlayerUnmerged: "_player_unmerged",
        ev.GameRecorded: "_game_recorded",
        ev.GameCorrected: "_game_corrected",
        ev.GameVoided: "_game_voided",
        ev.SeasonClosed: "_season_closed",
        ev.RatingAdjusted: "_rating_adjusted",
        ev.SeasonVoided: "_season_voided",
        ev.AdjustmentVoided: "_adjustment_voided",
        ev.RulesetVoided: "_ruleset_voided",
    }

    def __init__(self, conn: Database, timeline: bool = False) -> None:
        self.conn = conn
        self.affected: dict[int, str] = {}
        self.entries: Held | None = Held() if timeline else None
        #: Each ladder's entry keys as ``hold_timelines`` read them.
        self._loaded: dict[int, frozenset[str]] = {}
        self._rebuild = timeline
        self._strings: dict[str, str] = {}
        self._shared = Shared()
        #: Player id -> (number, the side (id,) of that player alone).
        self._solo: dict[str, tuple[int, tuple[str]]] = {}
        # Ladders are few: all of them are held, written when changed. A
        # rebuild holds every player too; a catch-up (``record``: a game or
        # two) reads a player's row when first needed (``_player_row``), and
        # the replay fetches the numbers it needs (``PlayerNumbers``).
        self.players: dict[str, list[Any]] = {}
        if timeline:
            self.players = {
                r[1]: list(r) for r in conn.execute(f"SELECT {_PLAYER} FROM view_players")
            }
            self._numbers = PlayerNumbers.given({pid: row[0] for pid, row in self.players.items()})
        else:
            self._numbers = PlayerNumbers(conn)
        self.ladders: dict[str, list[Any]] = {
            r[1]: list(r)
            for r in conn.execute("SELECT n, id, name, key, opened_at, opened_by FROM view_ladders")
        }
        self._dirty_players: set[str] = set()
        self._dirty_ladders: set[str] = set()
        #: Games changed since the last flush (id -> row), and those new.
        self._games: dict[str, list[Any]] = {}
        self._new_games: list[list[Any]] = []
        self._old_games: list[list[Any]] = []
        #: Every game's number, in a rebuild of views in memory (which have
        #: no event store beside them to find a game by id).
        self._game_numbers: dict[str, int] | None = (
            {} if timeline and conn.events_beside() is None else None
        )
        self._audit: dict[int, list[Any]] = {}
        #: The game events applied, kept for views with no event store beside
        #: them (their facts are read from there); None beside a store.
        self._own_events: list[tuple[int, str, bytes]] | None = (
            [] if conn.events_beside() is None else None
        )
        #: (recorded at, by, file) -> the recording's number, in this run.
        self._recordings: dict[tuple[str, str, str | None], int] = {}
        self._new_recordings: list[tuple[Any, ...]] = []
        #: The last game's (recorded at, by, file) as stored, and its recording.
        self._last_recorded: tuple[str, str, str | None] | None = None
        self._last_recording = 0
        self._entries: list[tuple[Any, ...]] = []
        self._handlers: dict[type, Callable[[int, Any], tuple[Any, ...]]] = {
            cls: getattr(self, name) for cls, name in self.HANDLERS.items()
        }
        self._handlers[source.GameNote] = self.game_note

    # -- applying events ------------------------------------------------------
    def numbers(self) -> PlayerNumbers:
        """The views' numbers of the players: every player's in a rebuild;
        in a catch-up, those this projector read or numbered, the others
        fetched by whoever needs them."""
        return self._numbers

    def merges(self) -> dict[str, str]:
        """Merged player id -> the id they were merged into (one step), as
        flushed (``flush`` first)."""
        if not self._rebuild:
            return dict(
                self.conn.execute(
                    "SELECT id, merged_into FROM view_players WHERE merged_into IS NOT NULL"
                ).fetchall()
            )
        return {pid: row[4] for pid, row in self.players.items() if row[4]}

    def hold_timelines(self) -> None:
        """Hold every ladder's timeline as the views have it (their entries
        other than games: views holding no game yet), to be replayed whole
        from memory, as in a rebuild (``timeline``), once the events have
        changed it (``touch_changed``)."""
        assert self.entries is not None, "a projector keeping timelines"
        for row in self.ladders.values():
            ladder = row[0]
            held = self.entries.ladder(ladder)
            for entry in every_ladder_entry(self.conn, ladder, self._numbers):
                held[entry.key] = entry
            self._loaded[ladder] = frozenset(held)

    def touch_changed(self) -> None:
        """Every ladder whose timeline the events applied since
        ``hold_timelines`` changed is replayed whole; the others are not
        replayed (nor warned about)."""
        assert self.entries is not None, "a projector keeping timelines"
        for ladder, held in self.entries.ladders.items():
            if held.keys() != self._loaded.get(ladder, frozenset()) or self.entries.spilled(ladder):
                self._touch(ladder, "")

    def fresh_states(self) -> dict[int, ReplayProgress]:
        """Every ladder's replay state in views being built (nothing replayed)."""
        return {row[0]: ReplayProgress(row[2]) for row in self.ladders.values()}

    def apply_stored(
        self, seq: int, topic: str, state: bytes, known_at: datetime | None = None
    ) -> bool:
        """Apply one stored event (unless recorded after ``known_at``);
        returns whether it was applied."""
        if known_at is not None:  # (a game too is read whole: when it was recorded)
            return self._apply_event(seq, topic, state, source.decode(topic, state), known_at)
        note = _current_note(topic, state)
        if note is None:  # any other event, or a game of an older shape
            return self._apply_event(seq, topic, state, ev.decode(topic, state))
        if self._own_events is not None:
            self._own_events.append((seq, topic, state))
        self.game_note(seq, note, topic)  # the bulk of any store
        return True

    def _apply_event(
        self, seq: int, topic: str, state: bytes, event: Any, known_at: datetime | None = None
    ) -> bool:
        """``apply_stored`` of an event decoded (unless recorded after
        ``known_at``)."""
        if known_at is not None and _recorded_at(event) > known_at:
            return False
        own = self._own_events
        if own is not None and topic in source.GAME_TOPICS:
            own.append((seq, topic, state))
        if type(event) is source.GameNote:  # the bulk of any store
            self.game_note(seq, event, topic)
        else:
            self._apply(seq, event, topic)
        return True

    def apply(self, seq: int, event: ev.LedgerEvent) -> None:
        """Apply one typed event, stored (or to be stored) at ``seq``."""
        own = self._own_events
        if own is not None and isinstance(event, ev.GameRecorded | ev.GameCorrected):
            own.append((seq, event.TOPIC, source.stored_state(event)))  # as the store would
        self._apply(seq, event, getattr(event, "TOPIC", ""))

    def _apply(self, seq: int, event: Any, topic: str) -> None:
        if isinstance(event, ev.GameRecorded | ev.GameCorrected):
            event = source.game_note(event)  # an older shape, upcast; or not stored yet
        handler = self._handlers.get(type(event))
        if handler is None:
            raise TypeError(f"no projection for {type(event).__name__}")
        if type(event) is source.GameNote:
            self.game_note(seq, event, topic)
            return
        kind = KIND_NAMES[type(event)]
        ladder, subject, summary = handler(seq, event)
        self._audit[seq] = [
            seq, event.recorded_at.isoformat(), event.recorded_by, kind, ladder, subject,
            said(summary) if summary is not None else None, event.reason,
            _source(event.source),
        ]  # fmt: skip

    def flush(self) -> None:
        """Write every pending row."""
        conn = self.conn
        if self._dirty_players:
            conn.executemany(
                "INSERT INTO view_players (n, id, name, key, merged_into, registered_at) "
                "VALUES (?,?,?,?,?,?) ON CONFLICT (n) DO UPDATE SET name=excluded.name, "
                "key=excluded.key, merged_into=excluded.merged_into, "
                "registered_at=excluded.registered_at",
                [self.players[p] for p in sorted(self._dirty_players)],
            )
            self._dirty_players.clear()
        if self._dirty_ladders:
            conn.executemany(
                "INSERT INTO view_ladders (n, id, name, key, opened_at, opened_by) "
                "VALUES (?,?,?,?,?,?) ON CONFLICT (n) DO UPDATE SET name=excluded.name, "
                "key=excluded.key, opened_at=excluded.opened_at, opened_by=excluded.opened_by",
                [self.ladders[lid] for lid in sorted(self._dirty_ladders)],
            )
            self._dirty_ladders.clear()
        if self._new_recordings:
            conn.executemany("INSERT INTO view_recordings VALUES (?,?,?,?)", self._new_recordings)
            self._new_recordings = []
        own = self._own_events
        if self._games or own:
            games.write(conn, self._new_games, self._old_games, own or ())
            self._games.clear()
            self._new_games = []
            self._old_games = []
            if own:
                self._own_events = []
        if self._entries:
            conn.insert_rows("INSERT INTO view_entries", self._entries)
            self._entries.clear()
        if self._audit:
            conn.insert_rows("INSERT INTO view_audit", list(self._audit.values()))
            self._audit.clear()

    # -- one handler per event class: returns (ladder, subject, summary) ---------
    # (the summary a ``Message``, stored as its template and facts: ``said``)
    def _ladder_opened(self, seq: int, e: ev.LadderOpened) -> tuple[Any, ...]:
        lid = str(e.originator_id)
        row = self.ladders.get(lid)
        fields = [e.name, name_key(e.name), e.recorded_at.isoformat(), e.recorded_by]
        if row is None:
            row = self.ladders[lid] = [seq, lid, *fields]
            if self._rebuild:
                self._touch(seq, "")
        else:  # games of it were seen first (a partial store)
            row[2:] = fields
        self._dirty_ladders.add(lid)
        return row[0], row[0], Message("ladder {name!r} opened", name=e.name)

    def _ruleset_adopted(self, seq: int, e: ev.RulesetAdopted) -> tuple[Any, ...]:
        lid = str(e.originator_id)
        ladder = self._ladder(lid, seq)
        entry_id = f"{lid}/{e.originator_version:06d}"  # sorts in recording order
        key = sort_key(e.effective, "ruleset", entry_id)
        data = {
            "family": e.family,
            "params": e.params,
            "family_version": e.family_version,
            "recorded_at": e.recorded_at.isoformat(),
            "recorded_by": e.recorded_by,
            "reason": e.reason,
        }
        self._put_entry(ladder, Entry(key, "ruleset", seq, entry_id, e.effective.isoformat(), data))
        name, on, params = self.ladders[lid][2], e.effective.isoformat(), _text(e.params)
        if on == START:
            summary = Message(
                "{ladder}: {family} ruleset from the start: {params}",
                ladder=name, family=e.family, params=params,
            )  # fmt: skip
        else:
            summary = Message(
                "{ladder}: {family} ruleset from {on}: {params}",
                ladder=name, family=e.family, on=on, params=params,
            )  # fmt: skip
        return ladder, seq, summary

    def _player_registered(self, seq: int, e: ev.PlayerRegistered) -> tuple[Any, ...]:
        pid = str(e.originator_id)
        row = self._player_row(pid)
        if row is None:
            row = self.players[pid] = [seq, pid, e.name, name_key(e.name), None, None]
            self._numbers.add(pid, seq)
        else:  # named in a game before (a partial store)
            row[2:4] = [e.name, name_key(e.name)]
        row[5] = e.recorded_at.isoformat()
        self._dirty_players.add(pid)
        return None, row[0], Message("player {name!r} registered", name=e.name)

    def _player_renamed(self, seq: int, e: ev.PlayerRenamed) -> tuple[Any, ...]:
        row = self._player(str(e.originator_id), seq)
        old = row[2]
        row[2:4] = [e.name, name_key(e.name)]
        self._dirty_players.add(row[1])
        return None, row[0], Message("player {old!r} renamed {new!r}", old=old, new=e.name)

    def _player_merged(self, seq: int, e: ev.PlayerMerged) -> tuple[Any, ...]:
        row = self._player(str(e.originator_id), seq)
        into = self._player(str(e.into), seq)  # numbered: the replay rates as them
        row[4] = into[1]
        self._dirty_players.add(row[1])
        self._touch_ladders_of(row[0])
        return (
            None,
            row[0],
            Message("player {name!r} merged into {into!r}", name=row[2], into=into[2]),
        )

    def _player_unmerged(self, seq: int, e: ev.PlayerUnmerged) -> tuple[Any, ...]:
        row = self._player(str(e.originator_id), seq)
        into = row[4]
        row[4] = None
        self._dirty_players.add(row[1])
        if into is not None:
            # Their games were replayed as the other player's: replay those ladders.
            self._touch_ladders_of(self._player(into, seq)[0])
        return (
            None,
            row[0],
            Message("player {name!r} unmerged from {other!r}", name=row[2], other=self._name(into)),
        )

    def _game_recorded(self, seq: int, e: Any) -> tuple[Any, ...]:
        raise AssertionError("games are applied as notes")  # see _apply

    _game_corrected = _game_recorded

    def apply_page(self, page: list[source.Stored]) -> None:
        """``apply_stored`` of each event of a page (none left out)."""
        current, decode = _current_note, ev.decode
        apply, game_note = self._apply_event, self.game_note
        own = self._own_events
        for seq, topic, state in page:
            note = current(topic, state)
            if note is not None:  # the bulk of any store
                if own is not None:
                    own.append((seq, topic, state))
                game_note(seq, note, topic)
            else:  # any other event, or a game of an older shape
                apply(seq, topic, state, decode(topic, state))

    def game_note(self, seq: int, note: source.GameNote, topic: str) -> None:
        """Apply a game recorded (again, after a void) or corrected, as a
        ``GameNote`` stored at ``seq`` under ``topic``."""
        gid = note.originator_id
        facts = note.game
        row = self.ladders.get(facts.ladder)
        ladder = row[0] if row is not None else self._ladder(facts.ladder, seq)
        # Players by id, one string per player (held by the timeline);
        # every player rated needs a number (their row).
        given = facts.sides
        duel = len(given) == 2 and len(given[0]) == 1 and len(given[1]) == 1  # most games
        if duel:
            solo = self._solo
            a = solo.get(given[0][0]) or self._solo_side(given[0][0], seq)
            b = solo.get(given[1][0]) or self._solo_side(given[1][0], seq)
            sides = (a[1], b[1])
        else:
            listed = []
            for side in given:
                rows = [self._player_row(p) or self._player(p, seq) for p in side]
                listed.append(tuple([row[1] for row in rows]))
            sides = tuple(listed)
        order = facts.sequence if facts.sequence is not None else facts.table
        # (``timeline.game_key``, inline: once a game)
        round_, order = facts.round or 0, order or 0
        head = _GAME_HEAD % (
            facts.date, facts.event or "",
            _ORDINALS[round_] if round_ < _FEW else ordinal(round_),
            _ORDINALS[order] if order < _FEW else ordinal(order),
        )  # fmt: skip
        digits = gid.replace("-", "")
        key = head + SEP + digits
        gid_bytes = bytes.fromhex(digits)  # (as the row is written: ``games.COLUMNS``)
        corrected = topic == _CORRECTED
        if corrected or note.originator_version > 1:
            game = self._game(gid)
            self._drop_entry(game)
            # Its facts now those of this event (its line's facts too).
            game[LADDER:FACTS_N + 1] = [
                ladder, head, gid_bytes, "corrected" if corrected else "recorded", facts.event,
                facts.round, note.originator_version, seq,
            ]  # fmt: skip
            self._audit[seq] = [
                seq, source.utc_text(note.recorded_at), note.recorded_by,
                "game corrected" if corrected else "game recorded", ladder, game[N], None,
                note.reason, _source(note.source),
            ]  # fmt: skip
        else:  # audited on its own row
            where = note.source
            recording = self._recording(seq, (note.recorded_at, note.recorded_by,
                                               where.file if where else None))  # fmt: skip
            game = [
                seq, ladder, head, gid_bytes, "recorded", facts.event, facts.round, 1, seq,
                recording, where.row if where else None, note.reason,
            ]  # fmt: skip
            self._games[gid] = game
            self._new_games.append(game)
            if self._game_numbers is not None:
                self._game_numbers[gid] = seq
        entries = self.entries
        if entries is not None:
            held = entries.ladders.get(ladder)
            if held is None:
                held = entries.ladder(ladder)
            if duel and is_duel(given, facts.event, facts.round, facts.neutral, facts.attributes):
                # Most games: a compact duel (``replay.Duel``), its id, date,
                # event and round those of its key; as ``replay.game_entry``
                # reads one back.
                held[key] = Duel(
                    key, game[N], sides[0][0], sides[1][0], self._shared.result(facts.result)
                )
            else:
                strings = self._strings
                on = facts.date
                entries.others += 1
                held[key] = Entry(key, "game", game[N], gid,
                                  strings.get(on) or strings.setdefault(on, on),
                                  self._play(facts, sides))  # fmt: skip
        if not self._rebuild:  # a rebuild replays every ladder whole
            self._touch(ladder, key)

    def _solo_side(self, pid: str, seq: int) -> tuple[int, tuple[str]]:
        """A player's number and their side alone (one tuple per player,
        shared by every entry of the timeline)."""
        row = self._player_row(pid) or self._player(pid, seq)
        held = self._solo[pid] = (row[0], (row[1],))
        return held

    def _recording(self, seq: int, recorded: tuple[str, str, str | None]) -> int:
        """The number of the recording (when, by whom, from which file) of
        a game first recorded at ``seq``: the first game of an import, or a
        game recorded alone, numbers it."""
        if recorded == self._last_recorded:  # the games of one import: one recording
            return self._last_recording
        self._last_recorded = recorded
        at, by, file = recorded
        at = at[:-1] + "+00:00" if at[-1] == "Z" else at
        known = (at, by, file)
        recording = self._recordings.get(known)
        if recording is None:
            recording = self._recordings[known] = seq
            self._new_recordings.append((seq, *known))
        self._last_recording = recording
        return recording

    def _game_voided(self, seq: int, e: ev.GameVoided) -> tuple[Any, ...]:
        game = self._game(str(e.originator_id))
        self._drop_entry(game)
        game[STATUS] = "voided"
        game[VERSION] = e.originator_version
        return game[LADDER], game[N], None

    def _season_closed(self, seq: int, e: ev.SeasonClosed) -> tuple[Any, ...]:
        ladder, sid = self._ladder(str(e.ladder), seq), str(e.originator_id)
        key = sort_key(e.end, "season", sid)
        data = {"label": e.label, "start": e.start.isoformat(), "end": e.end.isoformat()}
        self._put_entry(ladder, Entry(key, "season", seq, sid, e.end.isoformat(), data))
        return ladder, seq, Message(
            "season {label} closed ({start} to {end})",
            label=e.label, start=e.start.isoformat(), end=e.end.isoformat(),
        )  # fmt: skip

    def _rating_adjusted(self, seq: int, e: ev.RatingAdjusted) -> tuple[Any, ...]:
        ladder, aid = self._ladder(str(e.ladder), seq), str(e.originator_id)
        key = sort_key(e.effective, "adjust", aid)
        data = {"player": str(e.player), "to": e.to, "by": e.by, "reason": e.reason}
        if e.state:
            data["state"] = e.state
        self._put_entry(ladder, Entry(key, "adjust", seq, aid, e.effective.isoformat(), data))
        what = adjusted(data)
        self._player(str(e.player), seq)  # numbered: the replay rates them
        return ladder, seq, Message(
            "rating of {name!r} {what} from {on}",
            name=self._name(str(e.player)), what=what, on=e.effective.isoformat(),
        )  # fmt: skip

    def _season_voided(self, seq: int, e: ev.SeasonVoided) -> tuple[Any, ...]:
        ladder = self._ladder(str(e.ladder), seq)
        data = self._void_entry(ladder, str(e.originator_id))
        if not data:
            return ladder, seq, Message("season voided: its close no longer counts")
        return ladder, seq, Message(
            "season {label} ({start} to {end}) voided: its close no longer counts",
            label=data["label"], start=data["start"], end=data["end"],
        )  # fmt: skip

    def _adjustment_voided(self, seq: int, e: ev.AdjustmentVoided) -> tuple[Any, ...]:
        ladder = self._ladder(str(e.ladder), seq)
        data = self._void_entry(ladder, str(e.originator_id))
        if not data:
            return ladder, seq, Message("rating adjustment voided")
        return ladder, seq, Message(
            "rating adjustment of {name!r} ({what}) voided",
            name=self._name(data["player"]), what=adjusted(data),
        )  # fmt: skip

    def _ruleset_voided(self, seq: int, e: ev.RulesetVoided) -> tuple[Any, ...]:
        lid = str(e.originator_id)
        ladder = self._ladder(lid, seq)
        data = self._void_entry(ladder, f"{lid}/{e.adopted:06d}")
        name = self.ladders[lid][2]
        if not data:
            return ladder, seq, Message("{ladder}: ruleset voided", ladder=name)
        if str(data["effective"]) == START:
            return ladder, seq, Message(
                "{ladder}: {family} ruleset from the start voided",
                ladder=name, family=data["family"],
            )  # fmt: skip
        return ladder, seq, Message(
            "{ladder}: {family} ruleset from {on} voided",
            ladder=name, family=data["family"], on=str(data["effective"]),
        )  # fmt: skip

    # -- helpers ----------------------------------------------------------------
    def _void_entry(self, ladder: int, entry_id: str) -> dict[str, Any] | None:
        """Take a season close, adjustment or ruleset out of a ladder's
        timeline (pending or written); returns its data (None if absent)."""
        found = None
        for i, row in enumerate(self._entries):
            if row[1] == ladder and row[4] == entry_id:
                _, _, key, _, _, on, data = self._entries.pop(i)
                found = key, on, data
                break
        else:
            found = self.conn.execute(
                "SELECT key, date, data FROM view_entries WHERE ladder=? AND id=?",
                (ladder, entry_id),
            ).fetchone()
            if found is not None:
                self.conn.execute(
                    "DELETE FROM view_entries WHERE ladder=? AND id=?", (ladder, entry_id)
                )
        if found is None:
            return None
        key, on, data = found
        if self.entries is not None:
            self.entries.drop(ladder, key)
        self._touch(ladder, key)
        return {**msgspec.json.decode(data), "effective": on}

    def _touch(self, ladder: int, key: str) -> None:
        if ladder not in self.affected or key < self.affected[ladder]:
            self.affected[ladder] = key

    def _touch_ladders_of(self, player: int) -> None:
        """Every ladder the player has history in replays from its start."""
        for ladder in history.ladders_of(self.conn, player):
            self._touch(ladder, "")

    def _ladder(self, lid: str, seq: int) -> int:
        """The number of ladder ``lid`` (a placeholder row when the ladder's
        opening is not in the store, so its entries still have a ladder)."""
        row = self.ladders.get(lid)
        if row is None:
            row = self.ladders[lid] = [seq, lid, lid, lid, None, None]
            self._dirty_ladders.add(lid)
            if self._rebuild:
                self._touch(seq, "")
        return row[0]

    def _player(self, pid: str, seq: int) -> list[Any]:
        row = self._player_row(pid)
        if row is None:  # named before registered (a partial store): by id
            row = self.players[pid] = [seq, pid, pid, pid, None, None]
            self._numbers.add(pid, seq)
            self._dirty_players.add(pid)
        return row

    def _player_row(self, pid: str) -> list[Any] | None:
        """A player's row (None: no such player): held, else in a catch-up
        read from the views (its number held too)."""
        row = self.players.get(pid)
        if row is None and not self._rebuild:
            found = self.conn.execute(
                f"SELECT {_PLAYER} FROM view_players WHERE id=?", (pid,)
            ).fetchone()
            if found is not None:
                row = self.players[pid] = list(found)
                self._numbers.add(pid, row[0])
        return row

    def _play(self, facts: source.Facts, sides: tuple[tuple[str, ...], ...]) -> Play:
        """A game as the timeline holds it: small, its values shared."""
        event = facts.event
        if event is not None:
            event = self._strings.setdefault(event, event)
        return Play(sides, self._shared.result(facts.result), event, facts.round, facts.neutral,
                    facts.attributes or _NO_ATTRIBUTES)  # fmt: skip

    def _name(self, pid: str | None) -> str:
        row = self._player_row(pid) if pid is not None else None
        return row[2] if row is not None else str(pid)

    def _game(self, gid: str) -> list[Any]:
        """A game's row (pending, else read back to be updated)."""
        game = self._games.get(gid)
        if game is not None:
            return game
        numbers = self._game_numbers
        found = games.game_for_update(
            self.conn, numbers.get(gid) if numbers is not None else None, gid
        )
        if found is None:
            raise LookupError(f"game {gid} is changed in the event store but never recorded")
        game = self._games[gid] = found
        self._old_games.append(game)
        return game

    def _drop_entry(self, game: list[Any]) -> None:
        """Remove a game's current timeline entry (none when voided)."""
        ladder, key = game[LADDER], games.whole_key(game)
        if self.entries is not None:
            self.entries.drop(ladder, key)
        self._touch(ladder, key)

    def _put_entry(self, ladder: int, entry: Entry) -> None:
        if entry.kind != "game":
            data = _text(entry.data)
            self._entries.append(
                (entry.n, ladder, entry.key, entry.kind, entry.id, entry.date, data)
            )
        if self.entries is not None:
            self.entries.others += 1
            self.entries.ladder(ladder)[entry.key] = entry
        self._touch(ladder, entry.key)


def _source(where: ev.Source | None) -> str | None:
    return f"{where.file}:{where.row}" if where else None


def _recorded_at(event: Any) -> datetime:
    if isinstance(event, source.GameNote):
        return datetime.fromisoformat(event.recorded_at)
    return event.recorded_at


def adjusted(data: Mapping[str, Any]) -> Message:
    """What an adjustment's entry data does, in words (a sentence of its
    parts, each translated)."""
    parts = []
    if data.get("to") is not None:
        parts.append(Message("set to {value:g}", value=data["to"]))
    elif data.get("by") is not None:
        parts.append(Message("shifted by {value:+g}", value=data["by"]))
    parts += [
        Message("{name} set to {value:g}", name=name, value=value)
        for name, value in (data.get("state") or {}).items()
    ]
    if not parts:
        return Message("nothing changed")
    what = parts[-1]
    for part in reversed(parts[:-1]):
        what = Message("{first}, {then}", first=part, then=what)
    return what
