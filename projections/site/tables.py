"""Every plain SELECT the site and the exports make on the view tables.

The public query functions (``projections.queries``) answer one ladder or one
player at a time; a site or an export needs whole ladders in one streaming
pass, so these read the ``view_*`` tables directly. They are kept together
here so that a change of the views' shape is fixed in one place: callers
pass and get ids (ladders, players, games), never the views' numbers.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import msgspec

from ledger.kernel.identity import short
from projections.db import STREAM_BATCH, Database, stream
from projections.queries import cut_pos
from projections.reads import entry_details
from projections.replay import resolve_merges
from projections.views import games as kept_games
from projections.views import history, ladder_number

#: Effective-order keys start with a date: this sorts after every one of
#: them (a cut that keeps every entry).
ALL = "9999-12-31\x7f"
#: Columns of a history row as ``history_rows`` yields them (a tuple each).
HISTORY_COLUMNS = (
    "key", "entry", "kind", "player", "date", "event", "round", "side", "opponents",
    "s", "p", "k", "before", "change", "after", "games_before", "games_after", "note",
    "status", "facts", "state",
)  # fmt: skip


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
    key, or by key; a tuple each in ``HISTORY_COLUMNS`` order.
    ``opponents`` are the ids of the players on the other sides (merges
    followed); ``facts`` the game's facts (``source.Facts``, read from its
    event; None for other entries). By player, a read holds one player's rows. ``part`` (by
    player): (i, n), every n-th player in id order from the i-th."""
    n = _n(conn, ladder)
    upto = cut_pos(conn, n, cut)
    ids = dict(conn.execute("SELECT n, id FROM view_players").fetchall())
    final = resolve_merges(merges(conn))
    if not by_player:
        rows = history.rows_by_place(conn, n, 0, upto)
        while batch := list(itertools.islice(rows, STREAM_BATCH)):
            yield from _with_entries(conn, batch, ids, final)
        return
    players = sorted(history.players(conn, n, upto), key=ids.__getitem__)
    for player in players[part[0] :: part[1]]:
        yield from _with_entries(conn, history.player_rows(conn, n, player, upto), ids, final)


def _with_entries(
    conn: Database, rows: list[history.Row], ids: dict[int, str], final: dict[str, str]
) -> Iterator[tuple]:
    """History rows with their entries, as tuples in ``HISTORY_COLUMNS`` order."""
    details = entry_details(
        conn,
        (r.entry for r in rows if r.kind == "game"),
        (r.entry for r in rows if r.kind != "game"),
    )
    read = {n: kept_games.event_facts(d.facts) for n, d in details.items() if d.facts is not None}
    for r in rows:
        d = details[r.entry]
        opponents = ""
        facts = read.get(r.entry)
        if facts is not None:
            opponents = ",".join(
                final.get(p, p) for at, side in enumerate(facts.sides) if at != r.side for p in side
            )
        yield (
            d.key, d.id, r.kind, ids[r.player], d.date, d.event, d.round, r.side, opponents,
            r.s, r.p, r.k, r.before, r.change, r.after, r.games_before, r.games_after, r.note,
            d.status, facts, r.state,
        )  # fmt: skip


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
    last = kept_games.last_played(conn, _n(conn, ladder), cut)
    return (last[0][:10], last[1]) if last else (None, None)


def counts(conn: Database, ladder: str, cut: str) -> tuple[int, int]:
    """(players rated, games not voided) of a ladder before ``cut``."""
    n = _n(conn, ladder)
    if cut >= ALL:  # today: the standings hold every rated player, one row each
        players = conn.execute(
            "SELECT COUNT(*) FROM view_standings WHERE ladder=?", (n,)
        ).fetchone()[0]
    else:
        players = len(history.players(conn, n, cut_pos(conn, n, cut)))
    return players, kept_games.count(conn, n, cut)


def games_by_short(conn: Database, ladder: str) -> Iterator[tuple]:
    """(id, short, status, facts JSON, recorded_at, recorded_by, source) of
    every game of a ladder, voided ones too, in effective order (along the
    games' (ladder, key) index: ordering by id would sort the whole ladder
    in SQLite's memory); ``source`` is the
    sheet's file:row it was recorded from (the latest, for a game recorded
    again), or None. Streamed."""
    n = _n(conn, ladder)
    # Records after a game's first are audited apart (a game recorded again: few).
    again = kept_games.latest_sources(conn, n)
    encode = msgspec.json.Encoder().encode
    for _, gid, _, status, _, _, facts, _, _, row, at, by, file in kept_games.recorded(conn, n):
        own = f"{file}:{row}" if file is not None and row is not None else None
        source = max((s for s in (own, again.get(gid)) if s is not None), default=None)
        yield gid, short(gid), status, encode(facts).decode(), at, by, source


def result_and_attribute_keys(conn: Database, ladder: str) -> tuple[list[str], list[str], int]:
    """The result fields and attribute names used by a ladder's games, and
    the largest number of sides (the columns of an exported games table)."""
    results: dict[str, None] = {}
    attributes: dict[str, None] = {}
    sides = 2
    for data in kept_games.facts_of(conn, _n(conn, ladder)):
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
