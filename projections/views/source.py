"""Reading the event store for the views: raw pages, lean decoding.

A rebuild reads every stored event once. Going through the recorder's
``select_notifications`` builds a notification object (with a UUID) per
event, and decoding every event into the ledger's typed classes parses every
id into a UUID and every time into a datetime that the views write back as
text. So the views read pages of ``(position, topic, state)`` with one plain
SELECT on the recorder's own connection (SQLite and PostgreSQL; any other
recorder through ``ledger.kernel.pager.pages``), and decode the events that are
numerous (games recorded or corrected) into lean structs whose ids, dates and
times stay the text they are stored as. Every other event, and a game stored
in an older shape (which needs upcasting), is decoded by ``ledger.kernel.events``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from ledger.kernel import events as ev
from ledger.kernel.pager import pages
from projections.replay import Play

#: Events read per page.
PAGE = 5000

#: One stored event: (notification id, topic, state).
Stored = tuple[int, str, bytes]


class Facts(msgspec.Struct, gc=False):
    """A game's facts as stored (``ledger.kernel.events.GameFacts``), ids and the
    date kept as their text. The replay rates a game from them as they are
    (``sides``, ``result``, ``event``, ``round``, ``neutral``,
    ``attributes``)."""

    ladder: str
    date: str
    sides: list[list[str]]
    result: dict[str, Any]
    event: str | None = None
    round: int | None = None
    table: int | None = None
    neutral: bool = False
    attributes: dict[str, float] = {}
    sequence: int | None = None


class GameNote(msgspec.Struct, gc=False):
    """A ``GameRecorded`` or ``GameCorrected`` event, lean."""

    originator_id: str
    originator_version: int
    recorded_at: str
    recorded_by: str
    game: Facts
    reason: str | None = None
    source: ev.Source | None = None
    #: The stored event's class version (``ev.encode`` writes none at 1).
    class_version: int = 1


GAME_TOPICS = {ev.GameRecorded.TOPIC: ev.GameRecorded, ev.GameCorrected.TOPIC: ev.GameCorrected}
_note_decoder = msgspec.json.Decoder(GameNote)
_encoder = msgspec.json.Encoder()
#: Topic of a game event -> what marks it as stored in this code's shape
#: (its text, for a reader with no msgspec: ``games.plain_facts``).
CURRENT_GAMES = {
    topic: b'"class_version":%d' % cls.class_version for topic, cls in GAME_TOPICS.items()
}
#: Topic of a game event -> the class version of this code's shape.
_VERSIONS = {topic: cls.class_version for topic, cls in GAME_TOPICS.items()}


def _current(decode: Any, topic: str, state: bytes) -> Any:
    """``decode(state)`` (a struct holding the event's ``class_version``)
    when the stored event is a game event in this code's shape, else None:
    the caller upcasts an older one. Its class version is read as the event
    is decoded, not looked for first (1M games read whole: 0.3 s less)."""
    version = _VERSIONS.get(topic)
    if version is None:
        return None
    try:
        decoded = decode(state)
    except msgspec.ValidationError:  # an older shape, which does not fit
        return None
    return decoded if decoded.class_version == version else None


def current_note(topic: str, state: bytes) -> GameNote | None:
    """A stored game event in this code's shape as a ``GameNote`` (None for
    any other event, or a game event of an older shape): how a projector
    reads the bulk of any store."""
    return _current(_note_decoder.decode, topic, state)


def decode(topic: str, state: bytes) -> GameNote | ev.LedgerEvent:
    """A stored event: a ``GameNote`` for a game recorded or corrected in
    this code's shape, else the typed event (upcast when older)."""
    note = current_note(topic, state)
    return note if note is not None else ev.decode(topic, state)


class _FactsOnly(msgspec.Struct, gc=False):
    """A stored game event's facts alone (its other members skipped)."""

    game: Facts
    class_version: int = 1


class _PlayOnly(msgspec.Struct, gc=False):
    """What the replay needs of a stored game event alone (``Play``: the
    facts' other members, and the event's, skipped)."""

    game: Play
    class_version: int = 1


_facts_decoder = msgspec.json.Decoder(_FactsOnly)
_play_decoder = msgspec.json.Decoder(_PlayOnly)


