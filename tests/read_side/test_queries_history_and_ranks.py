"""``history`` shows each game's result, margin and table; tied
ratings share a rank in ``standings`` (competition ranking, 1 2 2 4), in
every format."""

from __future__ import annotations

import csv
import io
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from projections.queries import ranks
from projections.ranking import TIE_DIGITS
from tests.conftest import Cli


def record(cli: Cli, ladder: str, on: str, a: str, b: str, result: str, *extra: str) -> None:
    out = cli.ok(
        "record", ladder, "--date", on, "--side", a, "--side", b, "--result", result, *extra
    )  # fmt: skip
    assert out.startswith("Recorded game"), out


def test_history_shows_result_margin_and_table_of_each_game(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "battle-empire")
    cli.ok("player", "add", "Alice", "Bob", "Carol")
    record(cli, "Club", "2025-01-05", "Alice", "Bob", "a", "--margin", "decisive",
           "--event", "Open", "--round", "1", "--table", "7")  # fmt: skip
    record(cli, "Club", "2025-01-06", "Carol", "Alice", "a", "--margin", "marginal")
    record(cli, "Club", "2025-01-07", "Alice", "Carol", "draw")
    rows = cli.json("history", "Club", "Alice")
    assert isinstance(rows, list)
    shown = [(r["date"], r["result"], r["margin"], r["table"]) for r in rows]
    assert shown == [
        ("2025-01-05", "won", "decisive", 7),
        ("2025-01-06", "lost", "marginal", None),
        ("2025-01-07", "drew", None, None),
    ]
    bob = cli.json("history", "Club", "Bob")
    assert isinstance(bob, list)
    assert (bob[0]["result"], bob[0]["margin"], bob[0]["table"]) == ("lost", "decisive", 7)
    text = cli.ok("history", "Club", "Alice")
    header = next(line for line in text.splitlines() if "date" in line)
    for column in ("result", "margin", "table"):
        assert re.search(rf"\b{column}\b", header), column
    first = next(line for line in text.splitlines() if "2025-01-05" in line)
    assert re.search(r"\bwon\b", first) and "decisive" in first and re.search(r"\b7\b", first)


def test_history_of_a_family_without_a_winner_shows_the_result_as_recorded(cli: Cli) -> None:
    cli.ok("ladder", "open", "Board", "--family", "bga")
    cli.ok("player", "add", "Ann", "Ben", "Cat")
    cli.ok("record", "Board", "--date", "2025-02-01", "--side", "Ann", "--side", "Ben",
           "--side", "Cat", "--ranks", "1,2,2")  # fmt: skip
    rows = cli.json("history", "Board", "Ben")
    assert isinstance(rows, list)
    assert rows[0]["result"] is not None and "2" in rows[0]["result"]
    assert rows[0]["margin"] is None


@pytest.mark.parametrize(
    ("ratings", "expected"),
    [
        ([1600.0, 1550.0, 1550.0, 1500.0], [1, 2, 2, 4]),
        ([1500.0, 1500.0, 1500.0], [1, 1, 1]),
        ([1700.0, 1600.0, 1500.0], [1, 2, 3]),
        # Floating-point noise is not a difference.
        ([1512.3, 1512.3 + 1e-12, 1400.0], [1, 1, 3]),
        ([], []),
    ],
)
def test_competition_ranks(ratings: list[float], expected: list[int]) -> None:
    assert ranks(ratings) == expected


def _reference_ranks(ratings: list[float]) -> list[int]:
    """The rule written plainly: round every rating, a rank per new value."""
    out: list[int] = []
    for place, rating in enumerate(ratings, start=1):
        tied = round(rating, TIE_DIGITS)
        out.append(out[-1] if out and tied == round(ratings[place - 2], TIE_DIGITS) else place)
    return out


