"""The write index's name blocks: an import compares a new name only with the
known names filed under one of its probing keys, read from the store, and
finds exactly what comparing it with every known name finds."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.kernel.matching import NameIndex, filing_keys, probing_keys
from tests.conftest import Cli
from tests.test_import_streaming import app_of

pytestmark = pytest.mark.conformance

KNOWN = ["Éric Dupont", "Hélène Marbot", "Anne Martin", "Jean Lannes", "Zed Zulu", "Plato"]

_WORDS = st.sampled_from(
    ["eric", "éric", "e.", "dupont", "dupnot", "anne", "annie", "martin", "martine", "lee",
     "li", "zo", "plato", "platon", "marc", "m.", "lefèvre", "lefevre"]
)  # fmt: skip
_NAMES = st.lists(_WORDS, min_size=1, max_size=3).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(known=st.lists(_NAMES, max_size=12, unique=True), new=_NAMES)
def test_the_names_filed_under_a_probe_are_the_in_memory_candidates(
    known: list[str], new: str
) -> None:
    """What a store finds by the keys (a known name filed under a key the new
    name probes) is what ``NameIndex`` compares, so the warnings agree."""
    index = NameIndex(known)
    by_blocks = {name for name in known if set(filing_keys(name)) & set(probing_keys(new))}
    assert by_blocks == {index.names[n] for n in index.candidates(new)}
    assert NameIndex(sorted(by_blocks)).similar(new) == index.similar(new)


def _imported(cli: Cli, tmp_path: Path, rows: list[tuple[str, str]], day: int) -> None:
    sheet = tmp_path / f"day{day}.csv"
    lines = ["ladder,date,side_a,side_b,result"]
    lines += [f"Club,2025-01-{day:02d},{a},{b},a" for a, b in rows]
    sheet.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli.ok("import", str(sheet))


@pytest.fixture
def club(cli: Cli, tmp_path: Path) -> Cli:
    cli.ok("ladder", "open", "Club", "--family", "elo")
    _imported(cli, tmp_path, [(KNOWN[0], KNOWN[1]), (KNOWN[2], KNOWN[3]), (KNOWN[4], KNOWN[5])], 1)
    return cli


def test_a_new_name_reads_only_the_known_names_sharing_a_key(club: Cli) -> None:
    app = app_of(club)
    try:
        assert app.names_near(["Helene Marbott"]) == ["Hélène Marbot"]
        assert app.names_near(["Dupont E."]) == ["Éric Dupont"]
        assert app.names_near(["Quentin Quarrel"]) == []
        # Several new names at once: every known name near any of them.
        assert app.names_near(["Annie Martin", "Plato"]) == ["Anne Martin", "Plato"]
    finally:
        app.close()


def test_a_renamed_player_is_filed_under_the_new_name_only(club: Cli, tmp_path: Path) -> None:
    club.ok("player", "rename", "Hélène Marbot", "Zoé Quarrel")
    assert club.sql("SELECT COUNT(*) FROM ledger_name_blocks WHERE key = 'helene marbot'") == [(0,)]
    assert club.sql("SELECT COUNT(*) FROM ledger_name_blocks WHERE key = 'zoe quarrel'")[0][0] > 5
    app = app_of(club)
    try:
        assert app.names_near(["Helene Marbott"]) == []
        assert app.names_near(["Zoe Quarel"]) == ["Zoé Quarrel"]
    finally:
        app.close()
    out = club.ok("import", "--dry-run", str(_sheet(tmp_path, "Helene Marbott", "Zoe Quarel")))
    assert "'Zoe Quarel' is close to 'Zoé Quarrel'" in out
    assert "Marbot" not in out.replace("Helene Marbott", "")


def _sheet(tmp_path: Path, a: str, b: str) -> Path:
    sheet = tmp_path / "new.csv"
    sheet.write_text(f"ladder,date,side_a,side_b,result\nClub,2025-02-01,{a},{b},a\n", "utf-8")
    return sheet


def test_an_index_rebuilt_from_the_events_files_the_same_blocks(club: Cli, tmp_path: Path) -> None:
    """A store that predates the blocks (index version 1) gets them from the
    events, exactly as the appends filed them, renames included."""
    club.ok("player", "rename", "Hélène Marbot", "Zoé Quarrel")
    _imported(club, tmp_path, [("Paul Ney", "Marc Lefèvre")], 2)
    filed = club.sql("SELECT block, key FROM ledger_name_blocks ORDER BY block, key")
    assert len(filed) > 9 * len(KNOWN)
    club.sql("DELETE FROM ledger_name_blocks")
    club.sql("UPDATE ledger_index_version SET version = 1")
    app = app_of(club)
    try:
        assert app.names_near(["Marc Lefevre"]) == ["Marc Lefèvre"]
    finally:
        app.close()
    assert club.sql("SELECT block, key FROM ledger_name_blocks ORDER BY block, key") == filed


def test_a_name_freed_by_a_rename_registers_a_new_player_under_a_new_id(
    club: Cli, tmp_path: Path
) -> None:
    """The name's first id still belongs to the renamed player: the store is
    asked whether it holds events for it (``exists``) and the next id is
    taken, on either backend."""
    club.ok("player", "rename", "Hélène Marbot", "Zoé Quarrel")
    _imported(club, tmp_path, [("Hélène Marbot", "Zoé Quarrel")], 3)
    players = {p["name"]: p for p in club.json("player", "list")}
    assert {"Hélène Marbot", "Zoé Quarrel"} <= set(players)
    assert len(club.sql("SELECT DISTINCT player FROM ledger_names")) == len(KNOWN) + 1


def test_player_add_and_record_warn_of_a_new_name_close_to_a_known_one(club: Cli) -> None:
    """As an import does: the player is registered, with a warning."""
    out = club.ok("player", "add", "Anne Martine", "Quentin Quarrel")
    assert "warning: new player 'Anne Martine' is close to 'Anne Martin': a typo?" in out
    assert out.count("warning:") == 1
    out = club.ok("record", "Club", "--date", "2025-03-01", "--side", "Jean Lanes",
                  "--side", "Plato", "--result", "a", "--add-players")  # fmt: skip
    assert "warning: new player 'Jean Lanes' is close to 'Jean Lannes': a typo?" in out
    assert out.count("warning:") == 1  # Plato is known: no warning
    out = club.ok("record", "Club", "--date", "2025-03-02", "--side", "Jean Lanes",
                  "--side", "Anne Martine", "--result", "a")  # fmt: skip
    assert "warning" not in out  # both registered now
    names = {p["name"] for p in club.json("player", "list")}
    assert {"Anne Martine", "Quentin Quarrel", "Jean Lanes"} <= names
