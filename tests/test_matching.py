"""Player identity helpers: similar names and likely duplicate players."""

from __future__ import annotations

import msgspec
import pytest

from ledger.kernel.identity import name_key
from ledger.kernel.matching import (
    TYPO_RATIO,
    DuplicatePair,
    NameIndex,
    likely_duplicates,
    name_likeness,
    similar_names,
)
from projections.formats import render

KNOWN = {
    "p1": "Éric Dupont",
    "p2": "Anne Martin",
    "p3": "Jean Lannes",
    "p4": "Hélène Marbot",
    "p5": "Thomas Picton",
}


# -- similar_names -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("Eric Dupnot", "Éric Dupont"),  # two letters swapped
        ("Anne Martine", "Anne Martin"),  # one letter more
        ("Jean Lanes", "Jean Lannes"),  # one letter less
        ("Helene Marbeau", None),  # sounds alike, spelt too differently
    ],
)
def test_a_typo_finds_the_name_meant(typed: str, meant: str | None) -> None:
    assert similar_names(typed, KNOWN) == ([meant] if meant else [])


def test_swapped_first_and_last_names_are_candidates() -> None:
    assert similar_names("Dupont Eric", KNOWN) == ["Éric Dupont"]
    assert similar_names("PICTON, thomas", KNOWN) == ["Thomas Picton"]
    like = name_likeness("Dupont Eric", "Éric Dupont")
    assert like is not None and like.similarity == 1.0
    assert like.reason == "same names swapped"


def test_a_typo_in_swapped_names_is_still_found() -> None:
    assert similar_names("Dupont Eirc", KNOWN) == ["Éric Dupont"]
    like = name_likeness("Dupont Eirc", "Éric Dupont")
    assert like is not None and "swapped" in like.reason


def test_an_initial_for_a_first_name_is_a_candidate() -> None:
    assert similar_names("E. Dupont", KNOWN) == ["Éric Dupont"]
    like = name_likeness("E. Dupont", "Éric Dupont")
    assert like is not None and "e. for eric" in like.reason
    # An initial that does not fit the first name is no candidate.
    assert similar_names("F. Dupont", KNOWN) == []


def test_a_name_differing_only_by_case_or_accents_is_not_a_candidate() -> None:
    """It has the same name_key: it already is that player, not a similar one."""
    assert similar_names("eric  DUPONT", KNOWN) == []
    assert similar_names("Helene Marbot", KNOWN) == []
    # ... while a real near miss next to it still is one.
    assert similar_names("Helene Marbott", KNOWN) == ["Hélène Marbot"]


def test_unrelated_names_are_not_matched() -> None:
    for name in ("Zoé Lambert", "Paul Roy", "Dupont", "Anne", ""):
        assert similar_names(name, KNOWN) == [], name


def test_candidates_come_best_first_up_to_the_limit() -> None:
    known = {
        "a": "Marc Lefèvre",  # the same words swapped: 1.0
        "b": "Marc Lefebvre",  # one letter different
        "c": "Marc Lefevres",  # one letter more
        "d": "Olivier Chastel",
    }
    found = similar_names("Lefevre Marc", known)
    assert found[0] == "Marc Lefèvre"
    assert set(found) == {"Marc Lefèvre", "Marc Lefebvre", "Marc Lefevres"}
    assert similar_names("Lefevre Marc", known, limit=1) == ["Marc Lefèvre"]
    assert similar_names("Lefevre Marc", known, limit=0) == []
    # A typo closer to the name ranks before a looser one.
    ranked = similar_names("Marc Lefevrre", {"x": "Marc Lefevre", "y": "Marc Lefebvres"})
    assert ranked == ["Marc Lefevre", "Marc Lefebvres"]


def test_a_name_known_under_two_ids_is_offered_once() -> None:
    assert similar_names("Eric Dupnot", {"a": "Éric Dupont", "b": "Éric Dupont"}) == ["Éric Dupont"]


def test_the_typo_threshold_is_the_documented_one() -> None:
    # "abcdefghij" vs "abcdefghxy": ratio 0.8 < 0.85; vs "abcdefghix": 0.9.
    assert TYPO_RATIO == 0.85
    assert name_likeness("abcdefghij", "abcdefghxy") is None
    like = name_likeness("abcdefghij", "abcdefghix")
    assert like is not None and like.reason == "names 90% alike"


# -- likely_duplicates ---------------------------------------------------------------
NAMES = {
    "id-eric": "Éric Dupont",
    "id-dupont": "Dupont Eric",
    "id-typo": "Eric Dupnot",
    "id-anne": "Anne Martin",
    "id-anna": "Anna Martin",
    "id-paul": "Paul Roy",
}


def pairs(found: list[DuplicatePair]) -> set[frozenset[str]]:
    return {frozenset((p.player, p.other)) for p in found}


