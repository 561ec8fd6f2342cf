"""Issue 26, "French all the way": every text marked for people has its
French, in the catalog run time reads.

The texts are extracted from the sources afresh (``make catalog-template``,
Babel's ``pybabel extract``), so a new text marked in the code and not yet
translated fails here, and so does a catalog entry the code no longer uses,
a French text that lost a ``{placeholder}`` of its English, or a compiled
``.mo`` that is older than its ``.po``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from ledger.kernel.errors import Invalid
from ledger.kernel.translation import LANGS, LOCALE_DIR, translator

ROOT = Path(__file__).resolve().parent.parent
FRENCH = [lang for lang in LANGS if lang != "en"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    pot = tmp_path_factory.mktemp("catalog") / "ledger.pot"
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "catalog-template", f"POT={pot}",
         f"BIN={Path(sys.executable).parent}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with pot.open("rb") as f:
        return read_po(f)


def _po(lang: str) -> Catalog:
    with (LOCALE_DIR / lang / "LC_MESSAGES" / "ledger.po").open("rb") as f:
        return read_po(f)


def _key(message: object) -> tuple[str | None, str]:
    return (message.context, message.id)  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", FRENCH)
def test_every_marked_text_has_its_translation(template: Catalog, lang: str) -> None:
    po = _po(lang)
    assert len([m for m in template if m.id]) > 100  # the extraction found the texts
    missing = []
    for m in template:
        if not m.id:
            continue
        held = po.get(m.id, context=m.context)
        if held is None or not held.string or held.fuzzy:
            missing.append(_key(m))
    assert missing == [], f"texts with no {lang} (run `make catalog`, translate, run it again)"


@pytest.mark.parametrize("lang", FRENCH)
def test_no_stale_entries(template: Catalog, lang: str) -> None:
    wanted = {_key(m) for m in template if m.id}
    stale = [_key(m) for m in _po(lang) if m.id and _key(m) not in wanted]
    assert stale == [], "entries the code no longer uses (`make catalog` drops them)"


@pytest.mark.parametrize("lang", FRENCH)
def test_placeholders_survive_translation(lang: str) -> None:
    names = re.compile(r"\{(\w*)[^}]*\}")
    wrong = [
        (m.id, m.string)
        for m in _po(lang)
        if m.id
        and sorted(names.findall(m.id if isinstance(m.id, str) else m.id[0]))
        != sorted(names.findall(m.string if isinstance(m.string, str) else m.string[0]))
    ]
    assert wrong == []


@pytest.mark.parametrize("lang", FRENCH)
def test_the_compiled_catalog_is_the_text_one(lang: str) -> None:
    """Run time reads the compiled ``.mo`` (committed): it must say what the
    ``.po`` says (`make catalog` compiles it)."""
    t = translator(lang)
    po = _po(lang)
    for m in po:
        if not m.id:
            continue
        if isinstance(m.id, str):
            got = t.pgettext(m.context, m.id) if m.context else t.gettext(m.id)
            assert got == m.string, m.id
        else:
            assert t.ngettext(m.id[0], m.id[1], 1) == m.string[0], m.id
            assert t.ngettext(m.id[0], m.id[1], 5) == m.string[1], m.id


def test_english_is_the_code_s_own_text_and_an_unknown_language_is_refused() -> None:
    assert translator("en").gettext("Standings") == "Standings"
    assert translator("fr").gettext("Standings") == "Classement"
    assert translator("fr").pgettext("margin", "overwhelming") == "écrasante"
    with pytest.raises(Invalid, match="--lang must be one of en, fr"):
        translator("de")


def test_an_installed_package_ships_the_catalogs() -> None:
    """pyproject's package data names the catalogs (an install without them
    would fail at the first French text)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"ledger" = ["locale/*/LC_MESSAGES/*.po", "locale/*/LC_MESSAGES/*.mo"]' in text
    assert (LOCALE_DIR / "fr" / "LC_MESSAGES" / "ledger.mo").is_file()


def test_every_column_of_a_table_for_people_has_its_label() -> None:
    """A table's columns are Struct fields, looked up by name at run time:
    each must be among the marked ``formats.COLUMNS`` (else it would be
    printed in English, unseen by the extraction)."""
    from ledger.cli.ladders import LadderLine
    from ledger.kernel.matching import DuplicatePair
    from projections import export, plain, queries, timetravel, whatif
    from projections.formats import COLUMNS

    shown = [
        queries.StandingRow, queries.HistoryLine, export.PlayerHistoryLine, queries.AuditLine,
        queries.PlayerInfo, LadderLine, DuplicatePair, timetravel.DiffLine, whatif.WhatIfLine,
    ]  # fmt: skip
    fields = {f for kind in shown for f in kind.__struct_fields__}
    fields |= {*plain.RANKING_COLUMNS, *plain.HISTORY_COLUMNS}
    missing = sorted(f for f in fields if f.replace("_", " ") not in COLUMNS)
    assert missing == []
    french = translator("fr")
    assert all(french.pgettext("column", c) for c in COLUMNS)
