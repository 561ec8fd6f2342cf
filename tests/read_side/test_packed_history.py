"""History packed per (ladder, player) in chunks (``projections.views.history``):
what is encoded is what is read back, appending a game rewrites one bounded
chunk per player, a correction cuts the chunks it straddles, and the views
then equal a rebuild's."""

from __future__ import annotations

import math
from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from projections import replay, verify, views
from projections.db import Database
from projections.views import history, ladder_replay
from tests.read_side.ledger_builder import Builder

_numbers = st.floats(allow_nan=False, allow_infinity=False, width=64)
_maybe = st.none() | _numbers


@st.composite
def whole_rows(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """A player's rows in effective order, of every kind and odd value."""
    rows = []
    pos = draw(st.integers(1, 10**6))
    for _ in range(draw(st.integers(1, 40))):
        pos += draw(st.integers(1, 1000))
        kind = draw(st.sampled_from(history.KINDS))
        before, change = draw(_numbers), draw(_numbers)
        after = draw(st.just(before + change) | _numbers)
        games = draw(st.integers(0, 10**6))
        games_after = draw(st.just(games + (kind == "game")) | st.integers(0, 10**6))
        rows.append(
            (3, pos, draw(st.integers(0, 10**5)), draw(st.integers(0, 2**40)), 7, kind,
             draw(st.integers(0, 300)), draw(_maybe), draw(_maybe), draw(_maybe), before, change,
             after, games, games_after, draw(st.text(max_size=8)))
            + draw(st.just(()) | st.tuples(_states))
        )  # fmt: skip
    return rows


#: A family's state after a row (``Row.state``): values by name, or none.
_states = st.none() | st.dictionaries(st.sampled_from(["u", "v", "w"]), _numbers, min_size=1)


def same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Equal, a NaN-free float compared exactly (-0.0 and 0.0 apart)."""
    return all(
        x == y and (not isinstance(x, float) or math.copysign(1, x) == math.copysign(1, y))
        for x, y in zip(a, b, strict=True)
    )


@given(whole_rows())
@example([(3, 5, 0, 1, 7, "game", 0, None, None, None, -0.0, 0.0, -0.0, 0, 1, "")])
def test_a_chunk_reads_back_every_row_as_written(rows: list[tuple[Any, ...]]) -> None:
    read = history.decode(history.encode(rows), 3, 7)
    assert len(read) == len(rows)
    for written, back in zip(rows, read, strict=True):
        assert same(tuple(back)[:16], written[:16]), (written, back)
        assert back.state == (written[16] if len(written) > 16 else None)


@given(whole_rows(), st.integers(0, 10**6 + 40 * 1000))
def test_a_chunk_cut_in_its_packed_form_reads_back_the_rows_kept(
    rows: list[tuple[Any, ...]], pos: int
) -> None:
    kept = [row for row in rows if row[1] <= pos]
    found = history.cut(history.encode(rows), pos)
    if not kept:
        assert found is None
        return
    assert found is not None
    data, last = found
    assert last == kept[-1][1]
    read = history.decode(data, 3, 7)
    assert len(read) == len(kept)
    for written, back in zip(kept, read, strict=True):
        assert same(tuple(back)[:16], written[:16]), (written, back)
        assert back.state == (written[16] if len(written) > 16 else None)


def test_rated_games_pack_small() -> None:
    """A chunk of one player's rated games (short rows, as the replay makes
    them) costs under 60 bytes a row: no text, no column of one value
    repeated, none of what the other columns give."""
    rows = [
        (1, 2 * i, i % 2, 1000 + 2 * i, 42, 1.0 if i % 3 else 0.0, 0.37 + i / 1e4, 24.0,
         1500.0 + i / 7, 12.5 - i / 11, i)
        for i in range(history.CHUNK)
    ]  # fmt: skip
    data = history.encode(rows)
    assert len(data) < 60 * len(rows)
    assert [tuple(r) for r in history.decode(data, 1, 42)] == [history.whole_row(r) for r in rows]


def club(games: int) -> tuple[Builder, list[Any]]:
    """Ann plays Ben, then Cat, in turn: Ann's career is every game."""
    b = Builder()
    b.player("Ann", "Ben", "Cat")
    b.ladder("Club")
    start = date(2024, 1, 1)
    ids = [
        b.game("Club", start + timedelta(days=i // 3), "Ann", ("Ben", "Cat")[i % 2])
        for i in range(games)
    ]
    return b, ids


def chunks(conn: Database, player: int) -> list[tuple[int, int, bytes]]:
    return [
        (first, last, bytes(data))
        for first, last, data in conn.execute(
            "SELECT first, last, data FROM view_history_chunks WHERE player=? ORDER BY first",
            (player,),
        )
    ]


def club_n(conn: Database) -> int:
    """The club's number in the views."""
    return conn.execute("SELECT n FROM view_ladders").fetchone()[0]


def ann(conn: Database) -> int:
    """Ann's number in the views."""
    return conn.execute("SELECT n FROM view_players WHERE name='Ann'").fetchone()[0]


def catch_up_decoding(conn: Database, b: Builder, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Catch the views up; the players whose chunks it decoded."""
    decoded: list[int] = []
    decode = history.decode
    with monkeypatch.context() as m:
        m.setattr(
            history, "decode", lambda data, ladder, player, *a: decoded.append(player)
            or decode(data, ladder, player, *a)
        )  # fmt: skip
        views.catch_up(conn, b.recorder)
    return decoded


def test_appending_a_game_rewrites_only_the_last_chunk_of_a_long_career(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    size = 2 * history.CHUNK + 10
    b, _ = club(size)
    conn = b.views()
    before = chunks(conn, ann(conn))
    assert [len(history.decode(data, 0, 0)) for _, _, data in before] == [
        history.CHUNK, history.CHUNK, 10
    ]  # fmt: skip
    b.game("Club", date(2025, 6, 1), "Ann", "Ben")
    encoded: list[int] = []  # the rows of each chunk written
    encode = history.encode
    monkeypatch.setattr(history, "encode", lambda rows: encoded.append(len(rows)) or encode(rows))
    views.catch_up(conn, b.recorder)
    monkeypatch.undo()
    assert sorted(encoded) == sorted([11, (size // 2) % history.CHUNK + 1])  # Ann's, Ben's tails
    after = chunks(conn, ann(conn))
    assert after[:2] == before[:2]  # full chunks: not read, not written
    assert len(history.decode(after[2][2], 0, 0)) == 11
    assert history.player_rows(conn, club_n(conn), ann(conn))[-1].games_after == size + 1
    assert verify.checksum(conn) == verify.checksum(views.in_memory(b.recorder))


def test_a_game_after_a_chunk_half_full_starts_a_chunk_and_decodes_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    b, _ = club(history.CHUNK + history.OPEN_BELOW + 5)
    conn = b.views()
    before = chunks(conn, ann(conn))
    b.game("Club", date(2025, 6, 1), "Ann", "Ben")
    decoded = catch_up_decoding(conn, b, monkeypatch)
    assert ann(conn) not in decoded
    after = chunks(conn, ann(conn))
    assert after[:2] == before
    assert [len(history.decode(d, 0, 0)) for _, _, d in after[2:]] == [1]
    assert verify.checksum(conn) == verify.checksum(views.in_memory(b.recorder))


def test_a_correction_cuts_the_chunks_it_straddles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Restarting from a checkpoint early in a chunk, the replay keeps that
    chunk's rows before the checkpoint open and continues it (cut at once,
    as a restart far from the end is: ``test_history_compared``)."""
    monkeypatch.setattr(ladder_replay, "CHECKPOINT_EVERY", 20)
    monkeypatch.setattr(history, "COMPARED_CHUNKS", 0)
    b, ids = club(2 * history.CHUNK + 10)
    conn = b.views()
    b.correct(ids[history.CHUNK + 25], result={"result": "b"})  # early in Ann's second chunk
    views.catch_up(conn, b.recorder)
    rows = history.player_rows(conn, club_n(conn), ann(conn))
    assert [r.pos for r in rows] == sorted(r.pos for r in rows)
    assert len(rows) == len(ids)
    sizes = [len(history.decode(d, 0, 0)) for _, _, d in chunks(conn, ann(conn))]
    assert sizes == [history.CHUNK, history.CHUNK, 10]  # continued: no chunk more
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)


def test_a_correction_late_in_a_chunk_cuts_it_packed_and_starts_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Restarting after more than half a chunk's rows, the replay cuts that
    chunk in its packed form (none of its rows decoded) and the player's
    next rows start a chunk of their own; the rows read are a rebuild's."""
    monkeypatch.setattr(ladder_replay, "CHECKPOINT_EVERY", 20)
    monkeypatch.setattr(history, "COMPARED_CHUNKS", 0)
    b, ids = club(2 * history.CHUNK + 10)
    conn = b.views()
    b.correct(ids[2 * history.CHUNK - 5], result={"result": "b"})  # late in Ann's 2nd chunk
    decoded = catch_up_decoding(conn, b, monkeypatch)
    assert ann(conn) not in decoded
    sizes = [len(history.decode(d, 0, 0)) for _, _, d in chunks(conn, ann(conn))]
    assert sizes[0] == history.CHUNK and history.OPEN_BELOW <= sizes[1] < history.CHUNK
    assert sum(sizes) == len(ids) and len(sizes) == 3  # the rows after: a chunk of their own
    fresh = views.in_memory(b.recorder)
    assert verify.compare_views(conn, fresh) == []
    assert verify.checksum(conn) == verify.checksum(fresh)


def test_rows_are_read_up_to_a_place() -> None:
    b, _ = club(history.CHUNK + 20)
    conn = b.views()
    player = ann(conn)
    every = history.player_rows(conn, club_n(conn), player)
    cut = every[history.CHUNK + 3].pos
    assert history.player_rows(conn, club_n(conn), player, cut) == every[: history.CHUNK + 4]
    (mine,) = [
        rows for rows in history.last_rows(conn, club_n(conn), cut) if rows[0].player == player
    ]
    assert mine == every[: history.CHUNK + 4]
    assert [r for r in history.ladder_rows(conn, club_n(conn), cut) if r.player == player] == mine


def test_a_replay_holding_few_rows_writes_the_same_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A replay writes its open chunks as they are once it holds
    ``HELD_ROWS`` (its memory bounded whatever the ladder): more, shorter
    chunks, the same rows, and appends still continue a player's last one."""
    b, _ = club(history.CHUNK + 40)
    whole = views.in_memory(b.recorder)
    monkeypatch.setattr(history, "HELD_ROWS", 7)
    monkeypatch.setattr(replay, "ROWS_CHUNK", 10)  # rows handed over ten at a time
    held_few = views.in_memory(b.recorder)
    caught_up = b.views()
    player = ann(held_few)
    assert len(chunks(held_few, player)) > len(chunks(whole, player))
    assert all(
        len(history.decode(d, 0, 0)) <= history.CHUNK for _, _, d in chunks(held_few, player)
    )
    assert verify.checksum(held_few) == verify.checksum(whole) == verify.checksum(caught_up)
    b.game("Club", date(2025, 6, 1), "Ann", "Ben")
    views.catch_up(caught_up, b.recorder)
    assert verify.checksum(caught_up) == verify.checksum(views.in_memory(b.recorder))


def test_rows_in_place_order_are_read_a_window_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Windows of a few places (chunks reaching across several of them)
    give every row once, by place and seat, between any two places."""
    b, _ = club(history.CHUNK + 30)
    conn = b.views()
    n = club_n(conn)
    every = sorted(
        (r for rows in history.last_rows(conn, n, 10**9) for r in rows),
        key=lambda r: (r.pos, r.seat),
    )
    last = every[-1].pos
    for window in (1, 7, history.WINDOW):
        monkeypatch.setattr(history, "WINDOW", window)
        for after, upto in ((0, None), (5, last - 9), (last - 3, last)):
            wanted = [r for r in every if after < r.pos <= (last if upto is None else upto)]
            assert list(history.rows_by_place(conn, n, after, upto)) == wanted


@given(
    st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=2, max_size=64),
    st.sampled_from([None, -0.0, 0.3, 65520.0, 2.0**-25]),
)
def test_a_score_column_is_kept_in_two_bytes_a_row_and_read_back_to_the_bit(
    scores: list[float], odd: float | None
) -> None:
    # A rated game's rows (the short shape); a score column of halves alone
    # (0, 0.5, 1) is stored as half-precision floats; one value that is no
    # half exactly (a sign of zero, a fraction, too large, too small) keeps
    # the column in doubles. Either way every row reads back as written.
    def rows(values: list[float | None]) -> list[tuple[Any, ...]]:
        return [
            (3, 10 + i, 0, 100 + i, 7, s, 0.25 + i / 1000, 24.0, 1500.0 + i, 1.5, i)
            for i, s in enumerate(values)
        ]

    for values, halves in ((scores, True), ([*scores, odd], False)):
        data = history.encode(rows(values))
        _, fields, _ = history.columns(data)
        back = history.decode(data, 3, 7)
        assert all(
            same((r.s,), (v,)) if v is not None else r.s is None
            for r, v in zip(back, values, strict=True)
        )
        doubles = history.encode(rows([0.3 + i / 7 for i in range(len(values))]))
        assert (len(data) < len(doubles)) == halves


def test_a_state_column_of_halves_reads_back() -> None:
    # A family's state (a deviation of 350, a volatility of 0.5) is packed
    # by the same column code, half-precision where exact.
    rows = [
        (3, 10 + i, 0, 100 + i, 7, "game", 0, 1.0, 0.5, 24.0, 1500.0, 1.5, 1501.5, i, i + 1, "",
         {"deviation": 350.0, "volatility": 0.5 if i % 2 else 0.25})
        for i in range(6)
    ]  # fmt: skip
    back = history.decode(history.encode(rows), 3, 7)
    assert [r.state for r in back] == [row[-1] for row in rows]


def test_an_entrys_rows_are_found_in_any_chunk_decoding_only_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``entry_rows`` (what ``explain`` reads) finds a game in a long
    career's first chunk as in its last, and decodes one chunk a player."""
    b, _ = club(2 * history.CHUNK + 10)
    conn = b.views()
    ladder, player = club_n(conn), ann(conn)
    every = history.player_rows(conn, ladder, player)
    decode = history.decode
    decoded: list[int] = []  # (the player of each chunk decoded)
    monkeypatch.setattr(
        history, "decode", lambda data, *a: decoded.append(a[1]) or decode(data, *a)
    )
    for row in (every[3], every[history.CHUNK + 5], every[-1]):
        decoded.clear()
        assert history.entry_rows(conn, ladder, row.entry, [player]) == [row]
        assert decoded == [player]
    monkeypatch.undo()
    assert history.entry_rows(conn, ladder, max(r.entry for r in every) + 1, [player]) == []
