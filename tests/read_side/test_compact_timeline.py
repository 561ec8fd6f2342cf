"""A rebuild holds most games as compact duels (``replay.Duel``) and applies
pages of stored events (``Projector.apply_page``): both stand for
exactly what the general path gives."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

import msgspec
import pytest

from ledger.families.registry import load_family
from ledger.kernel import events as ev
from projections import verify, views
from projections.replay import Duel, Entry, Play, Replay, duel_event, event_ends, expand, game_entry
from projections.timeline import SEP, sort_key
from projections.views import store
from projections.views.projector import Projector
from projections.views.runner import raw_pages
from projections.views.store import ENTRY_PAGE
from tests.read_side.ledger_builder import Builder


def ledger() -> Builder:
    b = Builder()
    b.player("Ann", "Ben", "Cat", "Dan")
    b.ladder("Club")
    names = ("Ann", "Ben", "Cat", "Dan")
    gids = []
    for day in range(1, 30):
        a, c = names[day % 4], names[(day + 1 + day % 2) % 4]
        facts: dict[str, Any] = {"event": f"Open {day % 3}", "round": day % 5, "table": 1}
        if day % 7 == 0:
            facts = {"table": 2}  # no event, no round: held as an entry
        if day % 11 == 0:
            facts["neutral"] = True
        result = {"result": ("a", "b", "draw")[day % 3]}
        gids.append(b.game("Club", date(2025, 1, day), a, c, result, sequence=day, **facts))
    b.correct(gids[3], result={"result": "b"})
    b.void(gids[5])
    b.game("Club", date(2025, 2, 1), "Ann", "Ben", {"result": "a"}, event="Late", round=1)
    return b


def test_a_compact_duel_stands_for_its_entry() -> None:
    gid = "5e43ddc4-7e25-5078-a85d-1e390b1bedfb"
    for event in ("Open", f"odd{SEP}name"):
        key = sort_key("2025-03-04", "game", gid, event, 3, 12)
        play = Play((("p1",), ("p2",)), {"result": "a"}, event, 3, False, {})
        assert expand(Duel(key, 7, "p1", "p2", {"result": "a"})) == Entry(
            key, "game", 7, gid, "2025-03-04", play
        )


def test_a_page_applied_on_locals_gives_the_views_of_one_event_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b = ledger()
    fast = views.in_memory(b.recorder)

    def one_at_a_time(self: Projector, page: list[Any]) -> None:
        for seq, topic, state in page:
            self.apply_stored(seq, topic, state)

    monkeypatch.setattr(Projector, "apply_page", one_at_a_time)
    slow = views.in_memory(b.recorder)
    assert verify.rows(fast, "view_history")
    assert verify.checksum(fast) == verify.checksum(slow)
    assert verify.checksum(fast) == verify.checksum(b.views())


@pytest.mark.parametrize("family", ["elo", "adlg"])
def test_a_replay_of_compact_duels_is_that_of_their_entries(family: str) -> None:
    b = ledger()
    projector = Projector(views.connect(views.in_memory(b.recorder)), timeline=True)
    for page in raw_pages(b.recorder):
        projector.apply_page(page)
    (held,) = projector.entries.ladders.values()
    compact = [held[k] for k in sorted(held)]
    assert any(type(e) is Duel for e in compact)
    assert any(type(e) is not Duel for e in compact)
    games = [e for e in compact if type(e) is Duel or e.kind == "game"]
    expanded = [expand(e) if type(e) is Duel else e for e in games]
    numbers = projector.numbers().by_id
    merges = {str(b.players["Dan"]): str(b.players["Cat"])}
    runs = []
    for entries in (games, expanded):
        replay = Replay({}, load_family(family, {}), merges, None, numbers, 1, 0)
        rows: list[Any] = []
        marks: list[tuple[str, int]] = []
        replay.run(entries, rows.extend, lambda k, p, s, c, at=marks: at.append((k, p)), 5)
        runs.append((rows, marks, {p: (s.rating, s.games) for p, s in replay.states.items()}))
    assert runs[0] == runs[1]


def varied() -> tuple[Builder, list[Any]]:
    """``ledger()`` with games of every shape (teams, attributes, a result
    of two columns) and the other entries among them: a ruleset change, a
    rating adjustment and a season close."""
    b = ledger()
    b.player("Eve")
    gids = [
        b.game("Club", date(2025, 1, 4), "Ann", "Eve", {"result": "a", "margin": "major"},
               event="Cup", round=2),
        b.game("Club", date(2025, 1, 9), "Ben", "Eve", {"result": "b"}, event="Cup", round=3,
               attributes={"bv": 2.5}),
        b.game("Club", date(2025, 1, 12), "Cat", "Eve", event="Cup", round=4),
        b.game("Club", date(2025, 1, 20), "Dan", "Eve", event="", round=1),
    ]  # fmt: skip
    players = b.players
    b.correct(gids[2], sides=[[players["Cat"], players["Dan"]], [players["Eve"]]])
    lid = b.ladders["Club"]
    b.rules("Club", "elo", {"k": 24}, date(2025, 1, 10))
    adjusted = uuid.uuid4()
    b.store(ev.RatingAdjusted(**b._next(adjusted), ladder=lid, player=players["Ann"],
                              effective=date(2025, 1, 15), by=10.0, reason="appeal"))  # fmt: skip
    season = uuid.uuid4()
    b.store(ev.SeasonClosed(**b._next(season), ladder=lid, label="J", start=date(2025, 1, 1),
                            end=date(2025, 1, 31)))  # fmt: skip
    return b, gids


def held_in_a_rebuild(b: Builder) -> list[Entry | Duel]:
    projector = Projector(views.connect(views.in_memory(b.recorder)), timeline=True)
    for page in raw_pages(b.recorder):
        projector.apply_page(page)
    (held,) = projector.entries.ladders.values()
    return [held[k] for k in sorted(held)]


@pytest.mark.parametrize("page", [3, ENTRY_PAGE])
def test_a_ladder_read_back_is_the_timeline_a_rebuild_holds(
    page: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a replay far from the end reads back (``ladder_entries``: games
    from their events, the other entries put in their places, pages of
    ``page`` games) is entry for entry what a rebuild holds: the same
    duels, the same entries."""
    b, _ = varied()
    held = held_in_a_rebuild(b)
    kinds = {e.kind for e in held}
    assert kinds == {"game", "ruleset", "adjust", "season"}
    assert sum(type(e) is Duel for e in held) > 10
    assert sum(type(e) is Entry and e.kind == "game" for e in held) >= 5
    monkeypatch.setattr(store, "ENTRY_PAGE", page)
    conn = b.views()
    ladder = views.ladder_number(conn, str(b.ladders["Club"]))
    assert ladder is not None
    assert list(views.ladder_entries(conn, ladder, None)) == held
    for at in (0, 5, 17, len(held) - 2):  # read back after a key: what follows it
        after = held[at].key
        assert list(views.ladder_entries(conn, ladder, after)) == held[at + 1 :]


