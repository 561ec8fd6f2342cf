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
# type code (an ``array`` code, upper-case for a column of one value stored
# once) and its values; then any family state (``_state_block``); then the
# rows that differ from the usual, as JSON (rating after, games after, note).
_FORMAT = 1
_HEAD = struct.Struct("<BI")
_COLUMN = struct.Struct("<c")
_INT_CODES = (("b", 1 << 7), ("h", 1 << 15), ("i", 1 << 31), ("q", 1 << 63))


def _int_column(values: Sequence[int]) -> bytes:
    low, high = min(values), max(values)
    code = next(code for code, bound in _INT_CODES if -bound <= low and high < bound)
    if low == high:
        return code.upper().encode() + array(code, [low]).tobytes()
    return code.encode() + array(code, values).tobytes()


def _float_column(values: Sequence[float | None]) -> bytes:
    if values.count(values[0]) == len(values):  # (one C call: most K columns)
        return b"D" + array("d", [_NAN if values[0] is None else values[0]]).tobytes()
    if None in values:
        return b"d" + array("d", [_NAN if v is None else v for v in values]).tobytes()
    return b"d" + array("d", values).tobytes()


def encode(rows: Sequence[tuple[Any, ...]]) -> bytes:
    """A chunk of one player's rows (``replay.HistoryRow``: short or whole),
    in effective order. A family's state (``Row.state``) is kept as a column
    of values per name (None where a row has no such value)."""
    if set(map(len, rows)) == {11}:
        # Rated games alone (most chunks): kind, side, after, games after
        # and note are those ``whole_row`` gives.
        _, pos, seat, entry, _, s, p, k, before, change, games = zip(*rows, strict=True)
        return b"".join((
            _HEAD.pack(_FORMAT, len(rows)),
            _int_column(pos), _int_column(seat), _int_column(entry), b"B\x00",
            _int_column(seat), _float_column(s), _float_column(p), _float_column(k),
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
        once = data[at : at + 1] == b"D"
        width = 8 if once else 8 * count
        values = array("d", data[at + 1 : at + 1 + width]).tolist()
        state[name] = _maybe(values * count if once else values)
        at += 1 + width
    return state, at


def columns(data: bytes) -> tuple[int, list[Any], dict[str, Any]]:
    """A chunk's row count, its eleven columns (pos, seat, entry, kind code,
    side, s, p, k, before, change, games before: a list or a one-value list
    each) and its rows that differ from the usual (``encode``)."""
    _, count = _HEAD.unpack_from(data)
    at = _HEAD.size
    out = []
    view = memoryview(data)
    for _ in range(11):
        code = chr(data[at])
        at += 1
        once = code.isupper()
        values = array(code.lower())
        size = values.itemsize * (1 if once else count)
        values.frombytes(view[at : at + size])
        at += size
        out.append(values.tolist() * count if once else values.tolist())
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
        size = array(code.lower().decode()).itemsize
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


def held_rows(data: bytes, ladder: int, player: int) -> list[tuple[Any, ...]]:
    """A stored chunk's rows in the shape a replay makes them, to be
    continued: the short one (``whole_row``) when every row is a plain rated
    game, as most chunks' are, so that ``encode`` takes its short path and no
    ``Row`` is built; else ``decode``'s. Either encodes to the same bytes."""
    count, fields, extra = columns(data)
    pos, seat, entry, codes, side, s, p, k, before, change, games = fields
    if extra or codes.count(_GAME) != count or side != seat:
        return list(decode(data, ladder, player))
    return list(zip([ladder] * count, pos, seat, entry, [player] * count, _maybe(s), _maybe(p),
                    _maybe(k), before, change, games, strict=True))  # fmt: skip


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
    # Chunks begun at or before ``after`` that reach past it.
    carry = conn.execute(
        "SELECT player, last, data FROM view_history_chunks WHERE ladder=? AND last>? AND first<=?",
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
    """The rows of one entry (by number) of these players, by seat."""
    found = [r for p in set(players) for r in player_rows(conn, ladder, p) if r.entry == entry]
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

    def add(self, rows: list[tuple[Any, ...]]) -> None:
        """Add rows in effective order (``replay.HistoryRow``: the player is
        the fifth field of either shape)."""
        held = self._open
        # By player (a stable sort keeps each player's rows in order): one
        # step a player, not a row.
        for player, theirs in groupby(sorted(rows, key=_PLAYER), _PLAYER):
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
            self.finish()
        elif len(self._full) >= 64:
            self._write(self._full)
            self._full = []

    def finish(self) -> None:
        """Write every chunk not written yet."""
        stored = self._stored
        self._write(
            self._full + [(p, stored.get(p), rows) for p, rows in self._open.items() if rows]
        )
        self._full = []
        self._open = {}
        self._stored = {}
        self._held = 0

    def forget_after(self, pos: int) -> None:
        """Forget the ladder's rows after place ``pos`` (before this replay
        adds any): chunks wholly after it dropped; a chunk straddling it cut
        there. A cut chunk holding fewer than ``OPEN_BELOW`` rows is held
        open, to be continued by the rows that follow and written once; a
        fuller one is cut in its packed form (``cut``: no row built, which
        was most of a correction near the end's cost) and written back, the
        player's next rows starting a chunk of their own."""
        conn, ladder = self.conn, self.ladder
        if pos <= 0:
            # Every chunk goes: the ladder's rows are then written as a
            # rebuild's are, with no look for a player's chunk to continue
            # (a look that scans the chunks while a first import has their
            # indexes dropped: 70 s of a 1M-game fill).
            conn.execute("DELETE FROM view_history_chunks WHERE ladder=?", (ladder,))
            self.fresh = True
            return
        straddling = conn.execute(
            "SELECT player, first, data FROM view_history_chunks WHERE ladder=? AND last>? "
            "AND first<=?",
            (ladder, pos, pos),
        ).fetchall()
        conn.execute(  # (along the index by last place: first > pos implies last > pos)
            "DELETE FROM view_history_chunks WHERE ladder=? AND last>? AND first>?",
            (ladder, pos, pos),
        )
        written = []
        for player, first, data in straddling:
            self._seen.add(player)
            kept_part = cut(data, pos)
            assert kept_part is not None, "a straddling chunk begins at or before pos"
            packed, last = kept_part
            if _HEAD.unpack_from(packed)[1] >= OPEN_BELOW:
                written.append((ladder, player, first, last, packed))
                continue
            kept = held_rows(packed, ladder, player)
            self._open[player] = kept
            self._stored[player] = first
            self._held += len(kept)
        self._rewrite(written)

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


_PLAYER = itemgetter(4)
