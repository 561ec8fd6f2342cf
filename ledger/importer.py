"""Importing a result sheet: validated whole, then appended in one transaction.

The canonical sheet is a CSV file with a header row (see README, "Result
sheets"). Every row is checked before anything is written; all errors are
reported at once, each naming the file, row and column. Rows already recorded
(the same game identity with the same content) are reported as skipped; a row
whose game is recorded with different content is an error pointing to
``ledger correct``.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import msgspec

from ledger import events as ev
from ledger.application import LadderState, LedgerApplication
from ledger.errors import Invalid, LedgerError
from ledger.game_input import GameInput, PlayerBook, build_facts
from ledger.identity import short
from projections.db import Database
from projections.families.registry import BUILT_IN

BASE_COLUMNS = ("ladder", "date", "event", "round", "table", "neutral")
SIDE_COLUMNS = tuple(f"side_{c}" for c in "abcdefghijklmnopqrstuvwxyz")
RESULT_COLUMNS = tuple(sorted({f for cls in BUILT_IN.values() for f in cls.result_fields}))
ATTRIBUTE_PREFIX = "attr_"
PLAYER_SEPARATOR = ";"
TRUE = {"1", "true", "yes", "y", "neutral"}
FALSE = {"", "0", "false", "no", "n"}


class ImportReport(msgspec.Struct):
    """What an import did (or, with ``--dry-run``, would do)."""

    file: str
    rows: int
    added: int
    skipped: int
    new_players: list[str]
    dry_run: bool
    skipped_rows: list[int] = []


def _typed(value: str) -> Any:
    """Cells holding lists or objects (unit lists, objectives) are JSON."""
    text = value.strip()
    if text[:1] in "[{":
        try:
            return msgspec.json.decode(text)
        except msgspec.DecodeError:
            return text
    return text


def read_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """The sheet's data rows with their spreadsheet row numbers (header = 1)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise Invalid(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise Invalid(f"{path}: cannot read: {exc}") from None
    reader = csv.reader(text.splitlines())
    header = next(reader, None)
    if not header or not any(h.strip() for h in header):
        raise Invalid(
            f"{path}: the sheet is empty (expected a header row: ladder,date,side_a,side_b,result,...)"
        )
    columns = [h.strip().lower() for h in header]
    problems = []
    for number, column in enumerate(columns, start=1):
        known = column in BASE_COLUMNS or column in SIDE_COLUMNS or column in RESULT_COLUMNS
        if not known and not column.startswith(ATTRIBUTE_PREFIX):
            problems.append(
                f"{path}: row 1, column {number}: unknown column {column!r} (expected "
                f"{', '.join(BASE_COLUMNS + ('side_a', 'side_b', '...') + RESULT_COLUMNS)} "
                f"or {ATTRIBUTE_PREFIX}NAME)"
            )
    for required in ("ladder", "date", "side_a", "side_b"):
        if required not in columns:
            problems.append(f"{path}: row 1: missing column {required!r}")
    if problems:
        raise Invalid("\n".join(problems))
    rows = []
    for number, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue  # blank lines
        if len(cells) > len(columns):
            problems.append(
                f"{path}: row {number}: {len(cells)} cells but only {len(columns)} columns"
            )
            continue
        rows.append((number, dict(zip(columns, cells, strict=False))))
    if problems:
        raise Invalid("\n".join(problems))
    if not rows:
        raise Invalid(f"{path}: the sheet has a header but no games")
    return rows


def row_input(row: dict[str, str]) -> GameInput:
    """A sheet row as a GameInput (still unchecked)."""
    sides = []
    for column in SIDE_COLUMNS:
        cell = (row.get(column) or "").strip()
        if cell:
            sides.append([n.strip() for n in cell.split(PLAYER_SEPARATOR) if n.strip()])
    neutral = (row.get("neutral") or "").strip().lower()
    if neutral not in TRUE | FALSE:
        raise Invalid(f"neutral: {row['neutral']!r} is not yes or no", field="neutral")
    return GameInput(
        ladder=(row.get("ladder") or "").strip(),
        date=(row.get("date") or "").strip(),
        sides=sides,
        result={c: _typed(row[c]) for c in RESULT_COLUMNS if (row.get(c) or "").strip()},
        event=row.get("event"),
        round=row.get("round"),
        table=row.get("table"),
        neutral=neutral in TRUE,
        attributes={
            c[len(ATTRIBUTE_PREFIX) :]: row[c]
            for c in row
            if c.startswith(ATTRIBUTE_PREFIX) and row[c].strip()
        },
    )


def import_sheet(
    app: LedgerApplication,
    conn: Database,
    path: Path,
    by: str,
    dry_run: bool = False,
    ladder: str | None = None,
) -> ImportReport:
    """Validate a whole sheet, then append its games in one transaction."""
    rows = read_rows(path)
    ladders: dict[str, LadderState] = {}
    book = PlayerBook(conn, add_players=True)
    existing = {
        gid: facts
        for gid, facts in conn.execute("SELECT id, facts FROM view_games WHERE status!='voided'")
    }
    errors: list[str] = []
    new_events: list[ev.GameRecorded] = []
    first_row: dict[Any, int] = {}
    skipped: list[int] = []
    unknown_ladders: dict[str, list[int]] = {}
    for number, row in rows:
        book.row = number
        try:
            inp = row_input(row)
            name = ladder or inp.ladder
            if not name:
                raise Invalid("no ladder given", field="ladder")
            if name in unknown_ladders:
                unknown_ladders[name].append(number)
                continue
            if name not in ladders:
                try:
                    ladders[name] = app.ladder(name)
                except LedgerError as exc:
                    unknown_ladders[name] = [number]
                    raise Invalid(str(exc), field="ladder") from None
            facts = build_facts(ladders[name], inp, book)
            event = app.game_event(ladders[name], facts, by, ev.Source(str(path), number))
        except Invalid as exc:
            errors.append(f"{path}: row {number}, column {exc.field or '?'}: {exc}")
            continue
        gid = event.originator_id
        if gid in first_row:
            errors.append(
                f"{path}: row {number}: the same game as row {first_row[gid]} (same ladder, "
                "date, event, round, table and players); give one a different 'table'"
            )
            continue
        first_row[gid] = number
        stored = existing.get(str(gid))
        if stored is not None:
            if msgspec.json.decode(stored) == msgspec.to_builtins(event.game):
                skipped.append(number)
                continue
            errors.append(
                f"{path}: row {number}: game {short(gid)} is already recorded with a "
                f"different result; use 'ledger correct {short(gid)}' to change it"
            )
            continue
        new_events.append(event)
    for name, numbers in unknown_ladders.items():
        if len(numbers) > 1:
            errors.append(
                f"{path}: {len(numbers) - 1} more rows name the unknown ladder {name!r} "
                f"(rows {_ranges(numbers[1:])})"
            )
    if errors:
        raise Invalid("\n".join(errors))
    registrations = [
        app.new_player_event(name, by, ev.Source(str(path), book.first_row[key]))
        for key, name in book.new.items()
    ]
    if not dry_run:
        app.record_many([*registrations, *new_events])
    return ImportReport(
        file=str(path),
        rows=len(rows),
        added=len(new_events),
        skipped=len(skipped),
        new_players=sorted(book.new.values()),
        dry_run=dry_run,
        skipped_rows=skipped,
    )


def _ranges(numbers: list[int]) -> str:
    """``[2, 3, 4, 7]`` as ``2-4, 7``."""
    out, start, prev = [], numbers[0], numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(out)
