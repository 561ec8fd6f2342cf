"""Issue 26, "French all the way": ``explain --lang fr`` shows each
player's values, which the families write (labels such as "rating before",
sentences such as bga's "quit first: rated as last", yes/no), in French.

Before, the headings were French and every value's label English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ledger.kernel.translation import translator
from tests.conftest import Cli

#: Labels that are the same word in French.
SAME = {"fraction"}

GAMES = {
    "elo": ("--side", "Al", "--side", "Bo", "--result", "a"),
    "battle-empire": ("--side", "Al", "--side", "Bo", "--result", "a", "--margin", "decisive"),
    "adlg": ("--side", "Al", "--side", "Bo", "--result", "draw"),
    "glicko2": ("--side", "Al", "--side", "Bo", "--result", "a"),
    "weng-lin": ("--side", "Al", "--side", "Bo", "--result", "b"),
    "battletech": ("--side", "Al", "--side", "Bo", "--bv", "5000,3000,5000,1000"),
    "bga": ("--side", "Al", "--side", "Bo", "--side", "Cy", "--ranks", "1,2,3", "--quit", "Cy"),
}


def _game(cli: Cli, family: str) -> str:
    cli.ok("ladder", "open", family, "--family", family)
    out = cli.ok("record", family, "--date", "2025-01-05", *GAMES[family])
    return re.search(r"Recorded game ([0-9a-f]{8})", out).group(1)  # type: ignore[union-attr]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("player", "add", "Al", "Bo", "Cy")
    return cli


@pytest.mark.parametrize("family", sorted(GAMES))
def test_every_value_s_label_is_french(cli: Cli, family: str) -> None:
    game = _game(cli, family)
    french = cli.ok("explain", game, "--lang", "fr")
    english = cli.ok("explain", game)
    fr = translator("fr")
    found = cli.json("explain", game)
    keys = {k for p in found["players"] for k in p["values"]}  # type: ignore[index]
    assert keys
    for key in keys:
        label = fr.pgettext("explained", key)
        assert f"\n  {label} " in french, key
        if re.search(r"[a-z]{3}", key) and key not in SAME:
            assert label != key, f"{key!r} has no French"
            assert f"\n  {key} " in english and f"\n  {key} " not in french


def test_the_families_sentences_and_yes_no_are_french(cli: Cli) -> None:
    elo = cli.ok("--lang", "fr", "explain", _game(cli, "elo"))
    assert re.search(r"\n  cote avant +1500\n", elo)
    assert re.search(r"\n  plafond de gain appliqué +non\n", elo)
    bga = cli.ok("--lang", "fr", "explain", _game(cli, "bga"))
    assert re.search(r"\n  raison +non classé : un joueur a abandonné\n", bga)
    assert re.search(r"\n  abandon +a abandonné le premier : classé dernier\n", bga)
    assert "quit first" not in bga and "rated as last" not in bga
    # JSON keeps the families' own keys, whatever the language.
    (al, *_) = cli.json("--lang", "fr", "explain", _game(cli, "glicko2"))["players"]  # type: ignore[index]
    assert "rating before" in al["values"]


def test_a_unit_s_state_shows_through_its_french_label(cli: Cli) -> None:
    cli.ok("ladder", "open", "Mechs", "--family", "battletech")
    units = ('[[{"name":"Atlas","bv":1897,"state":"crippled"}],'
             '[{"name":"Marauder","bv":1363,"state":"destroyed"}]]')  # fmt: skip
    out = cli.ok("record", "Mechs", "--date", "2025-01-06", "--side", "Al", "--side", "Bo",
                 "--field", f"units={units}")  # fmt: skip
    game = re.search(r"Recorded game ([0-9a-f]{8})", out).group(1)  # type: ignore[union-attr]
    french = cli.ok("explain", game, "--lang", "fr")
    assert re.search(r"\n  unités A +Atlas: BV 1897, état estropiée, en fuite non, ", french)
    assert re.search(r"\n  unités B +Marauder: BV 1363, état détruite, ", french)
    assert "crippled" not in french and "destroyed" not in french
