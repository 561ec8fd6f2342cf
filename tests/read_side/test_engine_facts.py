"""The rebuild's shortcuts write exactly what the general path writes."""

from __future__ import annotations

import itertools

import msgspec
import pytest

from projections.views import facts, source


def _facts(**fields: object) -> source.Facts:
    base = {"ladder": "L", "date": "2024-01-02", "sides": [["a"], ["b"]], "result": {"result": "a"}}
    return msgspec.convert({**base, **fields}, source.Facts)


CASES = [
    {},
    {"table": 3},
    {"sequence": 7},
    {"table": 3, "sequence": 0},
    {"table": 0, "sequence": 12, "event": "E", "round": 2},
    {"result": {"result": "draw", "margin": "major"}},
    {"result": {"result": "b"}, "neutral": True, "table": 1, "sequence": 1},
    {"result": {"result": "a"}, "attributes": {"bv": 2.5}, "table": 1, "sequence": 1},
    {"result": {"ranks": [1, 2]}},
    {"result": {"totals": [1000, 300, 1000, 700]}, "table": 4},
]


@pytest.mark.parametrize("fields", CASES)
def test_a_duels_text_is_the_general_text(fields: dict[str, object]) -> None:
    kept = _facts(**fields)
    for a, b in itertools.product((1, 987, 10**9), (2, 4321)):
        assert facts.keep_duel(kept, a, b) == facts.keep(kept, [[a], [b]])


def test_a_duels_text_reads_back_as_its_facts() -> None:
    kept = facts.read(facts.keep_duel(_facts(table=3, sequence=5), 11, 12))
    assert (kept.sides, kept.result, kept.table, kept.sequence) == (
        [[11], [12]],
        {"result": "a"},
        3,
        5,
    )
