"""Importing a result sheet: validated whole, then appended in one transaction.

The canonical sheet is a CSV file with a header row (see README, "Result
sheets"). Every row is checked before anything is written; all errors are
reported at once, each naming the file, row and column. Rows already recorded
(the same game identity with the same content) are reported as skipped; a row
whose game is recorded with different content is an error pointing to
``ledger correct``. A row that is a game the referee voided, or a game as it
stood before a correction (``ledger.write.game_identities``), is skipped with a
warning saying when, by whom and why, never added back unless asked
(``again``). Which result columns a sheet may hold comes from the families of
the ladders it names, so a community's own family brings its own. A CSV sheet
is read row by row from the file (``ledger.sheets.sheet``), never held whole, and
each checked game goes to the batch that ``ledger record`` records its one game
with (``ledger.write.game_batch``): placed, numbered and kept in its stored form
until the append, in a temporary file past a few thousand games
(``ledger.write.spill``), so an import takes the same memory at any size. A row
is checked in full when one of its cells is new; a row of cells all read
before is made from what they were read as (``ledger.sheets.cell_memo``), which
gives the same game, the same errors and the same report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

import msgspec

from ledger.families.base import FamilyError
from ledger.families.registry import BUILT_IN, family_class
from ledger.kernel import collection, suggest
from ledger.kernel import events as ev
from ledger.kernel.errors import Invalid, LedgerError
from ledger.kernel.identity import short
from ledger.kernel.translation import N_, Lines, Message, said
from ledger.sheets.cell_memo import CellMemo
from ledger.sheets.sheet import (
    ATTRIBUTE_PREFIX,
    PLAYER_SEPARATOR,
    SIDE_COLUMNS,
    CsvRows,
    Sheet,
    check_columns,
    read_csv,
)
from ledger.write.commands import Commands
from ledger.write.game_batch import DuplicateGame, RepeatedGame, RetiredGame, repeat_games
from ledger.write.game_identities import corrected, explain
from ledger.write.game_input import (
    PURE_CHECKS,
    GameChecks,
    GameInput,
    PlayerBook,
    build_facts,
    close_to_known,
    parse_date,
    parse_int,
    parse_number,
    parse_reference,
    typo_warning,
)
from ledger.write.state import LadderState

if TYPE_CHECKING:
    from ledger.sheets.workbook import WorkbookLimits

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


class ImportPlan(msgspec.Struct):
    """A checked sheet: its report and the events it appends (or, in a dry
    run, would append: the CLI previews them on the views)."""

    report: ImportReport
    events: list[Any]
    label: str


class Layout(msgspec.Struct, frozen=True):
    """Which side, result and attribute columns a sheet has (found once, not
    per row)."""

    sides: tuple[str, ...]
    results: tuple[str, ...]
    attributes: tuple[str, ...]
    #: Attribute numbers may be written ``1,5`` (a ``;``-separated sheet).
    decimal_comma: bool = False

    @classmethod
    def of(
        cls, columns: Iterable[str], result_columns: Iterable[str], decimal_comma: bool = False
    ) -> Layout:
        present = set(columns)
        return cls(
            sides=tuple(c for c in SIDE_COLUMNS if c in present),
            results=tuple(c for c in result_columns if c in present),
            attributes=tuple(sorted(c for c in present if c.startswith(ATTRIBUTE_PREFIX))),
            decimal_comma=decimal_comma,
        )


#: Characters that end a line of text: never part of a player's name.
LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
_DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")


def _one_line(cell: str, column: str, what: str) -> str:
    """A cell that must be one line of text: a cell spanning lines in the
    sheet is refused, never glued into one name."""
    if not LINE_BREAKS.isdisjoint(cell):
        raise Invalid(
            Message(
                "{column}: {cell!r} holds a line break; {what} is one line",
                column=column,
                cell=cell,
                what=what,
            ),
            field=column,
        )
    return cell


def _side(cell: str, column: str) -> list[str]:
    """A side cell's player names (team members separated by ';')."""
    return list(_side_names(cell, column))


