"""Issue 26, "French all the way": ``ledger audit --lang fr`` writes every
line in French, the events other than games too (a ladder opened, a rule
change and its void, players registered, renamed, merged and unmerged, an
adjustment and its void, a season closed and voided). Their lines are
stored as the sentence's template and facts and written in the reader's
language when read, as games' lines are: one ledger, either language.

Before, those lines were stored as English text: ``audit --lang fr``
printed "player 'Bo' renamed 'Bob Roy'" under French headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import Cli

ENGLISH = {
    "ladder opened": "ladder 'Club' opened",
    "ruleset adopted": "Club: elo ruleset from the start: {",
    "player registered": "player 'Éric Dupont' registered",
    "player renamed": "player 'Bo' renamed 'Bob Roy'",
    "player merged": "player 'E. Dupont' merged into 'Éric Dupont'",
    "player unmerged": "player 'E. Dupont' unmerged from 'Éric Dupont'",
    "rating adjusted": "rating of 'Bob Roy' set to 1600 from 2025-01-10",
    "adjustment voided": "rating adjustment of 'Bob Roy' (shifted by -20) voided",
    "season closed": "season 2025 closed (2025-01-01 to 2025-12-31)",
    "season voided": "season 2025 (2025-01-01 to 2025-12-31) voided: its close no longer counts",
    "ruleset voided": "Club: elo ruleset from 2025-02-01 voided",
}
FRENCH = {
    "ladder opened": "classement 'Club' ouvert",
    "ruleset adopted": "Club : règles elo depuis le début : {",
    "player registered": "joueur 'Éric Dupont' inscrit",
    "player renamed": "joueur 'Bo' renommé 'Bob Roy'",
    "player merged": "joueur 'E. Dupont' fusionné dans 'Éric Dupont'",
    "player unmerged": "joueur 'E. Dupont' séparé de 'Éric Dupont'",
    "rating adjusted": "cote de 'Bob Roy' fixée à 1600 à partir du 2025-01-10",
    "adjustment voided": "ajustement de cote de 'Bob Roy' (décalée de -20) annulé",
    "season closed": "saison 2025 clôturée (du 2025-01-01 au 2025-12-31)",
    "season voided": "saison 2025 (du 2025-01-01 au 2025-12-31) annulée : sa clôture ne compte plus",
    "ruleset voided": "Club : règles elo à partir du 2025-02-01 annulées",
}


@pytest.fixture
def club(tmp_path: Path) -> Cli:
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("ladder", "open", "Club", "--family", "elo")
    cli.ok("player", "add", "Éric Dupont", "Bo", "E. Dupont")
    cli.ok("player", "rename", "Bo", "Bob Roy")
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Éric Dupont", "--side",
           "Bob Roy", "--result", "a")  # fmt: skip
    cli.ok("player", "merge", "E. Dupont", "Éric Dupont", "--reason", "same person")
    cli.ok("player", "unmerge", "E. Dupont", "--reason", "two people")
    cli.ok("ladder", "rules", "Club", "--effective", "2025-02-01", "--set", "k=32", "--reason", "z")
    cli.ok("ladder", "void-rules", "Club", "--effective", "2025-02-01", "--reason", "typo")
    cli.ok("adjust", "Club", "Bob Roy", "--to", "1600", "--date", "2025-01-10", "--reason", "x")
    out = cli.ok("adjust", "Club", "Bob Roy", "--shift", "-20", "--date", "2025-01-11",
                 "--reason", "y")  # fmt: skip
    adjustment = re.search(r"\b([0-9a-f]{8})\b", out).group(1)  # type: ignore[union-attr]
    cli.ok("void", adjustment, "--reason", "wrong")
    cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    cli.ok("season", "void", "Club", "2025", "--reason", "too early")
    return cli


def _lines(cli: Cli, *lang: str) -> list[tuple[str, str]]:
    rows = cli.json("audit", *lang)
    assert isinstance(rows, list)
    return [(r["kind"], r["summary"]) for r in rows if not r["kind"].startswith("game")]


def _said(lines: list[tuple[str, str]], expected: dict[str, str]) -> None:
    """Each kind of line has the expected sentence among its lines."""
    assert {kind for kind, _ in lines} == set(expected)
    for kind, start in expected.items():
        said = [summary for k, summary in lines if k == kind]
        assert any(s.startswith(start) for s in said), (kind, said)


def test_every_other_event_s_line_is_written_in_the_reader_s_language(club: Cli) -> None:
    english, french = _lines(club), _lines(club, "--lang", "fr")
    _said(english, ENGLISH)
    _said(french, FRENCH)
    # The same views gave both: English again after the French.
    assert _lines(club) == english


def test_the_audit_table_in_french(club: Cli) -> None:
    out = club.ok("--lang", "fr", "audit", "Club")
    assert "saison 2025 clôturée (du 2025-01-01 au 2025-12-31)" in out
    assert "joueur 'Bo' renommé 'Bob Roy'" not in out  # a player's line names no ladder
    for english in ("opened", "ruleset", "voided", "closed", "set to", "shifted by"):
        assert english not in out, english


def test_diff_tells_the_ladder_wide_events_in_french(club: Cli) -> None:
    rows = club.json("audit")
    assert isinstance(rows, list)
    kinds = [r["kind"] for r in rows]
    before = rows[kinds.index("season closed") - 1]["recorded_at"]
    out = club.ok("diff", "Club", "--from-known-at", before, "--lang", "fr")
    assert "Enregistré entre-temps, pour tout le classement :" in out
    assert "  saison 2025 clôturée (du 2025-01-01 au 2025-12-31)" in out
    assert "  saison 2025 (du 2025-01-01 au 2025-12-31) annulée : sa clôture ne compte plus" in out
    english = club.ok("diff", "Club", "--from-known-at", before)
    assert "  season 2025 closed (2025-01-01 to 2025-12-31)" in english
