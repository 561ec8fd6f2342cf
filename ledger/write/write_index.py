"""The write side's own lookups, kept in the event store's transaction.

Commands decide from write-side state, never from the views. Two facts they
need cannot be read from a single small aggregate, so the recorder keeps them
in tables beside the events, updated in the same transaction as the events
that imply them (``ledger.write.recorders``):

- ``ledger_names``: which player holds each name, keyed by the name as
  matched (``identity.name_key``). The primary key makes a name belong to one
  player at a time: of two concurrent commands claiming it, the store refuses
  one.
- ``ledger_rounds``: the last sequence number (order of play) recorded in
  each (ladder, date, event, round), so the next game gets the next number.
- ``ledger_name_blocks``: each held name's blocking keys
  (``matching.filing_keys``), so that an import's name warnings read only
  the known names sharing a key with a new one (``names_filed_under``): a
  new name costs the same at 100 or 100,000 known players.
- ``ledger_corrections``: the identity (``identity.game_identity``) each
  correction gave a game, so that ``record`` finds a game corrected into
  the identity of the game it records (``corrected_into``) by one lookup,
  not by reading every correction of the store (a scan of every event).

Both are derived from the events alone (``rebuild``), so a store that
predates them, or a migrated copy, gets them back exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Any, Protocol
from uuid import UUID

import msgspec

from ledger.kernel import events as ev
from ledger.kernel.identity import game_identity, name_key
from ledger.kernel.matching import filing_keys

TABLES = (
    "ledger_names", "ledger_rounds", "ledger_name_blocks", "ledger_corrections",
    "ledger_index_version",
)  # fmt: skip
#: Bump when the index changes shape: it is then rebuilt from the events.
VERSION = 3

TOPICS = (
    ev.PlayerRegistered.TOPIC,
    ev.PlayerRenamed.TOPIC,
    ev.GameRecorded.TOPIC,
    ev.GameCorrected.TOPIC,
)


class Cursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...


#: Reads the index: ``query(sql, params)`` -> rows.
Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


def schema(integer: str, without_rowid: str = "") -> list[str]:
    """DDL of the index tables (``integer``: the dialect's 64-bit integer;
    ``without_rowid``: SQLite's clause for a table that is its key)."""
    return [
        "CREATE TABLE IF NOT EXISTS ledger_names "
        "(key TEXT PRIMARY KEY, player TEXT NOT NULL, name TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS ledger_names_player ON ledger_names (player)",
        # (a round's key is most of its row: kept once, not in a row and an index)
        "CREATE TABLE IF NOT EXISTS ledger_rounds "
        f"(round TEXT PRIMARY KEY, last {integer} NOT NULL){without_rowid}",
        "CREATE TABLE IF NOT EXISTS ledger_name_blocks "
        f"(block TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (block, key)){without_rowid}",
        "CREATE TABLE IF NOT EXISTS ledger_corrections "
        f"(identity TEXT NOT NULL, game TEXT NOT NULL, PRIMARY KEY (identity, game)){without_rowid}",
        f"CREATE TABLE IF NOT EXISTS ledger_index_version (version {integer} NOT NULL)",
    ]


def round_key(ladder: UUID, on: date, event: str | None, round_: int | None) -> str:
    """The key of one round of play: ladder, date, event and round."""
    text = _LADDER_TEXT.get(ladder.int)
    if text is None:
        # A UUID's text is made in Python: once per ladder (an import asks
        # for the key of every game's round).
        text = _LADDER_TEXT[ladder.int] = str(ladder)
    return f"{text}|{on.isoformat()}|{event or ''}|{'' if round_ is None else round_}"


#: Ladders' ids as text, by the id as a number (ladders are few).
_LADDER_TEXT: dict[int, str] = {}


class Reached(msgspec.Struct, frozen=True, gc=False):
    """The last order-of-play number new games reach in each round, by
    ``round_key``: what a batch of them adds to ``ledger_rounds``, given with
    their stored rows by the command that numbered them
    (``ledger.write.game_batch``), so their stored form is never decoded
    again to find it."""

    rounds: dict[str, int]


_CLAIM = "INSERT INTO ledger_names (key, player, name) VALUES (?, ?, ?)"
_CLAIM_IF_FREE = _CLAIM + " ON CONFLICT (key) DO NOTHING"
_RELEASE = "DELETE FROM ledger_names WHERE player = ?"
_HELD = "SELECT name FROM ledger_names WHERE player = ?"
# A name's blocks are those of its key: another spelling of the same key
# (an old ledger's shared name) files nothing new.
_FILE = "INSERT INTO ledger_name_blocks (block, key) VALUES (?, ?) ON CONFLICT DO NOTHING"
_UNFILE = "DELETE FROM ledger_name_blocks WHERE block = ? AND key = ?"
_CORRECTED = "INSERT INTO ledger_corrections (identity, game) VALUES (?, ?) ON CONFLICT DO NOTHING"
_SEQUENCE = (
    "INSERT INTO ledger_rounds AS r (round, last) VALUES (?, ?) ON CONFLICT (round) "
    "DO UPDATE SET last = CASE WHEN excluded.last > r.last THEN excluded.last ELSE r.last END"
)


def apply(cursor: Cursor, events: Iterable[Any], rebuilding: bool = False) -> None:
    """Update the index for newly stored events: decoded events, and the
    rounds new games reach (``Reached``) (``rebuilding``: from the whole log,
    where names that an old ledger let two players share keep their first
    holder instead of failing)."""
    claim = _CLAIM_IF_FREE if rebuilding else _CLAIM
    sequences: dict[str, int] = {}
    filed: list[tuple[str, str]] = []
    corrected: list[tuple[str, str]] = []
    for event in events:
        if isinstance(event, ev.PlayerRegistered):
            filed += _claim(cursor, claim, event.originator_id, event.name)
        elif isinstance(event, ev.PlayerRenamed):
            player = str(event.originator_id)
            # The blocks filed for the names it held go with them (a name
            # claimed in this batch is filed below, after every release).
            for (held,) in cursor.rows(_HELD, (player,)):
                held_key = name_key(held)
                unfiled = [(block, held_key) for block in filing_keys(held)]
                cursor.executemany(_UNFILE, unfiled)
                filed = [pair for pair in filed if pair[1] != held_key]
            cursor.execute(_RELEASE, (player,))
            filed += _claim(cursor, claim, event.originator_id, event.name)
        elif isinstance(event, ev.GameRecorded | ev.GameCorrected):
            facts = event.game
            if isinstance(event, ev.GameCorrected):
                corrected.append((game_identity(facts), str(event.originator_id)))
            if facts.sequence is not None:
                key = round_key(facts.ladder, facts.date, facts.event, facts.round)
                sequences[key] = max(sequences.get(key, 0), facts.sequence)
        elif isinstance(event, Reached):
            for key, last in event.rounds.items():
                sequences[key] = max(sequences.get(key, 0), last)
    if filed:
        # In key order: each page of the blocks' key is visited once.
        filed.sort()
        cursor.executemany(_FILE, filed)
    if corrected:
        cursor.executemany(_CORRECTED, corrected)
    if sequences:
        # Each round's last number raised to the largest given (never lowered).
        cursor.executemany(_SEQUENCE, list(sequences.items()))


def _claim(cursor: Cursor, claim: str, player: UUID, name: str) -> list[tuple[str, str]]:
    """Claim ``name`` for ``player``; the (block, key) rows to file it under."""
    key = name_key(name)
    cursor.execute(claim, (key, str(player), name))
    return [(block, key) for block in filing_keys(name)]


def names_filed_under(query: Query, blocks: Iterable[str], chunk: int = 500) -> list[str]:
    """The held names (as written) filed under any of ``blocks``, in name-key
    order: the only known names a name probing those blocks is compared with
    (``matching.NameIndex``). ``query(sql, params)`` reads the index."""
    wanted = sorted(set(blocks))
    found: dict[str, str] = {}
    for start in range(0, len(wanted), chunk):
        part = wanted[start : start + chunk]
        found.update(
            query(
                "SELECT n.key, n.name FROM ledger_name_blocks b JOIN ledger_names n "
                f"ON n.key = b.key WHERE b.block IN ({', '.join('?' * len(part))})",
                part,
            )
        )
    return [found[key] for key in sorted(found)]


def games_corrected_into(query: Query, identity: str) -> list[str]:
    """The games (ids) a correction gave ``identity`` (at any time: the
    caller checks which of them holds it now)."""
    return [
        game
        for (game,) in query(
            "SELECT game FROM ledger_corrections WHERE identity = ? ORDER BY game", (identity,)
        )
    ]


def decoded(stored: Iterable[Any]) -> Iterable[Any]:
    """The events of stored records (or notifications) the index reads."""
    for item in stored:
        if item.topic in TOPICS:
            yield ev.decode(item.topic, item.state)


def rebuild(cursor: Cursor, notifications: Iterable[Any]) -> None:
    """Fill the index from the whole event log (a store that predates it)."""
    for table in TABLES:
        cursor.execute(f"DELETE FROM {table} ")
    apply(cursor, decoded(notifications), rebuilding=True)
    cursor.execute("INSERT INTO ledger_index_version (version) VALUES (?)", (VERSION,))
