"""The reads of the views that ``projections.queries`` and the plain tables
(``projections.plain``) share, written once: a ladder or player found by
name, the ruleset in force, a ladder's current standings and a player's
history rows.

Plain SQL through the database driver, free of msgspec and of the views'
modules, so that a table for people starts about as fast as ``ledger
--version``.
"""

from __future__ import annotations

from datetime import date
from typing import Any, NamedTuple

from ledger.kernel import suggest
from ledger.kernel.errors import LedgerError, NotFound
from ledger.kernel.identity import name_key

#: (player name, rating, games, last played) of each player rated in a
#: ladder (its number), in no order.
CURRENT_STANDINGS = (
    # Names by join: one statement, one pass over the ladder's standings.
    "SELECT p.name, s.rating, s.games, s.last_played FROM view_standings s "
    "JOIN view_players p ON p.n = s.player WHERE s.ladder=?"
)


class LadderProblem(LedgerError):
    """A query on a ladder whose entries cannot all be replayed (the message
    names the entry, the error and what to do)."""


def ladder_row(conn: Any, name: str) -> Any:
    """The ``view_ladders`` row of the ladder called ``name`` (case and
    accents ignored)."""
    row = conn.execute("SELECT * FROM view_ladders WHERE key=?", (name_key(name),)).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute("SELECT name FROM view_ladders").fetchall()]
        hint = suggest.hint(suggest.close_names(name, known), "see 'ledger ladder list'")
        raise NotFound(f"unknown ladder {name!r}{hint}")
    return row


def replayed_ladder_row(conn: Any, name: str) -> Any:
    """``ladder_row`` of a ladder whose ratings can be read (raises
    LadderProblem for a ladder that cannot be replayed)."""
    row = ladder_row(conn, name)
    if row["problem"]:
        raise LadderProblem(row["problem"])
    return row


def player_by_name(conn: Any, name: str, follow_merge: bool = True) -> str:
    """The id of the player called ``name`` (case and accents ignored);
    a merged player resolves to the player they were merged into."""
    row = conn.execute(
        "SELECT id, merged_into FROM view_players WHERE key=?", (name_key(name),)
    ).fetchone()
    if row is None:
        hint = suggest.hint(suggest.close_names(name, _names_like(conn, name)),
                            "see 'ledger player list'")  # fmt: skip
        raise NotFound(f"unknown player {name!r}{hint}")
    if follow_merge and row["merged_into"]:
        return final_player(conn, row["merged_into"])
    return row["id"]


def _names_like(conn: Any, name: str) -> list[str]:
    """The players' names a mistyped ``name`` may be meant for: those the
    ``suggest.like_patterns`` of its key find (a few, at any number of
    players), for ``suggest.close_names`` to compare."""
    patterns = suggest.like_patterns(name)
    if not patterns:
        return []
    where = " OR ".join("key LIKE ? ESCAPE '\\'" for _ in patterns)
    rows = conn.execute(f"SELECT name FROM view_players WHERE {where} LIMIT 5000", patterns)
    return [r[0] for r in rows.fetchall()]


def final_player(conn: Any, pid: str) -> str:
    """The player ``pid`` was merged into, following a merge of a merge."""
    seen = set()
    while pid not in seen:
        seen.add(pid)
        row = conn.execute("SELECT merged_into FROM view_players WHERE id=?", (pid,)).fetchone()
        if row is None or not row[0]:
            return pid
        pid = row[0]
    return pid


def ruleset_at_sql(columns: str = "data") -> str:
    """``columns`` of the ruleset entry in force at a key (parameters: the
    ladder's number, the key: an entry's date, then its place that day)."""
    return (
        f"SELECT {columns} FROM view_entries WHERE ladder=? AND kind='ruleset' AND key<=? "
        "ORDER BY key DESC LIMIT 1"
    )


class HistorySubject(NamedTuple):
    """Whose history in which ladder: their numbers in the views and names."""

    ladder: int
    ladder_name: str
    player: int
    player_name: str

    @property
    def title(self) -> str:
        """The history's title: "Ann in Club"."""
        return f"{self.player_name} in {self.ladder_name}"


def history_subject(conn: Any, ladder: str, player: str) -> HistorySubject:
    """The ladder called ``ladder`` (one that can be replayed) and the player
    called ``player`` (or the one they were merged into)."""
    found = replayed_ladder_row(conn, ladder)
    number, name = conn.execute(
        "SELECT n, name FROM view_players WHERE id=?", (player_by_name(conn, player),)
    ).fetchone()
    return HistorySubject(found["n"], found["name"], number, name)


def today_key() -> str:
    """The key past every entry dated today (a rule change announced for a
    later date is not yet in force)."""
    return date.today().isoformat() + "\x7f"


def history_rows_sql(facts: str) -> str:
    """A player's history rows in a ladder, in effective order (parameters:
    the ladder's number twice, the player's number twice): pos, kind, date,
    side, s, p, k, before, after, change, note, game (its id), event, round,
    then ``facts``: columns read from the game's facts ``g.facts``."""
    return (
        "SELECT h.pos, h.kind, COALESCE(substr(g.key, 1, 10), e.date) AS date, h.side, h.s, "
        "h.p, h.k, h.before, h.after, h.change, h.note, g.id AS game, g.event, g.round, "
        f"{facts} FROM view_history_rows h "
        "LEFT JOIN view_games g ON h.kind = 'game' AND g.n = h.entry "
        "LEFT JOIN view_entries e ON h.kind <> 'game' AND e.n = h.entry "
        # The player's places along their index, then their rows by place (a
        # planner without statistics would walk the whole ladder in order).
        "WHERE h.ladder=? AND h.pos IN (SELECT pos FROM view_history_rows "
        "WHERE ladder=? AND player=?) AND h.player=? ORDER BY h.pos, h.seat"
    )
