"""The hash chain over the ledger's event log.

Each link is the SHA-256 of the previous link and the event's full stored
content (topic, aggregate id and version, state), so changing, inserting or
deleting any stored event breaks every later link. The store's sequence
numbers are left out: they are not stable across stores, and a migrated
ledger keeps its chain and head. An organiser publishes the head next to a
ranking; ``ledger verify --head`` proves the ledger still holds exactly what
was published.

The links live in ``ledger_chain`` beside the event store and are written by
the event store's recorder in the same transaction as the events they cover
(``ledger.write.recorders``): an event never exists without its link, and nothing
on the read side ever writes one.

A link is the digest's 64 hex digits, and the next link hashes that text;
a new ledger stores it as the digest's 32 bytes (half the row), a ledger
made before as the text. ``stored`` and ``hex_link`` turn one form into the
other, so every reader takes either and every head shown is the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

GENESIS = "0" * 64

TABLE = "ledger_chain"
SCHEMA = f"CREATE TABLE IF NOT EXISTS {TABLE} (seq BIGINT PRIMARY KEY, link BYTEA NOT NULL)"
#: The same table on SQLite, where an ``INTEGER PRIMARY KEY`` is the row id
#: itself: each link is one B-tree entry, not a row and an index entry (a
#: ledger made before keeps its table, which reads and writes the same: a
#: TEXT column keeps a blob as a blob).
SQLITE_SCHEMA = SCHEMA.replace("BIGINT PRIMARY KEY", "INTEGER PRIMARY KEY").replace("BYTEA", "BLOB")


#: The last link written: the chain's head (no row: the chain is empty).
HEAD = f"SELECT seq, link FROM {TABLE} ORDER BY seq DESC LIMIT 1"


def hex_link(value: str | bytes | memoryview) -> str:
    """A stored link as its 64 hex digits, whichever form it is stored in
    (the digest's bytes in a new ledger, the text in one made before): the
    form every link is hashed, compared and shown in."""
    return value if isinstance(value, str) else value.hex()


def stored(link: str) -> bytes:
    """A link's 64 hex digits as a new ledger stores them: the 32 bytes of
    the digest (a row of about 43 bytes rather than 75)."""
    return bytes.fromhex(link)


def link(previous: str, event: Any) -> str:
    """The link that covers ``previous`` and one stored event (anything with
    ``topic``, ``originator_id``, ``originator_version`` and ``state``)."""
    return link_of(
        previous, event.topic, str(event.originator_id), event.originator_version, event.state
    )


def link_of(previous: str, topic: str, originator_id: str, version: int, state: Any) -> str:
    """The link that covers ``previous`` and a stored event given by its
    parts (``originator_id`` as a UUID's text, ``8-4-4-4-12`` hex digits):
    the one computation of a link, whether the recorder writes it, a
    migration copies it or ``verify`` checks it."""
    return links(previous, [(originator_id, version, topic, state)])[-1]


def links(previous: str, events: Iterable[tuple[str, int, str, Any]]) -> list[str]:
    """The links of events given as rows of the events table (aggregate id,
    version, topic, state), each after the one before, the first after
    ``previous``: a batch's links in one call, with the hash looked up once.

    An id is a UUID's text (``8-4-4-4-12``) or, as the events table keeps
    it, its 32 hex digits: either is hashed as the UUID's text, so a batch
    of rows is chained as it is stored, with no copy of each row made."""
    # Imported here: every query opens the views, which name this module,
    # and hashlib's OpenSSL load is most of a query's remaining start-up.
    from hashlib import sha256

    out: list[str] = []
    append = out.append
    for uid, version, topic, state in events:
        # One update of the parts, each ended by a NUL, then the state (a
        # row edited by hand may come back as text: hash what is stored).
        if len(uid) == 32:
            parts = (
                f"{previous}\x00{topic}\x00{uid[:8]}-{uid[8:12]}-{uid[12:16]}-{uid[16:20]}-"
                f"{uid[20:]}\x00{version}\x00"
            )
        else:
            parts = f"{previous}\x00{topic}\x00{uid}\x00{version}\x00"
        h = sha256(parts.encode())
        h.update(state.encode() if isinstance(state, str) else state)
        previous = h.hexdigest()
        append(previous)
    return out


def head(conn: Any) -> tuple[int, str]:
    """(sequence, link as hex digits) of the last event chained, or (0, GENESIS).

    ``conn`` is anything with ``execute(sql)`` returning a cursor."""
    row = conn.execute(HEAD).fetchone()
    return (row[0], hex_link(row[1])) if row else (0, GENESIS)
