"""A checkpoint holds every player's state once in ``WHOLE_EVERY`` at least,
and only once the checkpoints since the last whole one hold as many bytes as
it: a ladder of many players, few of them in each checkpoint, saves them all
seldom; a restore reads about twice a whole one's states at most."""

from __future__ import annotations

from datetime import date

from ledger.families.base import PlayerState
from projections import views
from projections.db import SQLiteDatabase
from projections.views.player_numbers import PlayerNumbers
from projections.views.store import WHOLE_EVERY, LadderStore


def saved(
    players: int, changed_each: int, checkpoints: int
) -> tuple[list[int], LadderStore, dict[str, PlayerState]]:
    """The whole flags of ``checkpoints`` checkpoints of a ladder of
    ``players``, ``changed_each`` of them changed before each."""
    conn = views.connect(SQLiteDatabase(":memory:"))
    ids = [f"p{i:05d}" for i in range(players)]
    numbers = PlayerNumbers.given({pid: i + 1 for i, pid in enumerate(ids)})
    store = LadderStore(conn, 1, numbers, fresh=True)
    states = {pid: PlayerState(1500.0, 1, date(2025, 1, 1)) for pid in ids}
    for c in range(checkpoints):
        changed = {ids[(c * changed_each + i) % players] for i in range(changed_each)}
        for pid in changed:
            states[pid] = PlayerState(states[pid].rating + 1, states[pid].games + 1)
        store.save_checkpoint(f"2025-01-01/{c:04d}", c + 1, states, changed)
    flags = [w for (w,) in conn.execute("SELECT whole FROM view_checkpoints ORDER BY key")]
    return flags, store, states


def test_few_players_a_checkpoint_save_them_all_once_in_whole_every() -> None:
    flags, _, _ = saved(players=100, changed_each=40, checkpoints=3 * WHOLE_EVERY)
    assert [i for i, w in enumerate(flags) if w] == [0, WHOLE_EVERY, 2 * WHOLE_EVERY]


def test_many_players_few_a_checkpoint_save_them_all_seldom_and_restore_the_same() -> None:
    flags, store, states = saved(players=2000, changed_each=40, checkpoints=120)
    wholes = [i for i, w in enumerate(flags) if w]
    gaps = {b - a for a, b in zip(wholes, wholes[1:], strict=False)}
    assert wholes[0] == 0 and len(wholes) >= 2
    assert min(gaps) > 4 * WHOLE_EVERY  # (2% of the players each: some 50 checkpoints)
    # A restore from the last checkpoint, far from its whole one, gives
    # every state as it was saved.
    restored = store.restore(f"2025-01-01/{119:04d}")
    assert {p: (s.rating, s.games) for p, s in restored.items()} == {
        p: (s.rating, s.games) for p, s in states.items()
    }
    # A store opened on those views reads where the next whole one stands.
    again = LadderStore(store.conn, 1, store.numbers)
    assert store._since_whole is not None and store._since_whole.checkpoints > 0
    assert again._deltas_since_whole("2025-01-01/9999") == store._since_whole