def test_a_duel_reads_as_the_entry_it_stands_for() -> None:
    for duel in [e for e in held_in_a_rebuild(varied()[0]) if type(e) is Duel]:
        entry = expand(duel)
        assert (duel.kind, duel.id, duel.date, duel.data) == (
            entry.kind, entry.id, entry.date, entry.data,
        )  # fmt: skip
        assert duel_event(duel) == entry.data.event
        assert game_entry(duel.key, duel.n, entry.data) == duel


def test_a_game_stands_as_a_duel_only_when_its_key_spells_its_facts() -> None:
    gid = "5e43ddc4-7e25-5078-a85d-1e390b1bedfb"
    key = sort_key("2025-03-04", "game", gid, "Open", 3, 12)
    duel = Play((("p1",), ("p2",)), {"result": "a"}, "Open", 3)
    assert type(game_entry(key, 7, duel)) is Duel
    for other in (
        Play((("p1",), ("p2",)), {"result": "a"}, None, None),  # no event
        Play((("p1",), ("p2",)), {"result": "a"}, "Open", None),  # no round
        Play((("p1",), ("p2",)), {"result": "a"}, "Open", 3, True),  # neutral
        Play((("p1",), ("p2",)), {"result": "a"}, "Open", 3, False, {"bv": 1.0}),
        Play((("p1", "p3"), ("p2",)), {"result": "a"}, "Open", 3),  # a team
        Play((("p1",), ("p2",), ("p3",)), {"ranks": [1, 2, 3]}, "Open", 3),
    ):
        assert game_entry(key, 7, other) == Entry(key, "game", 7, gid, "2025-03-04", other)


def test_the_ends_of_events_are_found_only_for_rules_rating_per_event() -> None:
    held = held_in_a_rebuild(ledger())
    assert event_ends(held) == {}  # elo rating each game: nothing read
    per_event = [
        msgspec.structs.replace(e, data={**e.data, "params": {"update": "event"}})
        if e.kind == "ruleset" else e
        for e in held
    ]  # fmt: skip
    games = [expand(e) if type(e) is Duel else e for e in held if e.kind == "game"]
    last = {g.data.event: g.key for g in games if g.data.event is not None}
    assert last and event_ends(per_event) == last
