"""Every plain SELECT the site and the exports make on the view tables.

The public query functions (``projections.queries``) answer one ladder or one
player at a time; a site or an export needs whole ladders in one streaming
pass, so these read the ``view_*`` tables directly. They are kept together
here so that a change of the views' shape is fixed in one place: callers
pass and get ids (ladders, players, games), never the views' numbers.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import msgspec

from ledger.kernel.identity import short
from projections.db import Database
from projections.queries import cut_pos
from projections.views import facts as kept_facts
from projections.views import ladder_number

#: Effective-order keys start with a date: this sorts after every one of
#: them (a cut that keeps every entry).
ALL = "9999-12-31\x7f"
#: Columns of a history row as ``history_rows`` yields them (a tuple each).
HISTORY_COLUMNS = (
    "key", "entry", "kind", "player", "date", "event", "round", "side", "opponents",
    "s", "p", "k", "before", "change", "after", "games_before", "games_after", "note",
    "status", "facts",
)  # fmt: skip
#: Rows a server-side cursor fetches at a time (PostgreSQL).
STREAM_BATCH = 5_000

#: Each history row with its entry's key, id and date and, for a game, one
#: row per player on another side (``o``, in seat order; a row with no
#: opponent for other entries).
_HISTORY_SELECT = (
    "SELECT COALESCE(g.key, e.key) AS key, COALESCE(g.id, e.id) AS entry, h.kind, h.player, "
    "COALESCE(substr(g.key, 1, 10), e.date) AS date, g.event, g.round, h.side, h.seat, h.s, "
    "h.p, h.k, h.before, h.change, h.after, h.games_before, h.games_after, h.note, g.status, "
    "h.pos, o.player AS opponent, g.facts "
    "FROM view_history_rows h "
    "LEFT JOIN view_games g ON h.kind = 'game' AND g.n = h.entry "
    "LEFT JOIN view_entries e ON h.kind <> 'game' AND e.n = h.entry "
    "LEFT JOIN view_history_rows o ON h.kind = 'game' AND o.ladder = h.ladder "
    "AND o.pos = h.pos AND o.side <> h.side "
)
_names = itertools.count()


def stream(conn: Database, sql: str, params: Sequence[Any] = ()) -> Iterator[Any]:
    """The rows of a SELECT, read a batch at a time: SQLite's cursor is lazy;
    on PostgreSQL a plain ``execute`` holds the whole result in the client,
    so this reads through a server-side cursor (``WITH HOLD``: it outlives
    the autocommit transaction, so other queries may run while it is read).
    Close the generator (or read it to the end) to free the server's cursor."""
    if conn.kind != "postgres":
        # Plain tuples (callers index them): no ``sqlite3.Row`` a row.
        cursor = conn.conn.cursor()
        cursor.row_factory = None
        try:
            yield from cursor.execute(sql, params)
        finally:
            cursor.close()
        return
    cursor = conn.conn.cursor(name=f"ledger_stream_{next(_names)}", withhold=True)
    cursor.itersize = STREAM_BATCH
    try:
        cursor.execute(conn.placeholders(sql), params)
        yield from cursor
    finally:
        cursor.close()


def _n(conn: Database, ladder: str) -> int:
    n = ladder_number(conn, ladder)
    return -1 if n is None else n


def ladder_ids(conn: Database) -> dict[str, str]:
    """Ladder name -> id, in name order."""
    return dict(conn.execute("SELECT name, id FROM view_ladders ORDER BY key").fetchall())


def player_names(conn: Database) -> dict[str, str]:
    return dict(conn.execute("SELECT id, name FROM view_players").fetchall())


def merges(conn: Database) -> dict[str, str]:
    """Merged player id -> the id they were merged into (one step)."""
    return dict(
        conn.execute(
            "SELECT id, merged_into FROM view_players WHERE merged_into IS NOT NULL"
        ).fetchall()
    )