@lru_cache(maxsize=65536)
def _side_names(cell: str, column: str) -> tuple[str, ...]:
    """``_side``, read once per cell text (a sheet names its sides again and
    again; a refused cell is not remembered and is refused each time)."""
    _one_line(cell, column, Message("a player's name (team members are separated by ';')"))
    return tuple(n.strip() for n in cell.split(PLAYER_SEPARATOR) if n.strip())


def _attribute(text: str, layout: Layout) -> str:
    text = text.strip()
    if layout.decimal_comma and _DECIMAL_COMMA.fullmatch(text):
        return text.replace(",", ".")
    return text


def row_input(row: dict[str, str], layout: Layout) -> GameInput:
    """A sheet row as a GameInput (still unchecked)."""
    get = row.get
    sides = []
    for column in layout.sides:
        cell = get(column)
        if cell and (cell := cell.strip()):
            sides.append(_side(cell, column))
    cell = get("neutral")
    neutral = cell.strip().lower() if cell else ""
    if neutral and neutral not in TRUE and neutral not in FALSE:
        raise Invalid(
            Message("neutral: {neutral!r} is not yes or no", neutral=row["neutral"]),
            field="neutral",
        )
    event = get("event")
    if event:
        _one_line(event, "event", Message("an event id"))
    ladder = get("ladder")
    result = {}
    for column in layout.results:
        cell = get(column)
        if cell and cell.strip():
            result[column] = cell
    return GameInput(
        ladder=_one_line(ladder.strip(), "ladder", Message("a ladder's name")) if ladder else "",
        date=(get("date") or "").strip(),
        sides=sides,
        result=result,
        event=event,
        round=get("round"),
        table=get("table"),
        reference=get("reference"),
        neutral=neutral in TRUE,
        attributes={
            c[len(ATTRIBUTE_PREFIX) :]: _attribute(row[c], layout)
            for c in layout.attributes
            if (get(c) or "").strip()
        }
        if layout.attributes
        else {},
    )


def _cells(ladder: LadderState, game: GameInput, checks: GameChecks) -> dict[str, Any]:
    """A row's result cells read by the family in force on its date."""
    family = checks.family(ladder, parse_date(game.date))
    values = {}
    for column, text in game.result.items():
        try:
            values[column] = checks.cell(family, column, text)
        except FamilyError as exc:
            raise Invalid(said(exc), field=exc.field or column) from None
    return values


class RowProblem(msgspec.Struct, frozen=True):
    """One bad field of a sheet row: its column and what is wrong with it."""

    field: str
    message: str


def row_problems(
    first: Invalid,
    row: dict[str, Any],
    layout: Layout,
    state: LadderState | None,
    checks: GameChecks,
) -> list[RowProblem]:
    """Every bad field of a row that failed with ``first``, in column order.

    A row is read field after field and stops at its first error; a referee
    fixing it should not meet the next one only on the next import, so the
    fields that can be read on their own (date, round, table, neutral,
    attributes, and the result cells when the ladder is known) are read
    again here and each one's error is reported too."""
    found = {first.field or "?": said(first)}

    def check(field: str, read: Callable[[], Any]) -> None:
        if field in found:
            return
        try:
            read()
        except Invalid as exc:
            found[field] = said(exc)
        except FamilyError as exc:
            found[field] = said(exc)

    def text(column: str) -> str:
        value = row.get(column)
        return value.strip() if isinstance(value, str) else ""

    check("date", lambda: parse_date(text("date")))
    for column in ("round", "table"):
        if text(column):
            check(column, lambda c=column: parse_int(text(c), c))
    if text("reference"):
        check("reference", lambda: parse_reference(row["reference"]))
    if text("neutral") and text("neutral").lower() not in (*TRUE, *FALSE):
        check("neutral", lambda: row_input({"neutral": row["neutral"]}, layout))
    for column in layout.attributes:
        if text(column):
            check(column, lambda c=column: parse_number(_attribute(text(c), layout), c))
    if state is not None and "date" not in found:
        try:
            family = checks.family(state, parse_date(text("date")))
        except LedgerError:
            return _in_column_order(found, row)
        for column in layout.results:
            if text(column):
                check(column, lambda c=column: checks.cell(family, c, row[c]))
    return _in_column_order(found, row)


