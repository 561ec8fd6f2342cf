"""The example tables of docs/rules/ through the command line, as an organiser would
enter them: open a ladder, set starting ratings with ``ledger adjust``, give
players their prior games, record the table's game, then read ``history`` and
``explain``. Also season closes, French grades and foreign result fields."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from tests.conftest import Cli

TABLE_DAY = "2025-01-05"
DAY_BEFORE = "2024-12-31"


def day(n: int, start: date = date(2024, 1, 1)) -> str:
    return (start + timedelta(days=n)).isoformat()


def history(cli: Cli, ladder: str, player: str) -> list[dict[str, Any]]:
    rows = cli.json("history", ladder, player)
    assert isinstance(rows, list)
    return rows


def table_row(cli: Cli, ladder: str, player: str, on: str = TABLE_DAY) -> dict[str, Any]:
    """The player's history row of the game played on ``on``."""
    rows = [r for r in history(cli, ladder, player) if r["kind"] == "game" and r["date"] == on]
    assert len(rows) == 1, rows
    return rows[0]


def explained(cli: Cli, game: str) -> dict[str, dict[str, Any]]:
    """``explain GAME --format json``: each player's explanation by name."""
    x = cli.json("explain", game)
    assert isinstance(x, dict)
    return {p["player"]: p for p in x["players"]}


def standing(cli: Cli, ladder: str, player: str) -> dict[str, Any]:
    rows = cli.json("standings", ladder)
    assert isinstance(rows, list)
    (row,) = [r for r in rows if r["player"] == player]
    return row


def record(cli: Cli, ladder: str, on: str, *sides: str, **fields: str) -> str:
    args = ["record", ladder, "--date", on]
    for side in sides:
        args += ["--side", side]
    for key, value in fields.items():
        args += [f"--{key}", value]
    return cli.ok(*args)


# -- battle-empire ------------------------------------------------------------------


def battle_empire_table(cli: Cli, variant: str | None = None) -> None:
    """A new (1000, 0 games); B at 1200 with 20 games played, set on the day
    before the table game."""
    sets = ["--set", f"variant={variant}"] if variant else []
    cli.ok("ladder", "open", "BE", "--family", "battle-empire", *sets)
    cli.ok("player", "add", "A", "B", "C")
    for i in range(20):
        record(cli, "BE", day(i), "B", "C", result="draw")
    cli.ok("adjust", "BE", "B", "--to", "1200", "--date", DAY_BEFORE, "--reason", "table")
    b = standing(cli, "BE", "B")
    assert (b["rating"], b["games"]) == (1200, 20)


# Games covering every cell of the table: (result, margin, A's change, B's change).
BATTLE_EMPIRE_GAMES = [
    ("a", "decisive", 29, -43),
    ("a", "marginal", 22, -43),
    ("a", "overwhelming", 37, -43),
    ("b", "marginal", -8, 17),
    ("b", "decisive", -8, 32),
    ("b", "overwhelming", -8, 47),
    ("draw", None, 7, -13),
]
S = {"marginal": 1.0, "decisive": 1.25, "overwhelming": 1.5}


@pytest.mark.parametrize(
    ("result", "margin", "change_a", "change_b"),
    BATTLE_EMPIRE_GAMES,
    ids=[f"{r}-{m}" for r, m, _, _ in BATTLE_EMPIRE_GAMES],
)
def test_battle_empire_table(
    cli: Cli, result: str, margin: str | None, change_a: int, change_b: int
) -> None:
    battle_empire_table(cli)
    fields = {"result": result} | ({"margin": margin} if margin else {})
    record(cli, "BE", TABLE_DAY, "A", "B", **fields)
    a, b = table_row(cli, "BE", "A"), table_row(cli, "BE", "B")
    assert (a["before"], b["before"]) == (1000, 1200)
    assert (a["change"], b["change"]) == (change_a, change_b)
    assert (a["after"], b["after"]) == (1000 + change_a, 1200 + change_b)
    s_a = 0.5 if result == "draw" else S[margin] if result == "a" else 0.0  # type: ignore[index]
    s_b = 0.5 if result == "draw" else S[margin] if result == "b" else 0.0  # type: ignore[index]
    assert (a["s"], a["p"], a["k"]) == (s_a, 0.28, 30)
    assert (b["s"], b["p"], b["k"]) == (s_b, 0.72, 60)

    x = explained(cli, a["game"])
    assert (x["A"]["values"]["P"], x["A"]["values"]["S"], x["A"]["values"]["K"]) == (
        0.28,
        s_a,
        30,
    )
    assert (x["B"]["values"]["P"], x["B"]["values"]["S"], x["B"]["values"]["K"]) == (
        0.72,
        s_b,
        60,
    )
    assert (x["A"]["change"], x["B"]["change"]) == (change_a, change_b)
    assert x["A"]["values"]["games played"] == 0
    assert x["B"]["values"]["games played"] == 20