def history_rows(
    conn: Database,
    ladder: str,
    cut: str,
    by_player: bool,
    part: tuple[int, int] = (0, 1),
) -> Iterator[tuple]:
    """Every history row of a ladder before ``cut`` (an effective-order key
    ending a day), with its game's status, ordered by player (by id) then
    key, or by key. ``opponents`` are the ids of the players on the other
    sides; ``facts`` the game's kept facts as stored (None for other
    entries). Streamed: a read holds one player's rows (by player) or one
    batch (by key), never the ladder. ``part`` (by player): (i, n), every
    n-th player in id order from the i-th."""
    n = _n(conn, ladder)
    upto = cut_pos(conn, n, cut)
    ids = dict(conn.execute("SELECT n, id FROM view_players").fetchall())
    order = "ORDER BY h.pos, h.seat, o.seat"
    if not by_player:
        where = "WHERE h.ladder=? AND h.pos<=? "
        yield from _with_opponents(stream(conn, _HISTORY_SELECT + where + order, (n, upto)), ids)
        return
    # One read per player, in id order, along the (ladder, player, pos) index.
    players = [p for (p,) in conn.execute(
        "SELECT DISTINCT player FROM view_history_rows WHERE ladder=?", (n,)
    ).fetchall()]  # fmt: skip
    # (Places first: SQLite, without statistics, would rather walk the whole
    # ladder along the primary key's pos than one player's index entries.)
    where = (
        "WHERE h.ladder=? AND h.pos IN (SELECT pos FROM view_history_rows WHERE ladder=? "
        "AND player=? AND pos<=?) AND h.player=? "
    )
    for player in sorted(players, key=ids.__getitem__)[part[0] :: part[1]]:
        rows = stream(conn, _HISTORY_SELECT + where + order, (n, n, player, upto, player))
        yield from _with_opponents(rows, ids)


def _with_opponents(rows: Iterable[Any], ids: dict[int, str]) -> Iterator[tuple]:
    """History rows (one per opponent, from ``_HISTORY_SELECT``) as one
    tuple each in ``HISTORY_COLUMNS`` order."""
    current, place, opponents = None, None, []
    for r in rows:
        if (r[19], r[8], r[3]) != place:  # pos, seat, player
            if current is not None:
                yield (*current[:3], ids[current[3]], *current[4:8], ",".join(opponents),
                       *current[9:19], current[21])  # fmt: skip
            current, place, opponents = r, (r[19], r[8], r[3]), []
        if r[20] is not None:
            opponents.append(ids[r[20]])
    if current is not None:
        yield (*current[:3], ids[current[3]], *current[4:8], ",".join(opponents),
               *current[9:19], current[21])  # fmt: skip


def games(conn: Database, ladder: str, cut: str) -> Iterator[tuple]:
    """(id, short, key, status, facts dict, recorded_at, recorded_by) of every
    game of a ladder (voided ones too) before ``cut``, in effective order."""
    ids = dict(conn.execute("SELECT n, id FROM view_players").fetchall())
    for gid, key, status, event, rnd, facts, at, by in conn.execute(
        "SELECT g.id, g.key, g.status, g.event, g.round, g.facts, r.recorded_at, r.recorded_by "
        "FROM view_games g JOIN view_recordings r ON r.n = g.recording "
        "WHERE g.ladder=? AND g.key<? ORDER BY g.key",
        (_n(conn, ladder), cut),
    ):
        stored = kept_facts.stored(kept_facts.read(facts), ladder, ids, key[:10], event, rnd)
        yield gid, short(gid), key, status, stored, at, by


def rulesets(conn: Database, ladder: str) -> list[tuple[str, dict[str, Any]]]:
    """(key, ruleset data) of every ruleset adopted by a ladder, in effective order."""
    return [
        (key, msgspec.json.decode(data))
        for key, data in conn.execute(
            "SELECT key, data FROM view_entries WHERE ladder=? AND kind='ruleset' ORDER BY key",
            (_n(conn, ladder),),
        )
    ]


def season_closes(conn: Database, ladder: str, cut: str) -> list[dict[str, Any]]:
    """Label, start and end of every season closed in a ladder before ``cut``."""
    return [
        msgspec.json.decode(data)
        for (data,) in conn.execute(
            "SELECT data FROM view_entries WHERE ladder=? AND kind='season' AND key<? ORDER BY key",
            (_n(conn, ladder), cut),
        )
    ]