def test_likely_duplicates_finds_swapped_and_misspelt_names() -> None:
    found = likely_duplicates(NAMES, set())
    assert pairs(found) == {
        frozenset(("Éric Dupont", "Dupont Eric")),
        frozenset(("Éric Dupont", "Eric Dupnot")),
        frozenset(("Dupont Eric", "Eric Dupnot")),
        frozenset(("Anne Martin", "Anna Martin")),
    }
    first = found[0]
    assert (first.player, first.other) == ("Dupont Eric", "Éric Dupont")
    assert first.similarity == 1.0
    assert first.evidence == "same names swapped; never in the same game"
    anne = next(p for p in found if p.player == "Anna Martin")
    assert anne.other == "Anne Martin"
    assert anne.evidence == "names 90% alike; never in the same game"
    assert [p.similarity for p in found] == sorted((p.similarity for p in found), reverse=True)


def test_players_who_played_together_are_never_duplicates() -> None:
    together = {
        frozenset(("id-anne", "id-anna")),
        frozenset(("id-eric", "id-typo")),
        frozenset(("id-paul", "id-eric")),  # unrelated pair: changes nothing
    }
    found = likely_duplicates(NAMES, together)
    assert pairs(found) == {
        frozenset(("Éric Dupont", "Dupont Eric")),
        frozenset(("Dupont Eric", "Eric Dupnot")),
    }


def test_the_same_key_under_two_ids_is_a_duplicate() -> None:
    found = likely_duplicates({"a": "Éric Dupont", "b": "eric dupont"}, set())
    assert len(found) == 1
    assert found[0].similarity == 1.0
    assert "case, accents" in found[0].evidence


def test_no_duplicates_among_distinct_names() -> None:
    assert likely_duplicates({"a": "Anne Martin", "b": "Paul Roy", "c": "Jean Lannes"}, set()) == []


def test_duplicate_pairs_render_like_any_query_result() -> None:
    found = likely_duplicates({"a": "Anne Martin", "b": "Martin Anne"}, set())
    assert msgspec.json.decode(msgspec.json.encode(found)) == [
        {
            "player": "Anne Martin",
            "other": "Martin Anne",
            "similarity": 1.0,
            "evidence": "same names swapped; never in the same game",
        }
    ]
    text = render(found, "csv", kind=DuplicatePair)
    assert text.splitlines()[0] == "player,other,similarity,evidence"


# -- blocking: a new name is compared with a few known ones, not all ----------------
FIRSTS = ["Éric", "Anne", "Jean", "Hélène", "Thomas", "Marc", "Zoé", "Paul", "Léa", "Noah"]
SURNAMES = ["Dupont", "Martin", "Lannes", "Marbot", "Picton", "Lefèvre", "Roy", "Kowalski",
            "Castellano", "Nakamura", "Okafor", "Lindqvist"]  # fmt: skip


def edits(word: str) -> list[str]:
    """Every one-letter typo of a word: a letter changed, dropped, doubled,
    or swapped with the next."""
    out = []
    for i in range(len(word)):
        out.append(word[:i] + "x" + word[i + 1 :])
        out.append(word[:i] + word[i + 1 :])
        out.append(word[:i] + word[i] + word[i:])
        if i + 1 < len(word):
            out.append(word[:i] + word[i + 1] + word[i] + word[i + 2 :])
    return out


def variants(first: str, last: str) -> list[str]:
    """Ways to mistype "first last": a typo in one word, in either order;
    the words swapped; an initial; other punctuation and spacing."""
    out = [f"{last} {first}", f"{first[0]}. {last}", f"{last} {first[0]}.",
           f"{last}, {first}", f"{first}{last}"]  # fmt: skip
    for typo in edits(first):
        out += [f"{typo} {last}", f"{last} {typo}"]
    for typo in edits(last):
        out += [f"{first} {typo}", f"{typo} {first}"]
    return out


def test_blocking_finds_every_name_a_full_comparison_finds() -> None:
    """For every one-word typo, swap, initial or spacing change, the indexed
    search offers the name meant exactly when comparing the two names says
    they are alike."""
    known = [f"{f} {s}" for f in FIRSTS for s in SURNAMES]
    index = NameIndex(known)
    checked = 0
    for meant in known[::7]:
        first, last = meant.split()
        for typed in variants(first, last):
            alike = name_likeness(typed, meant) is not None
            offered = meant in index.similar(typed, limit=len(known))
            assert offered == (alike and name_key(typed) != name_key(meant)), (typed, meant)
            checked += alike
    assert checked > 1000


def test_a_new_name_is_compared_with_a_bounded_few() -> None:
    """40,000 known names: a new one shares a blocking key with a handful."""
    known = [f"{f}{i} {s}{j}" for f in FIRSTS for s in SURNAMES for i in range(20)
             for j in range(17)]  # fmt: skip
    index = NameIndex(known)
    assert len(index.names) == 40800
    new = ["Éric7 Dupont3", "Anne19 Kowalsky4", "Noah Okafor", "Lindqvist11 Zoé2", "J. Roy5"]
    counts = [len(index.candidates(name)) for name in new]
    assert max(counts) <= 100, counts  # of 40,800
    assert index.similar("Anne19 Kowalsky4")[0] == "Anne19 Kowalski4"