@pytest.mark.parametrize(("variant", "gain"), [(None, 0), ("fr", 0), ("en", 2)])
def test_battle_empire_500_point_rule(cli: Cli, variant: str | None, gain: int) -> None:
    sets = ["--set", f"variant={variant}"] if variant else []
    cli.ok("ladder", "open", "BE", "--family", "battle-empire", *sets)
    cli.ok("player", "add", "Marshal", "Low")
    cli.ok("adjust", "BE", "Marshal", "--to", "1600", "--date", DAY_BEFORE, "--reason", "seed")
    cli.ok("adjust", "BE", "Low", "--to", "1050", "--date", DAY_BEFORE, "--reason", "seed")
    record(cli, "BE", TABLE_DAY, "Marshal", "Low", result="a", margin="marginal")
    marshal = table_row(cli, "BE", "Marshal")
    assert (marshal["p"], marshal["k"], marshal["change"]) == (0.93, 30, gain)
    # The lower player's loss: 30 x (0 - 0.07) = -2.1 -> -2, in both variants.
    assert table_row(cli, "BE", "Low")["change"] == -2


# -- adlg ----------------------------------------------------------------------------


def adlg_table(cli: Cli) -> None:
    """A new (1000, 0 rounds); B at 1200 with 40 rounds played."""
    cli.ok("ladder", "open", "AD", "--family", "adlg")
    cli.ok("player", "add", "A", "B", "C")
    for i in range(40):
        record(cli, "AD", day(i), "B", "C", result="draw")
    cli.ok("adjust", "AD", "B", "--to", "1200", "--date", DAY_BEFORE, "--reason", "table")
    b = standing(cli, "AD", "B")
    assert (b["rating"], b["games"]) == (1200, 40)


ADLG_P_A = 1 / (1 + 10 ** (200 / 500))


@pytest.mark.parametrize(
    ("result", "event", "change_a", "change_b"),
    [
        ("a", None, 35, -21),
        ("draw", None, 10, -6),
        ("b", None, -14, 8),
        ("a", "T1", 35, -21),
    ],
    ids=["A wins", "draw", "B wins", "A wins in its own event"],
)
def test_adlg_table(cli: Cli, result: str, event: str | None, change_a: int, change_b: int) -> None:
    adlg_table(cli)
    extra = {"event": event, "round": "1"} if event else {}
    record(cli, "AD", TABLE_DAY, "A", "B", result=result, **extra)
    a, b = table_row(cli, "AD", "A"), table_row(cli, "AD", "B")
    assert (a["change"], b["change"]) == (change_a, change_b)
    assert (a["k"], b["k"]) == (50, 30)
    assert a["p"] == pytest.approx(ADLG_P_A, abs=1e-9)
    x = explained(cli, a["game"])
    assert x["A"]["values"]["P"] == pytest.approx(ADLG_P_A, abs=1e-9)
    assert x["B"]["values"]["P"] == pytest.approx(1 - ADLG_P_A, abs=1e-9)
    assert (x["A"]["values"]["K"], x["B"]["values"]["K"]) == (50, 30)
    assert (x["A"]["change"], x["B"]["change"]) == (change_a, change_b)
    assert standing(cli, "AD", "A")["rating"] == 1000 + change_a


def test_adlg_event_games_rated_from_ratings_before_the_event(cli: Cli) -> None:
    cli.ok("ladder", "open", "AD", "--family", "adlg")
    cli.ok("player", "add", "A", "B")
    for rnd in ("1", "2"):
        record(cli, "AD", TABLE_DAY, "A", "B", result="a", event="T1", round=rnd)
    rows = [r for r in history(cli, "AD", "A") if r["kind"] == "game"]
    # Both games use 1000 v 1000 and K = 50 (0 rounds before the event): +25 each.
    assert [r["change"] for r in rows] == [25, 25]
    assert [r["k"] for r in rows] == [50, 50]
    assert [r["p"] for r in rows] == [0.5, 0.5]
    assert standing(cli, "AD", "A")["rating"] == 1050
    assert standing(cli, "AD", "B")["rating"] == 950
    assert standing(cli, "AD", "A")["games"] == 2


