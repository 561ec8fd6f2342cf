"""Events built by hand and stored in an in-memory event store, for tests of
the read side that bypass the write side and the CLI."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, date, datetime
from typing import Any

from eventsourcing.persistence import StoredEvent
from eventsourcing.popo import POPOApplicationRecorder

from ledger.families.base import FamilyError
from ledger.families.registry import family_class
from ledger.kernel import events as ev
from projections import views
from projections.db import Database, SQLiteDatabase

BY = "tester"
START = date(1, 1, 1)


class Builder:
    """An event store and throwaway SQLite views, with short-hand events."""

    def __init__(self) -> None:
        self.recorder = POPOApplicationRecorder()
        self.versions: dict[uuid.UUID, int] = {}
        self.clock = itertools.count(1)
        self.players: dict[str, uuid.UUID] = {}
        self.ladders: dict[str, uuid.UUID] = {}
        self.facts: dict[uuid.UUID, ev.GameFacts] = {}

    # -- storing ------------------------------------------------------------------
    def _next(self, aggregate: uuid.UUID) -> dict[str, Any]:
        version = self.versions.get(aggregate, 0) + 1
        self.versions[aggregate] = version
        moment = datetime(2026, 1, 1, tzinfo=UTC).replace(microsecond=next(self.clock))
        return {
            "originator_id": aggregate,
            "originator_version": version,
            "recorded_at": moment,
            "recorded_by": BY,
        }

    def store(self, *events: ev.LedgerEvent) -> list[int]:
        """Append events; returns their notification ids."""
        return list(
            self.recorder.insert_events(
                [
                    StoredEvent(
                        originator_id=e.originator_id,
                        originator_version=e.originator_version,
                        topic=e.TOPIC,
                        state=ev.encode(e),
                    )
                    for e in events
                ]
            )
            or []
        )

    def views(self) -> Database:
        """Fresh views in memory, caught up."""
        conn = views.connect(SQLiteDatabase(":memory:"))
        views.catch_up(conn, self.recorder)
        return conn

    # -- short-hands ----------------------------------------------------------------
    def ladder(
        self,
        name: str,
        family: str = "elo",
        params: dict[str, Any] | None = None,
        family_version: int | None = None,
    ) -> uuid.UUID:
        lid = uuid.uuid5(uuid.NAMESPACE_URL, f"ladder:{name}")  # the same in every builder
        self.ladders[name] = lid
        self.store(ev.LadderOpened(**self._next(lid), name=name))
        self.rules(name, family, params or {}, START, family_version)
        return lid

    def rules(
        self,
        ladder: str,
        family: str,
        params: dict[str, Any],
        effective: date,
        family_version: int | None = None,
    ) -> None:
        """Adopt a ruleset (by default under the family's maths version of
        this installation, as the write side records it)."""
        lid = self.ladders[ladder]
        if family_version is None:
            family_version = _code_version(family)
        self.store(
            ev.RulesetAdopted(
                **self._next(lid),
                family=family,
                params=params,
                effective=effective,
                family_version=family_version,
            )
        )

    def player(self, *names: str) -> None:
        for name in names:
            pid = uuid.uuid5(uuid.NAMESPACE_URL, f"player:{name}")
            self.players[name] = pid
            self.store(ev.PlayerRegistered(**self._next(pid), name=name))

    def game(
        self,
        ladder: str,
        on: date,
        a: str,
        b: str,
        result: dict[str, Any] | None = None,
        game_id: uuid.UUID | None = None,
        store: bool = True,
        **facts: Any,
    ) -> uuid.UUID:
        """Record a two-sided game (``result`` defaults to a win of side A)."""
        gid = game_id or uuid.uuid4()
        self.facts[gid] = ev.GameFacts(
            ladder=self.ladders[ladder],
            date=on,
            sides=[[self.players[a]], [self.players[b]]],
            result={"result": "a"} if result is None else result,
            **facts,
        )
        if store:
            self.store(self.recorded(gid))
        return gid

    def recorded(self, gid: uuid.UUID) -> ev.GameRecorded:
        return ev.GameRecorded(**self._next(gid), game=self.facts[gid])

    def correct(self, gid: uuid.UUID, **changes: Any) -> None:
        import msgspec

        self.facts[gid] = msgspec.structs.replace(self.facts[gid], **changes)
        self.store(ev.GameCorrected(**self._next(gid), game=self.facts[gid], reason="fix"))

    def void(self, gid: uuid.UUID) -> None:
        self.store(ev.GameVoided(**self._next(gid), reason="void"))


def _code_version(family: str) -> int:
    try:
        return getattr(family_class(family), "version", 1)
    except FamilyError:
        return 1
