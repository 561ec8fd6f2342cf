"""A ladder's games with their players' rating rows, for the site's game pages.

The ladder's history rows by place (``views.history``), each game with its
first record (``views.games``) read for a batch of them; voided games (no
rows) are read apart and merged in by key. A game's explanation on the site is these stored rows (before, change,
after, K, P, S: the numbers ``ledger explain`` shows), not the family run
again.

Columns read: the history rows (entry, kind, player, side, s, p, k, before,
change, after), and the games with their first records (``games.RECORDED``).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import NamedTuple

from projections.db import Database
from projections.site.tables import STREAM_BATCH
from projections.views import games as kept_games
from projections.views import history
from projections.views.source import Facts


class Game(NamedTuple):
    """One game as the site's game pages read it (its facts, and once they
    changed its first record's, read from their events); ``rows``: its
    players' (player number, side, S, P, K, before, change, after), in seat
    order."""

    n: int
    id: str
    key: str
    status: str
    event: str | None
    round: int | None
    facts: Facts
    first_facts: Facts | None
    reason: str | None
    source_row: int | None
    recorded_at: str
    recorded_by: str
    file: str | None
    rows: list[tuple]


def ladder_games(
    conn: Database,
    ladder: int,
    cut: str,
    upto: int,
    since: tuple[str, int] = ("", 0),
) -> Iterator[Game]:
    """Every game of ladder number ``ladder`` before ``cut`` (an effective
    key) in effective order, voided ones too; ``upto``: the last history
    place before ``cut``; ``since``: (key, place) of the first game wanted
    and the last history place before it. A game not yet replayed (no rows)
    is left out. Streamed: holds one game's rows at a time."""
    voided = [Game(*r, []) for r in kept_games.recorded_voided(conn, ladder, since[0], cut)]
    v = 0
    current: Game | None = None  # (a game's rows may end one batch and begin the next)
    rows = history.rows_by_place(conn, ladder, since[1], upto)
    while batch := list(islice(rows, STREAM_BATCH)):
        games = kept_games.recorded_by_number(
            conn, sorted({row.entry for row in batch if row.kind == "game"})
        )
        for row in batch:
            if row.kind != "game":
                continue
            if current is None or row.entry != current.n:
                if current is not None:
                    yield current
                found = games[row.entry]
                while v < len(voided) and voided[v].key < found[2]:
                    yield voided[v]
                    v += 1
                current = Game(*found, [])
            current.rows.append(
                (row.player, row.side, row.s, row.p, row.k, row.before, row.change, row.after)
            )
    if current is not None:
        yield current
    yield from voided[v:]


def pages(conn: Database, ladder: int, cut: str) -> dict[tuple[str | None, str], tuple]:
    """(event, month) -> (first key, last key, games) of each event's games
    (month "") and of each month's games outside events: where a page
    starts and is complete, and how big it is."""
    return {
        (event, month): (first, last, count)
        for event, month, first, last, count in kept_games.pages(conn, ladder, cut)
    }


def share(
    spans: dict[tuple[str | None, str], tuple], part: int, parts: int
) -> list[tuple[str | None, str]]:
    """The pages of the ``part``-th of ``parts`` shares of about as many
    games each, pages taken in the order they start (so a share reads one
    stretch of the ladder's effective order)."""
    order = sorted(spans, key=lambda page: (spans[page][0], page[0] or "", page[1]))
    total = sum(spans[page][2] for page in order) or 1
    mine, before = [], 0
    for page in order:
        if min(parts - 1, before * parts // total) == part:
            mine.append(page)
        before += spans[page][2]
    return mine
