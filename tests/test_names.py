"""What a name may be (issue: hardening, item 9): one line of readable text,
in one normal form, that never makes a second player who looks the same."""

from __future__ import annotations

import pytest

from ledger.kernel.errors import Invalid
from ledger.kernel.names import MAX_LENGTH, clean_name
from tests.conftest import Cli


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Ann\nSmith", "holds a line break or control character (U+000A)"),
        ("Ann\u2028Smith", "holds a line break or control character (U+2028)"),
        ("Ann\x1b[31mSmith", "holds a line break or control character (U+001B)"),
        ("Ann\u202eSmith", "holds a bidirectional control character (U+202E)"),
        ("Ann\u2067Smith", "holds a bidirectional control character (U+2067)"),
        ("Ann;Bob", "holds ';', which separates the players of a team side"),
        ("", "the name is empty"),
        ("\u200b\u200d ", "the name is empty (or only invisible characters)"),
        ("x" * (MAX_LENGTH + 1), f"is {MAX_LENGTH + 1} characters long (at most {MAX_LENGTH})"),
    ],
)
def test_a_name_that_would_hide_or_rewrite_text_is_refused(
    cli: Cli, name: str, message: str
) -> None:
    before = cli.event_count()
    assert message in cli.fails("player", "add", "Bob", name)
    assert cli.event_count() == before  # not even Bob
    with pytest.raises(Invalid, match="^name: "):
        clean_name(name)


def test_names_are_stored_composed_and_matched_across_forms(cli: Cli) -> None:
    cli.ok("player", "add", "Cafe\u0301 Noir")  # e + combining acute
    assert [p["name"] for p in cli.json("player", "list")] == ["Caf\u00e9 Noir"]
    assert "already exists" in cli.fails("player", "add", "Caf\u00e9 Noir")


def test_a_zero_width_character_never_makes_a_second_player(cli: Cli) -> None:
    cli.ok("player", "add", "Ann")
    for lookalike in ("An\u200bn", "\ufeffAnn", "A\u200dnn", "An\u2060n"):
        assert "already exists" in cli.fails("player", "add", lookalike)
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("record", "Club", "--date", "2025-01-01", "--side", "An\u200bn", "--side", "Bob",
           "--result", "a", "--add-players")  # fmt: skip
    assert sorted(p["name"] for p in cli.json("player", "list")) == ["Ann", "Bob"]


def test_a_rename_a_ladder_and_a_game_are_held_to_the_same_rules(cli: Cli) -> None:
    cli.ok("player", "add", "Ann")
    assert "new name: 'Ann\\tB' holds a line break or control" in cli.fails(
        "player", "rename", "Ann", "Ann\tB"
    )
    assert "ladder: 'Club\\nB' holds a line break" in cli.fails(
        "ladder", "open", "Club\nB", "--family", "elo"
    )
    cli.ok("ladder", "open", "Club", "--family", "elo")
    before = cli.event_count()
    out = cli.fails("record", "Club", "--date", "2025-01-02", "--side", "Ann\nSmith",
                    "--side", "Bob", "--result", "a", "--add-players")  # fmt: skip
    assert "side_a: 'Ann\\nSmith' holds a line break" in out
    assert cli.event_count() == before


def test_a_name_stored_before_the_rules_is_shown_never_obeyed(cli: Cli) -> None:
    """A name with an escape sequence, from a ledger older than these rules:
    tables spell its control characters out; JSON escapes them."""
    from datetime import UTC, datetime

    from ledger.kernel import events as ev
    from ledger.kernel.identity import player_id
    from ledger.write.application import LedgerApplication
    from ledger.write.storage import resolve

    cli.ok("ladder", "open", "Club", "--family", "elo")
    app = LedgerApplication(env=resolve(cli.db, cli.schema).app_env())
    old = "Eve\x1b[2J\u202eX"
    app.append([ev.PlayerRegistered(originator_id=player_id("Eve"), originator_version=1,
                                    recorded_at=datetime.now(UTC), recorded_by="old",
                                    name=old)])  # fmt: skip
    app.close()
    cli.ok("player", "add", "Bob")
    cli.ok("record", "Club", "--date", "2025-01-01", "--side", old, "--side", "Bob",
           "--result", "a")  # fmt: skip
    table = cli.ok("standings", "Club")
    assert "\x1b" not in table and "\u202e" not in table
    assert "Eve\\x1b[2J\\u202eX" in table
    assert old in [r["player"] for r in cli.json("standings", "Club")]