def test_adlg_games_without_event_rated_on_their_own(cli: Cli) -> None:
    cli.ok("ladder", "open", "AD", "--family", "adlg")
    cli.ok("player", "add", "A", "B")
    record(cli, "AD", "2025-01-05", "A", "B", result="a")
    record(cli, "AD", "2025-01-06", "A", "B", result="a")
    rows = [r for r in history(cli, "AD", "A") if r["kind"] == "game"]
    # Second game: 1025 v 975, P = 0.5573; 50 x 0.4427 = 22.1 -> 22.
    assert [r["change"] for r in rows] == [25, 22]
    assert standing(cli, "AD", "A")["rating"] == 1047


def test_adlg_season_close_floor(cli: Cli) -> None:
    cli.ok("ladder", "open", "AD", "--family", "adlg")
    cli.ok("player", "add", "D", "E", "F", "G", "H")
    for name, rating in (("D", 1050), ("E", 1200), ("F", 1000), ("G", 1300)):
        cli.ok("adjust", "AD", name, "--to", str(rating), "--date", "2024-06-01", "--reason", "s")
    record(cli, "AD", "2025-04-01", "G", "H", result="draw", event="Open", round="1")
    cli.ok("season", "close", "AD", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    changes = {
        p: [r["change"] for r in history(cli, "AD", p) if r["kind"] == "season"]
        for p in ("D", "E", "F", "G", "H")
    }
    assert changes == {"D": [-50], "E": [-100], "F": [], "G": [], "H": []}
    assert standing(cli, "AD", "D")["rating"] == 1000


# -- battletech ----------------------------------------------------------------------

# R_A, R_B, BV, A's change, B's change, S_A, E_A.
BATTLETECH_ROWS = [
    (1000, 1000, "5000,3000,5000,1000", 100, -100, 7000, 5000),
    (1200, 1000, "4000,2000,5000,2500", -61, 72, 5625, None),
    (1000, 1000, "4000,4000,6000,6000", 50, -50, 6000, 5000),
]


def battletech_table(cli: Cli, r_a: int, r_b: int, bv: str) -> None:
    cli.ok("ladder", "open", "BT", "--family", "battletech")
    cli.ok("player", "add", "A", "B")
    for name, rating in (("A", r_a), ("B", r_b)):
        if rating != 1000:
            cli.ok("adjust", "BT", name, "--to", str(rating), "--date", DAY_BEFORE, "--reason", "t")
    record(cli, "BT", TABLE_DAY, "A", "B", bv=bv)


@pytest.mark.parametrize(
    ("r_a", "r_b", "bv", "change_a", "change_b", "s_a", "e_a"),
    BATTLETECH_ROWS,
    ids=["row1", "row2", "row3"],
)
def test_battletech_table(
    cli: Cli,
    r_a: int,
    r_b: int,
    bv: str,
    change_a: int,
    change_b: int,
    s_a: float,
    e_a: float | None,
) -> None:
    battletech_table(cli, r_a, r_b, bv)
    a, b = table_row(cli, "BT", "A"), table_row(cli, "BT", "B")
    assert (a["before"], b["before"]) == (r_a, r_b)
    assert (a["change"], b["change"]) == (change_a, change_b)
    assert a["s"] == s_a
    if e_a is not None:
        assert a["p"] == e_a
    assert a["k"] == 20  # the scale the score difference is divided by
    assert standing(cli, "BT", "B")["rating"] == r_b + change_b


def test_battletech_explain_bv_game(cli: Cli) -> None:
    battletech_table(cli, 1200, 1000, "4000,2000,5000,2500")
    x = explained(cli, table_row(cli, "BT", "A")["game"])
    assert (x["A"]["change"], x["B"]["change"]) == (-61, 72)
    assert x["A"]["values"]["A_s"] == 4000
    assert x["A"]["values"]["R_A"] == 1200


# -- bga -----------------------------------------------------------------------------

FOUR = ("P1", "P2", "P3", "P4")


def bga_four(cli: Cli, experienced: bool) -> None:
    """Four players at 1500, advised 4; experienced ones have 30 games (all
    tied, so their ratings stay at 1500)."""
    cli.ok("ladder", "open", "G", "--family", "bga", "--set", "advised_players=4")
    cli.ok("player", "add", *FOUR)
    if experienced:
        for i in range(30):
            record(cli, "G", day(i), *FOUR, ranks="1,1,1,1")
        for p in FOUR:
            row = standing(cli, "G", p)
            assert (row["rating"], row["games"]) == (1500, 30)


@pytest.mark.parametrize(
    ("experienced", "changes", "k"),
    [
        (True, [40, 13, -13, -40], 40),
        # New players: K = 60; 60 x 2 x mean(S - P) = 60, 20, -20, -60.
        (False, [60, 20, -20, -60], 60),
    ],
    ids=["experienced", "new"],
)
def test_bga_four_players(cli: Cli, experienced: bool, changes: list[int], k: int) -> None:
    bga_four(cli, experienced)
    record(cli, "G", TABLE_DAY, *FOUR, ranks="1,2,3,4")
    rows = [table_row(cli, "G", p) for p in FOUR]
    assert [r["change"] for r in rows] == changes
    assert [r["before"] for r in rows] == [1500] * 4
    assert [r["k"] for r in rows] == [k * 2] * 4  # effective K: K x N_capped / 2
    x = explained(cli, rows[0]["game"])
    assert [x[p]["change"] for p in FOUR] == changes
    assert [x[p]["values"]["K"] for p in FOUR] == [k] * 4
    assert x["P1"]["values"]["N_capped"] == 4
    assert x["P1"]["values"]["mean P"] == 0.5
    assert x["P2"]["values"]["mean S"] == pytest.approx(2 / 3, abs=1e-12)


@pytest.mark.parametrize(
    ("experienced", "penalty"), [(True, -50), (False, -70)], ids=["experienced", "new"]
)
def test_bga_quit(cli: Cli, experienced: bool, penalty: int) -> None:
    bga_four(cli, experienced)
    record(cli, "G", TABLE_DAY, *FOUR, ranks="1,2,3,4", quit="P3")
    rows = {p: table_row(cli, "G", p) for p in FOUR}
    assert {p: r["change"] for p, r in rows.items()} == {
        "P1": 0,
        "P2": 0,
        "P3": penalty,
        "P4": 0,
    }
    assert standing(cli, "G", "P3")["rating"] == 1500 + penalty
    x = explained(cli, rows["P3"]["game"])
    assert x["P3"]["values"]["quit penalty"] == 10
    assert x["P1"]["values"]["rated"] is False


def test_bga_quit_game_does_not_count_for_the_others(cli: Cli) -> None:
    bga_four(cli, experienced=False)
    record(cli, "G", TABLE_DAY, *FOUR, ranks="1,2,3,4", quit="P3")
    assert standing(cli, "G", "P3")["games"] == 1
    assert [standing(cli, "G", p)["games"] for p in ("P1", "P2", "P4")] == [0, 0, 0]


# -- season close (battle-empire) -------------------------------------------------------


def season_ladder(cli: Cli) -> None:
    cli.ok("ladder", "open", "BE", "--family", "battle-empire")
    cli.ok("player", "add", "X", "Y", "Z", "W", "U", "V", "Q", "R", "T")
    seed = {"X": 1350, "Y": 1200, "Z": 1100, "W": 1250, "Q": 1400, "T": 1150}
    for name, rating in seed.items():
        cli.ok("adjust", "BE", name, "--to", str(rating), "--date", "2024-06-01", "--reason", "s")
    # Rated during the season, never played: not penalised.
    cli.ok("adjust", "BE", "V", "--to", "1500", "--date", "2025-03-01", "--reason", "s")
    # Q played in 2024 only: 1400 draws R (1000): 30 x (0.5 - 0.86) = -10.8 -> 1389.
    record(cli, "BE", "2024-07-01", "Q", "R", result="draw")
    # W played in 2025.
    record(cli, "BE", "2025-05-01", "W", "U", result="draw")


SEASON_PENALTIES = {"X": -100, "Y": -50, "Q": -100}


def season_rows(cli: Cli, player: str) -> list[dict[str, Any]]:
    return [r for r in history(cli, "BE", player) if r["kind"] == "season"]


def test_season_close_penalises_inactive_players_above_1100(cli: Cli) -> None:
    season_ladder(cli)
    record(cli, "BE", "2025-12-31", "T", "U", result="draw")  # last day counts
    assert table_row(cli, "BE", "Q", "2024-07-01")["after"] == 1389
    cli.ok("season", "close", "BE", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    for player in ("X", "Y", "Z", "W", "U", "V", "Q", "R", "T"):
        rows = season_rows(cli, player)
        if player in SEASON_PENALTIES:
            assert [r["change"] for r in rows] == [SEASON_PENALTIES[player]], player
            assert rows[0]["date"] == "2025-12-31"
        else:
            assert rows == [], player
    assert standing(cli, "BE", "X")["rating"] == 1250
    assert standing(cli, "BE", "Y")["rating"] == 1150
    assert standing(cli, "BE", "Q")["rating"] == 1289
    assert standing(cli, "BE", "Z")["rating"] == 1100
    # Closing the same season twice is refused.
    assert "already closed" in cli.fails(
        "season", "close", "BE", "2025", "--from", "2025-01-01", "--to", "2025-12-31"
    )


def test_season_close_replays_a_game_recorded_late(cli: Cli) -> None:
    season_ladder(cli)
    cli.ok("season", "close", "BE", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    assert [r["change"] for r in season_rows(cli, "T")] == [-50]
    # T's game on the season's last day, recorded after the close: T played.
    record(cli, "BE", "2025-12-31", "T", "U", result="draw")
    assert season_rows(cli, "T") == []
    assert [r["change"] for r in season_rows(cli, "X")] == [-100]


# -- grades ----------------------------------------------------------------------------

GRADES = {
    "Marshal": (1450, "Maréchal d'Empire", "Marshal of the Empire"),
    "Div": (1250, "Général de division", "Division General"),
    "Brig": (1150, "Général de brigade", "Brigadier General"),
    "Col": (1050, "Colonel", "Colonel"),
    "Adj": (650, "Adjudant", "Warrant Officer"),
}


def test_standings_grades_in_french_and_english(cli: Cli) -> None:
    cli.ok("ladder", "open", "BE", "--family", "battle-empire")
    cli.ok("player", "add", *GRADES)
    for name, (rating, _, _) in GRADES.items():
        cli.ok("adjust", "BE", name, "--to", str(rating), "--date", "2025-01-01", "--reason", "s")
    fr = cli.json("standings", "BE", "--lang", "fr")
    en = cli.json("standings", "BE", "--lang", "en")
    assert isinstance(fr, list) and isinstance(en, list)
    assert [(r["player"], r["grade"]) for r in fr] == [(n, g[1]) for n, g in GRADES.items()]
    assert [(r["player"], r["grade"]) for r in en] == [(n, g[2]) for n, g in GRADES.items()]
    table = cli.ok("standings", "BE", "--lang", "fr")
    assert "Général de brigade" in table
    assert "Colonel" in table
    assert "Brigadier General" not in table


# -- fields that do not belong to a family ----------------------------------------------


@pytest.mark.parametrize(
    ("family", "good", "foreign", "field"),
    [
        (
            "battle-empire",
            ["--result", "a", "--margin", "decisive"],
            ["--ranks", "1,2"],
            "ranks",
        ),
        ("adlg", ["--result", "a"], ["--margin", "decisive"], "margin"),
        ("elo", ["--result", "a"], ["--bv", "5000,3000,5000,1000"], "bv"),
        ("battle-empire", ["--result", "a", "--margin", "decisive"], ["--quit", "A"], "quit"),
        ("bga", ["--ranks", "1,2"], ["--result", "a"], "result"),
        ("battletech", ["--bv", "5000,3000,5000,1000"], ["--margin", "decisive"], "margin"),
    ],
)
def test_foreign_result_fields_are_refused(
    cli: Cli, family: str, good: list[str], foreign: list[str], field: str
) -> None:
    cli.ok("ladder", "open", "L", "--family", family)
    cli.ok("player", "add", "A", "B")
    before = cli.event_count()
    base = ["record", "L", "--date", TABLE_DAY, "--side", "A", "--side", "B"]
    message = cli.fails(*base, *good, *foreign)
    assert field in message
    assert family in message
    assert cli.event_count() == before


@pytest.mark.parametrize(
    ("family", "good"),
    [
        ("battle-empire", ["--result", "a", "--margin", "decisive"]),
        ("adlg", ["--result", "a"]),
        ("elo", ["--result", "a"]),
        ("bga", ["--ranks", "1,2"]),
        ("battletech", ["--bv", "5000,3000,5000,1000"]),
    ],
)
def test_own_result_fields_are_accepted(cli: Cli, family: str, good: list[str]) -> None:
    cli.ok("ladder", "open", "L", "--family", family)
    cli.ok("player", "add", "A", "B")
    before = cli.event_count()
    cli.ok("record", "L", "--date", TABLE_DAY, "--side", "A", "--side", "B", *good)
    assert cli.event_count() == before + 1
