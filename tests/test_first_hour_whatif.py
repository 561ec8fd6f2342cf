"""Issue 26, "What-if never advises harm": ``whatif L --family adlg`` on a
Battle Empire ladder ended with "KeyError: 'overwhelming'. Void or correct
that game". A hypothetical that cannot rate some games says which, under
the other family, and why; it never tells the user to void a real game."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ledger.cli import main
from tests.conftest import Cli


def club(cli: Cli) -> dict[str, str]:
    cli.ok("ladder", "open", "Club", "--family", "battle-empire")
    cli.ok("player", "add", "Ann", "Bob", "Cat")
    games = {}
    for day, (a, b, result, margin) in enumerate(
        [("Ann", "Bob", "a", "overwhelming"), ("Bob", "Cat", "b", "marginal"),
         ("Cat", "Ann", "a", "overwhelming"), ("Ann", "Cat", "draw", None)],
        start=5,
    ):  # fmt: skip
        args = ["--margin", margin] if margin else []
        out = cli.ok("record", "Club", "--date", f"2025-01-{day:02d}", "--side", a, "--side", b,
                     "--result", result, *args)  # fmt: skip
        games[f"{a}-{b}"] = out.split()[2].rstrip(".")
    return games


def test_the_issue_s_command_names_the_games_it_cannot_rate(cli: Cli) -> None:
    games = club(cli)
    before = cli.event_count()
    result = CliRunner().invoke(main, ["--db", cli.db, "whatif", "Club", "--family", "adlg"])
    assert result.exit_code == 0, result.output
    assert "void" not in result.output.lower() and "KeyError" not in result.output
    notes = result.stderr.splitlines()
    assert notes == [
        "Note: 2 games cannot be rated under the adlg family and are left out of this "
        "hypothetical: the adlg family has no margin 'overwhelming' "
        f"({games['Ann-Bob']} of 2025-01-05, {games['Cat-Ann']} of 2025-01-07). "
        "The ladder's games stand as recorded.",
        "Note: 1 game cannot be rated under the adlg family and is left out of this "
        "hypothetical: the adlg family has no margin 'marginal' "
        f"({games['Bob-Cat']} of 2025-01-06). The ladder's games stand as recorded.",
    ]
    assert result.stdout.startswith("Club: what if\n")
    assert cli.event_count() == before


def test_no_game_rated_under_the_other_family_advises_nothing(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "battle-empire")
    cli.ok("player", "add", "Ann", "Bob")
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Bob",
           "--result", "a", "--margin", "overwhelming")  # fmt: skip
    before = cli.event_count()
    out = cli.fails("whatif", "Club", "--family", "adlg")
    assert out == (
        "Error: what if 'Club' were rated under the adlg family: no game can be rated: "
        "the adlg family has no margin 'overwhelming'. "
        "Nothing was recorded: this is a hypothetical, the ladder itself is unchanged\n"
    )
    assert cli.event_count() == before
    assert "Ann" in cli.ok("standings", "Club")  # the real ladder replays as before


def test_games_the_other_rules_cannot_rate_are_named_and_left_out(cli: Cli) -> None:
    games = club(cli)
    scores = '{"overwhelming": 1, "win": 0.8, "draw": 0.5, "loss": 0}'
    result = CliRunner().invoke(
        main,
        ["--db", cli.db, "whatif", "Club", "--family", "elo", "--set", f"scores={scores}",
         "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "Note: 1 game cannot be rated under the elo family and is left out of this "
        "hypothetical: the elo family has no margin 'marginal' "
        f"({games['Bob-Cat']} of 2025-01-06). The ladder's games stand as recorded.\n"
    )
    lines = {line["player"]: line for line in json.loads(result.stdout)}
    # Cat's one rated game (the win over Ann) counts; Bob v Cat is left out.
    assert lines["Cat"]["rating_whatif"] > lines["Ann"]["rating_whatif"]
    assert "void" not in result.output.lower()


def test_a_result_column_the_other_family_lacks_is_named(cli: Cli) -> None:
    cli.ok("ladder", "open", "Cards", "--family", "bga")
    cli.ok("player", "add", "A", "B", "C")
    cli.ok("record", "Cards", "--date", "2025-01-01", "--side", "A", "--side", "B", "--side", "C",
           "--ranks", "1,2,3")  # fmt: skip
    out = cli.fails("whatif", "Cards", "--family", "elo")
    assert out == (
        "Error: what if 'Cards' were rated under the elo family: no game can be rated: "
        "the elo family has no result column 'ranks'. Nothing was recorded: this is a "
        "hypothetical, the ladder itself is unchanged\n"
    )


def test_players_tied_in_the_hypothetical_are_listed_by_name_in_any_process(cli: Cli) -> None:
    """Ties in the hypothetical ranking come by name, the same in every
    process (they came in a set's order, which a string's hash decides)."""
    import os
    import subprocess
    import sys

    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Dan", "Ann", "Cat", "Ben")
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Dan", "--side", "Ben",
           "--result", "a")  # fmt: skip
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Ann", "--side", "Cat",
           "--result", "a")  # fmt: skip
    outputs = set()
    for seed in ("1", "2", "3", "4"):
        done = subprocess.run(
            [sys.executable, "-m", "ledger", "--db", cli.db,
             *(["--schema", cli.schema] if cli.schema else []),
             "whatif", "Club", "--set", "k=40", "--format", "json"],
            capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )  # fmt: skip
        outputs.add(done.stdout)
    assert len(outputs) == 1
    lines = json.loads(outputs.pop())
    assert [line["player"] for line in lines] == ["Ann", "Dan", "Ben", "Cat"]
