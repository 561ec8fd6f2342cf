"""The reads of the views that ``projections.queries`` and the plain tables
(``projections.plain``) share, written once: a ladder or player found by
name, the ruleset in force, a ladder's current standings and a player's
history rows.

Plain SQL through the database driver, free of msgspec and of the views'
modules, so that a table for people starts about as fast as ``ledger
--version``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import TYPE_CHECKING, Any, NamedTuple

from ledger.kernel.errors import LedgerError, NotFound
from ledger.kernel.identity import name_key
from ledger.kernel.translation import N_, Message, Translator, translator

if TYPE_CHECKING:
    from projections.views import games as kept_games
    from projections.views.history import Row

#: (player name, rating, games, last played, family state) of each player
#: rated in a ladder (its number), in no order; the state is JSON, or NULL
#: for a family whose state is a rating. Names by join: one statement, one
#: pass over the ladder's standings.
CURRENT_STANDINGS_WITH_STATE = (
    "SELECT p.name, s.rating, s.games, s.last_played, s.state FROM view_standings s "
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
        from ledger.kernel import suggest  # (difflib: only for a name not found)

        known = [r[0] for r in conn.execute("SELECT name FROM view_ladders").fetchall()]
        hint = suggest.hint(suggest.close_names(name, known), N_("see 'ledger ladder list'"))
        raise NotFound(Message("unknown ladder {name}{hint}", name=repr(name), hint=hint))
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
        from ledger.kernel import suggest

        hint = suggest.hint(suggest.close_names(name, _names_like(conn, name)),
                            N_("see 'ledger player list'"))  # fmt: skip
        raise NotFound(Message("unknown player {name}{hint}", name=repr(name), hint=hint))
    if follow_merge and row["merged_into"]:
        return final_player(conn, row["merged_into"])
    return row["id"]


def _names_like(conn: Any, name: str) -> list[str]:
    """The players' names a mistyped ``name`` may be meant for: those the
    ``suggest.like_patterns`` of its key find (a few, at any number of
    players), for ``suggest.close_names`` to compare."""
    from ledger.kernel import suggest

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
        return self.titled(translator())

    def titled(self, t: Translator) -> str:
        """The history's title in ``t``'s language."""
        return t.gettext("{player} in {ladder}").format(
            player=self.player_name, ladder=self.ladder_name
        )


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


class EntryDetail(NamedTuple):
    """What a history row shows of its entry: its key, id, date, and for a
    game its event, round, status and the event holding its facts
    (``views.games.GameEvent``)."""

    key: str
    id: str
    date: str
    event: str | None = None
    round: int | None = None
    status: str | None = None
    facts: kept_games.GameEvent | None = None


#: Numbers read per statement (well under any driver's limit on parameters).
_BATCH = 500


def entry_details(
    conn: Any, games: Iterable[int], others: Iterable[int] = ()
) -> dict[int, EntryDetail]:
    """The entries (by number) that history rows name: ``games`` (their
    rows, ``views.games``) and ``others`` (rulesets, adjustments, season closes)."""
    from projections.views import games as kept_games  # (not for a ranking)

    out: dict[int, EntryDetail] = {}
    for n, *detail in kept_games.details(conn, games):
        out[n] = EntryDetail(*detail)
    numbers = sorted(set(others))
    for at in range(0, len(numbers), _BATCH):
        part = numbers[at : at + _BATCH]
        for n, *detail in conn.tuples(
            f"SELECT n, key, id, date FROM view_entries WHERE n IN ({','.join('?' * len(part))})",
            part,
        ):
            out[n] = EntryDetail(*detail)
    return out


class HistoryRead(NamedTuple):
    """One row of a player's history with what it shows of its entry
    (``facts``: a game's facts as stored, plain data; ``opponents``: the
    names of the players on the other sides, merges followed, in seat order)."""

    row: Row
    entry: EntryDetail
    facts: dict[str, Any] | None
    opponents: tuple[str, ...]


def player_history(conn: Any, ladder: int, player: int) -> list[HistoryRead]:
    """A player's history rows in a ladder (numbers), in effective order,
    each with its entry."""
    from projections.views import games as kept_games
    from projections.views import history  # (not for a ranking)

    rows = history.player_rows(conn, ladder, player)
    details = entry_details(
        conn,
        (r.entry for r in rows if r.kind == "game"),
        (r.entry for r in rows if r.kind != "game"),
    )
    parsed = {n: kept_games.plain_facts(d.facts) for n, d in details.items() if d.facts}
    names = final_names(conn, {p for f in parsed.values() for side in f["sides"] for p in side})
    out = []
    for row in rows:
        facts = parsed.get(row.entry) if row.kind == "game" else None
        against: tuple[str, ...] = ()
        if facts is not None:
            against = tuple(
                names[p] for at, side in enumerate(facts["sides"]) if at != row.side for p in side
            )
        out.append(HistoryRead(row, details[row.entry], facts, against))
    return out


def final_names(conn: Any, ids: Iterable[str]) -> dict[str, str]:
    """The name of each player (by id) or of the player they were merged
    into, following a merge of a merge."""
    out: dict[str, str] = {}
    wanted = sorted(set(ids))
    for at in range(0, len(wanted), _BATCH):
        part = wanted[at : at + _BATCH]
        for pid, name, merged_into in conn.tuples(
            f"SELECT id, name, merged_into FROM view_players WHERE id IN ({','.join('?' * len(part))})",
            part,
        ):
            if merged_into:
                found = conn.execute(
                    "SELECT name FROM view_players WHERE id=?", (final_player(conn, merged_into),)
                ).fetchone()
                name = found[0] if found else name
            out[pid] = name
    return out
