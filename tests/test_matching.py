"""Player identity helpers: similar names and likely duplicate players."""

from __future__ import annotations

import msgspec
import pytest

from ledger.matching import (
    TYPO_RATIO,
    DuplicatePair,
    likely_duplicates,
    name_likeness,
    similar_names,
)
from ledger.output import render

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
