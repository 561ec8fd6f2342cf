"""ledger template: the example row on the ladder's name, and the sheet
pre-filled with the games between the camps of ``ledger teams`` (json, csv
or the xlsx camp sheet), filled in and imported as team games."""

from __future__ import annotations

import itertools
from pathlib import Path

import openpyxl
import pytest

from ledger.sheets.workbook import team_game_rows
from projections.teams.camps import camp_games, round_robin
from tests.conftest import Cli

PLAYERS = ["Anne", "Bob", "Carl", "Dora", "Émile", "Fanny", "Gus", "Hal"]


@pytest.fixture
def club(tmp_path: Path) -> Cli:
    """A Battle Empire club whose players have ratings apart."""
    cli = Cli(str(tmp_path / "ledger.db"))
    cli.ok("ladder", "open", "BE Club", "--family", "battle-empire")
    cli.ok("player", "add", *PLAYERS)
    for day, (a, b) in enumerate(zip(PLAYERS[::2], PLAYERS[1::2], strict=True), start=1):
        cli.ok("record", "BE Club", "--date", f"2025-03-0{day}", "--side", a, "--side", b,
               "--result", "a", "--margin", "decisive")  # fmt: skip
    return cli


def rows(path: Path, sheet: str = "Results") -> list[dict[str, object]]:
    ws = openpyxl.load_workbook(path)[sheet]
    header, *body = list(ws.iter_rows(values_only=True))
    return [dict(zip(header, r, strict=True)) for r in body if any(v is not None for v in r)]


def fill(path: Path, result: str, margin: str | None, sheet: str = "Results") -> None:
    """Write the same result in every game of the sheet, as a referee would."""
    book = openpyxl.load_workbook(path)
    ws = book[sheet]
    header = [c.value for c in ws[1]]
    for line in range(2, ws.max_row + 1):
        if ws.cell(line, header.index("side_a") + 1).value:
            ws.cell(line, header.index("result") + 1).value = result
            ws.cell(line, header.index("margin") + 1).value = margin
    book.save(path)


def recorded(club: Cli) -> list[dict[str, object]]:
    export = club.json("export", "BE Club")
    return export["games"]  # type: ignore[index]


def sides_of(text: object) -> frozenset[str]:
    return frozenset(str(text).split(";"))


def test_round_robin_meets_every_pair_once_and_each_camp_once_a_round() -> None:
    for teams in range(2, 9):
        rounds = round_robin(teams)
        pairs = [p for r in rounds for p in r]
        assert sorted(pairs) == list(itertools.combinations(range(teams), 2))
        for r in rounds:
            playing = [t for p in r for t in p]
            assert len(playing) == len(set(playing))
        assert len(rounds) == (teams if teams % 2 else teams - 1)


def test_camp_games_two_camps_one_game_many_sided_family_one_game_of_all() -> None:
    camps = [["Anne", "Bob"], ["Carl", "Dora"], ["Émile", "Fanny"]]
    assert team_game_rows(camp_games(camps[:2], max_sides=2)) == [
        {"side_a": "Anne;Bob", "side_b": "Carl;Dora"}
    ]
    assert team_game_rows(camp_games(camps, max_sides=64)) == [
        {"side_a": "Anne;Bob", "side_b": "Carl;Dora", "side_c": "Émile;Fanny"}
    ]
    three = team_game_rows(camp_games(camps, max_sides=2))
    assert [(g["round"], g["side_a"], g["side_b"]) for g in three] == [
        ("1", "Carl;Dora", "Émile;Fanny"),
        ("2", "Anne;Bob", "Émile;Fanny"),
        ("3", "Anne;Bob", "Carl;Dora"),
    ]


