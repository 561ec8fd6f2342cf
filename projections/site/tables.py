"""Every plain SELECT the site and the exports make on the view tables.

The public query functions (``projections.queries``) answer one ladder or one
player at a time; a site or an export needs whole ladders in one streaming
pass, so these read the ``view_*`` tables directly. They are kept together
here so that a change of the views' shape is fixed in one place.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from projections.db import Database

#: Columns of a history row as ``history_rows`` yields them (a tuple each).
HISTORY_COLUMNS = (
    "key", "entry", "kind", "player", "date", "event", "round", "side", "opponents",
    "s", "p", "k", "before", "change", "after", "games_before", "games_after", "note",
    "status",
)  # fmt: skip

_HISTORY_SELECT = (
    "SELECT h.key, h.entry, h.kind, h.player, h.date, h.event, h.round, h.side, "
    "h.opponents, h.s, h.p, h.k, h.before, h.change, h.after, h.games_before, "
    "h.games_after, h.note, g.status "
    "FROM view_history h LEFT JOIN view_games g ON g.id = h.entry "
    "WHERE h.ladder=? AND h.key<? "
)


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


def history_rows(conn: Database, ladder: str, cut: str, by_player: bool) -> Iterator[tuple]:
    """Every history row of a ladder before ``cut`` (an effective-order key),
    with its game's status, ordered by player then key, or by key."""
    order = "h.player, h.key" if by_player else "h.key"  # both along an index
    yield from conn.execute(_HISTORY_SELECT + "ORDER BY " + order, (ladder, cut))


def games(conn: Database, ladder: str, cut: str) -> Iterator[tuple]:
    """(id, short, key, status, facts dict, recorded_at, recorded_by) of every
    game of a ladder (voided ones too) before ``cut``, in effective order."""
    decode = msgspec.json.Decoder(dict[str, Any]).decode
    for gid, short_id, key, status, facts, at, by in conn.execute(
        "SELECT id, short, key, status, facts, recorded_at, recorded_by FROM view_games "
        "WHERE ladder=? AND key<? ORDER BY key",
        (ladder, cut),
    ):
        yield gid, short_id, key, status, decode(facts), at, by


def game_audit(conn: Database, ladder: str) -> dict[str, list[tuple]]:
    """Short game id -> its audit lines (seq, recorded at, by, kind, summary,
    reason, source) in recording order. The audit view names a game by its
    short id at the start of the summary."""
    out: dict[str, list[tuple]] = {}
    for row in conn.execute(
        "SELECT seq, recorded_at, recorded_by, kind, summary, reason, source FROM view_audit "
        "WHERE ladder=? AND kind LIKE 'game %' ORDER BY seq",
        (ladder,),
    ):
        short_id = row[4][5:13]
        out.setdefault(short_id, []).append(tuple(row))
    return out


def rulesets(conn: Database, ladder: str) -> list[tuple[str, dict[str, Any]]]:
    """(key, ruleset data) of every ruleset adopted by a ladder, in effective order."""
    return [
        (key, msgspec.json.decode(data))
        for key, data in conn.execute(
            "SELECT key, data FROM view_entries WHERE ladder=? AND kind='ruleset' ORDER BY key",
            (ladder,),
        )
    ]


def season_closes(conn: Database, ladder: str, cut: str) -> list[dict[str, Any]]:
    """Label, start and end of every season closed in a ladder before ``cut``."""
    return [
        msgspec.json.decode(data)
        for (data,) in conn.execute(
            "SELECT data FROM view_entries WHERE ladder=? AND kind='season' AND key<? ORDER BY key",
            (ladder, cut),
        )
    ]


def last_result(conn: Database, ladder: str, cut: str) -> tuple[str | None, str | None]:
    """(date, event) of the last game in effective order before ``cut``."""
    row = conn.execute(
        "SELECT date, event FROM view_entries WHERE ladder=? AND kind='game' AND key<? "
        "ORDER BY key DESC LIMIT 1",
        (ladder, cut),
    ).fetchone()
    return (row[0], row[1]) if row else (None, None)


def counts(conn: Database, ladder: str, cut: str) -> tuple[int, int]:
    """(players rated, games not voided) of a ladder before ``cut``."""
    players = conn.execute(
        "SELECT COUNT(DISTINCT player) FROM view_history WHERE ladder=? AND key<?",
        (ladder, cut),
    ).fetchone()[0]
    n_games = conn.execute(
        "SELECT COUNT(*) FROM view_games WHERE ladder=? AND status!='voided' AND key<?",
        (ladder, cut),
    ).fetchone()[0]
    return players, n_games


def games_by_short(conn: Database, ladder: str) -> Iterator[tuple]:
    """(id, short, status, facts JSON, recorded_at, recorded_by) of every game
    of a ladder, voided ones too, in short-id order (read along the index, no
    sort), so an export can merge it with ``game_sources`` while streaming."""
    yield from conn.execute(
        "SELECT id, short, status, facts, recorded_at, recorded_by FROM view_games "
        "WHERE ladder=? ORDER BY short",
        (ladder,),
    )


def game_sources(conn: Database, ladder: str) -> Iterator[tuple[str, str]]:
    """(short id, source file:row) of every game of a ladder recorded from a
    sheet, ordered by short id (the audit view names a game at the start of
    its summary)."""
    yield from conn.execute(
        "SELECT substr(summary, 6, 8) AS short, MAX(source) FROM view_audit "
        "WHERE ladder=? AND kind='game recorded' AND source IS NOT NULL "
        "GROUP BY substr(summary, 6, 8) ORDER BY 1",
        (ladder,),
    )


def result_and_attribute_keys(conn: Database, ladder: str) -> tuple[list[str], list[str], int]:
    """The result fields and attribute names used by a ladder's games, and
    the largest number of sides (the columns of an exported games table)."""
    decode = msgspec.json.Decoder(dict[str, Any]).decode
    results: dict[str, None] = {}
    attributes: dict[str, None] = {}
    sides = 2
    for (facts,) in conn.execute("SELECT facts FROM view_games WHERE ladder=?", (ladder,)):
        data = decode(facts)
        results.update(dict.fromkeys(data["result"]))
        attributes.update(dict.fromkeys(data.get("attributes") or {}))
        sides = max(sides, len(data["sides"]))
    return list(results), sorted(attributes), sides


def ladder_players(conn: Database, ladder: str) -> Iterator[tuple]:
    """(id, name, rating, games, last_played, rated_since, registered_at) of
    every player in a ladder's standings, in name order."""
    yield from conn.execute(
        "SELECT s.player, p.name, s.rating, s.games, s.last_played, s.rated_since, "
        "p.registered_at FROM view_standings s LEFT JOIN view_players p ON p.id = s.player "
        "WHERE s.ladder=? ORDER BY p.key, s.player",
        (ladder,),
    )
