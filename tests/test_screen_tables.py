"""Tables fit the terminal (issue 26, "Output that fits the screen"): each
command is run in a real terminal, tmux at 80 and 120 columns, and its screen
captured with ``capture-pane -J`` (a line the terminal wrapped is joined
back): no line may be wider than the terminal. A table that renders taller
than the screen goes through the pager, counted in rendered lines (folded
cells included), not in rows."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

import ledger
from tests.conftest import Cli

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (apt-get install -y tmux): no real terminal"
)

LADDER = "Battle Empire Club of the Rhine Valley"
LONG_NAMES = [
    "Louis-Nicolas Davout d'Auerstaedt", "Jean-Baptiste Jules Bernadotte",
    "Michel Ney de la Moskowa", "Joachim Murat",
]  # fmt: skip


@pytest.fixture
def club(cli: Cli) -> Cli:
    """A ladder with long names, events, tables, team games, an adjustment
    with a long reason and a season close: every column of the history used."""
    cli.ok("ladder", "open", LADDER, "--family", "battle-empire")
    cli.ok("ladder", "open", "Chess Club", "--family", "elo", "--set", "k=24",
           "--set", "home_advantage=20", "--set", "difference_cap=400",
           "--set", 'k_rules=[{"k":40,"games_below":30},{"k":10,"rating_at_least":2400}]')  # fmt: skip
    cli.ok("player", "add", *LONG_NAMES)
    a, b, c, d = LONG_NAMES
    games = [(a, b, "a", "decisive"), (c, d, "b", "marginal"), (a, c, "draw", None),
             (f"{a};{d}", f"{b};{c}", "a", "overwhelming")]  # fmt: skip
    for n, (x, y, result, margin) in enumerate(games, start=1):
        cli.ok("record", LADDER, "--date", f"2024-03-0{n}", "--event", "BE-2024-STRASBOURG-OPEN",
               "--round", str(n), "--table", "12", "--side", x, "--side", y, "--result", result,
               *(["--margin", margin] if margin else []))  # fmt: skip
    cli.ok("adjust", LADDER, a, "--shift", "50", "--date", "2024-04-01", "--reason",
           "known strong player: rated 1350 at his previous club before he moved here")  # fmt: skip
    cli.ok("season", "close", LADDER, "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    return cli


def on_screen(cli: Cli, width: int, *args: str, pager: str = "cat", height: int = 24) -> list[str]:
    """``ledger ARGS`` run in a tmux terminal ``width`` columns wide and
    ``height`` lines high; the lines it left on the screen and in the scrollback, with
    the lines the terminal wrapped joined back."""
    server = f"ledger-screen-{uuid.uuid4().hex[:10]}"
    program = [sys.executable, "-c", "import sys; from ledger.cli import main; sys.exit(main())"]
    command = shlex.join([*program, "--db", cli.db, *args])
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TMUX")}
    env.update(PAGER=pager, TERM="xterm-256color",
               PYTHONPATH=str(Path(ledger.__file__).resolve().parents[1]))  # fmt: skip
    tmux = [TMUX or "tmux", "-L", server]
    subprocess.run(
        [*tmux, "-f", "/dev/null", "new-session", "-d", "-x", str(width), "-y", str(height),
         f"{command}; echo __END__; sleep 60"],
        env=env, check=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            captured = subprocess.run(
                [*tmux, "capture-pane", "-p", "-J", "-S", "-"],
                capture_output=True, text=True, check=True,
            ).stdout  # fmt: skip
            if "__END__" in captured or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)
    lines = [line.rstrip() for line in captured.splitlines()]
    assert "__END__" in lines, f"{args} did not finish:\n{captured}"
    return lines[: lines.index("__END__")]


def assert_fits(lines: list[str], width: int) -> None:
    wide = [line for line in lines if len(line) > width]
    assert not wide, f"{len(wide)} lines wider than {width} columns:\n" + "\n".join(wide)


COMMANDS = {
    "standings": ["standings", LADDER],
    "history": ["history", LADDER, LONG_NAMES[0]],
    "ladder list": ["ladder", "list"],
    "player list": ["player", "list"],
    "every history": ["history", LADDER],
}


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_table_fits_the_terminal(club: Cli, command: str, width: int) -> None:
    lines = on_screen(club, width, *COMMANDS[command])
    assert_fits(lines, width)
    text = "\n".join(lines)
    assert "Traceback" not in text
    # The table is there, not an error: its first column's header and a row.
    assert any(("┃" in line or "---" in line) for line in lines), text
    if command == "ladder list":
        assert "Chess Club" in text and "k=24" in text


def test_columns_left_out_are_named_and_wide_shows_them(club: Cli) -> None:
    lines = on_screen(club, 80, "history", LADDER, LONG_NAMES[0])
    text = "\n".join(lines)
    note = text[text.index("Not shown at 80 columns:") :]
    assert "s, p, k" in note and "--wide" in note
    assert "opponents" in lines[2] and "change" in lines[2]  # the columns that matter stay
    # --wide: every column, wider than the terminal (it wraps, as asked).
    wide = on_screen(club, 80, "history", LADDER, LONG_NAMES[0], "--wide")
    assert "Not shown" not in "\n".join(wide)
    assert any(len(line) > 80 for line in wide)
    # At 120 columns fewer columns are left out than at 80.
    at_120 = "\n".join(on_screen(club, 120, "history", LADDER, LONG_NAMES[0]))
    shown_120 = at_120[at_120.index("Not shown") :] if "Not shown" in at_120 else ""
    assert len(shown_120) < len(note)


def test_a_table_taller_than_the_screen_once_folded_is_paged(club: Cli) -> None:
    """Ten adjustments with long reasons: 12 rows, well under a 24-line
    screen, but folded at 80 columns they render taller than it: paged. On
    a 60-line screen the same table prints."""
    for n in range(10):
        club.ok("adjust", LADDER, LONG_NAMES[1], "--shift", "1", "--date", f"2024-05-{n + 1:02}",
                "--reason", "a long reason, folded on a narrow terminal")  # fmt: skip
    pager = "sed 's/^/paged: /'"
    narrow = on_screen(club, 80, "history", LADDER, LONG_NAMES[1], pager=pager)
    assert_fits([line.removeprefix("paged: ") for line in narrow], 80)
    assert sum(line.startswith("paged: ") for line in narrow) > 24
    tall = on_screen(club, 80, "history", LADDER, LONG_NAMES[1], pager=pager, height=60)
    assert not any(line.startswith("paged: ") for line in tall)
    assert sum("a long reason" in line for line in tall) == 10