def game_facts(topic: str, state: bytes) -> Facts:
    """The facts of a stored game event (``GameRecorded``, ``GameCorrected``):
    decoded leanly when in this code's shape, else through the typed event
    (upcast). The one way a reader of the views gets a game's facts: the
    views keep none, only the store position of the event holding them."""
    if type(state) is not bytes:  # a driver's buffer (PostgreSQL's bytea)
        state = bytes(state)
    current = _current(_facts_decoder.decode, topic, state)
    if current is not None:
        return current.game
    event = ev.decode(topic, state)
    if not isinstance(event, ev.GameRecorded | ev.GameCorrected):
        raise TypeError(f"no game facts in a {topic} event")
    return game_note(event).game


def game_play(topic: str, state: bytes) -> Play:
    """What the replay needs of a stored game event (``replay.Play``),
    decoded straight from it when in this code's shape, else from its
    facts (``game_facts``: upcast). How a replay reads games back."""
    if type(state) is not bytes:  # a driver's buffer (PostgreSQL's bytea)
        state = bytes(state)
    current = _current(_play_decoder.decode, topic, state)
    if current is not None:
        return current.game
    f = game_facts(topic, state)
    return Play(tuple(map(tuple, f.sides)), f.result, f.event, f.round, f.neutral, f.attributes)


def stored_state(event: ev.LedgerEvent) -> bytes:
    """An event's state as the event store keeps it (``ev.encode``): what
    views without a store beside them keep of a game event not stored."""
    return ev.encode(event)


def game_note(event: ev.GameRecorded | ev.GameCorrected) -> GameNote:
    """The lean form of a typed game event (one not stored yet, or upcast)."""
    return _note_decoder.decode(_encoder.encode(event))


def utc_text(recorded_at: str) -> str:
    """A stored UTC time as ``datetime.isoformat`` writes it (``+00:00``,
    not ``Z``): the form the views have always shown."""
    return recorded_at[:-1] + "+00:00" if recorded_at.endswith("Z") else recorded_at


def raw_pages(recorder: Any, after: int = 0, limit: int = PAGE) -> Iterator[list[Stored]]:
    """Pages of stored events after position ``after``, in store order."""
    read = _reader(recorder)
    if read is None:
        for page in pages(recorder, after, limit):
            yield [(n.id, n.topic, n.state) for n in page]
        return
    while True:
        page = read(after, limit)
        if not page:
            return
        yield page
        after = page[-1][0]


def _reader(recorder: Any) -> Any:
    """A function reading one raw page straight from the recorder's table,
    or None for a recorder without one (in-memory stores)."""
    datastore = getattr(recorder, "datastore", None)
    table = getattr(recorder, "events_table_name", None)
    if datastore is None or table is None:
        return None
    module = type(datastore).__module__
    if module == "eventsourcing.sqlite":
        sql = f"SELECT rowid, topic, state FROM {table} WHERE rowid>? ORDER BY rowid LIMIT ?"

        def read_sqlite(after: int, limit: int) -> list[Stored]:
            with datastore.transaction(commit=False) as c:
                cursor = getattr(c, "sqlite_cursor", None)
                if cursor is not None:  # plain tuples, not the store's sqlite3.Row
                    cursor.row_factory = None
                    cursor.execute(sql, (after, limit))
                    return cursor.fetchall()
                c.execute(sql, (after, limit))
                return [(r[0], r[1], r[2]) for r in c.fetchall()]

        return read_sqlite
    if module == "eventsourcing.postgres":
        from psycopg.sql import SQL, Identifier

        statement = SQL(
            "SELECT notification_id, topic, state FROM {schema}.{table} "
            "WHERE notification_id>%s ORDER BY notification_id LIMIT %s"
        ).format(schema=Identifier(datastore.schema), table=Identifier(table))

        def read_postgres(after: int, limit: int) -> list[Stored]:
            with datastore.transaction(commit=False) as curs:
                curs.execute(statement, (after, limit))
                return [
                    (r["notification_id"], r["topic"], bytes(r["state"])) for r in curs.fetchall()
                ]

        return read_postgres
    return None
