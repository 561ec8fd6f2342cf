"""Player identity helpers: names that may mean the same person.

Names are compared on their ``name_key`` (case, accents and repeated spaces
ignored), so two spellings with the same key are already one player and never
a "similar" candidate. What is left to catch:

- typos: ``difflib`` similarity of the keys at least ``TYPO_RATIO``
  (also tried with the name's words in sorted order, for a typo in a swapped
  name);
- swapped names: the same words in another order (``"Dupont Eric"`` and
  ``"Éric Dupont"``);
- an initial for a first name: ``"E. Dupont"`` and ``"Éric Dupont"``.

Comparing a name with every known one costs the same work per known player;
``NameIndex`` blocks first: each name is filed under a few keys (its words in
any order; its words but one, with that word's first or last letter; its
first letters with one whole word; its letters without spaces or punctuation;
a one-word name's first or last three letters), and only names sharing a key
are compared. A typo confined to one word, swapped words, an initial for any
words and spacing differences always share a key; a name with typos in two
words at once may be missed (the price of a warning costing the same at 100 or
100,000 known players).

Pure functions, no database: the caller passes the names it knows, or (a
store of many names) keeps each name's ``filing_keys`` and passes only the
names filed under a new name's ``probing_keys``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from difflib import SequenceMatcher
from typing import NamedTuple

import msgspec

from ledger.kernel.identity import name_key

#: Smallest difflib ratio between two name keys that counts as a likely typo.
TYPO_RATIO = 0.85
#: Words this long or shorter are also filed by their first and last letter.
SHORT_WORD = 5
_WORD = re.compile(r"[^\s,;]+")
_NOT_ALNUM = re.compile(r"[\W_]+")


class DuplicatePair(msgspec.Struct):
    """Two registered players who may be one person (``ledger player merge``).

    ``player`` and ``other`` are their names (in name order), ``similarity``
    how alike the names are (0 to 1; 1 for the same words in another order),
    ``evidence`` why they are listed, in words.
    """

    player: str
    other: str
    similarity: float
    evidence: str


class Likeness(NamedTuple):
    """How alike two names are (0 to 1) and why, in words."""

    similarity: float
    reason: str


class _Name:
    """A name prepared once for many comparisons."""

    __slots__ = ("key", "name", "sorted_words", "words")

    def __init__(self, name: str) -> None:
        self.name = name
        self.key = name_key(name)
        self.words = _WORD.findall(self.key)
        self.sorted_words = " ".join(sorted(self.words))


def _ratio(a: str, b: str) -> float:
    """difflib's ratio, skipped (0) when its cheap upper bounds fall short."""
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < TYPO_RATIO or matcher.quick_ratio() < TYPO_RATIO:
        return 0.0
    return matcher.ratio()


def _initial_for(words: list[str], other: list[str]) -> str | None:
    """``"e. for eric"`` when ``words`` and ``other`` are the same words except
    that one gives an initial where the other gives the word (in the same
    order, or a two-word name reversed); else None."""
    if len(words) != len(other) or len(words) < 2:
        return None
    orders = [other] + ([other[::-1]] if len(other) == 2 else [])
    for candidate in orders:
        initials = []
        full = 0
        for a, b in zip(words, candidate, strict=True):
            a_bare, b_bare = a.rstrip("."), b.rstrip(".")
            if a_bare == b_bare and len(a_bare) > 1:
                full += 1
            elif len(a_bare) == 1 and len(b_bare) > 1 and b_bare[0] == a_bare:
                initials.append(f"{a} for {b}")
            elif len(b_bare) == 1 and len(a_bare) > 1 and a_bare[0] == b_bare:
                initials.append(f"{b} for {a}")
            else:
                break
        else:
            if initials and full:
                return ", ".join(initials)
    return None


def _compare(a: _Name, b: _Name) -> Likeness | None:
    if not a.key or not b.key:
        return None
    if a.key == b.key:
        return Likeness(1.0, "the same name but for case, accents or spacing")
    if a.sorted_words == b.sorted_words:
        if a.words != b.words:
            return Likeness(1.0, "same names swapped")
        return Likeness(1.0, "the same names but for punctuation")
    direct = _ratio(a.key, b.key)
    swapped = _ratio(a.sorted_words, b.sorted_words)
    best = max(direct, swapped)
    initial = _initial_for(a.words, b.words)
    if initial is not None:
        similarity = max(best, SequenceMatcher(None, a.key, b.key).ratio())
        return Likeness(similarity, f"an initial for a name ({initial})")
    if best < TYPO_RATIO:
        return None
    percent = int(best * 100)
    if swapped > direct:
        return Likeness(best, f"names {percent}% alike once first and last names are swapped")
    return Likeness(best, f"names {percent}% alike")


def name_likeness(name: str, other: str) -> Likeness | None:
    """How alike two player names are, or None when they are not alike enough
    to be the same person (see the module docstring for what counts)."""
    return _compare(_Name(name), _Name(other))


