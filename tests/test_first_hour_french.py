"""Issue 26, "French all the way": with ``--lang fr`` (a command's own, or
``ledger --lang fr``, or ``LEDGER_LANG=fr``) the CLI's headings and messages
and every text of the site are French, looked up in the message catalogs.

Each test runs the commands as a user types them. Before the catalogs,
``standings --lang fr`` translated only the grades, the other commands had
no ``--lang``, and the site showed "a overwhelming", "État: recorded",
"Note: voided: this game changes no rating", "result: a · margin: marginal".
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli import main
from tests.browser.sample import make_sample
from tests.conftest import Cli


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


@pytest.fixture
def club(tmp_path: Path) -> Cli:
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("ladder", "open", "Empire", "--family", "battle-empire")
    cli.ok("player", "add", "Éric Dupont", "Anne Martin")
    cli.ok("record", "Empire", "--date", "2025-03-02", "--event", "LYON", "--round", "1",
           "--side", "Éric Dupont", "--side", "Anne Martin", "--result", "a",
           "--margin", "overwhelming")  # fmt: skip
    return cli


def test_standings_in_french_heads_every_column_in_french(club: Cli) -> None:
    out = club.ok("standings", "Empire", "--lang", "fr")
    title, header, _, *rows = _lines(out)
    assert title == "Empire"
    assert header.split("  ")[0] == "rang"
    assert re.split(r"\s{2,}", header) == [
        "rang", "joueur", "cote", "grade", "parties", "dernière partie",
    ]  # fmt: skip
    # 1030 and 985: the French grades stand as the rules name them.
    assert "Colonel" in rows[0] and "Chef de bataillon" in rows[1]
    english = club.ok("standings", "Empire")
    assert re.split(r"\s{2,}", _lines(english)[1]) == [
        "rank", "player", "rating", "grade", "games", "last played",
    ]  # fmt: skip


def test_history_in_french_translates_the_stored_codes(club: Cli) -> None:
    out = club.ok("history", "Empire", "Anne Martin", "--lang", "fr", "--wide")
    title, header, _, row = _lines(out)
    assert title == "Anne Martin dans Empire"
    assert re.split(r"\s{2,}", header)[:9] == [
        "date", "type", "partie", "tournoi", "ronde", "table", "adversaires", "résultat",
        "marge",
    ]  # fmt: skip
    assert " partie " in row and " perdu " in row and " écrasante " in row
    # The codes are stored as they were: JSON keeps them.
    (line,) = club.json("history", "Empire", "Anne Martin", "--lang", "fr")
    assert (line["kind"], line["result"], line["margin"]) == ("game", "lost", "overwhelming")


def test_ledger_lang_and_the_environment_reach_every_command(club: Cli) -> None:
    out = club.ok("--lang", "fr", "record", "Empire", "--date", "2025-03-03", "--side",
                  "Anne Martin", "--side", "Éric Dupont", "--result", "draw")  # fmt: skip
    assert re.match(r"Partie [0-9a-f]{8} enregistrée\.$", _lines(out)[0]), out
    result = CliRunner().invoke(
        main, ["--db", club.db, "player", "add", "Paul Roy"], env={"LEDGER_LANG": "fr"}
    )
    assert result.output == "1 joueur ajouté.\n", result.output
    # A command's own --lang wins over the environment's.
    result = CliRunner().invoke(
        main, ["--db", club.db, "player", "add", "Jean Vidal", "--lang", "en"],
        env={"LEDGER_LANG": "fr"},
    )  # fmt: skip
    assert result.output == "Added 1 player.\n"


def test_a_refusal_is_said_in_french(club: Cli) -> None:
    out = club.fails("standings", "Empir", "--lang", "fr")
    assert out.strip() == "Erreur : classement inconnu 'Empir' (vouliez-vous dire 'Empire' ?)"
    out = club.fails("history", "Empire", "Anne Martn", "--lang", "fr")
    assert out.strip() == (
        "Erreur : joueur inconnu 'Anne Martn' (vouliez-vous dire 'Anne Martin' ?)"
    )
    out = club.fails("--lang", "fr", "record", "Empire", "--date", "2025-03-03", "--side",
                     "Hugo Lemaire", "--side", "Anne Martin", "--result", "a",
                     "--margin", "decisive")  # fmt: skip
    assert out.startswith("Erreur : "), out
    # English stays as it was.
    assert club.fails("standings", "Empir").strip() == (
        "Error: unknown ladder 'Empir' (did you mean 'Empire'?)"
    )


def test_a_missing_ledger_is_said_in_french(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["--db", str(tmp_path / "clb.db"), "--lang", "fr", "standings", "Club"]
    )
    assert result.exit_code == 1
    assert result.output.strip() == f"Erreur : aucun registre à {tmp_path / 'clb.db'}"


def test_empty_tables_and_summaries_in_french(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "new.db"))
    out = cli.ok("--lang", "fr", "ladder", "open", "Club", "--family", "elo")
    assert out == "Classement 'Club' ouvert (elo).\n"
    out = cli.ok("standings", "Club", "--lang", "fr")
    assert out.startswith("Personne n'est encore classé dans Club : enregistrez une partie")
    sheet = tmp_path / "club.csv"
    sheet.write_text(
        "ladder,date,side_a,side_b,result\nClub,2025-01-05,Ann,Bob,a\nClub,2025-01-06,Bob,Ann,b\n",
        encoding="utf-8",
    )
    out = cli.ok("--lang", "fr", "import", str(sheet))
    assert _lines(out)[0] == (
        f"{sheet} : 2 lignes : 2 parties ajoutées, 0 déjà enregistrées ignorées, "
        "nouveaux joueurs : Ann, Bob."
    )


def test_ladder_show_and_explain_in_french(club: Cli) -> None:
    out = _lines(club.ok("ladder", "show", "Empire", "--lang", "fr"))
    assert out[:2] == ["Classement :  Empire", "Famille :     battle-empire"]
    assert "Paramètres en vigueur :" in out and "Historique des règles :" in out
    assert any(line.startswith("  depuis le début: battle-empire:") for line in out)
    (game,) = [h["game"] for h in club.json("history", "Empire", "Anne Martin")]
    out = _lines(club.ok("explain", game, "--lang", "fr"))
    assert out[0] == f"Partie {game} dans Empire : 2025-03-02, LYON ronde 1 [enregistrée]"
    assert out[2] == "Résultat : résultat victoire A, marge écrasante"


#: Texts in English that the French site showed (issue 26) or could show:
#: each must be gone from every page's visible text.
ENGLISH = [
    "a overwhelming", "a decisive", "b marginal", "recorded", "voided", "corrected",
    "result:", "margin:", "changes no rating", "game voided", "game corrected",
    "Standings", "Rating", "Games", "Players", "Ladders", "Season", "Audit", "Change",
    "Opponents", "won", "lost", "draw", "adjustment", "from the start", "game", "vs",
]  # fmt: skip


def _visible(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"<(script|style|title)\b.*?</\1>", " ", text, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def test_the_french_site_shows_no_english(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "site.db"))
    ids = make_sample(cli)
    out = cli.ok("site", "build", str(tmp_path / "site"), "--lang", "fr")
    assert out.startswith("Site dans ")
    pages = sorted((tmp_path / "site").rglob("*.html"))
    assert len(pages) > 10
    seen = ""
    for page in pages:
        text = _visible(page)
        seen += text
        # A ruleset's parameters are shown as they are set (``--set k=24``,
        # ``scores={"win": 1, "draw": 0.5, ...}``): the configuration's words.
        text = re.sub(r"\w+=(\{[^}]*\}|\[[^\]]*\]|\S+)", " ", text)
        found = [w for w in ENGLISH if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text)]
        assert found == [], f"{page.relative_to(tmp_path)}: {found}"
    # What the issue saw, now in French.
    for french in ("victoire A décisive", "État", "enregistrée", "annulée",
                   "annulée : cette partie ne change aucune cote", "résultat : victoire A",
                   "marge : décisive", "Classement", "Historique de la cote"):  # fmt: skip
        assert french in seen, french
    assert ids["voided"]
