"""A rebuild holds most games as compact duels (``replay.Duel``) and applies
pages of stored events (``Projector.apply_page``): both stand for
exactly what the general path gives."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from ledger.families.registry import load_family
from projections import verify, views
from projections.replay import Duel, Entry, Play, Replay, expand
from projections.timeline import SEP, sort_key
from projections.views.projector import Projector
from projections.views.runner import raw_pages
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
    (held,) = projector.entries.values()
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