def _in_column_order(found: dict[str, str], row: dict[str, Any]) -> list[RowProblem]:
    order = {column: index for index, column in enumerate(row)}
    fields = sorted(found, key=lambda f: order.get(f, len(order)))
    return [RowProblem(field, found[field]) for field in fields]


def result_columns(ladders: Iterable[LadderState]) -> tuple[str, ...]:
    """The result columns the families of these ladders accept (every
    ruleset's), or every built-in family's when no ladder is known."""
    families = {rs.family for ladder in ladders for rs in ladder.rulesets}
    classes = [family_class(f) for f in sorted(families)] or list(BUILT_IN.values())
    return tuple(dict.fromkeys(f for cls in classes for f in cls.result_fields))


def load_sheet(path: Path, sheet: str | None = None, limits: WorkbookLimits | None = None) -> Sheet:
    """A result sheet from a CSV file (``ledger.sheets.sheet``) or an Excel
    workbook (``ledger.sheets.workbook``, read within ``limits``), by
    extension."""
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        from ledger.sheets.workbook import (
            load_sheet as load_workbook_sheet,  # openpyxl: when needed
        )

        return load_workbook_sheet(path, sheet, limits)
    if sheet is not None:
        raise Invalid(Message("{path}: --sheet applies to Excel workbooks (.xlsx) only", path=path))
    return read_csv(path)


def import_sheet(
    commands: Commands,
    path: Path,
    dry_run: bool = False,
    ladder: str | None = None,
    sheet_name: str | None = None,
    strict: bool = False,
    progress: Callable[..., None] | None = None,
    again: bool = False,
    limits: WorkbookLimits | None = None,
) -> ImportPlan:
    """Validate a whole sheet, then (unless ``dry_run``) append its games in
    one transaction.

    ``ladder`` is the ladder of rows that name none. A new player whose name
    is close to a known one is a warning, or an error under ``strict``.
    ``progress(done, total)`` is told how many rows are checked so far, then
    ``progress(done, total, "storing games")`` how many events are stored.
    A row that is a game the referee voided, or a game as it was before a
    correction, is skipped with a warning saying so; ``again`` records such
    rows as games again (an explicit act, never a re-import's default).
    An ``.xlsx`` is read within ``limits`` (``workbook.WorkbookLimits``).

    Memory stays bounded whatever the sheet: the rows are read from the file
    and checked one by one, each game's event is kept only as its stored form
    in a temporary file (``ledger.write.spill``), and once every row is good
    they are appended in batches inside one transaction. ``ImportPlan.events`` holds
    the events in a dry run only (the CLI previews them on the views).
    """
    with collection.paused():  # (a million games' ids and caches held)
        return _import_sheet(
            commands, path, dry_run, ladder, sheet_name, strict, progress, again, limits
        )


