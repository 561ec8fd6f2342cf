"""The README's tour of the CLI runs as written, in order, on a new ledger:
a newcomer who types it meets no error. Only the ids a command prints stand
in for the README's placeholders (a game's, then an adjustment's), and an
optional ``[...]`` part is dropped."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.conftest import Cli

ROOT = Path(__file__).resolve().parent.parent
#: The README's placeholder ids: a game's (what ``record`` printed), an
#: adjustment's (what ``adjust`` printed).
GAME, ADJUSTMENT = "3fa2b1c0", "9c41d2e7"


def tour() -> list[list[str]]:
    """The commands of the README's tour, each as its arguments."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## A tour of the CLI") :]
    block = section[
        section.index("```sh") + len("```sh") : section.index("```", section.index("```sh") + 5)
    ]
    block = block.replace("\\\n", " ")
    commands = []
    for line in block.splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        line = re.sub(r"\[[^\]]*\]", "", line).strip()
        if line:
            words = shlex.split(line)
            assert words[0] == "ledger", line
            commands.append(words[1:])
    return commands


def test_the_readme_tour_runs_as_written(cli: Cli) -> None:
    commands = tour()
    assert len(commands) > 25  # the tour, not an empty block
    ids = {}
    for args in commands:
        args = [ids.get(a, a) for a in args]
        if args[0] == "import":  # the fixture's path from the repository's root
            args = [str(ROOT / a) if a.startswith("fixtures/") else a for a in args]
        out = cli.ok(*args)
        if args[0] == "record" and GAME not in ids:
            ids[GAME] = re.search(r"Recorded game (\w+)", out).group(1)
        if args[0] == "adjust" and ADJUSTMENT not in ids:
            ids[ADJUSTMENT] = re.search(r"\(adjustment (\w+)\)", out).group(1)
    assert set(ids) == {GAME, ADJUSTMENT}
