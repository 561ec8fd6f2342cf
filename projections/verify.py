"""``ledger verify``: the event log against its hash chain, and the stored
views against views rebuilt in memory from the events alone.

Chain links are written by the event store's recorder with the events
(``ledger.kernel.chain``); verify only reads them. Every event without its link,
every event that no longer matches its link and every chained event missing
from the store is named. A ladder that cannot be replayed is a problem;
a ruleset adopted under another version of its family's maths is a warning.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from ledger.kernel import chain, collection
from projections import views
from projections.db import Database
from projections.reads import entry_details
from projections.timeline import SEP
from projections.views import games, history

# What a rebuild must reproduce exactly, each table read with ids and keys
# in place of the views' numbers (so rows compare whatever numbered them).
# Checkpoints and the count of games since the last one depend on when
# catch-ups ran, not on the events.
COMPARED: dict[str, str] = {
    "view_ladders": (
        "SELECT id, name, key, opened_at, opened_by, frontier, frontier_pos, problem "
        "FROM view_ladders ORDER BY id"
    ),
    "view_players": (
        "SELECT p.id, p.name, p.key, p.merged_into, p.registered_at FROM view_players p ORDER BY p.id"
    ),
    "view_games": "",  # its facts read from the events: ``games.compared``
    "view_entries": (
        "SELECT l.id, e.key, e.kind, e.id, e.date, e.data FROM view_entries e "
        "LEFT JOIN view_ladders l ON l.n = e.ladder ORDER BY 1, 2"
    ),
    "view_history": "",  # packed: read through views.history (``_history_rows``)
    "view_standings": (
        "SELECT l.id, p.id, s.rating, s.games, s.last_played, s.rated_since, s.state "
        "FROM view_standings s LEFT JOIN view_ladders l ON l.n = s.ladder "
        "LEFT JOIN view_players p ON p.n = s.player ORDER BY 1, 2"
    ),
    "view_audit": (
        "SELECT a.seq, a.recorded_at, a.recorded_by, a.kind, l.id, a.subject, a.summary, "
        "a.reason, a.source FROM view_audit a "
        "LEFT JOIN view_ladders l ON l.n = a.ladder ORDER BY a.seq"
    ),
    "view_tracking": "SELECT name, position FROM view_tracking ORDER BY name",
    "view_event_spans": (
        "SELECT l.id, s.event, s.first, s.last FROM view_event_spans s "
        "LEFT JOIN view_ladders l ON l.n = s.ladder ORDER BY 1, 2"
    ),
}


class VerifyReport(msgspec.Struct):
    events: int
    head: str
    views_checksum: str
    problems: list[str]
    #: Worth knowing, not a failure (rulesets adopted under other maths).
    warnings: list[str] = []

    @property
    def ok(self) -> bool:
        return not self.problems


@collection.paused()
def check_chain(conn: Database, recorder: Any, published: str | None) -> list[str]:
    """Recompute the chain from the stored events; name every event that was
    changed, stored without its link (inserted outside the ledger) or
    deleted. Runs with the cyclic garbage collector paused (``collection``:
    every link held while the events are read; 1M events: 48 full
    collections, 7.1 -> 5.9 s)."""
    # Links as hex digits, whichever form each is stored in (a ledger made
    # before this change may hold both).
    stored = {
        seq: chain.hex_link(link)
        for seq, link in conn.execute(f"SELECT seq, link FROM {chain.TABLE}").fetchall()
    }
    chained = sorted(stored)
    problems: list[str] = []
    previous, position = chain.GENESIS, 0

    def deleted_before(seq: float) -> None:
        # A chained sequence number the store skips: that event is gone. The
        # next link was made from the deleted one's, so carry on from it.
        nonlocal previous, position
        while position < len(chained) and chained[position] < seq:
            gone = chained[position]
            problems.append(
                f"event {gone} is in the hash chain but missing from the event store (deleted)"
            )
            previous = stored[gone]
            position += 1

    for page in views.pages(recorder):
        for note in page:
            deleted_before(note.id)
            link = stored.get(note.id)
            if link is None:
                # The recorder chains the next event from the last link.
                problems.append(f"event {note.id} ({note.topic}) is not in the hash chain")
                continue
            if link != chain.link(previous, note):
                problems.append(
                    f"event {note.id} ({note.topic}, aggregate {note.originator_id} "
                    f"v{note.originator_version}) does not match its chain link: "
                    "it was changed after it was recorded"
                )
            previous = link
            position += 1
    deleted_before(float("inf"))
    if published is not None and published not in stored.values():
        problems.append(f"the published head {published} is not a link of this ledger's chain")
    return problems


def rows(conn: Database, table: str) -> list[tuple[Any, ...]]:
    """A compared view's rows, with ids and keys, in a fixed order."""
    if table == "view_history":
        return _history_rows(conn)
    if table == "view_games":
        return games.compared(conn)
    return [tuple(r) for r in conn.execute(COMPARED[table])]


def _history_rows(conn: Database) -> list[tuple[Any, ...]]:
    """Every history row with its ladder's, entry's and player's ids and its
    entry's key, by ladder id, key, player id and seat."""
    ids = dict(conn.execute("SELECT n, id FROM view_players").fetchall())
    out = []
    for n, lid in conn.execute("SELECT n, id FROM view_ladders").fetchall():
        rows = history.ladder_rows(conn, n)
        details = entry_details(
            conn,
            (r.entry for r in rows if r.kind == "game"),
            (r.entry for r in rows if r.kind != "game"),
        )
        out += [
            (lid, details[r.entry].key, r.pos, r.seat, details[r.entry].id, r.kind,
             ids[r.player], r.side, r.s, r.p, r.k, r.before, r.change, r.after, r.games_before,
             r.games_after, r.note, r.state)
            for r in rows
        ]  # fmt: skip
    out.sort(key=lambda r: (r[0], r[1], r[6], r[3]))
    return out


