"""The order of play is a recorded fact: games of one date, event and round
replay in the order of their sequence, never of their ids, whatever order
they were recorded in; games recorded before sequences fall back to their
table number."""

from __future__ import annotations

import uuid
from datetime import date

from projections import queries
from projections.timeline import game_key, sort_key
from tests.read_side.ledger_builder import Builder

DAY = date(2025, 3, 1)
# Ids chosen so that their order is the reverse of the order of play.
LOW = uuid.UUID("00000000-0000-4000-8000-000000000000")
HIGH = uuid.UUID("ffffffff-ffff-4fff-bfff-ffffffffffff")


def club(builder: Builder) -> None:
    builder.ladder("Club", "elo", {"k": 32})
    builder.player("Ann", "Ben", "Cat")


def test_sequence_orders_games_against_their_ids() -> None:
    b = Builder()
    club(b)
    # Ann beats Ben first (sequence 1, the higher id), then loses to Cat.
    first = b.game("Club", DAY, "Ann", "Ben", game_id=HIGH, sequence=1)
    second = b.game("Club", DAY, "Cat", "Ann", game_id=LOW, sequence=2)
    assert game_key(str(first), b.facts[first]) < game_key(str(second), b.facts[second])
    history = queries.history(b.views(), "Club", "Ann")
    assert [h.game for h in history] == [str(first).replace("-", "")[:8], "00000000"]
    # Ann played Ben at 1500 and then Cat after her win.
    assert history[0].before == 1500 and history[1].before == history[0].after > 1500


def test_recording_order_does_not_change_the_order_of_play() -> None:
    def build(reverse: bool) -> list[tuple[str, float]]:
        b = Builder()
        club(b)
        games = [
            b.game("Club", DAY, "Ann", "Ben", game_id=HIGH, sequence=1, store=False),
            b.game("Club", DAY, "Cat", "Ann", game_id=LOW, sequence=2, store=False),
        ]
        for gid in reversed(games) if reverse else games:
            b.store(b.recorded(gid))
        return [(r.player, r.rating) for r in queries.standings(b.views(), "Club")]

    assert build(reverse=False) == build(reverse=True)
    ratings = dict(build(reverse=False))
    # Played the other way round (Cat-Ann first), Ann's win over Ben would
    # come from a lower rating: these numbers are only right in sequence order.
    assert ratings["Ann"] == 1500 + 16 + 32 * (0 - 1 / (1 + 10 ** ((1500 - 1516) / 400)))


def test_old_games_without_a_sequence_fall_back_to_their_table() -> None:
    b = Builder()
    club(b)
    b.game("Club", DAY, "Cat", "Ann", game_id=LOW, table=2)
    b.game("Club", DAY, "Ann", "Ben", game_id=HIGH, table=1)
    history = queries.history(b.views(), "Club", "Ann")
    assert [h.opponents for h in history] == ["Ben", "Cat"]


def test_sequence_wins_over_the_table_number() -> None:
    b = Builder()
    club(b)
    b.game("Club", DAY, "Ann", "Ben", game_id=LOW, table=9, sequence=1)
    b.game("Club", DAY, "Cat", "Ann", game_id=HIGH, table=1, sequence=2)
    history = queries.history(b.views(), "Club", "Ann")
    assert [h.opponents for h in history] == ["Ben", "Cat"]


def test_sequence_orders_within_a_round_only() -> None:
    # An earlier round comes first whatever the sequences.
    assert sort_key(DAY, "game", "z", "T", 1, 99) < sort_key(DAY, "game", "a", "T", 2, 1)
    # Sequences of up to nine digits sort by number.
    assert sort_key(DAY, "game", "z", "T", 1, 9) < sort_key(DAY, "game", "a", "T", 1, 10**9 - 1)