def last_result(conn: Database, ladder: str, cut: str) -> tuple[str | None, str | None]:
    """(date, event) of the last game in effective order before ``cut``."""
    row = conn.execute(
        "SELECT key, event FROM view_games WHERE ladder=? AND status<>'voided' AND key<? "
        "ORDER BY key DESC LIMIT 1",
        (_n(conn, ladder), cut),
    ).fetchone()
    return (row[0][:10], row[1]) if row else (None, None)


def counts(conn: Database, ladder: str, cut: str) -> tuple[int, int]:
    """(players rated, games not voided) of a ladder before ``cut``."""
    n = _n(conn, ladder)
    if cut >= ALL:  # today: the standings hold every rated player, one row each
        players = conn.execute(
            "SELECT COUNT(*) FROM view_standings WHERE ladder=?", (n,)
        ).fetchone()[0]
    else:
        players = conn.execute(
            "SELECT COUNT(DISTINCT player) FROM view_history_rows WHERE ladder=? AND pos<=?",
            (n, cut_pos(conn, n, cut)),
        ).fetchone()[0]
    n_games = conn.execute(
        "SELECT COUNT(*) FROM view_games WHERE ladder=? AND status<>'voided' AND key<?",
        (n, cut),
    ).fetchone()[0]
    return players, n_games


def games_by_short(conn: Database, ladder: str) -> Iterator[tuple]:
    """(id, short, status, facts JSON, recorded_at, recorded_by, source) of
    every game of a ladder, voided ones too, in effective order (along the
    games' (ladder, key) index: ordering by id would sort the whole ladder
    in SQLite's memory); ``source`` is the
    sheet's file:row it was recorded from (the latest, for a game recorded
    again), or None. Streamed."""
    n = _n(conn, ladder)
    ids = dict(conn.execute("SELECT n, id FROM view_players").fetchall())
    # Records after a game's first are audited apart (a game recorded again: few).
    again = dict(
        conn.execute(
            "SELECT g.id, MAX(a.source) FROM view_audit a JOIN view_games g ON g.n = a.subject "
            "WHERE a.ladder=? AND a.kind='game recorded' AND a.source IS NOT NULL GROUP BY g.id",
            (n,),
        ).fetchall()
    )
    encode = msgspec.json.Encoder().encode
    for gid, key, status, event, rnd, facts, at, by, file, row in stream(
        conn,
        "SELECT g.id, g.key, g.status, g.event, g.round, g.facts, r.recorded_at, "
        "r.recorded_by, r.file, g.source_row FROM view_games g "
        "JOIN view_recordings r ON r.n = g.recording WHERE g.ladder=? ORDER BY g.key",
        (n,),
    ):
        stored = kept_facts.stored(kept_facts.read(facts), ladder, ids, key[:10], event, rnd)
        own = f"{file}:{row}" if file is not None and row is not None else None
        source = max((s for s in (own, again.get(gid)) if s is not None), default=None)
        yield gid, short(gid), status, encode(stored).decode(), at, by, source


def result_and_attribute_keys(conn: Database, ladder: str) -> tuple[list[str], list[str], int]:
    """The result fields and attribute names used by a ladder's games, and
    the largest number of sides (the columns of an exported games table)."""
    results: dict[str, None] = {}
    attributes: dict[str, None] = {}
    sides = 2
    for (facts,) in stream(
        conn, "SELECT facts FROM view_games WHERE ladder=?", (_n(conn, ladder),)
    ):
        data = kept_facts.read(facts)
        results.update(dict.fromkeys(data.result))
        attributes.update(dict.fromkeys(data.attributes))
        sides = max(sides, len(data.sides))
    return list(results), sorted(attributes), sides


def ladder_players(conn: Database, ladder: str) -> Iterator[tuple]:
    """(id, name, rating, games, last_played, rated_since, registered_at) of
    every player in a ladder's standings, in name order."""
    yield from stream(
        conn,
        "SELECT p.id, p.name, s.rating, s.games, s.last_played, s.rated_since, "
        "p.registered_at FROM view_standings s LEFT JOIN view_players p ON p.n = s.player "
        "WHERE s.ladder=? ORDER BY p.key, p.id",
        (_n(conn, ladder),),
    )
