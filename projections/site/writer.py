"""Writing a site's files: only those whose content changed.

Each file's new content is compared with what is on disk before writing, so
a second build after one new game touches only the pages that game changed.
A manifest of the files a build wrote lets the next build delete the pages
that no longer exist (a voided game's page stays; a renamed event's goes)
without ever touching a file the site did not write.
"""

from __future__ import annotations

import functools
import io
from pathlib import Path
from typing import Any

import msgspec

from projections.formats import FORMULA_STARTS, write_csv

MANIFEST = ".ledger-site"
_encode_lines = msgspec.json.Encoder().encode_lines


@functools.lru_cache(maxsize=256)
def _record(columns: tuple[str, ...]) -> type[msgspec.Struct]:
    """A Struct whose JSON is a record with these keys, in this order (one
    Struct a row is built and encoded faster than a dict a row)."""
    fields = [f"c{i}" for i in range(len(columns))]
    return msgspec.defstruct(
        "Record", fields, rename=dict(zip(fields, columns, strict=True)), array_like=False
    )


def json_records(columns: list[str], rows: list[list[Any]]) -> bytes:
    """The rows as a JSON list of records with ``columns`` as keys, one
    record a line (readable, and without a second formatting pass)."""
    if not rows:
        return b"[]\n"
    if len(set(columns)) != len(columns):  # a repeated key: the last value, as a dict keeps
        lines = _encode_lines([dict(zip(columns, row, strict=True)) for row in rows])
    else:
        record = _record(tuple(columns))
        if any(len(row) != len(columns) for row in rows):
            raise ValueError("a row's cells do not match the table's columns")
        lines = _encode_lines([record(*row) for row in rows])
    # Encoded JSON holds no raw line break: each one ends a record.
    return b"[\n" + lines[:-1].replace(b"\n", b",\n") + b"\n]\n"


_STARTS = frozenset(FORMULA_STARTS)


class _NeedsCareful(Exception):
    """A text cell holds a carriage return: ``write_csv`` knows how to write it."""


def _csv_cell(text: str) -> str:
    """A text cell as ``write_csv`` writes it: neutralised, then quoted when
    it holds a comma, a quote or a line break."""
    if "\r" in text:
        raise _NeedsCareful
    if text[:1] in _STARTS:
        text = "'" + text
    if '"' in text or "," in text or "\n" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


class CsvCells:
    """Text cells as ``write_csv`` writes them, each distinct text worked
    out once: for callers writing a big table's CSV lines themselves."""

    def __init__(self) -> None:
        self.known: dict[str, str] = {}
        #: A text held a carriage return: the table's lines are not to be
        #: used (``SiteWriter.table`` writes it from its rows instead).
        self.careful = False

    def __call__(self, text: str) -> str:
        cell = self.known.get(text)
        if cell is None:
            cell = self.one(text)
            if len(self.known) < 200_000:
                self.known[text] = cell
        return cell

    def one(self, text: str) -> str:
        """A text seen once (not kept)."""
        try:
            return _csv_cell(text)
        except _NeedsCareful:
            self.careful = True
            return text


def csv_text(columns: list[str], rows: list[list[Any]]) -> str:
    """The rows as ``projections.formats.write_csv`` writes them (the same text),
    written a cell at a time: each distinct text neutralised and quoted once
    (a site's tables repeat the same names, events and words), numbers
    with ``str`` as the csv module does."""
    if len(columns) < 2:  # a row of one empty cell is quoted: write_csv knows
        out = io.StringIO()
        write_csv(out, columns, rows)
        return out.getvalue()
    texts: dict[str, str] = {}
    try:
        lines = [",".join(_csv_cell(c) for c in columns)]
        for row in rows:
            cells = []
            for v in row:
                cls = v.__class__
                if cls is float or cls is int:
                    cells.append(str(v))
                elif cls is str:
                    c = texts.get(v)
                    if c is None:
                        c = texts[v] = _csv_cell(v)
                    cells.append(c)
                elif v is None:
                    cells.append("")
                elif isinstance(v, str):
                    cells.append(_csv_cell(v))
                else:
                    cells.append(str(v))
            lines.append(",".join(cells))
    except _NeedsCareful:
        out = io.StringIO()
        write_csv(out, columns, rows)
        return out.getvalue()
    lines.append("")
    return "\n".join(lines)


