"""The projector handles every event class the ledger stores, by type."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from ledger.kernel import events as ev
from projections import views
from projections.db import SQLiteDatabase
from projections.views.projector import KIND_NAMES, Projector


def test_every_event_class_has_a_handler_and_an_audit_name() -> None:
    registry = Projector.HANDLERS
    assert set(ev.EVENT_CLASSES) <= set(registry)
    assert all(callable(getattr(Projector, name)) for name in registry.values())
    assert set(KIND_NAMES) == set(ev.EVENT_CLASSES)


def test_an_unknown_event_class_is_refused() -> None:
    class Stray(ev.LedgerEvent, frozen=True, kw_only=True):
        TOPIC = "test:Stray"

    stray = Stray(
        originator_id=uuid.uuid4(),
        originator_version=1,
        recorded_at=datetime(2026, 1, 1, tzinfo=UTC),
        recorded_by="tester",
    )
    projector = Projector(views.connect(SQLiteDatabase(":memory:")))
    with pytest.raises(TypeError, match="no projection for Stray"):
        projector.apply(1, stray)


def test_a_game_is_keyed_as_any_entry_of_the_timeline() -> None:
    """``GAME_KEY`` (the projector's and ``game_key``'s one format) gives
    ``sort_key`` of a game."""
    from projections.timeline import game_key, sort_key
    from projections.views.source import Facts

    for event, round_, sequence, table in [
        (None, None, None, None),
        ("Cup", 3, 12, 4),
        ("Cup", None, None, 7),
        ("", 0, 0, None),
    ]:
        facts = Facts("ladder", "2025-03-04", [["a"], ["b"]], {}, event, round_, table,
                      sequence=sequence)  # fmt: skip
        order = sequence if sequence is not None else table
        assert game_key("gid", facts) == sort_key("2025-03-04", "game", "gid", event, round_, order)


def test_the_projector_keys_each_game_as_game_key_does() -> None:
    """The projector writes a game's key inline (once a game); it is
    ``game_key``'s, for rounds and orders written from the table of the
    first thousand and past it, events or none, and reads back whole."""
    from datetime import date

    from projections.timeline import game_key
    from projections.views import games
    from tests.read_side.ledger_builder import Builder

    b = Builder()
    b.ladder("Club")
    b.player("Ann", "Ben")
    made = [
        b.game("Club", date(2025, 3, 4), "Ann", "Ben", event=event, round=round_, table=table,
               sequence=sequence)
        for event, round_, table, sequence in [
            ("Cup", 3, None, 12), ("Cup", 1500, None, 999), ("Cup", 999, None, 1000),
            (None, None, 7, None), ("Open", 2, None, 10**9 - 1),
        ]
    ]  # fmt: skip
    conn = b.views()
    ladder = conn.execute("SELECT n FROM view_ladders").fetchone()[0]
    keys = [entry.key for entry in games.timeline_page(conn, ladder, "", 100)]
    assert sorted(keys) == keys
    assert set(keys) == {game_key(str(gid), b.facts[gid]) for gid in made}
