"""Issue 27: the README's worked example (evaluate, tune, adopt on the chess
fixture ladder) prints what the README shows, command by command."""

from __future__ import annotations

import shlex
from pathlib import Path

from tests.conftest import Cli
from tests.evidence.test_evaluate import load

ROOT = Path(__file__).resolve().parents[2]


def example(heading: str = "## Evidence for rule changes") -> list[tuple[list[str], str]]:
    """The first ``console`` block under ``heading``: each command (after
    ``$ ledger``) and the output shown under it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    block = section[
        section.index("```console\n") + 11 : section.index("\n```", section.index("```console"))
    ]
    steps: list[tuple[list[str], str]] = []
    for line in block.splitlines():
        if line.startswith("$ ledger "):
            steps.append((shlex.split(line[len("$ ledger ") :]), ""))
        else:
            command, shown = steps[-1]
            steps[-1] = (command, shown + line + "\n")
    return steps


def test_the_worked_example_prints_what_the_readme_shows(cli: Cli) -> None:
    load(cli, "Chess Club")
    steps = example()
    assert [s[0][0] for s in steps] == ["evaluate", "evaluate", "tune", "ladder"]
    for command, shown in steps:
        assert cli.ok(*command) == shown, command
    # The command tune printed is the one the example runs to adopt the rules.
    tune_out = steps[2][1].rstrip("\n").splitlines()[-1].strip()
    assert shlex.split(tune_out)[1:] == steps[3][0]
    assert cli.json("ladder", "show", "Chess Club")["params"]["k"] == 40


def test_the_families_side_by_side_print_what_the_readme_shows(cli: Cli) -> None:
    """Issue 28: Elo, Glicko-2 and Weng-Lin scored on the chess club's history."""
    load(cli, "Chess Club")
    steps = example("### Elo, Glicko-2 and Weng-Lin side by side")
    assert [s[0][-3] for s in steps] == ["elo", "glicko2", "weng-lin"]
    for command, shown in steps:
        assert cli.ok(*command) == shown, command