def test_template_for_a_ladder_writes_its_name_in_the_example_row(
    club: Cli, tmp_path: Path
) -> None:
    out = tmp_path / "t.xlsx"
    club.ok("template", "--ladder", "BE Club", str(out))
    (example,) = rows(out)
    assert example["ladder"] == "BE Club"
    assert example["side_a"] and example["result"]
    # The example imports as it is into that ladder (its players are new).
    assert "added 1 game" in club.ok("import", str(out))


def test_teams_xlsx_to_prefilled_template_to_import_two_camps(club: Cli, tmp_path: Path) -> None:
    camps_xlsx = tmp_path / "camps.xlsx"
    club.ok("teams", "BE Club", *PLAYERS, "--camps", "2", "--format", "xlsx", "-o", str(camps_xlsx))
    columns = list(openpyxl.load_workbook(camps_xlsx)["Camps"].iter_cols(values_only=True))
    camp_a, camp_b = ([v for v in col[1:] if v] for col in columns)
    sheet = tmp_path / "night.xlsx"
    out = club.ok("template", "--ladder", "BE Club", "--camps", str(camps_xlsx),
                  "--date", "2025-04-01", str(sheet))  # fmt: skip
    assert "(1 game between 2 camps)" in out
    (game,) = rows(sheet)
    assert game["ladder"] == "BE Club"
    assert game["side_a"] == ";".join(camp_a) and game["side_b"] == ";".join(camp_b)
    assert game["result"] is None  # left for the referee
    before = len(recorded(club))
    fill(sheet, "b", "marginal")
    assert "added 1 game" in club.ok("import", str(sheet))
    games = recorded(club)
    assert len(games) == before + 1
    last = games[-1]
    assert last["date"] == "2025-04-01"
    assert sides_of(last["side_a"]) == set(camp_a) and sides_of(last["side_b"]) == set(camp_b)
    assert last["result_result"] == "b"


def test_four_camps_from_json_play_every_pair_in_three_rounds(club: Cli, tmp_path: Path) -> None:
    camps_json = tmp_path / "camps.json"
    club.ok("teams", "BE Club", *PLAYERS, "--camps", "4", "--format", "json", "-o", str(camps_json))
    sheet = tmp_path / "night.xlsx"
    club.ok("template", "--ladder", "BE Club", "--camps", str(camps_json),
            "--date", "2025-04-02", "--event", "NIGHT-1", str(sheet))  # fmt: skip
    games = rows(sheet)
    assert len(games) == 6
    camps = {sides_of(g["side_a"]) for g in games} | {sides_of(g["side_b"]) for g in games}
    assert len(camps) == 4 and all(len(c) == 2 for c in camps)
    assert sorted(p for c in camps for p in c) == sorted(PLAYERS)
    assert {frozenset((sides_of(g["side_a"]), sides_of(g["side_b"]))) for g in games} == {
        frozenset(pair) for pair in itertools.combinations(camps, 2)
    }
    assert sorted({g["round"] for g in games}) == [1, 2, 3]
    fill(sheet, "draw", None)
    assert "added 6 games" in club.ok("import", str(sheet))
    imported = [g for g in recorded(club) if g["event"] == "NIGHT-1"]
    assert len(imported) == 6
    assert {(g["round"], g["table"]) for g in imported} == {
        (r, t) for r in (1, 2, 3) for t in (1, 2)
    }
    assert {frozenset((sides_of(g["side_a"]), sides_of(g["side_b"]))) for g in imported} == {
        frozenset((sides_of(g["side_a"]), sides_of(g["side_b"]))) for g in games
    }


def test_camps_from_csv_take_the_split_asked(club: Cli, tmp_path: Path) -> None:
    camps_csv = tmp_path / "camps.csv"
    club.ok("teams", "BE Club", *PLAYERS, "--camps", "2", "--alternatives", "2",
            "--format", "csv", "-o", str(camps_csv))  # fmt: skip
    firsts = []
    for split in ("1", "2"):
        sheet = tmp_path / f"split{split}.xlsx"
        club.ok("template", "--ladder", "BE Club", "--camps", str(camps_csv), "--split", split,
                str(sheet))  # fmt: skip
        (game,) = rows(sheet)
        firsts.append(frozenset((sides_of(game["side_a"]), sides_of(game["side_b"]))))
    assert firsts[0] != firsts[1]  # two distinct splits


