"""A ladder's games in the views: the one module that reads and writes them.

Every reader of games (the queries, the replay's catch-up, the site, the
exports, verify, the audit) goes through the functions here, so the games'
storage is known to this module alone. Today a game is a row of
``view_games``: its number ``n`` (the store position of its first record),
its ladder and effective-order key (``key``: the key up to its id, and
``gid``: the id's 16 bytes; indexed together, in the key's order), its
status, event and round, its
version, ``facts_n`` (the store position of the event whose facts are
current: its first record's, or its latest correction's or record's after
a void), and the recording of its first record (``view_recordings``) with
the sheet row and reason.

The views keep no copy of a game's facts: they are read from the events
(the event store's table joined by position, ``e.topic, e.state``) and
decoded by ``source.game_facts``; a game's first record's facts are the
event at ``n``, an audit line's those of the event at its ``seq``. Throwaway
views in memory (time travel, verify, a preview), which have no event store
beside them, keep the game events they applied in ``view_events`` and join
it the same way.

A game's key is stored in two parts so that it costs the views little:
its text up to its id, and the id as 16 bytes (not 32 hex digits); a key
read back is the two joined (``_key``), a key compared is split the same
way (``_compared``). A game is found by its id or a prefix of it through
the event store's own index (its primary key, ``(originator_id,
originator_version)``), whose first record's position is the game's
number. Throwaway views in memory (time travel, verify, a preview), which
have no event store beside them, look along their ids instead.

A ladder rated per event also keeps each event's span (the keys of its
first and last game, ``view_event_spans``), written by each replay for the
events after its restart (``keep_spans``): a change then finds a checkpoint
no event straddles from the games after it, not from every game.

Callers get rows as tuples in the column orders named below, a game's
facts as ``source.Facts`` (players by id; the replay, its timeline
entries: ``replay.game_entry``), or, where a table for people
reads them (which loads no msgspec: ``entry_details``), as the event that
holds them (``GameEvent``) for ``plain_facts``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple
from uuid import UUID

from ledger.kernel.errors import NotFound
from ledger.kernel.translation import N_, Message
from projections.db import Database, Row, stream
from projections.timeline import RANK, SEP

if TYPE_CHECKING:
    from projections.replay import Duel, Entry, Shared
    from projections.views.source import Facts

#: The games' table (created with the other view tables).
DDL = """
CREATE TABLE view_games (
    n INTEGER PRIMARY KEY, ladder INTEGER NOT NULL, key TEXT NOT NULL, gid BLOB NOT NULL,
    status TEXT NOT NULL, event TEXT, round INTEGER, version INTEGER NOT NULL,
    facts_n INTEGER NOT NULL, recording INTEGER NOT NULL, source_row INTEGER, reason TEXT);
CREATE TABLE view_events (
    n INTEGER PRIMARY KEY, topic TEXT NOT NULL, state BLOB NOT NULL);
CREATE TABLE view_event_spans (
    ladder INTEGER NOT NULL, event TEXT NOT NULL, first TEXT NOT NULL, last TEXT NOT NULL,
    PRIMARY KEY (ladder, event)) WITHOUT ROWID;
