"""A game recorded after a ladder's frontier reads only its players' states
(``ledger record`` costs the same on a ladder of 10 or 10,000 players); a
checkpoint falling among the appended games reads the other states it saves
then (every player's, or those changed since the checkpoint before it).
A ladder rated per event appends a game that opens an event after the
frontier the same way; a game of an event begun before it restarts the
replay before that event. Either way the views are those a rebuild gives,
and so are those of a restart from the checkpoints the appends saved."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from typing import Any

import pytest

from projections import verify, views
from projections.views import ladder_replay, player_numbers
from projections.views.store import LadderStore
from tests.read_side.ledger_builder import Builder

NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")
EVERY = 4
RESULTS = {"elo": {"result": "a"}, "battle-empire": {"result": "a", "margin": "decisive"}}


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The ``players`` each standings read of a replay asked for (None: all)."""
    monkeypatch.setattr(ladder_replay, "CHECKPOINT_EVERY", EVERY)
    asked: list[Any] = []
    standings = LadderStore.standings

    def spy(self: LadderStore, players: Any = None) -> Any:
        asked.append(None if players is None else set(players))
        return standings(self, players)

    monkeypatch.setattr(LadderStore, "standings", spy)
    return asked


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every projector a catch-up makes, in order."""
    projectors: list[Any] = []
    original = views.runner.Projector

    def spy(*args: Any, **kwargs: Any) -> Any:
        projectors.append(original(*args, **kwargs))
        return projectors[-1]

    monkeypatch.setattr(views.runner, "Projector", spy)
    return projectors


@pytest.mark.parametrize("family", ["elo", "battle-empire"])
def test_an_append_reads_its_players_states_alone(reads: list[Any], family: str) -> None:
    b = Builder()
    b.ladder("Club", family)
    b.player(*NAMES)
    conn = b.views()
    heard = []
    ids = []
    for i in range(3 * EVERY):
        a, other = NAMES[i % len(NAMES)], NAMES[(i + 1) % len(NAMES)]
        on = date(2025, 1, 1) + timedelta(days=i)
        gid = b.game(
            "Club", on, a, other, RESULTS[family], game_id=uuid.UUID(int=i + 1), sequence=1
        )
        ids.append(gid)
        reads.clear()
        views.catch_up(conn, b.recorder)
        heard.append((a, other, list(reads)))
    for a, other, asked in heard:
        assert asked[0] == {str(b.players[a]), str(b.players[other])}, (a, other, asked)
    # A checkpoint falls every EVERY games: it reads the states it saves
    # that the append does not hold, every player's for a whole one.
    assert any(len(asked) > 1 for _, _, asked in heard[1:]), heard
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)
    # A correction of each game in turn, the last first, restarts from the
    # checkpoints the appends saved: their states are a rebuild's.
    other = {"elo": {"result": "b"}, "battle-empire": {"result": "b", "margin": "decisive"}}
    for gid in reversed(ids):
        b.correct(gid, result=other[family])
        views.catch_up(conn, b.recorder)
        fresh = views.in_memory(b.recorder)
        assert verify.compare_views(conn, fresh) == [], gid
        assert verify.checksum(conn) == verify.checksum(fresh)


def test_a_ladder_rated_per_event_appends_a_new_event_and_restarts_an_old_one(
    reads: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """AdlG: a game opening an event after the frontier is appended (its
    players' states read, no checkpoint restored); one more game of an event
    begun before the frontier restarts before that event, restoring the
    states of the players of the games it replays and of those with rows
    after the checkpoint alone."""
    restored: list[Any] = []  # (key, players asked for: None for all)
    restore = LadderStore.restore
    monkeypatch.setattr(
        LadderStore,
        "restore",
        lambda self, key, players=None: (
            restored.append((key, None if players is None else set(players)))
            or restore(self, key, players)
        ),
    )
    b = Builder()
    b.ladder("Club", "adlg")
    b.player(*NAMES)
    conn = b.views()
    ids = []
    for i in range(3 * EVERY):
        a, other = NAMES[i % len(NAMES)], NAMES[(i + 2) % len(NAMES)]
        on = date(2025, 1, 1) + timedelta(days=i)
        ids.append(b.game("Club", on, a, other, {"result": "a"}, event=f"Cup {i}", sequence=1))
        reads.clear()
        restored.clear()
        views.catch_up(conn, b.recorder)
        assert restored == [] and reads[0] == {str(b.players[a]), str(b.players[other])}
    # A second game of an event begun before the frontier: rated with it.
    on = date(2025, 1, 12)
    b.game("Club", on, "Ann", "Fay", {"result": "draw"}, event="Cup 10", round=2, sequence=1)
    restored.clear()
    views.catch_up(conn, b.recorder)
    ((_, asked),) = restored  # an event begun before the frontier is rated again whole
    # (the Cup 10 games, Eve v Ann and Ann v Fay, and Cup 11's, Fay v Ben)
    assert asked == {str(b.players[p]) for p in ("Ann", "Ben", "Eve", "Fay")}
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)
    for gid in ids[::-3]:  # restarts from the checkpoints the appends saved
        b.correct(gid, result={"result": "b"})
        views.catch_up(conn, b.recorder)
        fresh = views.in_memory(b.recorder)
        assert verify.compare_views(conn, fresh) == [], gid
        assert verify.checksum(conn) == verify.checksum(fresh)


def test_a_catch_up_reads_the_rows_of_the_players_it_names(made: list[Any]) -> None:
    """The projector of a catch-up holds the rows of the players its events
    name, not every player's; the views are still those a rebuild gives."""
    b = Builder()
    b.ladder("Club", "elo")
    b.player(*NAMES)
    conn = b.views()
    views.catch_up(conn, b.recorder)
    b.game("Club", date(2025, 1, 1), "Ann", "Ben", {"result": "a"}, sequence=1)
    views.catch_up(conn, b.recorder)
    assert set(dict(made[-1].players)) == {str(b.players["Ann"]), str(b.players["Ben"])}
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []


def test_a_catch_up_reads_the_numbers_of_the_players_it_names(made: list[Any]) -> None:
    """A game recorded among many players reads those two players' numbers,
    not every player's (``PlayerNumbers``); a catch-up fetching more than
    ``SINGLE`` reads them all at once. The views are those a rebuild gives."""
    many = [f"P{i:03}" for i in range(3 * player_numbers.SINGLE)]
    b = Builder()
    b.ladder("Club", "elo")
    b.player(*NAMES, *many)
    conn = b.views()
    views.catch_up(conn, b.recorder)
    b.game("Club", date(2025, 1, 1), "Ann", "Ben", {"result": "a"}, sequence=1)
    views.catch_up(conn, b.recorder)
    ann, ben = str(b.players["Ann"]), str(b.players["Ben"])
    numbers = made[-1].numbers()
    assert isinstance(numbers, player_numbers.PlayerNumbers)
    assert set(numbers.by_id) == {ann, ben}
    assert set(numbers.by_number.values()) == {ann, ben}
    # Fetched one player more than SINGLE: every player is read at once.
    lazy = player_numbers.PlayerNumbers(conn)
    whole = player_numbers.PlayerNumbers(conn)
    whole.fetch(str(b.players[name]) for name in (*NAMES, *many))
    for i, name in enumerate(many[: player_numbers.SINGLE + 1]):
        lazy.fetch([str(b.players[name])])
        assert lazy.by_id[str(b.players[name])] == whole.by_id[str(b.players[name])]
        if i < player_numbers.SINGLE:  # one at a time until then
            assert len(lazy.by_id) == i + 1
    assert len(lazy.by_id) == len(NAMES) + len(many)
    lazy.fetch(["no such player"])
    assert "no such player" not in lazy.by_id
    lazy.fetch_numbers([10**9])
    assert 10**9 not in lazy.by_number
    for day in range(2, 6):  # more games, one far back (read back from the views)
        b.game("Club", date(2025, 1, day), many[day], many[-day], {"result": "b"}, sequence=1)
    b.game("Club", date(2024, 12, 1), many[0], "Ann", {"result": "draw"}, sequence=1)
    views.catch_up(conn, b.recorder)
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)
