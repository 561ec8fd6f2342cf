"""Untrusted workbooks: an ``.xlsx`` is a zip archive of XML that referees
receive from others. A zip bomb (a few MB inflating to a gigabyte), one
that lies about what it inflates to, XML entities, and sheets beyond the
row and cell limits are all refused in one line naming the file, in
bounded memory, before anything is recorded; the limits are in
``ledger import --help``."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest

from tests.conftest import Cli

ROOT = Path(__file__).resolve().parent.parent
SHEET = "xl/worksheets/sheet1.xml"
HEADER = ("ladder", "date", "side_a", "side_b", "result")
ROW = b'<row><c t="inlineStr"><is><t>x</t></is></c><c><v>1</v></c></row>'
_MB = 1024 * 1024


def workbook(path: Path, games: int = 2) -> Path:
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(HEADER)
    for day in range(1, games + 1):
        ws.append(("Club", f"2025-01-{day:02d}", "Ann", "Bob", "a"))
    book.save(path)
    return path


def with_sheet(source: Path, target: Path, write_sheet: object, **zip64: bool) -> Path:
    """A copy of the workbook ``source`` whose first sheet's XML is written
    by ``write_sheet(stream)``, streamed into the archive."""
    with (
        zipfile.ZipFile(source) as old,
        zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as new,
    ):
        for item in old.infolist():
            if item.filename == SHEET:
                with new.open(SHEET, "w", **zip64) as stream:
                    write_sheet(stream)  # type: ignore[operator]
            else:
                new.writestr(item, old.read(item.filename))
    return target


def rows_of(total: int) -> object:
    """Writes a sheet of about ``total`` bytes of rows, 1 MB at a time."""

    def write(stream: object) -> None:
        chunk = ROW * (_MB // len(ROW))
        stream.write(b'<worksheet xmlns="http://schemas.openxmlformats.org/'  # type: ignore[attr-defined]
                     b'spreadsheetml/2006/main"><sheetData>')  # fmt: skip
        for _ in range(total // len(chunk)):
            stream.write(chunk)  # type: ignore[attr-defined]
        stream.write(b"</sheetData></worksheet>")  # type: ignore[attr-defined]

    return write


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workbook of a few MB whose sheet inflates to 1 GiB."""
    folder = tmp_path_factory.mktemp("bomb")
    path = with_sheet(workbook(folder / "base.xlsx"), folder / "bomb.xlsx",
                      rows_of(1024 * _MB), force_zip64=True)  # fmt: skip
    assert path.stat().st_size < 10 * _MB
    with zipfile.ZipFile(path) as archive:
        assert archive.getinfo(SHEET).file_size >= 1024 * _MB
    return path


def lying(source: Path, target: Path) -> Path:
    """A copy of ``source`` (one whose sheet inflates to 200 MB) whose
    archive declares the sheet inflates to 1 KB."""
    data = bytearray(source.read_bytes())
    name = SHEET.encode()
    at = 0
    while True:
        at = data.index(b"PK\x01\x02", at)  # a central directory entry
        length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46 : at + 46 + length] == name:
            struct.pack_into("<I", data, at + 24, 1024)  # its uncompressed size
            break
        at += 4
    target.write_bytes(bytes(data))
    return target


def import_in_a_process(cli: Cli, sheet: Path, *options: str) -> tuple[int, str, int]:
    """``ledger import SHEET`` in its own process; exit code, stderr and
    the process's peak memory (bytes): the kernel's high-water mark of its
    resident memory (VmHWM), else getrusage's (which on Linux keeps the
    forking parent's peak across exec: the test process's own)."""
    code = (
        "import resource, sys\n"
        "from ledger.cli import main\n"
        "try:\n"
        f"    main([*{['--db', cli.db, '--by', 'tester']!r}, 'import', *sys.argv[1:]])\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
        "try:\n"
        "    with open('/proc/self/status') as f:\n"
        "        hwm = [l for l in f if l.startswith('VmHWM:')][0]\n"
        "    peak = int(hwm.split()[1]) * 1024\n"
        "except (OSError, IndexError):\n"
        "    pass\n"
        "print(f'{status} {peak}')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, str(sheet), *options], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    status, peak = done.stdout.split()[-2:]
    return int(status), done.stderr, int(peak)


@pytest.fixture
def club(tmp_path: Path) -> Cli:
    cli = Cli(str(tmp_path / "club.db"))
    cli.ok("ladder", "open", "Club", "--family", "elo")
    return cli


def test_a_zip_bomb_is_refused_unread_in_bounded_memory(club: Cli, bomb: Path) -> None:
    events = club.event_count()
    status, err, peak = import_in_a_process(club, bomb)
    assert status == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(bomb) in lines[0], err
    assert "refused" in lines[0] and "1,024 MB" in lines[0] and "--max-unzipped-mb" in lines[0]
    assert peak < 300 * _MB, f"peak memory {peak / _MB:.0f} MB"
    assert club.event_count() == events


def test_a_bomb_that_lies_about_its_size_is_refused_in_bounded_memory(
    club: Cli, tmp_path: Path
) -> None:
    big = with_sheet(workbook(tmp_path / "base.xlsx"), tmp_path / "big.xlsx", rows_of(200 * _MB))
    liar = lying(big, tmp_path / "liar.xlsx")
    events = club.event_count()
    status, err, peak = import_in_a_process(club, liar, "--max-unzipped-mb", "1000")
    assert status == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(liar) in lines[0], err
    assert peak < 300 * _MB, f"peak memory {peak / _MB:.0f} MB"
    assert club.event_count() == events


def test_rows_and_cells_beyond_the_limits_are_refused(club: Cli, tmp_path: Path) -> None:
    sheet = workbook(tmp_path / "round.xlsx", games=5)
    events = club.event_count()
    refused = club.fails("import", str(sheet), "--max-rows", "4")
    assert str(sheet) in refused and "more than 4 rows (--max-rows)" in refused
    refused = club.fails("import", str(sheet), "--max-cells", "20")
    assert str(sheet) in refused and "more than 20 cells (--max-cells)" in refused
    assert club.event_count() == events
    out = club.ok("import", str(sheet), "--max-rows", "6", "--max-cells", "30")
    assert "added 5 games" in out


def test_xml_entities_are_refused(club: Cli, tmp_path: Path) -> None:
    def laughs(stream: object) -> None:
        stream.write(  # type: ignore[attr-defined]
            b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;">]>'
            b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            b'<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&b;</t></is></c></row>'
            b"</sheetData></worksheet>"
        )

    sheet = with_sheet(workbook(tmp_path / "base.xlsx"), tmp_path / "laughs.xlsx", laughs)
    refused = club.fails("import", str(sheet))
    assert str(sheet) in refused and "entities" in refused
    assert len(refused.strip().splitlines()) == 1


def test_the_limits_are_in_the_help_and_defusedxml_guards_openpyxl(club: Cli) -> None:
    import openpyxl.xml

    text = " ".join(club.ok("import", "--help").split())
    for option, default in (("--max-unzipped-mb", "100"), ("--max-rows", "500000"),
                            ("--max-cells", "5000000")):  # fmt: skip
        assert option in text and f"[default: {default}" in text.split(option, 1)[1][:200]
    assert openpyxl.xml.DEFUSEDXML  # openpyxl parses with defusedxml: it is installed
