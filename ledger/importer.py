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
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec

from ledger import events as ev
from ledger.application import (
    DuplicateGame,
    GameLookup,
    GameState,
    LadderState,
    LedgerApplication,
    now,
)
from ledger.errors import Invalid, LedgerError
from ledger.game_input import GameInput, PlayerBook, build_facts
from ledger.identity import short
from ledger.matching import similar_names
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
    warnings: list[str] = []


def _typed(value: str) -> Any:
    """Cells holding lists or objects (unit lists, objectives) are JSON."""
    text = value.strip()
    if text[:1] in "[{":
        try:
            return msgspec.json.decode(text)
        except msgspec.DecodeError:
            return text
    return text


def check_columns(label: str, columns: list[str], ladder_given: bool = False) -> None:
    """Refuse a header with unknown, repeated or missing columns (row 1 of the
    sheet); shared by CSV and Excel sheets."""
    problems = []
    for number, column in enumerate(columns, start=1):
        known = column in BASE_COLUMNS or column in SIDE_COLUMNS or column in RESULT_COLUMNS
        if not known and not column.startswith(ATTRIBUTE_PREFIX):
            problems.append(
                f"{label}: row 1, column {number}: unknown column {column!r} (expected "
                f"{', '.join(BASE_COLUMNS + ('side_a', 'side_b', '...') + RESULT_COLUMNS)} "
                f"or {ATTRIBUTE_PREFIX}NAME)"
            )
    seen: dict[str, int] = {}
    for number, column in enumerate(columns, start=1):
        if column and column in seen:
            # Its second cell would silently replace the first.
            problems.append(
                f"{label}: row 1, column {number}: column {column!r} is also column {seen[column]}"
            )
        seen.setdefault(column, number)
    required = (
        ("date", "side_a", "side_b") if ladder_given else ("ladder", "date", "side_a", "side_b")
    )
    for column in required:
        if column not in columns:
            problems.append(f"{label}: row 1: missing column {column!r}")
    if problems:
        raise Invalid("\n".join(problems))


class Sheet(msgspec.Struct):
    """A sheet's data rows (row number, cells by column) and the rows that
    could not even be split into cells, with why."""

    label: str
    rows: list[tuple[int, dict[str, str]]]
    bad_rows: list[str] = []


def read_rows(path: Path, ladder_given: bool = False) -> Sheet:
    """The CSV sheet's data rows with their spreadsheet row numbers (header = 1)."""
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
    check_columns(str(path), columns, ladder_given)
    sheet = Sheet(str(path), [])
    for number, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue  # blank lines
        if len(cells) > len(columns) and any(c.strip() for c in cells[len(columns) :]):
            sheet.bad_rows.append(
                f"{path}: row {number}: {len(cells)} cells but only {len(columns)} columns"
            )
            continue
        sheet.rows.append((number, dict(zip(columns, cells, strict=False))))
    if not sheet.rows and not sheet.bad_rows:
        raise Invalid(f"{path}: the sheet has a header but no games")
    return sheet


class Layout(msgspec.Struct, frozen=True):
    """Which side, result and attribute columns a sheet has (found once, not
    per row)."""

    sides: tuple[str, ...]
    results: tuple[str, ...]
    attributes: tuple[str, ...]

    @classmethod
    def of(cls, columns: Iterable[str]) -> Layout:
        present = set(columns)
        return cls(
            sides=tuple(c for c in SIDE_COLUMNS if c in present),
            results=tuple(c for c in RESULT_COLUMNS if c in present),
            attributes=tuple(sorted(c for c in present if c.startswith(ATTRIBUTE_PREFIX))),
        )


def row_input(row: dict[str, str], layout: Layout | None = None) -> GameInput:
    """A sheet row as a GameInput (still unchecked)."""
    layout = layout or Layout.of(row)
    sides = []
    for column in layout.sides:
        cell = (row.get(column) or "").strip()
        if cell:
            sides.append([n.strip() for n in cell.split(PLAYER_SEPARATOR) if n.strip()])
    neutral = (row.get("neutral") or "").strip().lower()
    if neutral not in TRUE and neutral not in FALSE:
        raise Invalid(f"neutral: {row['neutral']!r} is not yes or no", field="neutral")
    return GameInput(
        ladder=(row.get("ladder") or "").strip(),
        date=(row.get("date") or "").strip(),
        sides=sides,
        result={c: _typed(row[c]) for c in layout.results if (row.get(c) or "").strip()},
        event=row.get("event"),
        round=row.get("round"),
        table=row.get("table"),
        neutral=neutral in TRUE,
        attributes={
            c[len(ATTRIBUTE_PREFIX) :]: row[c] for c in layout.attributes if row[c].strip()
        },
    )


def load(path: Path, sheet: str | None = None, ladder_given: bool = False) -> Sheet:
    """A result sheet from a CSV file or an Excel workbook (by extension)."""
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        from ledger.workbook import load_sheet

        return load_sheet(path, sheet, ladder_given)
    if sheet is not None:
        raise Invalid(f"{path}: --sheet applies to Excel workbooks (.xlsx) only")
    return read_rows(path, ladder_given)


