"""A player's history in a ladder, packed: the one module that writes and
reads ``view_history_chunks``.

The views keep no row per player per game. Each (ladder, player) has its
history in chunks of at most ``CHUNK`` rows, each chunk one row of
``view_history_chunks`` holding its rows column by column (``encode``: packed
arrays, each of the narrowest type its values fit). So the rows the views write grow with
players and ladders, not with games, and appending a game rewrites one
bounded chunk per player whatever their career.

What most rows hold is not stored again: a row's rating after is its
rating before plus its change, and its games after are its games before plus
one for a rated game (none for another entry); only the rows where that is
not so (a game rated per event, a game not rated for a player, a rating set
by an adjustment) keep theirs, as do rows with a note. ``state`` is kept for
families whose players' state holds more than a rating (a deviation, a
volatility): a column of floats per name, absent for the others.

Every reader of history goes through ``player_rows``, ``ladder_rows``,
``entry_rows`` and their kin; ``Rows`` gathers the rows a replay makes
into chunks, written as they fill.
"""

from __future__ import annotations

import marshal
import math
import struct
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from projections.db import Database

#: Rows per chunk: appending a game rewrites at most this many of a player's
#: (some 3 KB: a chunk stays on one page of the database).
CHUNK = 64
#: A player's last chunk is continued (read, its rows decoded, written again
#: with the rows that follow) only while it holds fewer rows than this; a
#: fuller one is left as it is and their next rows start a chunk. So a
#: correction or a game appended never decodes a chunk of more rows, and
#: every chunk but a player's last holds at least this many.
OPEN_BELOW = CHUNK // 2
#: Rows a replay holds before writing every open chunk as it is (a ladder
#: of 1M games and 10,000 players would hold its 2M rows: most careers are
#: shorter than a chunk); a player's next rows then start a new chunk.
HELD_ROWS = 100_000

#: A row's kind as stored (a small integer) and as read.
KINDS = ("game", "adjust", "season")
_KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}
_GAME = 0
_NAN = math.nan

DDL = """
CREATE TABLE view_history_chunks (
    ladder INTEGER NOT NULL, player INTEGER NOT NULL, first INTEGER NOT NULL,
    last INTEGER NOT NULL, data BLOB NOT NULL);
"""
#: A chunk by (ladder, player, first place), chunks by their last place
#: (what a correction at a place rewrites) and by their first (a read in
#: place order). A table with a rowid, not
#: WITHOUT ROWID: a chunk of some 3 KB then stays on its page (an index
#: B-tree keeps at most about 1 KB of a row on the page, the rest on
#: overflow pages mostly empty).
INDEX_DDL = """
CREATE UNIQUE INDEX IF NOT EXISTS view_history_chunk ON view_history_chunks (ladder, player, first);
CREATE INDEX IF NOT EXISTS view_history_last ON view_history_chunks (ladder, last);
CREATE INDEX IF NOT EXISTS view_history_first ON view_history_chunks (ladder, first);
"""


class Row(NamedTuple):
    """One history row as readers see it (ladder and player are the views'
    numbers; ``s``, ``p`` and ``k`` None for an entry other than a game).
    A NamedTuple, not a Struct: ``ledger history`` reads it without loading
    msgspec (its start-up is its cost)."""

    ladder: int
    pos: int
    seat: int
    entry: int
    player: int
    kind: str
    side: int
    s: float | None
    p: float | None
    k: float | None
    before: float
    change: float
    after: float
    games_before: int
    games_after: int
    note: str
    #: The family's state after the row (``PlayerState.extra``), for a
    #: family whose players' state holds more than a rating; else None.
    state: dict[str, float] | None = None


