"""The packed history: a chunk read to be continued encodes back to its bytes."""

from __future__ import annotations

from projections.views import history


def _plain(n: int) -> list[tuple[object, ...]]:
    # (ladder, pos, seat, entry, player, s, p, k, before, change, games before)
    return [
        (1, 10 + i, i % 2, 100 + i, 7, 1.0, 0.5, 20.0, 1500.0 + i, 10.0 - i, i) for i in range(n)
    ]


def test_a_chunk_of_plain_games_is_held_in_the_short_shape_and_encodes_back() -> None:
    data = history.encode(_plain(5))
    held = history.held_rows(data, 1, 7)
    assert [len(row) for row in held] == [11] * 5
    assert held == _plain(5)
    assert history.encode(held) == data


def test_a_chunk_with_an_adjustment_is_held_whole_and_encodes_back() -> None:
    rows = [history.whole_row(row) for row in _plain(3)]
    adjust = (
        1,
        20,
        0,
        200,
        7,
        "adjust",
        0,
        None,
        None,
        None,
        1520.0,
        0.0,
        1600.0,
        3,
        3,
        "fix",
        None,
    )
    data = history.encode([*rows, adjust])
    held = history.held_rows(data, 1, 7)
    assert [len(row) for row in held] == [17] * 4
    last = history.Row._make(held[-1])  # (held as a replay makes rows: plain tuples)
    assert last.after == 1600.0 and last.note == "fix"
    assert history.encode(held) == data
    assert history.cut(data, 19) is not None
    assert history.held_rows(history.cut(data, 19)[0], 1, 7) == _plain(3)