def test_a_many_sided_family_gets_one_game_of_every_camp(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "ledger.db"))
    cli.ok("ladder", "open", "Carcassonne", "--family", "bga")
    camps_json = tmp_path / "camps.json"
    cli.ok("teams", "Carcassonne", *PLAYERS[:6], "--camps", "3", "--format", "json",
           "-o", str(camps_json))  # fmt: skip
    sheet = tmp_path / "game.xlsx"
    cli.ok("template", "--ladder", "Carcassonne", "--camps", str(camps_json), str(sheet))
    (game,) = rows(sheet)
    assert all(len(sides_of(game[s])) == 2 for s in ("side_a", "side_b", "side_c"))


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (None, [], "no such file"),
        ("x.txt", [], "takes the .json, .csv or .xlsx"),
        ("x.json", [], "not the json of 'ledger teams'"),
        ("x.csv", [], "expected the csv of 'ledger teams'"),
        ("x.xlsx", [], "no 'Camps' sheet"),
        ("one.csv", [], "found 1 camp(s)"),
        ("two.json", ["--split", "3"], "no split 3"),
        ("x.xlsx", ["--split", "2"], "a camp sheet holds one split"),
    ],
)
def test_bad_camp_files_are_refused_and_write_nothing(
    club: Cli, tmp_path: Path, make: str | None, args: list[str], message: str
) -> None:
    source = tmp_path / (make or "missing.json")
    if make == "x.xlsx":
        openpyxl.Workbook().save(source)
    elif make == "one.csv":
        source.write_text("split,camp,player\n1,A,Anne\n1,A,Bob\n", encoding="utf-8")
    elif make == "two.json":
        club.ok("teams", "BE Club", *PLAYERS[:4], "--camps", "2", "--alternatives", "2",
                "--format", "json", "-o", str(source))  # fmt: skip
    elif make is not None:
        source.write_text("hello\n", encoding="utf-8")
    out = tmp_path / "sheet.xlsx"
    text = club.fails("template", "--ladder", "BE Club", "--camps", str(source), *args, str(out))
    assert message in text
    assert not out.exists()


def test_date_without_camps_is_refused(club: Cli, tmp_path: Path) -> None:
    out = tmp_path / "sheet.xlsx"
    assert "--date and --event go with --camps" in club.fails(
        "template", "--ladder", "BE Club", "--date", "2025-04-01", str(out)
    )
    assert not out.exists()


def test_teams_camp_sheet_in_french_has_french_instructions_and_still_imports(
    club: Cli, tmp_path: Path
) -> None:
    camps_xlsx = tmp_path / "camps.xlsx"
    out = club.ok("--lang", "fr", "teams", "BE Club", *PLAYERS, "--camps", "2",
                  "--format", "xlsx", "-o", str(camps_xlsx))  # fmt: skip
    assert out.strip() == f"Feuille des camps écrite dans {camps_xlsx}."
    book = openpyxl.load_workbook(camps_xlsx)
    assert book["Instructions"]["A1"].value == "Comment remplir la feuille Result"
    # The headers and the sheets the template reads back stay the importer's.
    assert [c.value for c in book["Result"][1]][:3] == ["ladder", "date", "event"]
    columns = list(book["Camps"].iter_cols(values_only=True))
    assert [col[0] for col in columns] == ["Camp A", "Camp B"]
    sheet = tmp_path / "night.xlsx"
    club.ok("template", "--ladder", "BE Club", "--camps", str(camps_xlsx),
            "--date", "2025-04-01", str(sheet))  # fmt: skip
    fill(sheet, "b", "marginal")
    assert "added 1 game" in club.ok("import", str(sheet))
