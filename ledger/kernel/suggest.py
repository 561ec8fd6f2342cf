"""Did you mean: the known name (of a player, a ladder, a family) or game id
closest to one a person mistyped, for the one line that refuses it.

Both sides use it (the write side's refusals, the read side's queries), so a
typo is answered the same way everywhere. Names are compared on their
``name_key`` (case, accents and spaces ignored) with ``difflib``; ids as the
hexadecimal digits a command printed.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

from ledger.kernel.identity import name_key
from ledger.kernel.translation import Message

#: Smallest difflib ratio for a known name to be offered (a typo or two).
CUTOFF = 0.75
#: Names offered at most.
SHOWN = 3


def close_names(name: str, known: Iterable[str], cutoff: float = CUTOFF) -> list[str]:
    """The known names closest to ``name`` (at most ``SHOWN``): the same
    words in another order first, then the closest by ``difflib``."""
    by_key: dict[str, str] = {}
    for candidate in known:
        by_key.setdefault(name_key(candidate), candidate)
    key = name_key(name)
    by_key.pop(key, None)
    words = sorted(key.split())
    swapped = [k for k in by_key if sorted(k.split()) == words]
    close = get_close_matches(key, list(by_key), SHOWN, cutoff)
    return [by_key[k] for k in dict.fromkeys([*swapped, *close])][:SHOWN]


def like_patterns(name: str) -> list[str]:
    """SQL ``LIKE`` patterns (escaped with ``\\``) that a known name key
    close to ``name`` matches, to read only those from a large table before
    ``close_names`` compares them: a name with a word that starts or ends
    with the same three letters as one of ``name``'s (a typo confined to one
    word, or in the middle of a one-word name)."""
    patterns: list[str] = []
    for word in name_key(name).split():
        start, end = _escaped(word[:3]), _escaped(word[-3:])
        for pattern in (f"{start}%", f"% {start}%", f"%{end}", f"%{end} %"):
            if pattern not in patterns:
                patterns.append(pattern)
    return patterns


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def close_ids(ref: str, known: Iterable[str], cutoff: float = CUTOFF) -> list[str]:
    """The known short ids closest to the id ``ref`` a person typed."""
    text = ref.strip().lower().replace("-", "")
    shorts = {k.replace("-", "")[: max(8, len(text))] for k in known}
    shorts.discard(text)
    return get_close_matches(text, sorted(shorts), SHOWN, cutoff)


def did_you_mean(candidates: list[str]) -> str:
    """``"did you mean 'Hugo Lemaire'?"`` (or two or three of them), or ""."""
    if not candidates:
        return ""
    quoted = [repr(c) for c in candidates]
    if len(quoted) == 1:
        return Message("did you mean {name}?", name=quoted[0])
    return Message("did you mean {names} or {last}?", names=", ".join(quoted[:-1]), last=quoted[-1])


def hint(candidates: list[str], otherwise: str) -> str:
    """The parenthesised hint of a refusal: the close names when there are
    some, else ``otherwise`` (e.g. "see 'ledger player list'", marked with
    ``N_`` where it is written: it is looked up in the catalogs)."""
    return Message(" ({hint})", hint=did_you_mean(candidates) or Message(otherwise))