def checksum(conn: Database) -> str:
    """SHA-256 over every compared view row, in a fixed order."""
    h = hashlib.sha256()
    for table in COMPARED:
        for row in rows(conn, table):
            h.update(msgspec.json.encode(row))
    return h.hexdigest()


#: The columns ``_history_rows`` gives, by name.
HISTORY_COLUMNS = (
    "ladder", "key", "pos", "seat", "entry", "kind", "player", "side", "s", "p", "k", "before",
    "change", "after", "games_before", "games_after", "note", "state",
)  # fmt: skip


def column_names(table: str) -> list[str]:
    """The names of the columns ``rows`` reads of a compared table."""
    if table == "view_history":
        return list(HISTORY_COLUMNS)
    if table == "view_games":
        return list(games.COMPARED_COLUMNS)
    selected = COMPARED[table].split("SELECT ", 1)[1].split(" FROM ", 1)[0]
    owners = {"l": "ladder id", "p": "player id"}  # the joined tables' ids, by alias
    out = []
    for column in (c.strip() for c in selected.split(",")):
        alias, _, name = column.rpartition(".")
        out.append(owners[alias] if name == "id" and alias in owners else name)
    return out


def readable(value: Any) -> str:
    """A view value for people: an effective-order key's separators shown
    as "·" (never the raw control character), long text cut."""
    text = repr(value.replace(SEP, "·")) if isinstance(value, str) else repr(value)
    return text if len(text) <= 120 else text[:119] + "…"


def row_difference(table: str, stored: tuple[Any, ...], rebuilt: tuple[Any, ...]) -> str:
    """Which row (its first two columns) and which of its columns differ,
    stored against rebuilt."""
    names = column_names(table)
    name = names.__getitem__ if len(names) == len(stored) else lambda i: f"column {i + 1}"
    which = ", ".join(f"{name(i)} {readable(stored[i])}" for i in range(min(2, len(stored))))
    differ = [
        f"{name(i)}: stored {readable(a)}, rebuilt {readable(b)}"
        for i, (a, b) in enumerate(zip(stored, rebuilt, strict=False))
        if a != b
    ]
    return f" ({which}): " + "; ".join(differ)


def compare_views(conn: Database, fresh: Database) -> list[str]:
    """Name the first row of each table where ``conn`` differs from ``fresh``."""
    problems = []
    for table in COMPARED:
        mine, theirs = rows(conn, table), rows(fresh, table)
        for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            if a != b:
                problems.append(f"{table} row {index + 1} differs{row_difference(table, a, b)}")
                break
        else:
            if len(mine) != len(theirs):
                problems.append(
                    f"{table} has {len(mine)} rows stored but {len(theirs)} rebuilt from the events"
                )
    return problems


def check_views(conn: Database, recorder: Any) -> tuple[list[str], str]:
    """Rebuild every view in memory; name the first stored row that differs."""
    fresh = views.in_memory(recorder)
    return compare_views(conn, fresh), checksum(fresh)


def ladder_findings(fresh: Database) -> tuple[list[str], list[str]]:
    """(problems, warnings) of the ladders in views rebuilt from the events:
    ladders that cannot be replayed; rulesets of other maths versions."""
    problems, warnings = [], []
    for lid, name, problem in fresh.execute(
        "SELECT id, name, problem FROM view_ladders ORDER BY key"
    ).fetchall():
        if problem:
            problems.append(problem)
        rulesets = views.ruleset_entries(fresh, views.ladder_number(fresh, lid) or -1)
        warnings += [f"ladder {name!r}: {w}" for w in views.version_warnings(rulesets)]
    return problems, warnings


@collection.paused()
def verify(conn: Database, recorder: Any, published: str | None = None) -> VerifyReport:
    """The chain, the views against a rebuild, and each ladder's replay.
    Runs with the cyclic garbage collector paused (``collection``: every
    view's rows held twice, none of them freed meanwhile; 1M elo games: 80
    full collections, 129 -> 108 s CPU)."""
    problems = check_chain(conn, recorder, published)
    fresh = views.in_memory(recorder)
    problems += compare_views(conn, fresh)
    ladder_problems, warnings = ladder_findings(fresh)
    seq, head = chain.head(conn)
    return VerifyReport(
        events=seq,
        head=head,
        views_checksum=checksum(fresh),
        problems=problems + ladder_problems,
        warnings=warnings,
    )


def stand_in(stored: Database, recorder: Any) -> Database:
    """Views built in memory from the events, holding ``stored``'s hash chain:
    what ``verify`` checks in place of stored views that are behind the
    events and may not be brought up to date by this process (they differ
    from a rebuild by what they have not applied yet, which is no fault)."""
    fresh = views.in_memory(recorder)
    links = stored.execute(f"SELECT seq, link FROM {chain.TABLE} ORDER BY seq").fetchall()
    with fresh.transaction():
        fresh.executemany(f"INSERT INTO {chain.TABLE} (seq, link) VALUES (?, ?)", links)
    return fresh
