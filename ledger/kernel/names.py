"""What a name (of a player or a ladder) may be, and its normal form.

A name is stored in Unicode's composed form (NFC), so ``é`` typed on two
keyboards is one name. Characters that would hide or rewrite what a person
reads are refused: control characters and line breaks (a name is one line of
a table), bidirectional overrides (they reorder the text around them), and
``;`` (it separates the players of a team side). Invisible characters such
as zero-width spaces are ignored when names are matched
(``ledger.kernel.identity.name_key``), so they never make a second player who looks
the same as the first.
"""

from __future__ import annotations

import unicodedata

from ledger.kernel.errors import Invalid
from ledger.kernel.identity import name_key
from ledger.kernel.translation import Message

#: The longest name accepted, in characters.
MAX_LENGTH = 100

# Embeddings, overrides and isolates: they reorder the text that follows.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_name(name: str, field: str = "name") -> str:
    """``name`` in its normal form (NFC, no spaces around it), or an Invalid
    naming ``field`` and what is wrong with it."""
    text = unicodedata.normalize("NFC", name).strip()
    for char in text:
        if char in _BIDI_CONTROLS:
            raise Invalid(
                Message(
                    "{field}: {text!r} holds a bidirectional control character "
                    "(U+{code:04X}), which would reorder what people read",
                    field=field,
                    text=text,
                    code=ord(char),
                ),
                field=field,
            )
        if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            raise Invalid(
                Message(
                    "{field}: {text!r} holds a line break or control character "
                    "(U+{code:04X}); a name is one line of text",
                    field=field,
                    text=text,
                    code=ord(char),
                ),
                field=field,
            )
    if ";" in text:
        raise Invalid(
            Message(
                "{field}: {text!r} holds ';', which separates the players of a team side",
                field=field,
                text=text,
            ),
            field=field,
        )
    if not name_key(text):
        raise Invalid(
            Message("{field}: the name is empty (or only invisible characters)", field=field),
            field=field,
        )
    if len(text) > MAX_LENGTH:
        raise Invalid(
            Message(
                "{field}: the name is {count} characters long (at most {most})",
                field=field,
                count=len(text),
                most=MAX_LENGTH,
            ),
            field=field,
        )
    return text
