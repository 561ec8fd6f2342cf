"""Issue 26, "French all the way": the result sheet ``ledger template``
writes, in French. With ``ledger --lang fr`` or the command's own ``--lang
fr``, the instructions sheet, the dropdowns' prompts and messages, the
example row's note, the result sheet's name and what the command prints are
French; the column names and codes (a, b, draw, yes...) stay the ones the
importer reads, so the French sheet, filled in, imports as the English one.
A result field a user-defined family gives no help of its own is explained
in French too.

Before, ``template`` had no ``--lang`` (``ledger --lang fr template``
wrote the English sheet) and the fallback help of a custom family's result
field was English ("The tally result field 'points'.").
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from ledger.sheets.workbook import INSTRUCTIONS, template_columns
from tests.conftest import Cli

#: Words of the English instructions that no French text holds.
ENGLISH = ("How to fill", "One row per game", "Optional:", "what to write", "The player of",
           "Who won", "Example game", "is one of", "Bad ", "result field")  # fmt: skip


@pytest.fixture
def club(tmp_path: Path) -> Cli:
    cli = Cli(str(tmp_path / "ledger.db"))
    cli.ok("ladder", "open", "Club", "--family", "elo")
    return cli


def texts(path: Path) -> list[str]:
    """Every text of the workbook a person reads besides the cells of the
    result sheet's rows: instructions, comments, dropdown prompts and errors."""
    book = openpyxl.load_workbook(path)
    out = [str(v) for row in book[INSTRUCTIONS].iter_rows(values_only=True) for v in row if v]
    results = book.worksheets[0]
    out += [c.comment.text for row in results.iter_rows() for c in row if c.comment]
    for check in results.data_validations.dataValidation:
        out += [check.errorTitle, check.error, check.prompt]
    return out


@pytest.mark.parametrize("where", ["group", "command"])
def test_the_template_workbook_is_french_and_still_imports(
    club: Cli, tmp_path: Path, where: str
) -> None:
    out = tmp_path / "club.xlsx"
    args = ["template", "--ladder", "Club", str(out)]
    said = club.ok(*(["--lang", "fr", *args] if where == "group" else [*args, "--lang", "fr"]))
    assert said.strip() == f"Feuille de résultats elo écrite dans {out} (une ligne d'exemple)."

    book = openpyxl.load_workbook(out)
    assert book.sheetnames == ["Résultats", INSTRUCTIONS]
    sheet = book["Résultats"]
    # The header is the importer's: the same names in every language.
    assert [c.value for c in sheet[1]] == template_columns("elo")
    info = [list(r) for r in book[INSTRUCTIONS].iter_rows(values_only=True)]
    assert info[0][0] == "Comment remplir la feuille Résultats"
    helps = {row[0]: row[1] for row in info if row[0] and row[0] != "•"}
    assert helps["colonne"] == "quoi y écrire"
    assert helps["date"].startswith("Le jour où la partie a été jouée")
    assert helps["side_a"].startswith("Le joueur du camp A (le premier camp")
    assert helps["result"].startswith("Qui a gagné : a = le camp A")  # the family's own help
    assert helps["attr_NAME"].startswith("Facultatif : tout nombre supplémentaire")
    assert sheet["A2"].comment.text.startswith("Partie d'exemple : remplacez cette ligne")
    checks = {c.promptTitle: c for c in sheet.data_validations.dataValidation}
    assert checks["result"].errorTitle == "result incorrect"
    assert checks["result"].error == "result vaut l'un de : a, b, draw (ou vide)"
    assert checks["neutral"].prompt.startswith("yes quand aucun camp n'a l'avantage")
    english = [text for text in texts(out) if any(word in text for word in ENGLISH)]
    assert english == []

    # Filled in as a French referee would, it imports (codes and headers unchanged).
    header = [c.value for c in sheet[1]]
    for column, value in {"side_a": "Éric", "side_b": "Léa", "result": "draw"}.items():
        sheet.cell(2, header.index(column) + 1).value = value
    book.save(out)
    club.ok("import", str(out), "--lang", "fr")
    games = club.json("export", "Club")["games"]  # type: ignore[index]
    assert [(g["side_a"], g["side_b"], g["result_result"]) for g in games] == [
        ("Éric", "Léa", "draw")
    ]


def test_the_english_template_is_unchanged(club: Cli, tmp_path: Path) -> None:
    out = tmp_path / "club.xlsx"
    said = club.ok("template", "--ladder", "Club", str(out))
    assert said.strip() == f"Wrote the elo result sheet to {out} (an example row)."
    book = openpyxl.load_workbook(out)
    assert book.sheetnames == ["Results", INSTRUCTIONS]
    assert book[INSTRUCTIONS]["A1"].value == "How to fill the Results sheet"


def test_the_csv_template_says_it_in_french_and_keeps_the_importers_header(
    club: Cli, tmp_path: Path
) -> None:
    out = tmp_path / "club.csv"
    said = club.ok("template", "--ladder", "Club", str(out), "--lang", "fr")
    assert said.strip() == f"Feuille de résultats elo écrite dans {out} (une ligne d'exemple)."
    header = out.read_text(encoding="utf-8").splitlines()[0]
    assert header.split(",") == template_columns("elo")


def test_a_custom_familys_field_without_help_is_explained_in_french(
    club: Cli, tmp_path: Path
) -> None:
    family = "tests.legacy_family:Tally"
    french, english = tmp_path / "fr.xlsx", tmp_path / "en.xlsx"
    club.ok("template", "--family", family, str(french), "--lang", "fr")
    club.ok("template", "--family", family, str(english))

    def help_of(path: Path, column: str) -> str:
        rows = openpyxl.load_workbook(path)[INSTRUCTIONS].iter_rows(values_only=True)
        return next(row[1] for row in rows if row[0] == column)

    assert help_of(french, "points") == "Le champ de résultat 'points' de la famille tally."
    assert help_of(english, "points") == "The tally result field 'points'."
