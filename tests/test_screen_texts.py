"""Output that fits the screen (issue 26): ``ladder show``, ``ladder list``,
``diff`` and the small texts, each through the CLI as a user types it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import Cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
JSON_DUMP = re.compile(r'\{"initial"')


def chess(cli: Cli) -> None:
    """An elo ladder: k 24 → 32 from June; a change to 40 from September, voided."""
    cli.ok("ladder", "open", "Chess", "--family", "elo", "--set", "k=24",
           "--set", "home_advantage=20")  # fmt: skip
    cli.ok("ladder", "rules", "Chess", "--set", "k=32", "--effective", "2025-06-01",
           "--reason", "faster ratings")  # fmt: skip
    cli.ok("ladder", "rules", "Chess", "--set", "k=40", "--effective", "2025-09-01",
           "--reason", "typed in a hurry")  # fmt: skip
    cli.ok("ladder", "void-rules", "Chess", "--effective", "2025-09-01", "--reason", "wrong K")


# -- ladder show ------------------------------------------------------------------
def test_ladder_show_says_what_each_rule_change_changed(cli: Cli) -> None:
    chess(cli)
    out = cli.ok("ladder", "show", "Chess")
    lines = out.splitlines()
    history = lines[lines.index("Rule history:") + 1 :]
    assert history[0] == "  from the start: elo: k=24, home_advantage=20"
    assert "  2025-06-01: elo: k 24 → 32" in history
    assert not JSON_DUMP.search(out)  # no whole parameter JSON
    # The voided change is there, marked, with when and why it was voided.
    at = history.index("  2025-09-01: elo: k 32 → 40")
    assert "(typed in a hurry)" in history[at + 1]
    assert history[at + 2].startswith("      VOIDED (voided at ")
    assert "by tester (wrong K)" in history[at + 2] and "no longer counts" in history[at + 2]
    voided = cli.json("ladder", "show", "Chess")["rules"][2]
    assert voided["changed"] == ["k 32 → 40"] and "wrong K" in voided["voided"]


def test_ladder_show_gives_each_parameters_whole_help(cli: Cli) -> None:
    chess(cli)
    out = cli.ok("ladder", "show", "Chess")
    assert "gives K, e.g\n" not in out and not re.search(r"e\.g$", out, re.MULTILINE)
    text = " ".join(out.split())  # the help is wrapped: read it as one line
    assert 'gives K, e.g. [{"k": 40, "games_below": 30}, {"k": 10, "rating_at_least": 2400}].' in (
        text
    )
    assert "  k = 32\n" in out  # as a person types it after --set


def test_adlg_parameters_in_force_say_the_rules_are_fixed(cli: Cli) -> None:
    cli.ok("ladder", "open", "AdlG", "--family", "adlg")
    lines = cli.ok("ladder", "show", "AdlG").splitlines()
    after = lines[lines.index("Parameters in force:") + 1]
    assert after.startswith("  none: adlg's rules are fixed")
    fixed = " ".join(lines[lines.index("Parameters in force:") + 2 :])
    assert "initial=1000" in fixed and "divisor=500" in fixed and "k=30" in fixed


# -- ladder list ------------------------------------------------------------------
def test_ladder_list_counts_rule_changes_and_shows_only_parameters_set(cli: Cli) -> None:
    chess(cli)
    cli.ok("ladder", "open", "Club", "--family", "battle-empire")
    out = cli.ok("ladder", "list")
    assert "[]" not in out
    assert max(map(len, out.splitlines())) < 100  # was hundreds of characters
    header = out.splitlines()[1]
    assert "rule changes" in header and "version warnings" not in header
    chess_row = next(line for line in out.splitlines() if line.startswith("Chess"))
    assert chess_row.split()[2:5] == ["0", "0", "1"]  # players, games, rule changes in force
    assert "k=32, home_advantage=20" in chess_row
    assert "defaults" in next(line for line in out.splitlines() if line.startswith("Club"))
    # For scripts, the whole rule history (it was always []).
    listed = {d["name"]: d for d in cli.json("ladder", "list")}
    assert [r["effective"] for r in listed["Chess"]["rules"]] == ["from the start", "2025-06-01"]


# -- diff -------------------------------------------------------------------------
def test_diff_lists_each_players_own_changed_entries(cli: Cli) -> None:
    cli.ok("ladder", "open", "Chess", "--family", "elo", "--set", "k=24")
    cli.ok("player", "add", "Alice", "Bob", "Carol", "Dan", "Ann")
    cli.ok("record", "Chess", "--date", "2025-01-05", "--side", "Alice", "--side", "Bob",
           "--result", "a")  # fmt: skip
    moment = cli.json("audit")[-1]["recorded_at"]
    cli.ok("ladder", "rules", "Chess", "--set", "k=32", "--effective", "2025-01-01",
           "--reason", "faster")  # fmt: skip
    cli.ok("record", "Chess", "--date", "2025-01-07", "--side", "Carol", "--side", "Dan",
           "--result", "draw", "--neutral")  # fmt: skip
    cli.ok("record", "Chess", "--date", "2025-01-08", "--side", "Ann", "--side", "Carol",
           "--result", "a")  # fmt: skip
    lines = {d["player"]: d["events"] for d in cli.json("diff", "Chess", "--from-known-at", moment)}
    # Alice's one game, recomputed under K 32: hers alone, not Carol's or Ann's.
    assert lines["Alice"] == ["~ 2025-01-05 game " + lines["Alice"][0].split()[3]
                              + " vs Bob: +12 → +16"]  # fmt: skip
    assert len(lines["Carol"]) == 2 and all("Alice" not in e for e in lines["Carol"])
    assert lines["Ann"][0].startswith("+ 2025-01-08 game ") and lines["Ann"][0].endswith(
        "vs Carol: +16"
    )
    out = cli.ok("diff", "Chess", "--from-known-at", moment)
    assert not JSON_DUMP.search(out)
    assert "rules from 2025-01-01: k 24 → 32 (faster)" in out


# -- the small texts ---------------------------------------------------------------
def test_an_import_of_one_row_reads_in_the_singular(cli: Cli, tmp_path: Path) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    sheet = tmp_path / "one.csv"
    sheet.write_text("ladder,date,side_a,side_b,result\nClub,2025-01-05,Alice,Bob,a\n")
    out = cli.ok("import", str(sheet))
    assert out.startswith(f"{sheet}: 1 row: added 1 game, skipped 0 already recorded")
    assert cli.ok("player", "add", "Carol") == "Added 1 player.\n"


def test_player_list_names_who_a_player_was_merged_into(cli: Cli) -> None:
    cli.ok("player", "add", "Éric Dupont", "E. Dupont")
    cli.ok("player", "merge", "E. Dupont", "Éric Dupont", "--reason", "same person")
    row = next(line for line in cli.ok("player", "list").splitlines() if "E. Dupont" in line)
    assert "Éric Dupont" in row
    assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{4}", row.split("E. Dupont", 1)[1])


def test_verify_names_the_differing_column_in_readable_keys(cli: Cli) -> None:
    chess(cli)
    cli.sql("UPDATE view_entries SET date = '2024-01-01' WHERE date = '2025-06-01'")
    out = cli.fails("verify")
    problem = next(line for line in out.splitlines() if line.startswith("PROBLEM"))
    assert "\x1f" not in problem and "\\x1f" not in problem
    assert "date: stored '2024-01-01', rebuilt '2025-06-01'" in problem
    assert "key '2025-06-01·" in problem


def test_adlg_explain_says_a_tournament_games_change_applies_at_its_end(cli: Cli) -> None:
    cli.ok("ladder", "open", "AdlG", "--family", "adlg")
    cli.ok("player", "add", "Al", "Bo", "Cy")
    cli.ok("record", "AdlG", "--date", "2025-03-01", "--event", "T1", "--round", "1",
           "--side", "Al", "--side", "Bo", "--result", "a")  # fmt: skip
    out = cli.ok("record", "AdlG", "--date", "2025-03-01", "--event", "T1", "--round", "2",
                 "--side", "Al", "--side", "Cy", "--result", "a")  # fmt: skip
    game = out.split()[2].rstrip(".")
    text = cli.ok("explain", game)
    assert "Al (side A): +25 from this game, rated from 1000 (the rating before the event)" in text
    assert "the change applies at the event's end" in text
    assert "1000 -> 1050" not in text


def test_battletech_explain_prints_no_python_reprs(cli: Cli) -> None:
    cli.ok("ladder", "open", "BattleTech League", "--family", "battletech")
    cli.ok("import", str(FIXTURES / "battletech-2025.csv"))
    games = {r["game"] for r in cli.json("history", "BattleTech League", "Sofia Castellano")}
    text = "".join(cli.ok("explain", game) for game in sorted(games))
    assert "units A" in text
    assert not re.search(r"\b(False|True|None)\b", text)
    assert not re.search(r"\d\.\d{10,}", text)  # 880.6666666666666
    assert "{'" not in text and '{"' not in text
    assert "Archer ARC-2R: bv 1321, state critical-damage" in text


def test_season_close_lists_who_decayed_and_by_how_much(cli: Cli) -> None:
    cli.ok("ladder", "open", "AdlG", "--family", "adlg")
    cli.ok("player", "add", "Al", "Bo", "Cy", "Di")
    for n, other in enumerate(("Bo", "Cy", "Di"), start=1):
        cli.ok("record", "AdlG", "--date", "2024-03-01", "--event", "T0", "--round", str(n),
               "--side", "Al", "--side", other, "--result", "a")  # fmt: skip
    out = cli.ok("season", "close", "AdlG", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    assert out.splitlines()[1:] == ["  Al: 1075 → 1000 (-75)"]


def test_record_shows_the_rating_changes_it_caused(cli: Cli) -> None:
    cli.ok("ladder", "open", "Chess", "--family", "elo", "--set", "k=24")
    cli.ok("player", "add", "Alice", "Bob")
    out = cli.ok("record", "Chess", "--date", "2025-01-05", "--side", "Alice", "--side", "Bob",
                 "--result", "a")  # fmt: skip
    assert out.splitlines()[1:] == ["  Alice: 1500 → 1512 (+12)", "  Bob: 1500 → 1488 (-12)"]


def test_empty_standings_and_history_say_so_in_a_sentence(cli: Cli) -> None:
    cli.ok("ladder", "open", "Empty", "--family", "elo")
    cli.ok("player", "add", "Alice")
    assert cli.ok("standings", "Empty").startswith("No one is rated in Empty yet: record a game")
    assert cli.ok("standings", "Empty", "--as-of", "2025-01-01") == (
        "No one is rated in Empty as of 2025-01-01.\n"
    )
    assert cli.ok("history", "Empty", "Alice") == (
        "Alice in Empty: nothing yet (no game, rating adjustment or season penalty).\n"
    )
    assert cli.ok("history", "Empty").startswith("Every player in Empty: nothing yet")
    assert cli.ok("standings", "Empty", "--format", "csv").startswith("rank,player")  # scripts


def test_parameter_errors_speak_of_the_parameter_not_a_path(cli: Cli) -> None:
    for setting, said in (
        ("k=abc", "must be a number, not text (got 'abc')"),
        ("k=-5", "must be a number ≥ 0 (got -5)"),
        ('k_rules=[{"k":"a"}]', "must be a number, not text (item 1, field 'k')"),
    ):
        out = cli.fails("ladder", "open", "X", "--family", "elo", "--set", setting)
        assert "$." not in out and "`" not in out, out
        assert said in out, out


# -- a re-import -------------------------------------------------------------------
def test_a_reimport_that_adds_nothing_warns_of_no_replayed_close(cli: Cli, tmp_path: Path) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo", "--set",
           'season_penalties=[{"above":1400,"penalty":10}]')  # fmt: skip
    sheet = tmp_path / "season.csv"
    sheet.write_text(
        "ladder,date,side_a,side_b,result\n"
        "Club,2025-01-05,Alice,Bob,a\nClub,2025-02-05,Carol,Dan,b\n"
    )
    cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    first = cli.ok("import", str(sheet))
    assert "the close was replayed" in first  # games new to a closed season: said once
    again = cli.ok("import", str(sheet))
    assert again == f"{sheet}: 2 rows: added 0 games, skipped 2 already recorded.\n"
