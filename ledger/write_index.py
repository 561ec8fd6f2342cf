"""The write side's own lookups, kept in the event store's transaction.

Commands decide from write-side state, never from the views. Two facts they
need cannot be read from a single small aggregate, so the recorder keeps them
in tables beside the events, updated in the same transaction as the events
that imply them (``ledger.recorders``):

- ``ledger_names``: which player holds each name, keyed by the name as
  matched (``identity.name_key``). The primary key makes a name belong to one
  player at a time: of two concurrent commands claiming it, the store refuses
  one.
- ``ledger_rounds``: the last sequence number (order of play) recorded in
  each (ladder, date, event, round), so the next game gets the next number.

Both are derived from the events alone (``rebuild``), so a store that
predates them, or a migrated copy, gets them back exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any, Protocol
from uuid import UUID

from ledger import events as ev
from ledger.identity import name_key

TABLES = ("ledger_names", "ledger_rounds", "ledger_index_version")
#: Bump when the index changes shape: it is then rebuilt from the events.
VERSION = 1

TOPICS = (
    ev.PlayerRegistered.TOPIC,
    ev.PlayerRenamed.TOPIC,
    ev.GameRecorded.TOPIC,
    ev.GameCorrected.TOPIC,
)


class Cursor(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


def schema(integer: str) -> list[str]:
    """DDL of the index tables (``integer``: the dialect's 64-bit integer)."""
    return [
        "CREATE TABLE IF NOT EXISTS ledger_names "
        "(key TEXT PRIMARY KEY, player TEXT NOT NULL, name TEXT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS ledger_names_player ON ledger_names (player)",
        f"CREATE TABLE IF NOT EXISTS ledger_rounds (round TEXT PRIMARY KEY, last {integer} NOT NULL)",
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


_CLAIM = "INSERT INTO ledger_names (key, player, name) VALUES (?, ?, ?)"
_CLAIM_IF_FREE = _CLAIM + " ON CONFLICT (key) DO NOTHING"
_RELEASE = "DELETE FROM ledger_names WHERE player = ?"
_SEQUENCE = (
    "INSERT INTO ledger_rounds AS r (round, last) VALUES (?, ?) ON CONFLICT (round) "
    "DO UPDATE SET last = CASE WHEN excluded.last > r.last THEN excluded.last ELSE r.last END"
)


def apply(cursor: Cursor, events: Iterable[Any], rebuilding: bool = False) -> None:
    """Update the index for newly stored (decoded) events (``rebuilding``:
    from the whole log, where names that an old ledger let two players share
    keep their first holder instead of failing)."""
    claim = _CLAIM_IF_FREE if rebuilding else _CLAIM
    sequences: dict[str, int] = {}
    for event in events:
        if isinstance(event, ev.PlayerRegistered):
            cursor.execute(claim, (name_key(event.name), str(event.originator_id), event.name))
        elif isinstance(event, ev.PlayerRenamed):
            cursor.execute(_RELEASE, (str(event.originator_id),))
            cursor.execute(claim, (name_key(event.name), str(event.originator_id), event.name))
        elif isinstance(event, ev.GameRecorded | ev.GameCorrected):
            facts = event.game
            if facts.sequence is not None:
                key = round_key(facts.ladder, facts.date, facts.event, facts.round)
                sequences[key] = max(sequences.get(key, 0), facts.sequence)
    apply_rounds(cursor, sequences)


def apply_rounds(cursor: Cursor, last: dict[str, int]) -> None:
    """Raise each round's last order-of-play number to ``last[round key]``
    (an import hands out the numbers itself, so its games are not decoded
    again to find them)."""
    if last:
        cursor.executemany(_SEQUENCE, list(last.items()))


def decoded(stored: Iterable[Any]) -> Iterable[Any]:
    """The events of stored records (or notifications) the index reads."""
    for item in stored:
        if item.topic in TOPICS:
            yield ev.decode(item.topic, item.state)


def rebuild(cursor: Cursor, notifications: Iterable[Any]) -> None:
    """Fill the index from the whole event log (a store that predates it)."""
    for table in ("ledger_names", "ledger_rounds", "ledger_index_version"):
        cursor.execute(f"DELETE FROM {table} ")
    apply(cursor, decoded(notifications), rebuilding=True)
    cursor.execute("INSERT INTO ledger_index_version (version) VALUES (?)", (VERSION,))