def whole_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A history row as the replay makes it (``replay.HistoryRow``) in its
    whole shape, ``Row``'s fields: a short one (a player's rated game:
    ladder, pos, seat, entry, player, s, p, k, before, change, games before)
    expanded, a whole one without a state given none."""
    if len(row) == 17:
        return row
    if len(row) == 16:
        return (*row, None)
    ladder, pos, seat, entry, player, s, p, k, before, change, games = row
    return (ladder, pos, seat, entry, player, "game", seat, s, p, k, before, change,
            before + change, games, games + 1, "", None)  # fmt: skip


# -- the packed form ----------------------------------------------------------
# A chunk: a format byte, the number of rows, then eleven columns, each a
# type code (an ``array`` code, or ``e`` for half-precision floats: a
# ``struct`` one; upper-case for a column of one value stored once) and its
# values; then any family state (``_state_block``); then the
# rows that differ from the usual, as JSON (rating after, games after, note).
_FORMAT = 1
_HEAD = struct.Struct("<BI")
_COLUMN = struct.Struct("<c")


def _int_column(values: Sequence[int]) -> bytes:
    low, high = min(values), max(values)
    # (the narrowest array code that holds them)
    if low >= -(1 << 7) and high < 1 << 7:
        code = "b"
    elif low >= -(1 << 15) and high < 1 << 15:
        code = "h"
    elif low >= -(1 << 31) and high < 1 << 31:
        code = "i"
    else:
        code = "q"
    if low == high:
        return code.upper().encode() + array(code, [low]).tobytes()
    return code.encode() + array(code, values).tobytes()


def _float_column(values: Sequence[float | None]) -> bytes:
    first = values[0]
    if values.count(first) == len(values) and (  # (one C call: most K columns)
        first != 0 or len({math.copysign(1, v) for v in values}) == 1  # (-0.0 == 0.0)
    ):
        return b"D" + array("d", [_NAN if first is None else first]).tobytes()
    if None in values:
        return b"d" + array("d", [_NAN if v is None else v for v in values]).tobytes()
    half = _halves(values)
    if half is not None:
        return b"e" + half
    return b"d" + array("d", values).tobytes()


_HALF = struct.Struct("=e")
_NEGATIVE_ZERO = 0x8000


def _halves(values: Sequence[float]) -> bytes | None:
    """The values as half-precision floats, when each is one exactly (a
    score column: 0, 0.5 and 1; two bytes a value, not eight), else None."""
    try:
        if _HALF.unpack(_HALF.pack(values[0]))[0] != values[0]:  # (most columns: at once)
            return None
        shape = f"={len(values)}e"
        packed = struct.pack(shape, *values)
    except (OverflowError, struct.error):
        return None
    # (to the bit: no value rounded, and none a negative zero, 0x8000 in
    # half-precision, whose sign the comparison would not see)
    if struct.unpack(shape, packed) != tuple(values) or _NEGATIVE_ZERO in array("H", packed):
        return None
    return packed


def encode(rows: Sequence[tuple[Any, ...]]) -> bytes:
    """A chunk of one player's rows (``replay.HistoryRow``: short or whole),
    in effective order. A family's state (``Row.state``) is kept as a column
    of values per name (None where a row has no such value)."""
    if set(map(len, rows)) == {11}:
        # Rated games alone (most chunks): kind, side, after, games after
        # and note are those ``whole_row`` gives.
        _, pos, seat, entry, _, s, p, k, before, change, games = zip(*rows, strict=True)
        seats = _int_column(seat)  # (the side column too)
        return b"".join((
            _HEAD.pack(_FORMAT, len(rows)),
            _int_column(pos), seats, _int_column(entry), b"B\x00",
            seats, _float_column(s), _float_column(p), _float_column(k),
            b"d" + array("d", before).tobytes(), b"d" + array("d", change).tobytes(),
            _int_column(games),
        ))  # fmt: skip
    rows = [whole_row(row) for row in rows]
    (_, pos, seat, entry, _, kind, side, s, p, k, before, change, after, games, games_after,
     note, states) = zip(*rows, strict=True)  # fmt: skip
    state = _state_columns(states)
    codes = [_KIND_CODE[x] for x in kind]
    extra: dict[str, Any] = {}
    exact = {
        i: a
        for i, (b, c, a) in enumerate(zip(before, change, after, strict=True))
        if b + c != a or (a == 0 and math.copysign(1, a) != math.copysign(1, b + c))
    }
    if exact:
        extra["after"] = exact
    odd = {
        i: g2
        for i, (code, g, g2) in enumerate(zip(codes, games, games_after, strict=True))
        if g2 != g + (code == _GAME)
    }
    if odd:
        extra["games_after"] = odd
    notes = {i: n for i, n in enumerate(note) if n}
    if notes:
        extra["notes"] = notes
    parts = [
        _HEAD.pack(_FORMAT, len(rows)),
        _int_column(pos), _int_column(seat), _int_column(entry), _int_column(codes),
        _int_column(side), _float_column(s), _float_column(p), _float_column(k),
        b"d" + array("d", before).tobytes(), b"d" + array("d", change).tobytes(),
        _int_column(games),
    ]  # fmt: skip
    if state:
        parts.append(_state_block(state))
    if extra:
        import json  # (here: most chunks have no exceptions, and a ranking loads none)

        parts.append(json.dumps(extra, separators=(",", ":")).encode())
    return b"".join(parts)


def _state_columns(states: Sequence[dict[str, float] | None]) -> dict[str, list[Any]] | None:
    """Rows' family states as a column a name (None where a row has none)."""
    names = sorted({name for values in states if values for name in values})
    if not names:
        return None
    return {name: [values.get(name) if values else None for values in states] for name in names}


# A family's state, when a chunk has one: a marker, the names (their JSON
# text, its length first), then a column of doubles a name (NaN: none), as
# the other float columns (a glicko2 row's nine values: 72 bytes, not ~170
# as JSON text).
_STATE = b"S"
_NAMES = struct.Struct("<H")


