"""A small ledger for the site and export tests: two ladders, hostile names,
an event, a correction, a void, a rule change, an adjustment, a season close."""

from __future__ import annotations

import re

from tests.conftest import Cli

SCRIPT = "<script>alert(1)</script>"
FORMULA = "=1+1"
LINK = '=HYPERLINK("http://x","y")'
PLAYERS = [SCRIPT, FORMULA, LINK, "Anne Martin", "Éric Dupont", "Paul Roy"]


def game_id(output: str) -> str:
    match = re.search(r"Recorded game ([0-9a-f]{8})", output)
    assert match, output
    return match.group(1)


def make_sample(cli: Cli) -> dict[str, str]:
    """Fill ``cli``'s ledger; returns the short ids of the games corrected and voided."""
    cli.ok("ladder", "open", "Club", "--family", "elo", "--set", "k=24")
    cli.ok("ladder", "open", "Battle Empire", "--family", "battle-empire")
    cli.ok("player", "add", *PLAYERS)
    games = [
        ("2025-01-05", SCRIPT, FORMULA, "a", None),
        ("2025-01-05", LINK, "Anne Martin", "draw", None),
        ("2025-02-01", "Éric Dupont", SCRIPT, "b", "OPEN-<b>1</b>"),
        ("2025-02-01", FORMULA, "Paul Roy", "a", "OPEN-<b>1</b>"),
        ("2025-02-02", SCRIPT, "Paul Roy", "a", "OPEN-<b>1</b>"),
        ("2025-03-10", "Anne Martin", FORMULA, "b", None),
        ("2025-03-12", "Paul Roy", LINK, "draw", None),
    ]
    ids = []
    for n, (day, a, b, result, event) in enumerate(games, start=1):
        where = ["--event", event, "--round", str(n)] if event else []
        ids.append(game_id(cli.ok("record", "Club", "--date", day, "--side", a, "--side", b,
                                  "--result", result, "--table", str(n), *where)))  # fmt: skip
    cli.ok("correct", ids[1], "--result", "a", "--reason", "sheet misread <i>oops</i>")
    cli.ok("void", ids[6], "--reason", "wrong army lists")
    cli.ok("ladder", "rules", "Club", "--set", "k=32", "--effective", "2025-03-01",
           "--reason", "AGM vote & <u>cheers</u>")  # fmt: skip
    cli.ok("adjust", "Club", "Anne Martin", "--to", "1600", "--date", "2025-01-01",
           "--reason", "known player")  # fmt: skip
    cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    for day, a, b, result, margin in [
        ("2025-04-01", SCRIPT, "Anne Martin", "a", "decisive"),
        ("2025-04-08", "Anne Martin", "Éric Dupont", "b", "marginal"),
    ]:
        cli.ok("record", "Battle Empire", "--date", day, "--side", a, "--side", b,
               "--result", result, "--margin", margin)  # fmt: skip
    return {"corrected": ids[1], "voided": ids[6]}