class SkippedLadder(msgspec.Struct):
    """A ladder a build could not publish (its family cannot be loaded here,
    or it cannot be replayed), and why."""

    ladder: str
    reason: str


class BuildReport(msgspec.Struct):
    """What a build did: pages (HTML) and other files written or left as
    they were, and the ladders it skipped."""

    out_dir: str
    pages: int
    pages_written: int
    files: int
    files_written: int
    removed: int
    skipped: list[SkippedLadder] = msgspec.field(default_factory=list)


class SiteWriter:
    """Writes files under ``root``, skipping those whose content is unchanged."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen: set[str] = set()
        self.folders: set[Path] = set()
        self.pages = self.pages_written = self.files = self.files_written = 0
        self.previous = self._manifest()

    def _manifest(self) -> set[str]:
        path = self.root / MANIFEST
        if not path.exists():
            return set()
        return set(path.read_text(encoding="utf-8").splitlines())

    def write(self, rel: str, content: str | bytes) -> bool:
        """Write ``rel`` (a path relative to the site root) if its content
        differs from the file on disk; True when written."""
        data = content.encode("utf-8") if isinstance(content, str) else content
        if rel in self.seen:
            raise ValueError(f"the site writes {rel} twice")
        self.seen.add(rel)
        page = rel.endswith(".html")
        self.pages += page
        self.files += not page
        path = self.root / rel
        try:
            if path.stat().st_size == len(data) and path.read_bytes() == data:
                return False
        except FileNotFoundError:
            if path.parent not in self.folders:
                path.parent.mkdir(parents=True, exist_ok=True)
                self.folders.add(path.parent)
        with open(path, "wb") as f:
            f.write(data)
        self.pages_written += page
        self.files_written += not page
        return True

    def fresh(self) -> SiteWriter:
        """A writer of the same folder with nothing written yet (a helper
        process's), its files to be merged back with ``merge``."""
        writer = SiteWriter.__new__(SiteWriter)
        writer.root, writer.previous = self.root, self.previous
        writer.seen, writer.folders = set(), set(self.folders)
        writer.pages = writer.pages_written = writer.files = writer.files_written = 0
        return writer

    def keep(self, folder: str) -> None:
        """Leave the files an earlier build wrote under ``folder`` (a ladder
        this build skips) as they are: neither rewritten nor removed."""
        self.seen |= {rel for rel in self.previous if rel.startswith(folder)}

    def counts(self) -> tuple[int, int, int, int]:
        return self.pages, self.pages_written, self.files, self.files_written

    def merge(self, seen: set[str], counts: tuple[int, int, int, int]) -> None:
        """Take over what a helper's writer (``fresh``) wrote."""
        if seen & self.seen:
            raise ValueError(f"the site writes {sorted(seen & self.seen)[0]} twice")
        self.seen |= seen
        self.pages += counts[0]
        self.pages_written += counts[1]
        self.files += counts[2]
        self.files_written += counts[3]

    def table(
        self,
        stem: str,
        columns: list[str],
        rows: list[list[Any]],
        lines: tuple[list[str], CsvCells] | None = None,
    ) -> None:
        """A table's downloads: ``stem.csv`` (spreadsheet-safe) and ``stem.json``
        (a list of records with the same columns). ``lines``: the rows' CSV
        lines as the caller wrote them (with ``CsvCells``), or None."""
        if lines is not None and not lines[1].careful:
            header = ",".join(_csv_cell(c) for c in columns)
            text = "\n".join([header, *lines[0], ""])
        else:
            text = csv_text(columns, rows)
        self.write(stem + ".csv", text)
        self.write(stem + ".json", json_records(columns, rows))

    def finish(self) -> BuildReport:
        """Delete what the previous build wrote and this one did not; save
        the manifest."""
        removed = 0
        for rel in sorted(self.previous - self.seen):
            if Path(rel).is_absolute() or ".." in Path(rel).parts:
                continue  # a manifest edited by hand never reaches outside the site
            path = self.root / rel
            if path.is_file():
                path.unlink()
                removed += 1
        manifest = "\n".join(sorted(self.seen)) + "\n"
        (self.root / MANIFEST).write_text(manifest, encoding="utf-8")
        return BuildReport(
            out_dir=str(self.root), pages=self.pages, pages_written=self.pages_written,
            files=self.files, files_written=self.files_written, removed=removed,
        )  # fmt: skip