def _state_block(state: dict[str, list[Any]]) -> bytes:
    import json

    names = json.dumps(list(state), separators=(",", ":")).encode()
    columns = [_float_column(values) for values in state.values()]
    return b"".join((_STATE, _NAMES.pack(len(names)), names, *columns))


def _read_state(data: bytes, at: int, count: int) -> tuple[dict[str, list[Any]], int]:
    """A chunk's state block at ``at``: the columns by name (None where a
    row has none) and where the block ends."""
    import json

    (length,) = _NAMES.unpack_from(data, at + 1)
    at += 1 + _NAMES.size
    names = json.loads(data[at : at + length])
    at += length
    state = {}
    for name in names:
        code = data[at]
        once = code < ord("a")  # (upper-case: one value for every row)
        size = _SIZES[code]
        values = list(
            struct.unpack_from(f"={1 if once else count}{chr(code).lower()}", data, at + 1)
        )
        state[name] = _maybe(values * count if once else values)
        at += 1 + (size if once else size * count)
    return state, at


#: A column's type code as stored (its byte) -> bytes a value.
_SIZES = {ord(c): struct.calcsize("=" + c.lower()) for c in "bhiqdeBHIQDE"}
#: Rows in a chunk -> each type code's bytes in it, with the code's own.
_WIDTHS: dict[int, list[int]] = {}


class _Layout(NamedTuple):
    """How to read a chunk's eleven columns from one row on: one
    ``unpack_from`` (native order, as ``array`` wrote them; the rows before
    skipped), where each column's values are in what it gives (an
    upper-case code: one value for every row), and a getter a row of its
    short shape (``whole_row``) from ``(ladder, player, *values)``."""

    unpack: Any
    spans: list[tuple[int, int, bool]]
    short: list[Any]


#: (rows, first row read, type codes) -> its ``_Layout`` (a correction near
#: the end of a 1M-game ladder compares 3,800 chunks of some 500 layouts).
_LAYOUTS: dict[tuple[int, int, bytes], _Layout] = {}
_SEAT, _KIND, _SIDE, _S, _K = 1, 3, 4, 5, 7


def _widths(count: int) -> list[int]:
    """Each type code's bytes (a list by its byte) in a chunk of ``count`` rows."""
    found = _WIDTHS.get(count)
    if found is None:
        found = [0] * 256
        for code, size in _SIZES.items():
            found[code] = 1 + (size if code < ord("a") else size * count)
        _WIDTHS[count] = found
    return found


def _layout(count: int, start: int, codes: bytes) -> _Layout:
    key = (count, start, codes)
    found = _LAYOUTS.get(key)
    if found is None:
        if len(_LAYOUTS) > 4096:  # (a long-running follower meets few more)
            _LAYOUTS.clear()
        parts, spans, at = ["=5x"], [], 0
        for code in codes.decode():
            size = _SIZES[ord(code)]
            if code.isupper():
                parts.append(f"x{code.lower()}")
                spans.append((at, at + 1, True))
                at += 1
            else:
                parts.append(f"x{size * start}x{count - start}{code}")
                spans.append((at, at + count - start, False))
                at += count - start
        short = []
        for row in range(count - start):
            fields = [2 + a + (0 if once else row) for a, _, once in spans]
            short.append(itemgetter(0, *[fields[c] for c in (0, 1, 2)], 1, *fields[5:11]))
        found = _LAYOUTS[key] = _Layout(struct.Struct("".join(parts)).unpack_from, spans, short)
    return found


def _read(data: bytes, after: int | None) -> tuple[int, int, _Layout, int]:
    """A chunk's row count, the index of its first row after place
    ``after`` (0 when None), its ``_Layout`` from that row on and where its
    columns end in ``data``."""
    count = _HEAD.unpack_from(data)[1]
    widths = _widths(count)
    at = _HEAD.size
    found = []
    for _ in range(11):
        code = data[at]
        found.append(code)
        at += widths[code]
    codes = bytes(found)
    start = 0
    if after is not None:  # (the places: the first column, ascending)
        code, size = chr(codes[0]), _SIZES[codes[0]]
        places = memoryview(data)[_HEAD.size + 1 : _HEAD.size + 1 + size * count]
        if code.isupper():
            start = 0 if places[:size].cast(code.lower())[0] > after else count
        else:
            start = bisect_right(places.cast(code), after)
    return count, start, _layout(count, start, codes), at


def columns(data: bytes) -> tuple[int, list[Any], dict[str, Any]]:
    """A chunk's row count, its eleven columns (pos, seat, entry, kind code,
    side, s, p, k, before, change, games before: a list each) and its rows
    that differ from the usual (``encode``)."""
    count, _, layout, at = _read(data, None)
    values = layout.unpack(data)
    out = [list(values[a:b]) * count if once else list(values[a:b]) for a, b, once in layout.spans]
    extra = {}
    if data[at : at + 1] == _STATE:
        extra["state"], at = _read_state(data, at, count)
    if at < len(data):
        import json

        extra.update(json.loads(data[at:]))
    return count, out, extra


