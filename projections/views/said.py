"""What an audit line says of an event other than a game (a ladder opened,
a rule change, a player registered, renamed or merged, a season closed, an
adjustment, a void): stored as its sentence's English template and facts
(``view_audit.summary``, JSON), written in the reader's language when read,
as a game's line is written from its facts.

A fact may itself be a sentence (an adjustment's "set to 1600"), stored the
same way and translated with it."""

from __future__ import annotations

from typing import Any

import msgspec

from ledger.kernel.translation import Message, Translator, translator

_json = msgspec.json.Encoder()


def said(message: Message) -> str:
    """``message`` as ``view_audit.summary`` keeps it."""
    return _json.encode(_builtins(message)).decode()


def sentence(stored: str, t: Translator | None = None) -> str:
    """A stored summary in ``t``'s language (English by default); a plain
    text (not a stored sentence) as it is."""
    if not stored.startswith("{"):
        return stored
    return _message(msgspec.json.decode(stored)).in_language(t or translator())


def _builtins(message: Message) -> dict[str, Any]:
    return {
        "say": message.template,
        "with": {
            k: _builtins(v) if isinstance(v, Message) else v for k, v in message.values.items()
        },
    }


def _message(data: dict[str, Any]) -> Message:
    values = {k: _message(v) if isinstance(v, dict) else v for k, v in data["with"].items()}
    return Message(data["say"], **values)