def import_sheet(
    app: LedgerApplication,
    conn: Database,
    path: Path,
    by: str,
    dry_run: bool = False,
    ladder: str | None = None,
    sheet_name: str | None = None,
    strict: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Validate a whole sheet, then append its games in one transaction.

    ``ladder`` is the ladder of rows that name none. A new player whose name
    is close to a known one is a warning, or an error under ``strict``.
    ``progress(done, total)`` is told how many rows are checked so far.
    """
    sheet = load(path, sheet_name, ladder_given=ladder is not None)
    ladders: dict[str, LadderState] = {}
    book = PlayerBook(conn, add_players=True)
    lookup = _view_lookup(conn)
    at = now()  # one import, one transaction, one moment
    errors: list[str] = list(sheet.bad_rows)
    new_events: list[ev.GameRecorded] = []
    first_row: dict[Any, int] = {}
    skipped: list[int] = []
    unknown_ladders: dict[str, list[int]] = {}
    layout = Layout.of(sheet.rows[0][1]) if sheet.rows else None
    for index, (number, row) in enumerate(sheet.rows, start=1):
        if progress is not None and index % 500 == 0:
            progress(index, len(sheet.rows))
        book.row = number
        try:
            inp = row_input(row, layout)
            name = inp.ladder or ladder
            if not name:
                raise Invalid("no ladder given (fill the column or pass --ladder)", field="ladder")
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
            source = ev.Source(sheet.label, number)
            event = app.game_event(ladders[name], facts, by, source, at, lookup)
        except DuplicateGame as dup:
            if msgspec.to_builtins(dup.facts) == msgspec.to_builtins(
                app.check_game(ladders[name], facts)
            ):
                skipped.append(number)
            else:
                errors.append(
                    f"{path}: row {number}: game {short(dup.gid)} is already recorded with a "
                    f"different result; use 'ledger correct {short(dup.gid)}' to change it"
                )
            continue
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
        new_events.append(event)
    for name, numbers in unknown_ladders.items():
        if len(numbers) > 1:
            errors.append(
                f"{path}: {len(numbers) - 1} more rows name the unknown ladder {name!r} "
                f"(rows {_ranges(numbers[1:])})"
            )
    warnings = _name_warnings(conn, sheet.label, book)
    if strict and warnings:
        errors.extend(f"{w} (refused under --strict)" for w in warnings)
    if errors:
        raise Invalid("\n".join(errors))
    registrations = [
        app.new_player_event(name, by, ev.Source(sheet.label, book.first_row[key]), at)
        for key, name in book.new.items()
    ]
    if dry_run:
        warnings += preview_warnings(app, conn, [*registrations, *new_events], sheet.label)
    else:
        app.record_many([*registrations, *new_events])
    rows = sheet.rows
    return ImportReport(
        file=str(path),
        rows=len(rows),
        added=len(new_events),
        skipped=len(skipped),
        new_players=sorted(book.new.values()),
        dry_run=dry_run,
        skipped_rows=skipped,
        warnings=warnings,
    )


def _name_warnings(conn: Database, label: str, book: PlayerBook) -> list[str]:
    """New players whose names are close to known ones (a typo, swapped names)."""
    if not book.new:
        return []
    known = dict(conn.execute("SELECT id, name FROM view_players WHERE merged_into IS NULL"))
    warnings = []
    for key, name in book.new.items():
        candidates = similar_names(name, known)
        if candidates:
            warnings.append(
                f"{label}: row {book.first_row[key]}: new player {name!r} is close to "
                f"{', '.join(repr(c) for c in candidates)}: a typo?"
            )
    return warnings


BIG_MOVE = 100


def preview_warnings(
    app: LedgerApplication, conn: Database, new: list[Any], label: str
) -> list[str]:
    """What a dry run would do to ratings: every new player's first game, and
    every result that would move a rating by more than 100 points."""
    from projections import views

    preview = views.in_memory(app.recorder)
    views.apply_events(preview, new)
    names = dict(preview.execute("SELECT id, name FROM view_players"))
    rows = {str(e.originator_id): e.source.row for e in new if isinstance(e, ev.GameRecorded)}
    warnings = []
    first_seen: set[str] = set()
    registered = {str(e.originator_id) for e in new if isinstance(e, ev.PlayerRegistered)}
    for entry, player, change, games_before in preview.execute(
        "SELECT entry, player, change, games_before FROM view_history WHERE kind='game' "
        "ORDER BY ladder, key"
    ):
        if entry not in rows:
            continue
        who = names.get(player, player)
        if player in registered and player not in first_seen and games_before == 0:
            first_seen.add(player)
            warnings.append(f"{label}: row {rows[entry]}: first game of {who!r}")
        if abs(change) > BIG_MOVE:
            warnings.append(
                f"{label}: row {rows[entry]}: moves {who!r} by {change:+g} points "
                f"(more than {BIG_MOVE})"
            )
    preview.close()
    return warnings


def _view_lookup(conn: Database) -> GameLookup:
    """Find recorded games through the views (no aggregate loads)."""
    known = {gid for (gid,) in conn.execute("SELECT id FROM view_games")}

    def lookup(gid: UUID) -> GameState | None:
        if str(gid) not in known:
            return None
        row = conn.execute(
            "SELECT version, status, facts FROM view_games WHERE id=?", (str(gid),)
        ).fetchone()
        facts = msgspec.json.decode(row["facts"], type=ev.GameFacts)
        return GameState(gid, row["version"], facts, row["status"] == "voided")

    return lookup


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