def cut(data: bytes, pos: int) -> tuple[bytes, int] | None:
    """A stored chunk without its rows after place ``pos``, cut in its packed
    form (no row is built), and the place of its last row kept; None when
    no row is kept."""
    _, count = _HEAD.unpack_from(data)
    at = _HEAD.size
    parts = []
    kept = count
    last = 0
    for column in range(11):
        code = data[at : at + 1]
        once = code.isupper()
        size = _SIZES[code[0]]
        width = size if once else size * count
        values = data[at + 1 : at + 1 + width]
        if column == 0:  # the places, ascending
            places = array(code.lower().decode(), values)
            kept = bisect_right(places, pos) if not once else (count if places[0] <= pos else 0)
            if kept == 0:
                return None
            last = places[0] if once else places[kept - 1]
        parts.append(code + (values if once else values[: size * kept]))
        at += 1 + width
    if kept == count:
        return data, last
    head = _HEAD.pack(_FORMAT, kept)
    if data[at : at + 1] == _STATE:
        state, at = _read_state(data, at, count)
        state = {name: values[:kept] for name, values in state.items()}
        if any(v is not None for values in state.values() for v in values):
            parts.append(_state_block(state))
    if at < len(data):
        import json

        extra = json.loads(data[at:])
        for name in ("after", "games_after", "notes"):
            if name in extra:
                extra[name] = {i: v for i, v in extra[name].items() if int(i) < kept}
        extra = {name: v for name, v in extra.items() if v}
        if extra:
            parts.append(json.dumps(extra, separators=(",", ":")).encode())
    return head + b"".join(parts), last


def decode(
    data: bytes, ladder: int, player: int, lo: int | None = None, hi: int | None = None
) -> list[Row]:
    """The rows of a stored chunk (those at places ``lo`` to ``hi``, when
    given)."""
    count, fields, extra = columns(data)
    start, end = 0, count
    if lo is not None and hi is not None:
        start, end = bisect_left(fields[0], lo), bisect_right(fields[0], hi)
        if start == end:
            return []
    pos, seat, entry, codes, side, s, p, k, before, change, games = fields
    after = [b + c for b, c in zip(before, change, strict=True)]
    games_after = [g + (code == _GAME) for g, code in zip(games, codes, strict=True)]
    for i, value in extra.get("after", {}).items():
        after[int(i)] = value
    for i, value in extra.get("games_after", {}).items():
        games_after[int(i)] = value
    notes = [""] * count
    for i, value in extra.get("notes", {}).items():
        notes[int(i)] = value
    kinds = [KINDS[code] for code in codes]
    states: list[dict[str, float] | None] = [None] * count
    kept = extra.get("state")
    if kept:
        states = [
            {name: values[i] for name, values in kept.items() if values[i] is not None} or None
            for i in range(count)
        ]
    fields = (pos, seat, entry, [player] * count, kinds, side, _maybe(s), _maybe(p), _maybe(k),
              before, change, after, games, games_after, notes, states)  # fmt: skip
    rows = list(map(Row._make, zip([ladder] * count, *fields, strict=True)))
    return rows if (start, end) == (0, count) else rows[start:end]


def held_rows(
    data: bytes, ladder: int, player: int, after: int | None = None
) -> list[tuple[Any, ...]]:
    """A stored chunk's rows (those after place ``after``, when given) in
    the shape a replay makes them, to be continued or compared: the short
    one (``whole_row``) when every row is a plain rated game, as most
    chunks' are, so that ``encode`` takes its short path and no ``Row`` is
    built; else ``decode``'s. Either encodes to the same bytes."""
    count, start, layout, at = _read(data, after)
    values = layout.unpack(data)
    spans = layout.spans
    n = count - start

    def column(c: int) -> tuple[Any, ...]:
        a, b, once = spans[c]
        return values[a:b] * n if once else values[a:b]

    kinds = column(_KIND)
    # (a NaN s, p or k stands for none: ``decode`` says so)
    chances = sum(values[spans[_S][0] : spans[_K][1]])
    if (
        at < len(data)
        or kinds.count(_GAME) != n
        or column(_SIDE) != column(_SEAT)
        or chances != chances
    ):
        # (plain tuples, as a replay makes them: marshal, which compares
        # them with replayed rows in one call, takes no ``Row``)
        return list(map(tuple, decode(data, ladder, player)[start:]))
    values = (ladder, player, *values)
    return [row(values) for row in layout.short]


def _maybe(values: list[float]) -> list[float | None]:
    return [None if v != v else v for v in values]  # NaN: none


