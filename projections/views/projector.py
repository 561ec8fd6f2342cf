"""The projector: applies decoded events to the timeline tables (ladders,
players, games, each ladder's entries) and the audit log, and notes per
ladder the earliest effective key that changed (where its replay starts).

One handler per event class, dispatched on the event's type
(``functools.singledispatchmethod``, as eventsourcing's ``projection.py``
does): a renamed or removed event class fails at import, not at run time.
"""

from __future__ import annotations

from datetime import date
from functools import singledispatchmethod
from typing import Any

import msgspec

from ledger import events as ev
from ledger.identity import name_key, short
from projections.db import Database
from projections.timeline import game_key, sort_key
from projections.views.problems import effective

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

_json = msgspec.json.Encoder()


def _text(data: Any) -> str:
    return _json.encode(data).decode()


class Projector:
    """Applies events to the timeline tables of ``conn`` (inside the
    caller's transaction); ``affected`` maps each ladder to the earliest
    effective key that changed."""

    def __init__(self, conn: Database) -> None:
        self.conn = conn
        self.affected: dict[str, str] = {}
        # Inserts are batched (one executemany per table and page of events);
        # ``flush`` runs before any handler that reads or deletes those rows.
        self.pending: dict[str, list[tuple[Any, ...]]] = {
            "view_audit": [],
            "view_games": [],
            "view_entries": [],
        }
        self.names = dict(conn.execute("SELECT id, name FROM view_players").fetchall())
        self.ladder_names = dict(conn.execute("SELECT id, name FROM view_ladders").fetchall())

    def apply(self, seq: int, event: ev.LedgerEvent) -> None:
        """Apply one event, stored at ``seq``, and log it in the audit."""
        ladder, summary = self.project(event)
        source = f"{event.source.file}:{event.source.row}" if event.source else None
        self.pending["view_audit"].append(
            (
                seq,
                event.recorded_at.isoformat(),
                event.recorded_by,
                KIND_NAMES[type(event)],
                ladder,
                summary,
                event.reason,
                source,
            )
        )

    def flush(self) -> None:
        for table, rows in self.pending.items():
            if rows:
                marks = ",".join("?" * len(rows[0]))
                self.conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
                rows.clear()

    # -- one handler per event class: returns (ladder id, audit summary) ------
    @singledispatchmethod
    def project(self, event: ev.LedgerEvent) -> tuple[str | None, str]:
        raise TypeError(f"no projection for {type(event).__name__}")

    @project.register
    def _(self, e: ev.LadderOpened) -> tuple[str | None, str]:
        lid = str(e.originator_id)
        self.ladder_names[lid] = e.name
        self.conn.execute(
            "INSERT INTO view_ladders (id, name, key, opened_at, opened_by) VALUES (?,?,?,?,?)",
            (lid, e.name, name_key(e.name), e.recorded_at.isoformat(), e.recorded_by),
        )
        return lid, f"ladder {e.name!r} opened"

    @project.register
    def _(self, e: ev.RulesetAdopted) -> tuple[str | None, str]:
        lid = str(e.originator_id)
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
        self._put_entry(lid, key, "ruleset", entry_id, e.effective, data)
        return lid, (
            f"{self._ladder_name(lid)}: {e.family} ruleset {effective(e.effective)}: "
            f"{_text(e.params)}"
        )

    @project.register
    def _(self, e: ev.PlayerRegistered) -> tuple[str | None, str]:
        self.names[str(e.originator_id)] = e.name
        self.conn.execute(
            "INSERT INTO view_players (id, name, key, registered_at) VALUES (?,?,?,?)",
            (str(e.originator_id), e.name, name_key(e.name), e.recorded_at.isoformat()),
        )
        return None, f"player {e.name!r} registered"

    @project.register
    def _(self, e: ev.PlayerRenamed) -> tuple[str | None, str]:
        old = self._name(e.originator_id)
        self.names[str(e.originator_id)] = e.name
        self.conn.execute(
            "UPDATE view_players SET name=?, key=? WHERE id=?",
            (e.name, name_key(e.name), str(e.originator_id)),
        )
        return None, f"player {old!r} renamed {e.name!r}"

    @project.register
    def _(self, e: ev.PlayerMerged) -> tuple[str | None, str]:
        pid = str(e.originator_id)
        self.flush()
        self.conn.execute("UPDATE view_players SET merged_into=? WHERE id=?", (str(e.into), pid))
        self._touch_ladders_of(pid)
        return None, f"player {self._name(pid)!r} merged into {self._name(e.into)!r}"

    @project.register
    def _(self, e: ev.PlayerUnmerged) -> tuple[str | None, str]:
        pid = str(e.originator_id)
        self.flush()
        into = self.conn.execute(
            "SELECT merged_into FROM view_players WHERE id=?", (pid,)
        ).fetchone()[0]
        self.conn.execute("UPDATE view_players SET merged_into=NULL WHERE id=?", (pid,))
        # Their games were replayed as the other player's: replay those ladders.
        self._touch_ladders_of(into)
        return None, f"player {self._name(pid)!r} unmerged from {self._name(into)!r}"

    @project.register
    def _(self, e: ev.GameRecorded) -> tuple[str | None, str]:
        gid = str(e.originator_id)
        ladder, key, data = self._game_entry(gid, e.game)
        if e.originator_version > 1:  # recorded again after a void
            self.flush()
            self.conn.execute(
                "UPDATE view_games SET ladder=?, key=?, status='recorded', facts=?, version=? "
                "WHERE id=?",
                (ladder, key, _text(data), e.originator_version, gid),
            )
        else:
            self.pending["view_games"].append(
                (
                    gid,
                    short(gid),
                    ladder,
                    key,
                    "recorded",
                    _text(data),
                    e.recorded_at.isoformat(),
                    e.recorded_by,
                    1,
                )
            )
        self._put_entry(ladder, key, "game", gid, e.game.date, data)
        again = " (recorded again after a void)" if e.originator_version > 1 else ""
        return ladder, f"game {short(gid)}{again}: {self._describe(e.game)}"

    @project.register
    def _(self, e: ev.GameCorrected) -> tuple[str | None, str]:
        gid = str(e.originator_id)
        self._drop_entry_of(gid)
        ladder, key, data = self._game_entry(gid, e.game)
        self.conn.execute(
            "UPDATE view_games SET ladder=?, key=?, status='corrected', facts=?, version=? "
            "WHERE id=?",
            (ladder, key, _text(data), e.originator_version, gid),
        )
        self._put_entry(ladder, key, "game", gid, e.game.date, data)
        return ladder, f"game {short(gid)} corrected: {self._describe(e.game)}"

    @project.register
    def _(self, e: ev.GameVoided) -> tuple[str | None, str]:
        gid = str(e.originator_id)
        ladder = self._drop_entry_of(gid)
        self.conn.execute(
            "UPDATE view_games SET status='voided', version=? WHERE id=?",
            (e.originator_version, gid),
        )
        return ladder, f"game {short(gid)} voided"

    @project.register
    def _(self, e: ev.SeasonClosed) -> tuple[str | None, str]:
        ladder, sid = str(e.ladder), str(e.originator_id)
        key = sort_key(e.end, "season", sid)
        data = {"label": e.label, "start": e.start.isoformat(), "end": e.end.isoformat()}
        self._put_entry(ladder, key, "season", sid, e.end, data)
        return ladder, f"season {e.label} closed ({e.start} to {e.end})"

    @project.register
    def _(self, e: ev.RatingAdjusted) -> tuple[str | None, str]:
        ladder, aid = str(e.ladder), str(e.originator_id)
        key = sort_key(e.effective, "adjust", aid)
        data = {"player": str(e.player), "to": e.to, "by": e.by, "reason": e.reason}
        self._put_entry(ladder, key, "adjust", aid, e.effective, data)
        what = f"set to {e.to:g}" if e.to is not None else f"shifted by {e.by:+g}"
        return ladder, f"rating of {self._name(e.player)!r} {what} from {e.effective}"

    # -- helpers ----------------------------------------------------------------
    def _touch(self, ladder: str, key: str) -> None:
        if ladder not in self.affected or key < self.affected[ladder]:
            self.affected[ladder] = key

    def _touch_ladders_of(self, player: str) -> None:
        """Every ladder the player has history in replays from its start."""
        for (ladder,) in self.conn.execute(
            "SELECT DISTINCT ladder FROM view_history WHERE player=?", (player,)
        ).fetchall():
            self._touch(ladder, "")

    def _name(self, player: Any) -> str:
        return self.names.get(str(player), str(player))

    def _ladder_name(self, ladder: Any) -> str:
        return self.ladder_names.get(str(ladder), str(ladder))

    def _game_entry(self, gid: str, facts: ev.GameFacts) -> tuple[str, str, dict[str, Any]]:
        return str(facts.ladder), game_key(gid, facts), msgspec.to_builtins(facts)

    def _drop_entry_of(self, gid: str) -> str:
        """Remove a game's current timeline entry; returns its ladder."""
        self.flush()  # the game, or its entry, may still be pending
        key, ladder = self.conn.execute(
            "SELECT key, ladder FROM view_games WHERE id=?", (gid,)
        ).fetchone()
        self.conn.execute("DELETE FROM view_entries WHERE ladder=? AND key=?", (ladder, key))
        self._touch(ladder, key)
        return ladder

    def _describe(self, facts: ev.GameFacts) -> str:
        sides = " vs ".join(" & ".join(self._name(p) for p in side) for side in facts.sides)
        where = f" {facts.event} r{facts.round}" if facts.event else ""
        result = " ".join(f"{k}={v}" for k, v in facts.result.items() if v is not None)
        return f"{facts.date}{where}: {sides} ({result})"

    def _put_entry(
        self, ladder: str, key: str, kind: str, entry_id: str, on: date, data: dict[str, Any]
    ) -> None:
        event = data.get("event") if kind == "game" else None
        self.pending["view_entries"].append(
            (ladder, key, kind, entry_id, on.isoformat(), event, _text(data))
        )
        self._touch(ladder, key)