"""
#: Its secondary indexes (built after a rebuild or a first import fills it).
INDEX_DDL = """
CREATE INDEX IF NOT EXISTS view_games_key ON view_games (ladder, key, gid);
"""
TABLE = "view_games"
#: The game events applied to views with no event store beside them (empty
#: otherwise): where their facts are read from.
EVENTS = "view_events"
#: Each event's span (keys of its first and last game) in a ladder rated
#: per event, as its last replay found them (``keep_spans``).
SPANS = "view_event_spans"

#: A game's row as the projector holds it (a list) and writes it: the
#: table's columns, in order (``key`` its text up to its id, ``gid`` the
#: id's bytes: ``whole_key`` joins them). Built in this shape, a game is
#: inserted as it is held (1M games: 0.65 s less than split as written).
COLUMNS = (
    "n, ladder, key, gid, status, event, round, version, facts_n, recording, source_row, reason"
)
_NAMES = [column.strip() for column in COLUMNS.split(",")]
_KEY, _GID = _NAMES.index("key"), _NAMES.index("gid")
#: SQL reading a game's row (``g``) as the projector holds it.
_HELD = ", ".join(f"g.{column}" for column in _NAMES)
#: Those a reader gets (``by_ref``): the key whole, no id's bytes.
_READ = [column for column in _NAMES if column != "gid"]
#: Numbers read per statement (well under any driver's limit on parameters).
_BATCH = 500


#: Hex digits of a game's id (the event store keeps 32 of them).
_HEX = frozenset("0123456789abcdef")


def _key(conn: Database, joined: bool = False) -> str:
    """SQL reading a game's whole key (``g``): its text up to its id, then
    the id's 32 hex digits (``timeline.game_key``). ``joined``: one of the
    game's events is joined as ``e``, whose aggregate id SQLite's event
    store keeps as those 32 digits (read as they are: a game read back in a
    replay costs no conversion)."""
    if conn.kind == "postgres":
        return "(g.key || chr(31) || encode(g.gid, 'hex'))"
    if joined and conn.events_beside() is not None:
        return "(g.key || char(31) || e.originator_id)"
    return "(g.key || char(31) || lower(hex(g.gid)))"


def _id(conn: Database) -> str:
    """SQL reading a game's id (``g``) as a UUID's text."""
    if conn.kind == "postgres":
        return "CAST(CAST(encode(g.gid, 'hex') AS uuid) AS text)"
    hexed = "lower(hex(g.gid))"
    parts = "||'-'||".join(
        f"substr({hexed}, {at}, {size})"
        for at, size in ((1, 8), (9, 4), (13, 4), (17, 4), (21, 12))
    )
    return f"CASE WHEN g.gid IS NOT NULL THEN {parts} END"  # (hex(NULL) is '')


def _columns(conn: Database) -> str:
    """SQL reading a game's row (``g``) as a reader gets it (``_READ``), its
    key whole."""
    return ", ".join(f"{_key(conn)} AS key" if c == "key" else f"g.{c}" for c in _READ)


def whole_key(game: Sequence[Any]) -> str:
    """The whole key (``timeline.game_key``) of a game's row as the
    projector holds it (``COLUMNS``)."""
    return f"{game[_KEY]}{SEP}{bytes(game[_GID]).hex()}"


def _compared(op: str, key: str) -> tuple[str, list[Any]]:
    """SQL comparing a game's key (``g``) with ``key`` by ``op`` (``<``,
    ``<=``, ``>``, ``>=``), and its parameters. A game's key is compared in
    its two parts; any other key (a date's end, another entry's) with the
    text alone, which orders the same: no other key is a game's text up to
    its id, and the separator before the id sorts below every character."""
    head, sep, digits = key.rpartition(SEP)
    if sep and len(digits) == 32 and key[11:12] == _GAME and _HEX.issuperset(digits):
        return f"(g.key, g.gid) {op} (?, ?)", [head, bytes.fromhex(digits)]
    return f"g.key {op} ?", [key]


_GAME = RANK["game"]


# -- the projector's writes --------------------------------------------------
def game_for_update(
    conn: Database, n: int | None = None, gid: str | None = None
) -> list[Any] | None:
    """A game's row (``COLUMNS``) by number or else by id, to be changed
    and written back by ``write``; None when there is none."""
    if n is not None:
        found = conn.execute(f"SELECT {_HELD} FROM view_games g WHERE n=?", (n,)).fetchone()
        return list(found) if found is not None else None
    digits = _digits(gid or "")
    found = _games_between(conn, digits, digits, _HELD, 1) if len(digits) == 32 else []
    return list(found[0]) if found else None


def write(
    conn: Database,
    new: Sequence[Sequence[Any]],
    changed: Sequence[Sequence[Any]],
    events: Sequence[tuple[int, str, bytes]] = (),
) -> None:
    """Insert the ``new`` games' rows and write back the ``changed`` ones'
    (rows in ``COLUMNS`` order); ``events``: (position, topic, state) of the
    game events applied to views with no event store beside them."""
    if new:
        conn.insert_rows("INSERT INTO view_games", new)
    if changed:
        conn.executemany(
            "UPDATE view_games SET ladder=?, key=?, gid=?, status=?, event=?, round=?, "
            "version=?, facts_n=? WHERE n=?",
            [(*g[1:9], g[0]) for g in changed],
        )
    if events:
        conn.insert_rows(f"INSERT INTO {EVENTS}", events)


def _events(conn: Database) -> tuple[str, str]:
    """The table holding the game events (the store's, else ``view_events``)
    and its position column."""
    beside = conn.events_beside()
    return (beside, conn.events_position) if beside is not None else (EVENTS, "n")


def _join(conn: Database, alias: str, on: str, left: bool = False) -> str:
    """SQL joining the event at position ``on`` as ``alias``."""
    table, position = _events(conn)
    return f" {'LEFT ' if left else ''}JOIN {table} {alias} ON {alias}.{position} = {on}"


def holds_any(conn: Database) -> bool:
    """Whether the views hold a game (recorded, corrected or voided)."""
    return conn.execute("SELECT 1 FROM view_games LIMIT 1").fetchone() is not None


class GameEvent(NamedTuple):
    """The stored event holding a game's facts, not decoded yet."""

    topic: str
    state: bytes


def _game_facts(topic: str, state: bytes) -> Facts:
    # (imported here: a table for people reads games with no msgspec loaded)
    from projections.views.source import game_facts

    return game_facts(topic, state)


#: What marks a game event stored in this code's shape (``source.CURRENT_GAMES``,
#: which a test compares), known here without loading msgspec.
_CURRENT = {
    "ledger:GameRecorded": b'"class_version":2',
    "ledger:GameCorrected": b'"class_version":2',
}


def plain_facts(event: GameEvent) -> dict[str, Any]:
    """A game's facts as plain data (``GameFacts``'s fields) for a table for
    people, which loads no msgspec: the stored JSON's own when the event is
    in this code's shape, else ``source.game_facts``'s (upcast)."""
    state = event.state if type(event.state) is bytes else bytes(event.state)
    marker = _CURRENT.get(event.topic)
    if marker is not None and state.rfind(marker) >= 0:  # (it ends the event)
        import json

        return json.loads(state)["game"]
    from msgspec import to_builtins

    return to_builtins(_game_facts(event.topic, state))


def event_facts(event: GameEvent) -> Facts:
    """A game's facts from the event holding them (``source.game_facts``)."""
    return _game_facts(event.topic, event.state)


# -- a game by id ------------------------------------------------------------
def by_ref(conn: Database, ref: str) -> Row:
    """A game's row (every column, and its ``id``) by its id or any
    unambiguous prefix of its short id."""
    ref = ref.strip().lower()
    digits = _digits(ref)
    prefix = digits[:8]
    every = f"{_columns(conn)}, {_id(conn)} AS id"
    if len(ref) == 36:
        rows = _games_between(conn, digits, digits, every, 2) if len(digits) == 32 else []
    else:  # the short id is the id's first 8 digits: a range of the id index
        rows = _games_between(conn, prefix, prefix, every, 2) if prefix else []
    if not rows:
        from ledger.kernel import suggest  # (difflib: only for an id not found)

        hint = suggest.hint(
            suggest.close_ids(ref, _ids_near(conn, prefix)),
            N_("game ids are shown by 'history' and 'audit'"),
        )
        raise NotFound(Message("unknown game {ref}{hint}", ref=repr(ref), hint=hint))
    if len(rows) > 1:
        raise NotFound(Message("game id {ref!r} is ambiguous: give more characters", ref=ref))
    return rows[0]


def _ids_near(conn: Database, prefix: str) -> list[str]:
    """Game ids sharing the longest start with ``prefix`` that any has (a
    few dozen at most): where a mistyped short id's right one is found."""
    for length in range(min(len(prefix), 7), 1, -1):
        start = prefix[:length]
        rows = _games_between(conn, start, start, _id(conn), 50)
        if rows:
            return [r[0] for r in rows]
    return []


def played_where(conn: Database, ref: str) -> tuple[int, str] | None:
    """(ladder number, date) of the game not voided whose id is or starts
    with ``ref`` (None when there is none)."""
    digits = _digits(ref.lower())
    if not digits:
        return None
    found = _games_between(
        conn, digits, digits, "g.ladder, substr(g.key, 1, 10)", 1, "g.status <> 'voided'"
    )
    return (found[0][0], found[0][1]) if found else None


def ids(conn: Database) -> dict[int, str]:
    """Every game's id by number."""
    return dict(conn.execute(f"SELECT g.n, {_id(conn)} FROM view_games g").fetchall())


def _digits(ref: str) -> str:
    """The hex digits of a game's id or of its start (none when ``ref``
    holds anything else but dashes)."""
    digits = ref.replace("-", "")
    return digits if len(digits) <= 32 and _HEX.issuperset(digits) else ""


def _games_between(
    conn: Database, low: str, high: str, columns: str, limit: int, where: str = ""
) -> list[Any]:
    """``columns`` of up to ``limit`` games (``g``) whose ids' hex digits
    start from ``low`` through ``high`` (prefixes), in id order: through the
    event store's primary key where the views are beside it (a game's number
    is its first record's position), else a scan of the views' keys."""
    low, high = low.ljust(32, "0"), high.ljust(32, "f")
    extra = f" AND {where}" if where else ""
    events = conn.events_beside()
    if events is None:  # views in memory: along their ids
        return conn.execute(
            f"SELECT {columns} FROM view_games g WHERE g.gid >= ? AND g.gid <= ?{extra} "
            f"ORDER BY g.gid LIMIT {limit}",
            (bytes.fromhex(low), bytes.fromhex(high)),
        ).fetchall()
    if conn.kind != "sqlite":  # a uuid column; SQLite's holds the 32 digits
        low, high = str(UUID(low)), str(UUID(high))
    return conn.execute(
        f"SELECT {columns} FROM {events} e JOIN view_games g ON g.n = e.{conn.events_position} "
        f"WHERE e.originator_id >= ? AND e.originator_id <= ? AND e.originator_version = 1"
        f"{extra} ORDER BY e.originator_id LIMIT {limit}",
        (low, high),
    ).fetchall()


# -- counts and places in a ladder's order -----------------------------------
def count(
    conn: Database,
    ladder: int,
    before: str = "\x7f",
    *,
    through: bool = False,
    since: str = "",
    recording: int | None = None,
) -> int:
    """How many games of a ladder, not voided, have keys from ``since`` to
    before ``before`` (or at it, ``through``); ``recording``: only those
    its import recorded."""
    upto, params = _compared("<=" if through else "<", before)
    sql = f"SELECT COUNT(*) FROM view_games g WHERE ladder=? AND status<>'voided' AND {upto}"
    params.insert(0, ladder)
    if since:
        after, more = _compared(">=", since)
        sql += f" AND {after}"
        params += more
    if recording is not None:
        sql += " AND recording=?"
        params.append(recording)
    return conn.execute(sql, params).fetchone()[0]


def last_played(conn: Database, ladder: int, before: str) -> tuple[str, str | None] | None:
    """(key, event) of a ladder's last game not voided before ``before``."""
    upto, params = _compared("<", before)
    row = conn.execute(
        f"SELECT {_key(conn)}, g.event FROM view_games g WHERE g.ladder=? "
        f"AND g.status<>'voided' AND {upto} ORDER BY g.key DESC, g.gid DESC LIMIT 1",
        (ladder, *params),
    ).fetchone()
    return (row[0], row[1]) if row else None


def event_spans(
    conn: Database, ladder: int, after: str | None = None, at: bool = False
) -> list[tuple[str, str, str]]:
    """(event, key of its first game, key of its last game) of a ladder's
    events (games not voided): of its games after key ``after`` alone when
    given (``at``: at or after it)."""
    later, params = _compared(">=" if at else ">", after) if after else ("1=1", [])
    return [
        (event, lo, hi)
        for event, lo, hi in conn.execute(
            f"SELECT g.event, MIN({_key(conn)}), MAX({_key(conn)}) FROM view_games g "
            f"WHERE g.ladder=? AND {later} AND g.status<>'voided' AND g.event IS NOT NULL "
            "GROUP BY g.event",
            (ladder, *params),
        ).fetchall()
    ]


def kept_spans(conn: Database, ladder: int, events: Sequence[str]) -> dict[str, tuple[str, str]]:
    """The spans ``keep_spans`` kept of these events of a ladder (by event:
    first key, last key)."""
    found: dict[str, tuple[str, str]] = {}
    for at in range(0, len(events), _BATCH):
        part = events[at : at + _BATCH]
        found.update(
            (event, (first, last))
            for event, first, last in conn.execute(
                f"SELECT event, first, last FROM {SPANS} WHERE ladder=? "
                f"AND event IN ({','.join('?' * len(part))})",
                (ladder, *part),
            ).fetchall()
        )
    return found


def keep_spans(
    conn: Database, ladder: int, after: str | None, spans: list[tuple[str, str, str]]
) -> None:
    """Keep ``spans``, every event of a ladder after key ``after`` (all its
    events when None), in place of those kept of the events after it; the
    ladder marked as keeping them (a row with no event, ``spans_kept``)."""
    conn.execute(f"DELETE FROM {SPANS} WHERE ladder=? AND first>?", (ladder, after or ""))
    conn.executemany(
        f"INSERT INTO {SPANS} (ladder, event, first, last) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (ladder, event) DO UPDATE SET first=excluded.first, last=excluded.last",
        [(ladder, "", "", ""), *((ladder, *span) for span in spans)],
    )


def spans_kept(conn: Database, ladder: int) -> bool:
    """Whether the ladder's events' spans are kept (``keep_spans``)."""
    found = conn.execute(f"SELECT 1 FROM {SPANS} WHERE ladder=? AND event=''", (ladder,))
    return found.fetchone() is not None


def forget_spans(conn: Database, ladder: int) -> None:
    """Keep no span of the ladder's events (nor the mark that they are)."""
    conn.execute(f"DELETE FROM {SPANS} WHERE ladder=?", (ladder,))


def pages(conn: Database, ladder: int, before: str) -> Iterator[tuple]:
    """(event, month, first key, last key, games) of each event's games
    (month "") and each month's games outside events, voided ones too,
    before ``before``."""
    upto, params = _compared("<", before)
    yield from conn.execute(
        "SELECT g.event, CASE WHEN g.event IS NULL THEN substr(g.key, 1, 7) ELSE '' END, "
        f"MIN({_key(conn)}), MAX({_key(conn)}), COUNT(*) FROM view_games g "
        f"WHERE g.ladder=? AND {upto} GROUP BY 1, 2",
        (ladder, *params),
    )


# -- games read in effective order -------------------------------------------
def timeline_page(
    conn: Database, ladder: int, after: str, size: int, shared: Shared | None = None
) -> list[Entry | Duel]:
    """The timeline entries (``replay.game_entry``) of up to ``size`` games
    of a ladder not voided after key ``after``, in effective order (their
    values one object each in ``shared``: pages read one after another)."""
    later, params = _compared(">", after)
    where = f"g.ladder=? AND {later}"
    return _entries(conn, where, "g.key, g.gid", (ladder, *params, size), shared)


def timeline_as_recorded(conn: Database, ladder: int, size: int) -> Iterator[list[Entry | Duel]]:
    """Pages of the timeline entries of every game of a ladder not voided,
    in the order of their numbers (first recorded first), not effective
    order: a whole ladder read this way visits its events about in the
    order they are stored, where effective order seeks one a game.
    (``+g.ladder``: along the numbers, not the key index, which SQLite
    would otherwise take for the ladder and then sort the whole ladder for
    every page.)"""
    from projections.replay import Shared

    last, shared = 0, Shared()
    while True:
        page = _entries(conn, "+g.ladder=? AND g.n>?", "g.n", (ladder, last, size), shared)
        if not page:
            return
        yield page
        if len(page) < size:
            return
        last = page[-1].n


def _entries(
    conn: Database, where: str, order: str, params: tuple[Any, ...], shared: Shared | None
) -> list[Entry | Duel]:
    """The timeline entries of a ladder's games not voided where ``where``
    holds, in ``order``, up to the limit ending ``params``: each built as
    its row is read, from the play decoded from the event holding its facts
    (``source.game_play``), with no row or play kept past it (1M games read
    whole: 4.2 -> 3.7 s, their entries freed 0.67 -> 0.52 s)."""
    from projections.replay import game_entry
    from projections.views.source import game_play

    rows = conn.tuples(
        f"SELECT {_key(conn, joined=True)}, g.n, e.topic, e.state FROM view_games g"
        f"{_join(conn, 'e', 'g.facts_n')} WHERE {where} AND g.status<>'voided' "
        f"ORDER BY {order} LIMIT ?",
        params,
    )
    return [game_entry(key, n, game_play(topic, state), shared) for key, n, topic, state in rows]


def details(conn: Database, numbers: Iterable[int]) -> Iterator[tuple]:
    """(n, key, id, date, event, round, status, facts) of the games with
    these numbers, ``facts`` the ``GameEvent`` holding them (not decoded:
    a table for people reads them plain, ``plain_facts``; None when that
    event is missing from the store, which ``verify`` names)."""
    wanted = sorted(set(numbers))
    join = _join(conn, "e", "g.facts_n", left=True)
    for at in range(0, len(wanted), _BATCH):
        part = wanted[at : at + _BATCH]
        for *row, topic, state in conn.tuples(
            f"SELECT g.n, {_key(conn)}, {_id(conn)}, substr(g.key, 1, 10), g.event, g.round, "
            "g.status, "
            f"e.topic, e.state FROM view_games g{join} "
            f"WHERE g.n IN ({','.join('?' * len(part))})",
            part,
        ):
            yield (*row, GameEvent(topic, state) if topic is not None else None)


#: A game with its first record: (n, id, key, status, event, round, facts,
#: first_facts, reason, source_row, recorded_at, recorded_by, file); its
#: facts now and, once changed, as first recorded (else None), each read
#: from its event (``_recorded``).
def _recorded_columns(conn: Database) -> str:
    return (
        f"g.n, {_id(conn)}, {_key(conn)}, g.status, g.event, g.round, e.topic, e.state, "
        "f.topic, f.state, g.reason, g.source_row, r.recorded_at, r.recorded_by, r.file"
    )


def _recorded_from(conn: Database) -> str:
    return (
        f"SELECT {_recorded_columns(conn)} FROM view_games g{_join(conn, 'e', 'g.facts_n')}"
        f"{_join(conn, 'f', 'g.n AND g.facts_n <> g.n', left=True)} "
        "JOIN view_recordings r ON r.n = g.recording"
    )


def _recorded(row: Sequence[Any]) -> tuple:
    """A recorded row (``_recorded_columns``) with its facts decoded."""
    n, gid, key, status, event, round_, topic, state, first_topic, first_state, *rest = row
    first = _game_facts(first_topic, first_state) if first_topic is not None else None
    return (n, gid, key, status, event, round_, _game_facts(topic, state), first, *rest)


def recorded(conn: Database, ladder: int, before: str = "\x7f", since: str = "") -> Iterator[tuple]:
    """Every game of a ladder (voided ones too) from ``since`` to before
    ``before``, with its first record (``_recorded_columns``), in effective order.
    Streamed."""
    after, params = _compared(">=", since)
    upto, more = _compared("<", before)
    for row in stream(
        conn,
        f"{_recorded_from(conn)} WHERE g.ladder=? AND {after} AND {upto} ORDER BY g.key, g.gid",
        (ladder, *params, *more),
    ):
        yield _recorded(row)


def recorded_voided(conn: Database, ladder: int, since: str, before: str) -> list[tuple]:
    """The voided games of a ladder from ``since`` to before ``before``,
    with their first record (``_recorded_columns``), in effective order."""
    after, params = _compared(">=", since)
    upto, more = _compared("<", before)
    return [
        _recorded(row)
        for row in conn.execute(
            f"{_recorded_from(conn)} WHERE g.ladder=? AND g.status='voided' "
            f"AND {after} AND {upto} ORDER BY g.key, g.gid",
            (ladder, *params, *more),
        ).fetchall()
    ]


def recorded_by_number(conn: Database, numbers: Sequence[int]) -> dict[int, tuple]:
    """The games with these numbers (a batch), with their first record
    (``_recorded_columns``), by number."""
    if not numbers:
        return {}
    return {
        r[0]: _recorded(r)
        for r in conn.execute(
            f"{_recorded_from(conn)} WHERE g.n IN ({','.join('?' * len(numbers))})",
            list(numbers),
        ).fetchall()
    }


def facts_at(conn: Database, n: int) -> Facts:
    """The facts of the game event at store position ``n`` (a game's
    ``facts_n``, or its number for its first record's)."""
    table, position = _events(conn)
    row = conn.tuples(f"SELECT topic, state FROM {table} WHERE {position}=?", (n,))
    if not row:
        raise LookupError(f"no game event at position {n}")
    return _game_facts(*row[0])


def facts_of(conn: Database, ladder: int) -> Iterator[Facts]:
    """The facts of every game of a ladder, voided ones too. Streamed."""
    for topic, state in stream(
        conn,
        f"SELECT e.topic, e.state FROM view_games g{_join(conn, 'e', 'g.facts_n')} "
        "WHERE g.ladder=?",
        (ladder,),
    ):
        yield _game_facts(topic, state)


# -- the audit -----------------------------------------------------------------
def _audit_game(conn: Database) -> str:
    """An audit row's last columns: for a game's line whose summary is
    written at query time (``summary`` NULL) the game's id (``game``) and
    the facts of the event the line is (its ``seq``: a record's or a
    correction's; none for a void), read with ``line_facts``."""
    return f"{_id(conn)} AS game, e.topic AS facts_topic, e.state AS facts_state"


#: Kinds of a game's lines whose event holds the game's facts.
_FACT_KINDS = "a.kind IN ('game recorded', 'game corrected')"


def line_facts(row: Row) -> Facts:
    """The facts of a game's audit line (``audit_rows``, ``later_audit_rows``)
    recorded or corrected: the facts as its event left them."""
    return _game_facts(row["facts_topic"], row["facts_state"])


def audit_rows(conn: Database, where: str = "", params: Sequence[Any] = ()) -> Any:
    """The audit in recording order, a game's first record a line of its own
    (``where``: a condition on the line ``a``)."""
    return conn.execute(
        "SELECT a.seq, a.recorded_at, a.recorded_by, a.kind, l.name AS ladder, a.subject, "
        f"a.summary, a.reason, a.source, {_audit_game(conn)} FROM ("
        "SELECT seq, recorded_at, recorded_by, kind, ladder, subject, summary, reason, "
        "source FROM view_audit UNION ALL "
        "SELECT g.n, r.recorded_at, r.recorded_by, 'game recorded', g.ladder, g.n, NULL, "
        "g.reason, r.file || ':' || g.source_row FROM view_games g "
        "JOIN view_recordings r ON r.n = g.recording) a "
        "LEFT JOIN view_ladders l ON l.n = a.ladder "
        "LEFT JOIN view_games g ON a.summary IS NULL AND g.n = a.subject"
        + _join(conn, "e", f"a.seq AND a.summary IS NULL AND {_FACT_KINDS}", left=True)
        + (f" WHERE {where}" if where else "")
        + " ORDER BY a.seq",
        params,
    )


def later_audit_rows(conn: Database, ladder: int) -> Any:
    """The audit lines of a ladder's games after their first records, in
    recording order (the columns of ``audit_rows`` but the ladder's name)."""
    return conn.execute(
        "SELECT a.seq, a.recorded_at, a.recorded_by, a.kind, a.subject, a.summary, "
        f"a.reason, a.source, {_audit_game(conn)} FROM view_audit a "
        "LEFT JOIN view_games g ON g.n = a.subject"
        + _join(conn, "e", f"a.seq AND a.summary IS NULL AND {_FACT_KINDS}", left=True)
        + " WHERE a.ladder=? AND a.kind LIKE 'game %' ORDER BY a.seq",
        (ladder,),
    )


def latest_sources(conn: Database, ladder: int) -> dict[str, str]:
    """Game id -> the sheet's file:row of its latest record after its first
    (a game recorded again: few)."""
    return dict(
        conn.execute(
            f"SELECT {_id(conn)}, MAX(a.source) FROM view_audit a "
            "JOIN view_games g ON g.n = a.subject "
            "WHERE a.ladder=? AND a.kind='game recorded' AND a.source IS NOT NULL GROUP BY g.n",
            (ladder,),
        ).fetchall()
    )


#: The names of the columns ``compared`` gives.
COMPARED_COLUMNS = (
    "id", "ladder id", "key", "status", "event", "round", "version", "facts_n", "facts",
    "recorded_at", "recorded_by", "file", "source_row", "reason",
)  # fmt: skip


def compared(conn: Database) -> list[tuple[Any, ...]]:
    """Every game as a rebuild must reproduce it, with ids in place of the
    views' numbers, its facts as read from its event (JSON text), by id
    (``verify`` compares them)."""
    rows = conn.tuples(
        f"SELECT {_id(conn)} AS game, l.id, {_key(conn)}, g.status, g.event, g.round, g.version, g.facts_n, "
        "e.topic, e.state, r.recorded_at, r.recorded_by, r.file, g.source_row, g.reason "
        f"FROM view_games g{_join(conn, 'e', 'g.facts_n', left=True)} "
        "LEFT JOIN view_ladders l ON l.n = g.ladder "
        "LEFT JOIN view_recordings r ON r.n = g.recording ORDER BY 1"
    )
    return [(*row[:8], _facts_text(row[8], row[9]), *row[10:]) for row in rows]


def _facts_text(topic: str | None, state: bytes | None) -> str | None:
    """A game's facts as JSON text (None: its event is missing)."""
    if topic is None or state is None:
        return None
    import msgspec

    return msgspec.json.encode(_game_facts(topic, state)).decode()