# -- reading ------------------------------------------------------------------
def player_rows(conn: Database, ladder: int, player: int, upto: int | None = None) -> list[Row]:
    """A player's rows in a ladder in effective order (those at or before
    place ``upto``, when given)."""
    rows = []
    for (data,) in conn.execute(
        "SELECT data FROM view_history_chunks WHERE ladder=? AND player=? AND first<=? "
        "ORDER BY first",
        (ladder, player, _BIG if upto is None else upto),
    ):
        rows += decode(data, ladder, player)
    return _upto(rows, upto)


def ladder_rows(conn: Database, ladder: int, upto: int | None = None) -> list[Row]:
    """Every row of a ladder (those at or before place ``upto``), by place
    and seat."""
    return list(rows_by_place(conn, ladder, 0, upto))


#: Places a read in place order takes at a time (``rows_by_place``).
WINDOW = 50_000


def rows_by_place(
    conn: Database, ladder: int, after: int = 0, upto: int | None = None
) -> Iterator[Row]:
    """A ladder's rows after place ``after`` and at or before ``upto``, by
    place and seat, read ``WINDOW`` places at a time: a window holds its own
    rows and the stored chunks that reach past it (one a player at most),
    never the ladder's rows."""
    if upto is None:
        found = conn.execute(
            "SELECT MAX(last) FROM view_history_chunks WHERE ladder=?", (ladder,)
        ).fetchone()
        upto = found[0] if found and found[0] is not None else after
    # Chunks begun at or before ``after`` that reach past it, along the index
    # by last place (``+first``): every chunk it visits is read below anyway,
    # where the index by first place would visit every chunk begun before
    # ``after`` (a site brought up to date after a game: the whole ladder's).
    carry = conn.execute(
        "SELECT player, last, data FROM view_history_chunks WHERE ladder=? AND last>? "
        "AND +first<=?",
        (ladder, after, after),
    ).fetchall()
    lo = after + 1
    while lo <= upto:
        hi = min(lo + WINDOW - 1, upto)
        begun = conn.execute(
            "SELECT player, last, data FROM view_history_chunks WHERE ladder=? AND first>=? "
            "AND first<=?",
            (ladder, lo, hi),
        ).fetchall()
        rows: list[Row] = []
        reaching = []
        for chunk in (*carry, *begun):
            player, last, data = chunk
            rows += decode(data, ladder, player, lo, hi)
            if last > hi:
                reaching.append(chunk)
        carry = reaching
        rows.sort(key=_place)
        yield from rows
        lo = hi + 1


def last_rows(conn: Database, ladder: int, upto: int) -> Iterator[list[Row]]:
    """Each player's rows at or before place ``upto`` (a list a player; the
    last of each is their state there)."""
    yield from _players_rows(conn, ladder, upto)


def entry_rows(conn: Database, ladder: int, entry: int, players: Iterable[int]) -> list[Row]:
    """The rows of one entry (by number) of these players, by seat.

    Each player's chunks are looked through latest first (a game just
    recorded, the one most often explained, is in the last), by their entry
    column alone: only the chunk holding the entry is decoded into rows,
    never a long career's."""
    found = []
    for p in set(players):
        for (data,) in conn.execute(
            "SELECT data FROM view_history_chunks WHERE ladder=? AND player=? ORDER BY first DESC",
            (ladder, p),
        ):
            if entry in columns(data)[1][2]:
                found += [r for r in decode(data, ladder, p) if r.entry == entry]
                break
    found.sort(key=_place)
    return found


def state_before(conn: Database, ladder: int, player: int, pos: int) -> dict[str, float] | None:
    """A player's family state (``Row.state``) just before place ``pos``
    (None when they have no row before it)."""
    rows = player_rows(conn, ladder, player, pos - 1)
    return rows[-1].state if rows else None


def ladders_of(conn: Database, player: int) -> list[int]:
    """The ladders a player has history in."""
    return [
        ladder
        for (ladder,) in conn.execute(
            "SELECT DISTINCT ladder FROM view_history_chunks WHERE player=? ORDER BY ladder",
            (player,),
        )
    ]


def players_after(conn: Database, ladder: int, pos: int) -> list[int]:
    """The players with a row after place ``pos`` of a ladder."""
    return [
        player
        for (player,) in conn.execute(
            "SELECT DISTINCT player FROM view_history_chunks WHERE ladder=? AND last>?",
            (ladder, pos),
        )
    ]


def players(conn: Database, ladder: int, upto: int | None = None) -> list[int]:
    """The players with a row in a ladder (at or before place ``upto``)."""
    return [
        player
        for (player,) in conn.execute(
            "SELECT DISTINCT player FROM view_history_chunks WHERE ladder=? AND first<=? "
            "ORDER BY player",
            (ladder, _BIG if upto is None else upto),
        )
    ]