@given(
    st.lists(
        st.one_of(
            st.floats(-1e6, 1e6, allow_nan=False),
            # Near ties: a few values a rounding step apart, and noise below it.
            st.sampled_from([1512.3, 1512.3 + 1e-12, 1512.3000005, 1512.2999995, 1512.300001]),
        ),
        max_size=40,
    )
)
def test_ranks_follow_the_rounding_rule(ratings: list[float]) -> None:
    """Rounding only the close ratings gives the ranks rounding every one
    would, in descending order as the rankings read them."""
    ordered = sorted(ratings, reverse=True)
    assert ranks(ordered) == _reference_ranks(ordered)


def tied_club(cli: Cli) -> None:
    """Ann beats Cat and Bob beats Dan from 1500 (K 20): Ann and Bob 1510,
    Cat and Dan 1490; then Eve (1500) draws with Cat: Eve just under 1500,
    Cat just over 1490."""
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Ann", "Bob", "Cat", "Dan", "Eve")
    record(cli, "Club", "2025-01-05", "Ann", "Cat", "a")
    record(cli, "Club", "2025-01-05", "Bob", "Dan", "a")
    record(cli, "Club", "2025-01-06", "Eve", "Cat", "draw")


def test_tied_ratings_share_a_rank_in_every_format(cli: Cli) -> None:
    tied_club(cli)
    rows = cli.json("standings", "Club")
    assert isinstance(rows, list)
    by_name = {r["player"]: (r["rank"], r["rating"]) for r in rows}
    assert by_name["Ann"][1] == by_name["Bob"][1]
    assert [r["rank"] for r in rows] == ranks(r["rating"] for r in rows)
    assert by_name["Ann"][0] == by_name["Bob"][0] == 1
    assert [r["player"] for r in rows][:2] == ["Ann", "Bob"]
    assert rows[2]["rank"] == 3
    text = cli.ok("standings", "Club", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(text)))
    assert [(r["player"], r["rank"]) for r in table][:3] == [("Ann", "1"), ("Bob", "1"),
                                                              ("Eve", "3")]  # fmt: skip
    people = cli.ok("standings", "Club")
    ranked = {
        cells[1]: cells[0]
        for line in people.splitlines()
        if len(cells := line.replace("│", " ").split()) > 2 and cells[0].isdigit()
    }
    assert ranked["Ann"] == ranked["Bob"] == "1"
    assert ranked["Eve"] == "3"


def test_tied_ratings_share_a_rank_as_of_a_date(cli: Cli) -> None:
    tied_club(cli)
    rows = cli.json("standings", "Club", "--as-of", "2025-01-05")
    assert isinstance(rows, list)
    ranked = {r["player"]: r["rank"] for r in rows}
    # On the 5th: Ann and Bob 1510, Cat and Dan 1490 (Eve not rated yet).
    assert ranked == {"Ann": 1, "Bob": 1, "Cat": 3, "Dan": 3}


def test_a_table_for_people_orders_equal_ratings_by_name_as_json_does(cli: Cli) -> None:
    """Two runs of equal ratings, each player added (numbered in the views)
    before the one whose name sorts first: the table for people reorders
    each run by name, as the JSON rows are ordered."""
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Zed", "Amy", "Dan", "Cat")
    record(cli, "Club", "2025-01-05", "Zed", "Cat", "a")
    record(cli, "Club", "2025-01-05", "Amy", "Dan", "a")
    rows = cli.json("standings", "Club")
    assert isinstance(rows, list)
    json_order = [(str(r["rank"]), r["player"]) for r in rows]
    people = cli.ok("standings", "Club")
    table_order = [
        (cells[0], cells[1])
        for line in people.splitlines()
        if len(cells := line.replace("│", " ").split()) > 2 and cells[0].isdigit()
    ]
    assert table_order == json_order
    assert [name for _, name in table_order] == ["Amy", "Zed", "Cat", "Dan"]
    assert [rank for rank, _ in table_order] == ["1", "1", "3", "3"]
