"""The views queries read, and the projection that keeps them current.

``catch_up`` reads new notifications straight from the event store's recorder
(never through aggregates), decodes them with msgspec, updates the timeline of
each ladder, replays what changed and moves the tracking position, all in one
transaction: a crash never leaves a view half-applied.

Tables (prefixed ``view_``, in the event store's database) are disposable:
``rebuild`` drops them and builds them again from the events alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date, datetime
from typing import Any

import msgspec

from ledger import events as ev
from ledger.identity import name_key, short
from projections.chain import SCHEMA as CHAIN_SCHEMA
from projections.chain import Chainer
from projections.db import Database, SQLiteDatabase
from projections.families.base import PlayerState
from projections.replay import Entry, Replay, Row, resolve_merges
from projections.timeline import sort_key

SCHEMA = """
CREATE TABLE IF NOT EXISTS view_tracking (
    name TEXT PRIMARY KEY, position INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS view_ladders (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, key TEXT NOT NULL,
    opened_at TEXT, opened_by TEXT, frontier TEXT NOT NULL DEFAULT '',
    since_checkpoint INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS view_players (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, key TEXT NOT NULL,
    merged_into TEXT, registered_at TEXT);
CREATE INDEX IF NOT EXISTS view_players_key ON view_players (key);
CREATE TABLE IF NOT EXISTS view_games (
    id TEXT PRIMARY KEY, short TEXT NOT NULL, ladder TEXT NOT NULL,
    key TEXT NOT NULL, status TEXT NOT NULL, facts TEXT NOT NULL,
    recorded_at TEXT, recorded_by TEXT, version INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS view_games_short ON view_games (short);
CREATE TABLE IF NOT EXISTS view_entries (
    ladder TEXT NOT NULL, key TEXT NOT NULL, kind TEXT NOT NULL,
    id TEXT NOT NULL, date TEXT NOT NULL, event TEXT, data TEXT NOT NULL,
    PRIMARY KEY (ladder, key));
CREATE INDEX IF NOT EXISTS view_entries_kind ON view_entries (ladder, kind, key);
CREATE TABLE IF NOT EXISTS view_checkpoints (
    ladder TEXT NOT NULL, key TEXT NOT NULL, states BLOB NOT NULL,
    PRIMARY KEY (ladder, key));
CREATE TABLE IF NOT EXISTS view_history (
    ladder TEXT NOT NULL, key TEXT NOT NULL, entry TEXT NOT NULL,
    kind TEXT NOT NULL, player TEXT NOT NULL, date TEXT NOT NULL,
    event TEXT, round INTEGER, side INTEGER NOT NULL, opponents TEXT NOT NULL,
    s REAL, p REAL, k REAL, before REAL NOT NULL, change REAL NOT NULL,
    after REAL NOT NULL, games_before INTEGER NOT NULL,
    games_after INTEGER NOT NULL, note TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS view_history_key ON view_history (ladder, key);
CREATE INDEX IF NOT EXISTS view_history_player ON view_history (ladder, player, key);
CREATE TABLE IF NOT EXISTS view_standings (
    ladder TEXT NOT NULL, player TEXT NOT NULL, rating REAL NOT NULL,
    games INTEGER NOT NULL, last_played TEXT, rated_since TEXT,
    PRIMARY KEY (ladder, player));
CREATE TABLE IF NOT EXISTS view_audit (
    seq INTEGER PRIMARY KEY, recorded_at TEXT NOT NULL, recorded_by TEXT NOT NULL,
    kind TEXT NOT NULL, ladder TEXT, summary TEXT NOT NULL, reason TEXT,
    source TEXT);
"""

TABLES = (
    "view_tracking",
    "view_ladders",
    "view_players",
    "view_games",
    "view_entries",
    "view_checkpoints",
    "view_history",
    "view_standings",
    "view_audit",
)

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
}

PAGE = 5000
_json = msgspec.json.Encoder()


#: Bump when the view tables change shape: views of another version are
#: dropped on connect and rebuilt from the events by the next catch-up.
VERSION = 8


def connect(db: Database) -> Database:
    """Make sure the view tables exist and are of this code's shape."""
    db.script("CREATE TABLE IF NOT EXISTS view_version (version INTEGER NOT NULL)")
    row = db.execute("SELECT version FROM view_version").fetchone()
    if row is None or row[0] != VERSION:
        for table in TABLES:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        db.execute("DELETE FROM view_version")
        db.execute("INSERT INTO view_version VALUES (?)", (VERSION,))
    db.script(SCHEMA)
    db.script(CHAIN_SCHEMA)
    return db


def position(conn: Database) -> int:
    row = conn.execute("SELECT position FROM view_tracking WHERE name='views'").fetchone()
    return row[0] if row else 0


def catch_up(
    conn: Database,
    recorder: Any,
    known_at: datetime | None = None,
    chain: bool = True,
) -> int:
    """Bring the views up to the last event recorded; returns the number of
    events applied. Safe to run from several processes: the transaction is
    taken before the tracking position is read.

    ``known_at`` keeps only events recorded at or before that moment (the
    ledger as it was then); ``chain`` extends the hash chain as events are
    first seen (off for throwaway in-memory views).
    """
    conn.begin_exclusive()
    try:
        start = position(conn)
        projector = _Projector(conn)
        chainer = Chainer(conn) if chain else None
        applied = 0
        while True:
            notes = recorder.select_notifications(start, PAGE, inclusive_of_start=False)
            if not notes:
                break
            for note in notes:
                start = note.id
                if chainer is not None:
                    chainer.add(note)
                event = ev.decode(note.topic, note.state)
                if known_at is not None and event.recorded_at > known_at:
                    continue
                projector.apply(note.id, event)
                applied += 1
            projector.flush()
        if start != position(conn):
            projector.replay_affected()
            conn.execute(
                "INSERT INTO view_tracking (name, position) VALUES ('views', ?) "
                "ON CONFLICT (name) DO UPDATE SET position = excluded.position",
                (start,),
            )
        conn.commit()
        return applied
    except BaseException:
        conn.rollback()
        raise


def rebuild(conn: Database, recorder: Any) -> int:
    """Drop every view and rebuild it from the events alone."""
    for table in TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.script(SCHEMA)
    return catch_up(conn, recorder)


def apply_events(conn: Database, events: list[Any]) -> None:
    """Project events not (yet) in the store onto ``conn`` (a preview: used by
    ``import --dry-run`` on throwaway in-memory views)."""
    conn.begin_exclusive()
    try:
        projector = _Projector(conn)
        seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM view_audit").fetchone()[0]
        for offset, event in enumerate(events, start=1):
            projector.apply(seq + offset, event)
        projector.replay_affected()
        conn.commit()
    except BaseException:
        conn.rollback()
        raise


def in_memory(recorder: Any, known_at: datetime | None = None) -> Database:
    """Throwaway views built from the events alone (for verify, time travel)."""
    conn = connect(SQLiteDatabase(":memory:"))
    catch_up(conn, recorder, known_at=known_at, chain=False)
    return conn


class _Projector:
    """Applies decoded events to the timeline tables, noting per ladder the
    earliest effective key that changed; then replays from there."""

    def __init__(self, conn: Database) -> None:
        self.conn = conn
        self.affected: dict[str, str] = {}
        # Inserts are batched (one executemany per table and page of events);
        # ``flush`` runs before any handler that reads or deletes those rows.
        self.pending: dict[str, list[tuple[Any, ...]]] = {
            "view_audit": [], "view_games": [], "view_entries": [],
        }  # fmt: skip
        self.names = dict(conn.execute("SELECT id, name FROM view_players").fetchall())
        self.ladder_names = dict(conn.execute("SELECT id, name FROM view_ladders").fetchall())

    def flush(self) -> None:
        for table, rows in self.pending.items():
            if rows:
                marks = ",".join("?" * len(rows[0]))
                self.conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
                rows.clear()

    def _touch(self, ladder: str, key: str) -> None:
        if ladder not in self.affected or key < self.affected[ladder]:
            self.affected[ladder] = key

    def _name(self, player: Any) -> str:
        return self.names.get(str(player), str(player))

    def _ladder_name(self, ladder: Any) -> str:
        return self.ladder_names.get(str(ladder), str(ladder))

    def apply(self, seq: int, event: Any) -> None:
        handler = getattr(self, "_" + type(event).__name__)
        ladder, summary = handler(event)
        source = f"{event.source.file}:{event.source.row}" if event.source else None
        self.pending["view_audit"].append(
            (seq, event.recorded_at.isoformat(), event.recorded_by, KIND_NAMES[type(event)],
             ladder, summary, event.reason, source)
        )  # fmt: skip

    # -- one handler per event class: returns (ladder id, audit summary) ----
    def _LadderOpened(self, e: ev.LadderOpened) -> tuple[str, str]:
        lid = str(e.originator_id)
        self.ladder_names[lid] = e.name
        self.conn.execute(
            "INSERT INTO view_ladders (id, name, key, opened_at, opened_by) VALUES (?,?,?,?,?)",
            (lid, e.name, name_key(e.name), e.recorded_at.isoformat(), e.recorded_by),
        )
        return lid, f"ladder {e.name!r} opened"

    def _RulesetAdopted(self, e: ev.RulesetAdopted) -> tuple[str, str]:
        lid = str(e.originator_id)
        entry_id = f"{lid}/{e.originator_version:06d}"  # sorts in recording order
        key = sort_key(e.effective, "ruleset", entry_id)
        data = {
            "family": e.family,
            "params": e.params,
            "recorded_at": e.recorded_at.isoformat(),
            "recorded_by": e.recorded_by,
            "reason": e.reason,
        }
        self._put_entry(lid, key, "ruleset", entry_id, e.effective, data)
        return lid, (
            f"{self._ladder_name(lid)}: {e.family} ruleset {_from(e.effective)}: "
            f"{_json.encode(e.params).decode()}"
        )

    def _PlayerRegistered(self, e: ev.PlayerRegistered) -> tuple[None, str]:
        self.names[str(e.originator_id)] = e.name
        self.conn.execute(
            "INSERT INTO view_players (id, name, key, registered_at) VALUES (?,?,?,?)",
            (str(e.originator_id), e.name, name_key(e.name), e.recorded_at.isoformat()),
        )
        return None, f"player {e.name!r} registered"

    def _PlayerRenamed(self, e: ev.PlayerRenamed) -> tuple[None, str]:
        old = self._name(e.originator_id)
        self.names[str(e.originator_id)] = e.name
        self.conn.execute(
            "UPDATE view_players SET name=?, key=? WHERE id=?",
            (e.name, name_key(e.name), str(e.originator_id)),
        )
        return None, f"player {old!r} renamed {e.name!r}"

    def _PlayerMerged(self, e: ev.PlayerMerged) -> tuple[None, str]:
        pid = str(e.originator_id)
        self.flush()
        self.conn.execute("UPDATE view_players SET merged_into=? WHERE id=?", (str(e.into), pid))
        for (ladder,) in self.conn.execute(
            "SELECT DISTINCT ladder FROM view_history WHERE player=?", (pid,)
        ).fetchall():
            self._touch(ladder, "")
        return None, f"player {self._name(pid)!r} merged into {self._name(e.into)!r}"

    def _PlayerUnmerged(self, e: ev.PlayerUnmerged) -> tuple[None, str]:
        pid = str(e.originator_id)
        self.flush()
        into = self.conn.execute(
            "SELECT merged_into FROM view_players WHERE id=?", (pid,)
        ).fetchone()[0]
        self.conn.execute("UPDATE view_players SET merged_into=NULL WHERE id=?", (pid,))
        # Their games were replayed as the other player's: replay those ladders.
        for (ladder,) in self.conn.execute(
            "SELECT DISTINCT ladder FROM view_history WHERE player=?", (into,)
        ).fetchall():
            self._touch(ladder, "")
        return None, f"player {self._name(pid)!r} unmerged from {self._name(into)!r}"

    def _game_entry(self, gid: str, facts: ev.GameFacts) -> tuple[str, str, dict[str, Any]]:
        key = sort_key(facts.date, "game", gid, facts.event, facts.round, facts.table)
        return str(facts.ladder), key, msgspec.to_builtins(facts)

    def _GameRecorded(self, e: ev.GameRecorded) -> tuple[str, str]:
        gid = str(e.originator_id)
        ladder, key, data = self._game_entry(gid, e.game)
        if e.originator_version > 1:  # recorded again after a void
            self.flush()
            self.conn.execute(
                "UPDATE view_games SET ladder=?, key=?, status='recorded', facts=?, version=? "
                "WHERE id=?",
                (ladder, key, _json.encode(data).decode(), e.originator_version, gid),
            )
        else:
            self.pending["view_games"].append(
                (gid, short(gid), ladder, key, "recorded", _json.encode(data).decode(),
                 e.recorded_at.isoformat(), e.recorded_by, 1),
            )  # fmt: skip
        self._put_entry(ladder, key, "game", gid, e.game.date, data)
        again = " (recorded again after a void)" if e.originator_version > 1 else ""
        return ladder, f"game {short(gid)}{again}: {self._describe(e.game)}"

    def _GameCorrected(self, e: ev.GameCorrected) -> tuple[str, str]:
        gid = str(e.originator_id)
        old_key, old_ladder = self._game_row(gid)
        self.conn.execute(
            "DELETE FROM view_entries WHERE ladder=? AND key=?", (old_ladder, old_key)
        )
        self._touch(old_ladder, old_key)
        ladder, key, data = self._game_entry(gid, e.game)
        self.conn.execute(
            "UPDATE view_games SET ladder=?, key=?, status='corrected', facts=?, version=? "
            "WHERE id=?",
            (ladder, key, _json.encode(data).decode(), e.originator_version, gid),
        )
        self._put_entry(ladder, key, "game", gid, e.game.date, data)
        return ladder, f"game {short(gid)} corrected: {self._describe(e.game)}"

    def _GameVoided(self, e: ev.GameVoided) -> tuple[str, str]:
        gid = str(e.originator_id)
        old_key, ladder = self._game_row(gid)
        self.conn.execute("DELETE FROM view_entries WHERE ladder=? AND key=?", (ladder, old_key))
        self.conn.execute(
            "UPDATE view_games SET status='voided', version=? WHERE id=?",
            (e.originator_version, gid),
        )
        self._touch(ladder, old_key)
        return ladder, f"game {short(gid)} voided"

    def _SeasonClosed(self, e: ev.SeasonClosed) -> tuple[str, str]:
        ladder, sid = str(e.ladder), str(e.originator_id)
        key = sort_key(e.end, "season", sid)
        data = {"label": e.label, "start": e.start.isoformat(), "end": e.end.isoformat()}
        self._put_entry(ladder, key, "season", sid, e.end, data)
        return ladder, f"season {e.label} closed ({e.start} to {e.end})"

    def _RatingAdjusted(self, e: ev.RatingAdjusted) -> tuple[str, str]:
        ladder, aid = str(e.ladder), str(e.originator_id)
        key = sort_key(e.effective, "adjust", aid)
        data = {"player": str(e.player), "to": e.to, "by": e.by, "reason": e.reason}
        self._put_entry(ladder, key, "adjust", aid, e.effective, data)
        what = f"set to {e.to:g}" if e.to is not None else f"shifted by {e.by:+g}"
        return ladder, f"rating of {self._name(e.player)!r} {what} from {e.effective}"

    def _game_row(self, gid: str) -> tuple[str, str]:
        self.flush()  # the game, or its entry, may still be pending
        row = self.conn.execute("SELECT key, ladder FROM view_games WHERE id=?", (gid,)).fetchone()
        return row[0], row[1]

    def _describe(self, facts: ev.GameFacts) -> str:
        sides = " vs ".join(" & ".join(self._name(p) for p in side) for side in facts.sides)
        where = f" {facts.event} r{facts.round}" if facts.event else ""
        result = " ".join(f"{k}={v}" for k, v in facts.result.items() if v is not None)
        return f"{facts.date}{where}: {sides} ({result})"

    def _put_entry(
        self, ladder: str, key: str, kind: str, entry_id: str, on: date, data: dict[str, Any]
    ) -> None:
        self.pending["view_entries"].append(
            (ladder, key, kind, entry_id, on.isoformat(), data.get("event") if kind == "game"
             else None, _json.encode(data).decode()),
        )  # fmt: skip
        self._touch(ladder, key)

    # -- replay ---------------------------------------------------------------
    def replay_affected(self) -> None:
        self.flush()
        merges = resolve_merges(
            dict(self.conn.execute(
                "SELECT id, merged_into FROM view_players WHERE merged_into IS NOT NULL"
            ).fetchall())
        )  # fmt: skip
        for ladder, key in sorted(self.affected.items()):
            replay_ladder(self.conn, ladder, key, merges)


def ladder_entries(conn: Database, ladder: str, after: str | None) -> Iterator[Entry]:
    """A ladder's entries in effective order after a key (or all), read in
    pages so a replay of a large ladder holds only one page in memory."""
    decode = msgspec.json.Decoder(dict[str, Any]).decode
    last = "" if after is None else after
    while True:
        page = conn.execute(
            "SELECT key, kind, id, date, data FROM view_entries "
            "WHERE ladder=? AND key>? ORDER BY key LIMIT ?",
            (ladder, last, ENTRY_PAGE),
        ).fetchall()
        for key, kind, entry_id, on, data in page:
            yield Entry(key, kind, entry_id, date.fromisoformat(on), decode(data))
        if len(page) < ENTRY_PAGE:
            return
        last = page[-1][0]


ENTRY_PAGE = 20000


def ladder_event_ends(conn: Database, ladder: str) -> dict[str, str]:
    """The key of each event's last game, when a ruleset of the ladder rates
    per event (otherwise no event needs closing)."""
    rulesets = conn.execute(
        "SELECT data FROM view_entries WHERE ladder=? AND kind='ruleset'", (ladder,)
    ).fetchall()
    if not any(_family_of(msgspec.json.decode(r[0])).per_event for r in rulesets):
        return {}
    return dict(
        conn.execute(
            "SELECT event, MAX(key) FROM view_entries WHERE ladder=? AND kind='game' "
            "AND event IS NOT NULL GROUP BY event",
            (ladder,),
        ).fetchall()
    )


CHECKPOINT_EVERY = 2000  # games between checkpoints (besides event and season closes)
_states_encoder = msgspec.msgpack.Encoder()
_states_decoder = msgspec.msgpack.Decoder(dict[str, PlayerState])


def ruleset_in_force(conn: Database, ladder: str, key: str) -> dict[str, Any] | None:
    """The ruleset entry (family, params, who, why) in force at ``key``: the
    latest adopted at or before it."""
    row = conn.execute(
        "SELECT data FROM view_entries WHERE ladder=? AND kind='ruleset' AND key<=? "
        "ORDER BY key DESC LIMIT 1",
        (ladder, key),
    ).fetchone()
    return msgspec.json.decode(row[0]) if row else None


def _ruleset_before(conn: Database, ladder: str, key: str) -> Any:
    data = ruleset_in_force(conn, ladder, key)
    return _family_of(data) if data else None


def _restart_checkpoint(conn: Database, ladder: str, from_key: str, per_event: bool) -> str | None:
    """The latest checkpoint before ``from_key`` that no event straddles
    (a per-event family rates an event from the states before it began)."""
    keys = [
        k for (k,) in conn.execute(
            "SELECT key FROM view_checkpoints WHERE ladder=? AND key<? ORDER BY key DESC",
            (ladder, from_key),
        )
    ]  # fmt: skip
    if not keys or not per_event:
        return keys[0] if keys else None
    spans = conn.execute(
        "SELECT MIN(key), MAX(key) FROM view_entries WHERE ladder=? AND kind='game' "
        "AND event IS NOT NULL GROUP BY event",
        (ladder,),
    ).fetchall()
    for key in keys:
        if not any(lo <= key < hi for lo, hi in spans):
            return key
    return None


def replay_ladder(conn: Database, ladder: str, from_key: str, merges: dict[str, str]) -> None:
    """Replay a ladder's timeline from ``from_key`` and rewrite its history,
    standings and checkpoints from there.

    Appending after the ladder's frontier continues from the current standings
    (cost independent of the ladder's size). Any earlier change restarts from
    the last checkpoint before it, so it costs the entries after that
    checkpoint, not the ladder's size.
    """
    lrow = conn.execute(
        "SELECT frontier, since_checkpoint FROM view_ladders WHERE id=?", (ladder,)
    ).fetchone()
    frontier, since = (lrow[0], lrow[1]) if lrow else ("", 0)
    family = _ruleset_before(conn, ladder, frontier) if frontier else None
    ends = ladder_event_ends(conn, ladder)
    appending = family is not None and from_key > frontier and not family.per_event
    if appending:
        states = _load_standings(conn, ladder)
        after: str | None = frontier
    else:
        # Any period rated per event (not only the rules at the frontier)
        # forbids restarting inside one of its events.
        after = _restart_checkpoint(conn, ladder, from_key, bool(ends))
        if after is None:
            states, family, since = {}, None, 0
        else:
            blob = conn.execute(
                "SELECT states FROM view_checkpoints WHERE ladder=? AND key=?", (ladder, after)
            ).fetchone()[0]
            states = _states_decoder.decode(blob)
            family = _ruleset_before(conn, ladder, after)
            since = 0
        conn.execute("DELETE FROM view_history WHERE ladder=? AND key>?", (ladder, after or ""))
        conn.execute("DELETE FROM view_checkpoints WHERE ladder=? AND key>?", (ladder, after or ""))
        conn.execute("DELETE FROM view_standings WHERE ladder=?", (ladder,))

    def checkpoint(key: str, current: dict[str, PlayerState]) -> None:
        conn.execute(
            "INSERT INTO view_checkpoints VALUES (?,?,?) "
            "ON CONFLICT (ladder, key) DO UPDATE SET states = excluded.states",
            (ladder, key, _states_encoder.encode(current)),
        )

    replay = Replay(states, family, merges, ends)
    touched: set[str] = set()
    batch: list[tuple[Any, ...]] = []
    last_key = after or ""

    def entries() -> Iterator[Entry]:
        nonlocal last_key
        for entry in ladder_entries(conn, ladder, after):
            last_key = entry.key
            yield entry

    for row in replay.run(entries(), checkpoint, CHECKPOINT_EVERY, since):
        touched.add(row.player)
        batch.append(_history_tuple(ladder, row))
        if len(batch) >= 10000:
            _insert_history(conn, batch)
            batch = []
    _insert_history(conn, batch)
    conn.executemany(
        "INSERT INTO view_standings VALUES (?,?,?,?,?,?) ON CONFLICT (ladder, player) "
        "DO UPDATE SET rating = excluded.rating, games = excluded.games, "
        "last_played = excluded.last_played, rated_since = excluded.rated_since",
        [
            (ladder, p, s.rating, s.games, _iso(s.last_played), _iso(s.rated_since))
            for p, s in states.items()
            if p in touched or not appending
        ],
    )
    conn.execute(
        "UPDATE view_ladders SET frontier=?, since_checkpoint=? WHERE id=?",
        (last_key, replay.since_checkpoint, ladder),
    )


def _family_of(data: dict[str, Any]) -> Any:
    from projections.families.registry import load_family

    return load_family(data["family"], data["params"])


def _load_standings(conn: Database, ladder: str) -> dict[str, PlayerState]:
    return {
        player: PlayerState(
            rating=rating,
            games=games,
            last_played=date.fromisoformat(last) if last else None,
            rated_since=date.fromisoformat(since) if since else None,
        )
        for player, rating, games, last, since in conn.execute(
            "SELECT player, rating, games, last_played, rated_since "
            "FROM view_standings WHERE ladder=?",
            (ladder,),
        )
    }


def _history_tuple(ladder: str, row: Row) -> tuple[Any, ...]:
    return (ladder, row.key, row.entry, row.kind, row.player, row.date.isoformat(),
            row.event, row.round, row.side, row.opponents, row.s, row.p, row.k,
            row.before, row.change, row.after, row.games_before, row.games_after,
            row.note)  # fmt: skip


def _insert_history(conn: Database, batch: Iterable[tuple[Any, ...]]) -> None:
    conn.executemany(
        "INSERT INTO view_history VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", batch
    )


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


def _from(effective: date) -> str:
    return "from the start" if effective == date(1, 1, 1) else f"from {effective}"