def _players_rows(conn: Database, ladder: int, upto: int | None) -> Iterator[list[Row]]:
    limit = _BIG if upto is None else upto
    current, rows = None, []
    for player, data in conn.execute(
        "SELECT player, data FROM view_history_chunks WHERE ladder=? AND first<=? "
        "ORDER BY player, first",
        (ladder, limit),
    ):
        if player != current:
            if rows:
                yield _upto(rows, upto)
            current, rows = player, []
        rows += decode(data, ladder, player)
    if rows:
        yield _upto(rows, upto)


def _upto(rows: list[Row], upto: int | None) -> list[Row]:
    if upto is not None and rows and rows[-1].pos > upto:
        return rows[: bisect_right([r.pos for r in rows], upto)]
    return rows


def _place(row: Row) -> tuple[int, int]:
    return row.pos, row.seat


_BIG = 2**62


# -- writing ------------------------------------------------------------------
#: A restart near a ladder's end (a correction of a recent game) compares
#: the rows its replay makes with the stored ones and rewrites only the
#: players whose rows change (at 1M games and 10,000 players, 387 of the
#: 4,390 with rows after a correction 1% from the end): while at most this
#: many chunks reach past the restart (held meanwhile: 60 MB at most) ...
COMPARED_CHUNKS = 20_000
#: ... and at most this many places follow it a chunk (places after the
#: restart ÷ those chunks). A restart farther back, most of every career
#: replayed, cuts every chunk at once: comparing would read them all to find
#: most rows changed.
COMPARED_PLACES = 4


class _Stored:
    """A player's stored chunks reaching past a compared restart ((first,
    last, data) by first place), their rows after it (read when the player's
    first replayed row comes) and how many of those the replay has matched."""

    __slots__ = ("chunks", "rows", "matched")

    def __init__(self, chunks: list[tuple[int, int, bytes]]) -> None:
        self.chunks = chunks
        self.rows: list[tuple[Any, ...]] | None = None
        self.matched = 0


