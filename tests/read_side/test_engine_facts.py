"""A game's facts are read from its event by one function
(``source.game_facts``): its lean decoding gives what the typed decoding
(with upcasting) gives, and a table for people's plain reading the same."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

import msgspec
import pytest

from ledger.kernel import events as ev
from projections.replay import Play
from projections.views import games, source

CASES = [
    {},
    {"table": 3},
    {"sequence": 7},
    {"table": 3, "sequence": 0},
    {"table": 0, "sequence": 12, "event": "E", "round": 2},
    {"result": {"result": "draw", "margin": "major"}},
    {"result": {"result": "b"}, "neutral": True, "table": 1, "sequence": 1},
    {"result": {"result": "a"}, "attributes": {"bv": 2.5}, "table": 1, "sequence": 1},
    {"result": {"ranks": [1, 2]}, "sides": 3},
    {"result": {"totals": [1000, 300, 1000, 700]}, "table": 4, "reference": "T-9"},
]


def _event(cls: type, fields: dict[str, object]) -> ev.GameRecorded | ev.GameCorrected:
    players = [[uuid.uuid4()] for _ in range(int(fields.pop("sides", 2)))]  # type: ignore[call-overload]
    facts = ev.GameFacts(
        ladder=uuid.uuid4(), date=date(2024, 1, 2), sides=players,
        result=fields.pop("result", {"result": "a"}), **fields,  # type: ignore[arg-type]
    )  # fmt: skip
    return cls(
        originator_id=uuid.uuid4(), originator_version=1 if cls is ev.GameRecorded else 2,
        recorded_at=datetime.now(UTC), recorded_by="t", game=facts,
    )  # fmt: skip


def _plain(facts: ev.GameFacts) -> dict[str, object]:
    """The typed facts as plain data, in ``source.Facts``'s fields."""
    data = msgspec.to_builtins(facts)
    return {name: data[name] for name in source.Facts.__struct_fields__}


@pytest.mark.parametrize("cls", [ev.GameRecorded, ev.GameCorrected])
@pytest.mark.parametrize("fields", CASES)
def test_a_stored_game_reads_back_as_its_facts(cls: type, fields: dict[str, object]) -> None:
    event = _event(cls, dict(fields))
    state = ev.encode(event)
    read = source.game_facts(cls.TOPIC, state)
    assert msgspec.to_builtins(read) == _plain(event.game)
    plain = games.plain_facts(games.GameEvent(cls.TOPIC, state))
    assert {k: plain[k] for k in source.Facts.__struct_fields__} == _plain(event.game)


def test_an_older_shape_is_upcast() -> None:
    event = _event(ev.GameRecorded, {"table": 5})
    old = msgspec.json.decode(ev.encode(event))
    del old["class_version"], old["game"]["sequence"]  # as version 1 stored it
    state = msgspec.json.encode(old)
    assert source.game_facts(ev.GameRecorded.TOPIC, state).sequence == 5
    plain = games.plain_facts(games.GameEvent(ev.GameRecorded.TOPIC, state))
    assert plain["sequence"] == 5
    assert source.game_facts(ev.GameRecorded.TOPIC, memoryview(state)).table == 5


def test_the_plain_reading_knows_the_current_shape() -> None:
    assert games._CURRENT == source.CURRENT_GAMES


@pytest.mark.parametrize("cls", [ev.GameRecorded, ev.GameCorrected])
@pytest.mark.parametrize("fields", CASES)
def test_a_stored_game_reads_back_as_the_play_of_its_facts(
    cls: type, fields: dict[str, object]
) -> None:
    """``source.game_play`` (what a replay reads back) decodes straight to
    the ``Play`` of the game's facts, as ``game_facts`` reads them."""
    event = _event(cls, dict(fields))
    state = ev.encode(event)
    f = source.game_facts(cls.TOPIC, state)
    play = source.game_play(cls.TOPIC, state)
    assert play == Play(
        tuple(map(tuple, f.sides)), f.result, f.event, f.round, f.neutral, f.attributes
    )
    assert play.sides == tuple((str(p),) for [p] in event.game.sides)
    assert source.game_play(cls.TOPIC, memoryview(state)) == play


def test_an_older_shape_reads_back_as_its_play_upcast() -> None:
    event = _event(ev.GameRecorded, {"table": 5, "event": "E", "round": 1})
    old = msgspec.json.decode(ev.encode(event))
    del old["class_version"], old["game"]["sequence"]  # as version 1 stored it
    play = source.game_play(ev.GameRecorded.TOPIC, msgspec.json.encode(old))
    assert (play.event, play.round, play.result) == ("E", 1, {"result": "a"})
    assert play.sides == tuple((str(p),) for [p] in event.game.sides)