def _import_sheet(
    commands: Commands,
    path: Path,
    dry_run: bool,
    ladder: str | None,
    sheet_name: str | None,
    strict: bool,
    progress: Callable[..., None] | None,
    again: bool,
    limits: WorkbookLimits | None,
) -> ImportPlan:
    app = commands.app
    sheet = load_sheet(path, sheet_name, limits)
    ladders = _ladders(commands, sheet, ladder)
    known_ladders = [state for state in ladders.values() if state is not None]
    columns = result_columns(known_ladders)
    check_columns(sheet.label, sheet.columns, columns, ladder_given=ladder is not None)
    book = PlayerBook(app, add_players=True)
    label = sheet.label
    batch = commands.record_batch(again, label, [state.id for state in known_ladders], dry_run)
    checks = GameChecks()
    name_of = _names(app, book)
    retired_notes: list[str] = []
    errors: list[str] = list(sheet.bad_rows)
    skipped: list[int] = []
    unknown_ladders: dict[str, list[int]] = {}
    layout = Layout.of(sheet.columns, columns, sheet.decimal_comma)
    memo = CellMemo(
        sheet.columns,
        layout.sides,
        (*(["neutral"] if "neutral" in sheet.columns else []), *layout.results, *layout.attributes),
        ladder,
        PURE_CHECKS,
    )
    try:
        width = len(sheet.columns)
        for index, (number, cells) in enumerate(_records(sheet), start=1):
            if progress is not None and index % 500 == 0:
                progress(index, sheet.count)
            if len(cells) < width:
                cells = memo.cells(cells)
            known = memo.known(cells)
            if known is not None:
                # Every cell read before in a row that passed: the game is
                # made from what they were read as (``ledger.sheets.cell_memo``).
                state, on, sides, result, neutral, attributes, event_of, round_of, table, ref = (
                    known
                )
                if dry_run:  # the events are kept: each its own values
                    player_ids = [list(side.ids) for side in sides]
                    result = _copied(result)
                    attributes = dict(attributes)
                elif len(sides) == 2:  # encoded at once and dropped: shared safely
                    player_ids = [sides[0].ids, sides[1].ids]
                else:
                    player_ids = [side.ids for side in sides]
                facts = ev.GameFacts(
                    ladder=state.id,
                    date=on,
                    sides=player_ids,
                    result=result,
                    event=event_of,
                    round=round_of,
                    table=table,
                    neutral=neutral,
                    attributes=attributes,
                    reference=ref,
                )
            else:
                book.row = number
                row = dict(zip(sheet.columns, cells, strict=False))
                state = None
                try:
                    # An absent cell is None here, as ``get`` gives it.
                    inp = row_input(row, layout)
                    name = inp.ladder or ladder
                    if not name:
                        raise Invalid(
                            Message("no ladder given (fill the column or pass --ladder)"),
                            field="ladder",
                        )
                    state = ladders.get(name)
                    if state is None:
                        if name in unknown_ladders:
                            unknown_ladders[name].append(number)
                            continue
                        unknown_ladders[name] = [number]
                        hint = suggest.hint(
                            suggest.close_names(name, app.ladder_names()),
                            N_("see 'ledger ladder list'"),
                        )
                        raise Invalid(
                            Message("unknown ladder {name}{hint}", name=repr(name), hint=hint),
                            field="ladder",
                        )
                    inp.result = _cells(state, inp, checks)
                    facts = commands.check_game(state, build_facts(state, inp, book), checks)
                except Invalid as exc:
                    errors.extend(
                        Message(
                            "{path}: row {number}, column {field}: {message}",
                            path=path,
                            number=number,
                            field=problem.field,
                            message=problem.message,
                        )
                        for problem in row_problems(exc, row, layout, state, checks)
                    )
                    continue
            if errors and batch.keeping:
                batch.discard()  # nothing will be appended: keep checking, store nothing
            try:
                # A row of cells all read before holds only values that
                # read back as written in an earlier event.
                batch.add(facts, ev.Source(label, number), read_back=known is None)
            except DuplicateGame as dup:
                earlier = batch.stored.earlier_version(dup.gid, facts)
                if _same_game(dup.facts, facts):
                    skipped.append(number)
                elif earlier is not None:
                    skipped.append(number)
                    retired_notes.append(
                        Message(
                            "{label}: row {number}: not added: {why}",
                            label=label,
                            number=number,
                            why=corrected(dup.gid, earlier, name_of),
                        )
                    )
                else:
                    errors.append(
                        Message(
                            "{path}: row {number}: game {id} is already recorded with a different "
                            "result; use 'ledger correct {id}' to change it",
                            path=path,
                            number=number,
                            id=short(dup.gid),
                        )
                    )
                continue
            except RetiredGame as retired:
                # The referee already dealt with this game: never silently back.
                skipped.append(number)
                retired_notes.append(
                    Message(
                        "{label}: row {number}: not added: {why} (import with --again to "
                        "record it as a game again)",
                        label=label,
                        number=number,
                        why=explain(retired.game, retired.identity, name_of),
                    )
                )
                continue
            except RepeatedGame as repeated:
                errors.append(
                    Message(
                        "{path}: row {number}, column reference: the same reference "
                        "{reference!r} as row {first}: a reference names one game",
                        path=path,
                        number=number,
                        reference=repeated.reference,
                        first=repeated.first,
                    )
                    if repeated.reference is not None
                    else Message(
                        "{path}: row {number}: the same game as row {first} (same ladder, date, "
                        "event, round, table and players); {advice}",
                        path=path,
                        number=number,
                        first=repeated.first,
                        advice=repeat_games(
                            Message("in a 'reference' column"), Message("in 'table'")
                        ),
                    )
                )
                continue
            except Invalid as exc:  # a value that would not read back as written
                errors.append(
                    Message("{path}: row {number}: {exc}", path=path, number=number, exc=exc)
                )
                continue
            if known is None:
                memo.learn(cells, state, facts, checks.family(state, facts.date))
        added = batch.added
        for name, numbers in unknown_ladders.items():
            if len(numbers) > 1:
                errors.append(
                    Message(
                        "{path}: {count} more rows name the unknown ladder {name!r} (rows {rows})",
                        path=path,
                        count=len(numbers) - 1,
                        name=name,
                        rows=_ranges(numbers[1:]),
                    )
                )
        warnings = name_warnings(app, label, book.new, book.first_row)
        if strict and warnings:
            errors.extend(Message("{w} (refused under --strict)", w=w) for w in warnings)
        if errors:
            raise Invalid(Lines([*sheet.notices, *errors]))
        warnings[:0] = sheet.notices
        warnings.extend(retired_notes)
        registrations = batch.registrations(book)
        if not dry_run:
            batch.append(registrations, progress)
    finally:
        batch.close()
    report = ImportReport(
        file=str(path),
        rows=sheet.count,
        added=added,
        skipped=len(skipped),
        new_players=sorted(book.new.values()),
        dry_run=dry_run,
        skipped_rows=skipped,
        warnings=warnings,
    )
    events: list[Any] = [*registrations, *batch.events] if dry_run else []
    return ImportPlan(report, events, label)