class Rows:
    """The rows a replay of one ladder makes, gathered per player into
    chunks: a chunk is written once full, the rest at ``finish``.
    ``fresh``: views being built (no chunk stored yet, plain inserts);
    otherwise a player's last chunk, when not full, is read once and
    continued."""

    def __init__(self, conn: Database, ladder: int, fresh: bool = False) -> None:
        self.conn = conn
        self.ladder = ladder
        self.fresh = fresh
        #: Player -> the rows of their open chunk.
        self._open: dict[int, list[tuple[Any, ...]]] = {}
        #: Player -> the first place of their open chunk, when it is stored.
        self._stored: dict[int, int] = {}
        self._full: list[tuple[int, int | None, list[tuple[Any, ...]]]] = []
        #: Rows held in open chunks.
        self._held = 0
        #: Players whose stored chunk this replay has looked at (continued
        #: once: after that their rows start new chunks).
        self._seen: set[int] = set()
        #: A compared restart's place, and the players whose stored rows
        #: after it the replay has not yet matched nor left (``forget_after``).
        self._after = 0
        self._compared: dict[int, _Stored] = {}

    def add(self, rows: list[tuple[Any, ...]]) -> None:
        """Add rows in effective order (``replay.HistoryRow``: the player is
        the fifth field of either shape)."""
        held = self._open
        compared = self._compared
        # By player (a stable sort keeps each player's rows in order): one
        # step a player, not a row.
        for player, theirs in groupby(sorted(rows, key=_PLAYER), _PLAYER):
            if player in compared:
                theirs = self._unmatched(player, list(theirs))
                if not theirs:
                    continue
            chunk = held.get(player)
            if chunk is None:
                chunk = held[player] = self._continued(player)
            held_before = len(chunk)
            chunk += theirs
            self._held += len(chunk) - held_before
            while len(chunk) >= CHUNK:
                self._full.append((player, self._stored.pop(player, None), chunk[:CHUNK]))
                del chunk[:CHUNK]
                self._held -= CHUNK
        if self._held > HELD_ROWS:
            self._flush()
        elif len(self._full) >= 64:
            self._write(self._full)
            self._full = []

    def finish(self) -> None:
        """Write every chunk not written yet; after a compared restart, drop
        the stored rows no replayed row matched (a void's, a game moved
        away)."""
        for player, stored in list(self._compared.items()):
            if stored.rows is None or stored.matched < len(stored.rows):
                self._keep_cut(player, stored.matched, more=False)
        self._compared = {}
        self._flush()

    def _flush(self) -> None:
        """Write every chunk held (a player's next rows start a chunk)."""
        stored = self._stored
        self._write(
            self._full + [(p, stored.get(p), rows) for p, rows in self._open.items() if rows]
        )
        self._full = []
        self._open = {}
        self._stored = {}
        self._held = 0

    def drop(self) -> None:
        """Forget every row of the ladder, stored or held: it is replayed
        from its start (written then as a rebuild writes it) or cannot be
        replayed at all."""
        # No look for a player's chunk to continue after this (a look that
        # scans the chunks while a first import has their indexes dropped:
        # 70 s of a 1M-game fill).
        self.conn.execute("DELETE FROM view_history_chunks WHERE ladder=?", (self.ladder,))
        self.fresh = True
        self._open, self._stored, self._full, self._held = {}, {}, [], 0
        self._compared = {}

    def forget_after(self, pos: int) -> None:
        """Forget the ladder's rows after place ``pos`` (before this replay
        adds any). Near the ladder's end (``COMPARED_CHUNKS``,
        ``COMPARED_PLACES``) nothing is cut yet: the stored rows after
        ``pos`` are compared with those the replay makes, and a player's
        chunks are cut where their rows first differ (``add``; at
        ``finish``, those no replayed row matched). Farther back, chunks
        wholly after ``pos`` are dropped at once and a chunk straddling it
        cut there (``_cut``)."""
        conn, ladder = self.conn, self.ladder
        if pos <= 0:
            self.drop()
            return
        chunks, last = conn.execute(  # (along the index by last place)
            "SELECT COUNT(*), MAX(last) FROM view_history_chunks WHERE ladder=? AND last>?",
            (ladder, pos),
        ).fetchone()
        if not chunks:
            return
        if chunks <= COMPARED_CHUNKS and last - pos <= COMPARED_PLACES * chunks:
            self._after = pos
            found = conn.execute(
                "SELECT player, first, last, data FROM view_history_chunks WHERE ladder=? "
                "AND last>? ORDER BY player, first",
                (ladder, pos),
            ).fetchall()
            for player, theirs in groupby(found, _FIRST):
                self._compared[player] = _Stored([chunk[1:] for chunk in theirs])
            self._seen.update(self._compared)
            return
        # Along the index by last place, as the count above: those chunks
        # are all dealt with here. (``+first``: the index by first place,
        # which SQLite may otherwise pick, holds every chunk begun before
        # ``pos``, most of the ladder's near its end: 71 ms of a 0.18 s
        # ``record`` at the end of 1M AdlG games.)
        straddling = conn.execute(
            "SELECT player, first, data FROM view_history_chunks WHERE ladder=? AND last>? "
            "AND +first<=?",
            (ladder, pos, pos),
        ).fetchall()
        conn.execute(  # (along the index by last place: first > pos implies last > pos)
            "DELETE FROM view_history_chunks WHERE ladder=? AND last>? AND first>?",
            (ladder, pos, pos),
        )
        written: list[tuple[int, int, int, int, bytes]] = []
        for player, first, data in straddling:
            self._seen.add(player)
            self._cut(player, first, data, pos, True, written)
        self._rewrite(written)

    def _unmatched(self, player: int, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """Of a compared player's replayed rows, those not stored already:
        none while they are the stored rows after the restart, in order; at
        the first that differs, the stored rows from there on are forgotten
        (``_keep_cut``) and it and those after it returned, to be written."""
        stored = self._compared[player]
        if stored.rows is None:
            stored.rows = self._stored_rows(player, stored.chunks)
        at = stored.matched
        if _same(rows, stored.rows[at : at + len(rows)]):
            stored.matched += len(rows)
            return []
        same = 0
        while same < len(rows) and _same(
            rows[same : same + 1], stored.rows[at + same : at + same + 1]
        ):
            same += 1
        self._keep_cut(player, at + same, more=True)
        return rows[same:]

    def _stored_rows(self, player: int, chunks: list[tuple[int, int, bytes]]) -> list[Any]:
        """A player's stored rows after the compared restart, in order."""
        rows: list[Any] = []
        for first, _, data in chunks:
            rows += held_rows(
                data, self.ladder, player, self._after if first <= self._after else None
            )
        return rows

    def _keep_cut(self, player: int, kept: int, more: bool) -> None:
        """Keep a compared player's first ``kept`` stored rows after the
        restart and forget the rest, as ``forget_after`` does farther back:
        their chunks after the last row kept dropped, the one holding it cut
        there (``_cut``; ``more``: rows of theirs follow)."""
        stored = self._compared.pop(player)
        upto = stored.rows[kept - 1][1] if kept and stored.rows is not None else self._after
        dropped = [(self.ladder, player, first) for first, _, _ in stored.chunks if first > upto]
        if dropped:
            self.conn.executemany(
                "DELETE FROM view_history_chunks WHERE ladder=? AND player=? AND first=?", dropped
            )
        holding = [(first, data) for first, _, data in stored.chunks if first <= upto]
        if not holding:
            # No chunk of theirs straddles the restart: their next rows
            # continue their last chunk before it, as anyone's do.
            self._seen.discard(player)
            return
        written: list[tuple[int, int, int, int, bytes]] = []
        self._cut(player, *holding[-1], upto, more, written)
        self._rewrite(written)

    def _cut(
        self,
        player: int,
        first: int,
        data: bytes,
        pos: int,
        more: bool,
        written: list[tuple[int, int, int, int, bytes]],
    ) -> None:
        """A stored chunk of a player cut after place ``pos``. When more rows
        of theirs follow and it holds fewer than ``OPEN_BELOW`` rows, it is
        held open, to be continued and written once; else it is cut in its
        packed form (``cut``: no row built, which was most of a correction
        near the end's cost) and added to ``written`` (none when it is kept
        whole), the player's next rows starting a chunk of their own."""
        kept_part = cut(data, pos)
        assert kept_part is not None, "the chunk begins at or before pos"
        packed, last = kept_part
        if more and _HEAD.unpack_from(packed)[1] < OPEN_BELOW:
            kept = held_rows(packed, self.ladder, player)
            self._open[player] = kept
            self._stored[player] = first
            self._held += len(kept)
        elif packed is not data:
            written.append((self.ladder, player, first, last, packed))

    def _continued(self, player: int) -> list[tuple[Any, ...]]:
        """A player's last stored chunk's rows, when it holds fewer than
        ``OPEN_BELOW`` (to be continued and it rewritten), else none; read
        once a replay (the chunks this replay wrote are not read back)."""
        if self.fresh or player in self._seen:
            return []
        self._seen.add(player)
        found = self.conn.execute(
            "SELECT first, data FROM view_history_chunks WHERE ladder=? AND player=? "
            "ORDER BY first DESC LIMIT 1",
            (self.ladder, player),
        ).fetchone()
        if found is None or _HEAD.unpack_from(found[1])[1] >= OPEN_BELOW:
            return []
        rows = held_rows(found[1], self.ladder, player)
        self._stored[player] = found[0]
        self._held += len(rows)
        return rows

    def _write(self, chunks: list[tuple[int, int | None, list[tuple[Any, ...]]]]) -> None:
        if not chunks:
            return
        ladder = self.ladder
        new, rewritten = [], []
        for player, first, rows in chunks:
            record = (ladder, player, rows[0][1], rows[-1][1], encode(rows))
            (new if first is None else rewritten).append(record)
        self._rewrite(rewritten)
        if new:
            self.conn.insert_rows("INSERT INTO view_history_chunks", new)

    def _rewrite(self, chunks: list[tuple[int, int, int, int, bytes]]) -> None:
        """Write stored chunks again (ladder, player, first place: which;
        last place and data: what they now hold)."""
        if chunks:
            self.conn.executemany(
                "UPDATE view_history_chunks SET last=?, data=? WHERE ladder=? AND player=? "
                "AND first=?",
                [(last, data, lad, player, first) for lad, player, first, last, data in chunks],
            )


def _same(replayed: Sequence[tuple[Any, ...]], stored: Sequence[tuple[Any, ...]]) -> bool:
    """Whether rows a replay made are stored rows as they are stored: equal,
    in either shape (``whole_row``), and to the bit (``==`` does not tell
    -0.0 from 0.0; a stored float column keeps an int as a float)."""
    if len(replayed) != len(stored):
        return False
    if replayed != stored:
        replayed = [whole_row(row) for row in replayed]
        stored = [whole_row(row) for row in stored]
        if replayed != stored:
            return False
    try:  # (one C call a side for most rows: plain tuples of ints, floats and None)
        stored_bytes = marshal.dumps(stored, 2)
        if marshal.dumps(replayed, 2) == stored_bytes:
            return True
        # A family rounding its changes (AdlG) makes ints where a float
        # column keeps floats: the rows as stored, compared the same way.
        if marshal.dumps(list(map(_as_stored, replayed)), 2) == stored_bytes:
            return True
    except ValueError:  # a value marshal does not know (a ``Row``, a float's subclass)
        pass
    return [_bits(row) for row in replayed] == [_bits(row) for row in stored]


def _as_stored(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A row with the values of its float columns as floats (``encode``
    keeps them so): s, p, k, before and change of a short row; those and
    after of a whole one."""
    if len(row) == 11:
        return (*row[:5], *map(_float, row[5:10]), row[10])
    return (*row[:7], *map(_float, row[7:13]), *row[13:])


def _float(value: Any) -> Any:
    return value if value is None else float(value)


def _bits(value: Any) -> Any:
    """A row's values as ``encode`` keeps them: a number as the float it
    stores (an int column's values are ints on both sides), a state by name."""
    if isinstance(value, tuple):
        return tuple(map(_bits, value))
    if isinstance(value, dict):
        return sorted((name, _bits(v)) for name, v in value.items())
    if isinstance(value, int | float):
        return float(value).hex()
    return value


_PLAYER = itemgetter(4)
_FIRST = itemgetter(0)
