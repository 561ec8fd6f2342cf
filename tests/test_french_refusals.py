"""Issue 26, "French all the way": with ``--lang fr`` (or ``LEDGER_LANG=fr``)
a refused command says why in French: a bad result, a bad parameter, the
bad rows of a sheet (csv and xlsx), a write-side refusal, and click's own
usage errors ("No such option", "Missing argument", "Invalid value for").

Before, the refusals were plain English texts (f-strings) raised far from
the command line, and click's errors were English whatever the language.
The first test reads the sources: a refusal raised from a plain text (a
literal or an f-string) has no French, so it fails there.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import Cli

ROOT = Path(__file__).resolve().parent.parent

#: The refusals of the ledger (``ledger.kernel.errors`` and its kin): the
#: argument that is their message, by position.
REFUSALS = {
    "LedgerError": 0, "NotFound": 0, "Invalid": 0, "Conflict": 0, "Busy": 0, "Denied": 0,
    "ConnectionLost": 0, "FamilyError": 0, "DuplicateGame": 0, "RetiredGame": 0,
    "RepeatedGame": 0, "LadderProblem": 0, "FieldError": 1, "fail": 0,
}  # fmt: skip


def _plain_text(node: ast.expr) -> bool:
    """Whether ``node`` makes an English text in place: a literal, an
    f-string, or one joined or formatted from them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _plain_text(node.left) or _plain_text(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in ("format", "join") and _plain_text(node.func.value)
    return False


def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def plain_refusals(sources: list[Path], root: Path = ROOT) -> list[str]:
    """Every refusal made from a plain English text, as ``path:line``
    (relative to ``root``)."""
    found = []
    for path in sources:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            at = REFUSALS.get(_called(node) or "")
            if at is not None and len(node.args) > at and _plain_text(node.args[at]):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_refusal_is_plain_english() -> None:
    """Each refusal's text is a ``Message`` (its template in the catalog,
    with its French), never an English literal or f-string."""
    sources = sorted([*(ROOT / "ledger").rglob("*.py"), *(ROOT / "projections").rglob("*.py")])
    assert len(sources) > 50
    assert plain_refusals(sources) == []


def test_the_source_check_sees_a_plain_refusal(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "raise Invalid(f'{x} is bad')\n"
        "raise Conflict('taken')\n"
        "raise FieldError('date', 'bad ' + text)\n"
        "raise Invalid(Message('{x} is bad', x=x))\n"
        "raise NotFound(message)\n",
        encoding="utf-8",
    )
    assert plain_refusals([sample], tmp_path) == ["sample.py:1", "sample.py:2", "sample.py:3"]


@pytest.fixture
def club(tmp_path: Path) -> Cli:
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("ladder", "open", "Empire", "--family", "battle-empire")
    cli.ok("player", "add", "Éric Dupont", "Anne Martin")
    return cli


def _error(output: str) -> str:
    """The refusal's lines (``Error: ...`` / ``Erreur : ...`` and after)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("Error", "Erreur")))
    return "\n".join(lines[start:])


def test_a_bad_result_is_refused_in_french(club: Cli) -> None:
    game = ["record", "Empire", "--date", "2025-03-02", "--side", "Éric Dupont",
            "--side", "Anne Martin", "--result", "a", "--margin", "enorme"]  # fmt: skip
    assert _error(club.fails(*game)) == (
        "Error: margin: 'enorme' is not one of marginal, decisive, overwhelming"
    )
    assert _error(club.fails("--lang", "fr", *game)) == (
        "Erreur : margin : 'enorme' n'est pas l'un de marginal, decisive, overwhelming"
    )
    bga = ["record", "Jeux", "--date", "2025-03-02", "--side", "Éric Dupont",
           "--side", "Anne Martin", "--ranks", "1,3"]  # fmt: skip
    club.ok("ladder", "open", "Jeux", "--family", "bga")
    said = _error(club.fails("--lang", "fr", *bga))
    assert said.startswith("Erreur : ") and "les rangs bga sont des rangs de compétition" in said


def test_a_bad_parameter_is_refused_in_french(club: Cli) -> None:
    said = _error(club.fails("--lang", "fr", "ladder", "open", "Elo", "--family", "elo",
                             "--set", "k=-5"))  # fmt: skip
    assert said == (
        "Erreur : mauvaise valeur pour le paramètre 'k' de la famille elo : "
        "doit être un nombre ≥ 0 (reçu -5)"
    )
    said = _error(club.fails("ladder", "open", "Elo", "--family", "elo", "--set", "kk=5",
                             "--lang", "fr"))  # fmt: skip
    assert said.startswith("Erreur : paramètre inconnu 'kk' pour la famille elo (permis : ")
    # An option's own bound, refused by click's parameter type.
    said = _error(club.fails("--lang", "fr", "teams", "Empire", "Éric Dupont", "Anne Martin",
                             "--camps", "x"))  # fmt: skip
    assert said == "Erreur : Valeur invalide pour '--camps' : 'x' n'est pas un entier valide."
    # The ledger's own option types: a bound, and a refusal of the option's value.
    game = ["record", "Empire", "--date", "2025-03-02", "--side", "Éric Dupont",
            "--side", "Anne Martin", "--result", "a", "--round", "-3"]  # fmt: skip
    assert _error(club.fails(*game)) == (
        "Error: Invalid value for '--round': -3 is out of range (allowed: 0 to 1,000,000)"
    )
    assert _error(club.fails("--lang", "fr", *game)) == (
        "Erreur : Valeur invalide pour '--round' : -3 est hors limites (permis : 0 à 1,000,000)"
    )
    said = _error(club.fails("--lang", "fr", "tune", "Empire", "--vary", "k=40:10:2"))
    assert said == "Erreur : Valeur invalide pour '--vary' : la fin est inférieure au début"


_ROWS = [
    ["ladder", "date", "side_a", "side_b", "result", "margin"],
    ["Empire", "2025-13-01", "Éric Dupont", "Anne Martin", "a", "overwhelming"],
    ["Empire", "2025-03-04", "Éric Dupont", "Anne Martin", "x", "overwhelming"],
]


@pytest.mark.parametrize("form", ["csv", "xlsx"])
def test_a_sheet_s_bad_rows_are_told_in_french(club: Cli, tmp_path: Path, form: str) -> None:
    sheet = tmp_path / f"bad.{form}"
    if form == "csv":
        sheet.write_text("\n".join(",".join(row) for row in _ROWS) + "\n", encoding="utf-8")
    else:
        from openpyxl import Workbook

        book = Workbook()
        for row in _ROWS:
            book.active.append(row)
        book.save(sheet)
    english = _error(club.fails("import", str(sheet)))
    assert english.splitlines() == [
        f"Error: {sheet}: row 2, column date: date: '2025-13-01' is not a date in ISO form "
        "YYYY-MM-DD",
        f"{sheet}: row 3, column result: result: 'x' is not one of a, b, draw",
    ]
    french = _error(club.fails("--lang", "fr", "import", str(sheet)))
    assert french.splitlines() == [
        f"Erreur : {sheet} : ligne 2, colonne date : date : '2025-13-01' n'est pas une date "
        "au format ISO AAAA-MM-JJ",
        f"{sheet} : ligne 3, colonne result : result : 'x' n'est pas l'un de a, b, draw",
    ]


def test_write_side_refusals_are_french(club: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEDGER_LANG", "fr")
    assert _error(club.fails("ladder", "open", "Empire", "--family", "battle-empire")) == (
        "Erreur : le classement 'Empire' existe déjà"
    )
    assert _error(club.fails("player", "merge", "Anne Martin", "Anne Martin",
                             "--reason", "x")) == (
        "Erreur : impossible de fusionner un joueur avec lui-même"
    )  # fmt: skip
    assert _error(club.fails("season", "close", "Empire", "2025", "--from", "2025-06-01",
                             "--to", "2025-01-01")) == (
        "Erreur : la saison finit (2025-01-01) avant de commencer (2025-06-01)"
    )  # fmt: skip


def test_click_s_usage_errors_are_french(club: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    english = club.run("record", "Empire", "--bogus")
    assert english.exit_code == 2
    # (click names the program after the function the test runner calls: main)
    assert english.output.splitlines() == [
        "Usage: main record [OPTIONS] LADDER",
        "Try 'main record --help' for help.",
        "",
        "Error: No such option '--bogus'.",
    ]
    french = club.run("--lang", "fr", "record", "Empire", "--bogus")
    assert french.exit_code == 2
    assert french.output.splitlines() == [
        "Usage : main record [OPTIONS] LADDER",
        "Essayez 'main record --help' pour l'aide.",
        "",
        "Erreur : Option inconnue '--bogus'.",
    ]
    # A command's own --lang, met after the mistake.
    said = club.run("standings", "--lang", "fr").output
    assert said.splitlines()[-1] == "Erreur : Argument manquant 'LADDER'."
    said = club.run("standings", "Empire", "--format", "nope", "--lang", "fr").output
    assert said.splitlines()[-1] == (
        "Erreur : Valeur invalide pour '--format' : 'nope' n'est pas l'un de "
        "'table', 'json', 'csv', 'xlsx'."
    )
    said = club.run("--lang", "fr", "record", "Empire", "--dat", "2025-01-01").output
    assert said.splitlines()[-1] == (
        "Erreur : Option inconnue '--dat'. (Vouliez-vous dire l'un de : '--attr', '--date' ?)"
    )
    monkeypatch.setenv("LEDGER_LANG", "fr")
    said = club.run("--bogus").output  # before any command: the environment's language
    assert said.splitlines()[-1] == "Erreur : Option inconnue '--bogus'."
    assert club.run("--bogus").exit_code == 2


def test_a_refusal_s_parts_keep_their_language_across_processes() -> None:
    """A sheet's lines (``Lines``), a refusal quoting a family's
    (an error as a value) and one without its head (``Headless``) travel
    pickled (a worker process's refusal) and are still translated."""
    import pickle

    from ledger.families.base import FamilyError
    from ledger.kernel.translation import Headless, Lines, Message, translator

    french = translator("fr")
    row = Message("{path}: row {number}: {cells}", path="s.csv", number=2, cells="x")
    family = FamilyError(Message("a draw has no margin"), field="margin")
    quoted = Message("{subject}: {exc}", subject="Empire", exc=family)
    lines = pickle.loads(pickle.dumps(Lines([row, quoted, "plain"])))
    assert str(lines) == "s.csv: row 2: x\nEmpire: a draw has no margin\nplain"
    assert lines.in_language(french) == (
        "s.csv : ligne 2 : x\nEmpire : un nul n'a pas d'écart\nplain"
    )
    bound = Message("{field}: {value} is out of range (allowed: {allowed})", field="value",
                    value=-3, allowed="0 to 9")  # fmt: skip
    cut = pickle.loads(pickle.dumps(Headless(bound, "field")))
    assert str(cut) == "-3 is out of range (allowed: 0 to 9)"
    assert cut.in_language(french) == "-3 est hors limites (permis : 0 to 9)"