class NameIndex:
    """Names filed under their blocking keys (see the module docstring), to
    find the similar ones of a name without comparing it with all of them.

    Kept small, for an import that files 100,000 known names: each name as
    given (prepared again only when it is a candidate), each key as one
    string, and a key filed by one name (most of them) holding that name's
    number rather than a list."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names: list[str] = []
        self._blocks: dict[str, int | list[int]] = {}
        for name in names:
            self.add(name)

    def add(self, name: str) -> int:
        """File a name; returns its number in ``names``."""
        number = len(self.names)
        self.names.append(name)
        blocks = self._blocks
        for key in _keys(_Name(name)):
            held = blocks.get(key)
            if held is None:
                blocks[key] = number
            elif held.__class__ is int:
                if held != number:  # a name may give one key twice
                    blocks[key] = [held, number]
            elif held[-1] != number:
                held.append(number)  # type: ignore[union-attr]
        return number

    def candidates(self, name: str) -> set[int]:
        """The numbers (in ``names``) of the filed names sharing a blocking
        key with ``name``: the only ones it is compared with."""
        return self._candidates(_Name(name))

    def _candidates(self, name: _Name) -> set[int]:
        found: set[int] = set()
        blocks = self._blocks
        for key in _keys(name, probing=True):
            held = blocks.get(key)
            if held is None:
                continue
            if held.__class__ is int:
                found.add(held)  # type: ignore[arg-type]
            else:
                found.update(held)  # type: ignore[arg-type]
        return found

    def similar(self, name: str, limit: int = 3) -> list[str]:
        """Filed names that may be what ``name`` meant, best first (as
        ``similar_names``)."""
        if limit <= 0:
            return []
        wanted = _Name(name)
        scores: dict[str, float] = {}
        for number in self._candidates(wanted):
            candidate = _Name(self.names[number])
            if candidate.key == wanted.key:
                continue
            like = _compare(wanted, candidate)
            if like is not None:
                other = candidate.name
                scores[other] = max(scores.get(other, 0.0), like.similarity)
        ranked = sorted(scores, key=lambda n: (-scores[n], name_key(n), n))
        return ranked[:limit]


def _keys(name: _Name, probing: bool = False) -> Iterator[str]:
    """The blocking keys a name is filed under, or (``probing``) looked up by.

    Keys for an initial are asymmetric, so that a common given name does not
    make a large block for every new name: a name holding an initial is filed
    under ``i`` keys, which every name probes; every name is filed under
    ``I`` keys, which only a name holding an initial probes. A two-word name
    is filed in its own order and probes both (``"Dupont E."``)."""
    words = [w.rstrip(".") or w for w in name.words]
    if not words:
        return
    # Each key one string, its parts apart by a unit separator (a control
    # character no name holds).
    yield "w\x1f" + "\x1f".join(sorted(words))
    yield "a\x1f" + _NOT_ALNUM.sub("", name.key)
    if len(words) == 1:
        yield "1\x1f" + words[0][:3]
        yield "9\x1f" + words[0][-3:]
        return
    for i, word in enumerate(words):
        others = words[1 - i] if len(words) == 2 else " ".join(sorted(words[:i] + words[i + 1 :]))
        # One typo leaves a word's first two or last two letters as they
        # were, unless the word is short: then its first or last letter.
        yield f"m\x1f{others}\x1f{word[:2]}"
        yield f"z\x1f{others}\x1f{word[-2:]}"
        if len(word) <= SHORT_WORD:
            yield f"s\x1f{others}\x1f{word[0]}"
            yield f"e\x1f{others}\x1f{word[-1]}"
    initial = any(len(w) == 1 for w in words)
    kinds = ("i" if probing or initial else "") + ("I" if initial or not probing else "")
    orders = [words] + ([words[::-1]] if probing and len(words) == 2 else [])
    for order in orders:
        letters = "".join(w[0] for w in order)
        for i, word in enumerate(order):
            if len(word) > 1:
                for kind in kinds:
                    yield f"{kind}\x1f{letters}\x1f{i}\x1f{word}"


def filing_keys(name: str) -> list[str]:
    """The blocking keys ``name`` is filed under, each once (what a store
    keeps for every known name, so that finding a new name's candidates
    reads only the names sharing one of its ``probing_keys``)."""
    return list(dict.fromkeys(_keys(_Name(name))))


def probing_keys(name: str) -> list[str]:
    """The blocking keys ``name`` is looked up by, each once: a filed name
    is one of its candidates exactly when one of its ``filing_keys`` is
    among them."""
    return list(dict.fromkeys(_keys(_Name(name), probing=True)))


def similar_names(name: str, known: Mapping[str, str], limit: int = 3) -> list[str]:
    """Known player names that may be what ``name`` meant, best first.

    ``known`` maps player id to name. Names with the same ``name_key`` as
    ``name`` are left out (they already are that player); the others are kept
    when they look like a typo of it, the same words swapped or an initial
    for a word. Ties keep name order; at most ``limit`` names, each once.
    For many names against the same known ones, file them once in a
    ``NameIndex``.
    """
    return NameIndex(dict.fromkeys(known.values())).similar(name, limit)


def likely_duplicates(
    names: Mapping[str, str], together: Iterable[frozenset[str]]
) -> list[DuplicatePair]:
    """Pairs of players whose names suggest one person registered twice.

    ``names`` maps player id to name (give the players still in use, not
    those already merged); ``together`` holds pairs of player ids that played
    in the same game, which are never duplicates and are left out. Pairs are
    ordered most alike first, then by name. Only names sharing a blocking key
    are compared (``NameIndex``).
    """
    played = {pair for pair in together if len(pair) == 2}
    ordered = sorted(names.items(), key=lambda p: (name_key(p[1]), p[0]))
    index = NameIndex(name for _, name in ordered)
    pairs = []
    for first_number, (first_id, _) in enumerate(ordered):
        first = _Name(index.names[first_number])
        for second_number in sorted(index._candidates(first)):
            if second_number <= first_number:
                continue
            second_id = ordered[second_number][0]
            if frozenset((first_id, second_id)) in played:
                continue
            second = _Name(index.names[second_number])
            like = _compare(first, second)
            if like is None:
                continue
            pairs.append(
                DuplicatePair(
                    player=first.name,
                    other=second.name,
                    similarity=round(like.similarity, 4),
                    evidence=f"{like.reason}; never in the same game",
                )
            )
    pairs.sort(key=lambda p: (-p.similarity, name_key(p.player), name_key(p.other)))
    return pairs