def _records(sheet: Sheet) -> Iterator[tuple[int, list[Any]]]:
    """Each data row as (row number, its cells in column order: a CSV row as
    read, a row of another sheet from its dict, an absent cell as None)."""
    if isinstance(sheet.rows, CsvRows):
        return sheet.rows.records()
    columns = sheet.columns
    return ((number, [row.get(c) for c in columns]) for number, row in sheet.rows)


def _copied(result: dict[str, Any]) -> dict[str, Any]:
    """A result of its own (its lists too)."""
    return {k: list(v) if isinstance(v, list) else v for k, v in result.items()}


def _ladders(
    commands: Commands, sheet: Sheet, default: str | None
) -> dict[str, LadderState | None]:
    """The ladders the sheet names, by name as written (None: unknown)."""
    names = set(sheet.ladder_names)
    if default:
        names.add(default)
    found: dict[str, LadderState | None] = {}
    for name in sorted(names):
        try:
            found[name] = commands.app.ladder(name)
        except LedgerError:
            found[name] = None
    return found


def _same_game(stored: ev.GameFacts, checked: ev.GameFacts) -> bool:
    """A re-imported row (checked by its family) is the recorded game when
    its result and every other fact but the order of play agree."""
    keep = msgspec.structs.replace(stored, sequence=None)
    return msgspec.to_builtins(keep) == msgspec.to_builtins(checked)


def _names(app: Any, book: PlayerBook) -> Callable[[UUID], str]:
    """A player's name by id (a player the import registers by the name the
    sheet gives), read once each."""
    cache: dict[UUID, str] = {}

    def name_of(pid: UUID) -> str:
        if pid not in cache:
            new = {p: book.new[k] for k, p in book.new_ids().items()}
            try:
                cache[pid] = new.get(pid) or app.player(pid).name
            except LedgerError:
                cache[pid] = short(pid)
        return cache[pid]

    return name_of


def name_warnings(
    app: Any, label: str, new: Mapping[str, str], first_row: Mapping[str, int]
) -> list[str]:
    """Warnings for new players (``new``: name key -> name, ``first_row``:
    name key -> the sheet row naming them) whose names are close to known
    ones (``game_input.close_to_known``)."""
    return [
        Message(
            "{file}: row {row}: {text}",
            file=label,
            row=first_row[key],
            text=typo_warning(new[key], close),
        )
        for key, close in close_to_known(app, new).items()
    ]


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
