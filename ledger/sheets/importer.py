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
the checked games wait for the append in their stored form in a temporary
file (``EventSpill``), so an import takes the same memory at any size. A row
is checked in full when one of its cells is new; a row of cells all read
before is made from what they were read as (``ledger.sheets.cell_memo``), which
gives the same game, the same errors and the same report.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec

from ledger.families.base import FamilyError
from ledger.families.registry import BUILT_IN, family_class
from ledger.kernel import events as ev
from ledger.kernel.errors import Invalid, LedgerError
from ledger.kernel.identity import game_id, game_identity, short
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
from ledger.write.application import MsgspecMapper, now
from ledger.write.commands import Commands, DuplicateGame
from ledger.write.game_identities import GameIdentities, corrected, explain
from ledger.write.game_input import (
    PURE_CHECKS,
    GameChecks,
    GameInput,
    PlayerBook,
    build_facts,
    close_to_known,
    parse_date,
    typo_warning,
)
from ledger.write.recorders import EventRow, event_rows
from ledger.write.state import LadderState
from ledger.write.write_index import round_key

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
        raise Invalid(f"{column}: {cell!r} holds a line break; {what} is one line", field=column)
    return cell


def _side(cell: str, column: str) -> list[str]:
    """A side cell's player names (team members separated by ';')."""
    return list(_side_names(cell, column))


@lru_cache(maxsize=65536)
def _side_names(cell: str, column: str) -> tuple[str, ...]:
    """``_side``, read once per cell text (a sheet names its sides again and
    again; a refused cell is not remembered and is refused each time)."""
    _one_line(cell, column, "a player's name (team members are separated by ';')")
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
        raise Invalid(f"neutral: {row['neutral']!r} is not yes or no", field="neutral")
    event = get("event")
    if event:
        _one_line(event, "event", "an event id")
    ladder = get("ladder")
    result = {}
    for column in layout.results:
        cell = get(column)
        if cell and cell.strip():
            result[column] = cell
    return GameInput(
        ladder=_one_line(ladder.strip(), "ladder", "a ladder's name") if ladder else "",
        date=(get("date") or "").strip(),
        sides=sides,
        result=result,
        event=event,
        round=get("round"),
        table=get("table"),
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
            raise Invalid(str(exc), field=exc.field or column) from None
    return values


def result_columns(ladders: Iterable[LadderState]) -> tuple[str, ...]:
    """The result columns the families of these ladders accept (every
    ruleset's), or every built-in family's when no ladder is known."""
    families = {rs.family for ladder in ladders for rs in ladder.rulesets}
    classes = [family_class(f) for f in sorted(families)] or list(BUILT_IN.values())
    return tuple(dict.fromkeys(f for cls in classes for f in cls.result_fields))


def load_sheet(path: Path, sheet: str | None = None) -> Sheet:
    """A result sheet from a CSV file (``ledger.sheets.sheet``) or an Excel
    workbook (``ledger.sheets.workbook``), by extension."""
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        from ledger.sheets.workbook import (
            load_sheet as load_workbook_sheet,  # openpyxl: when needed
        )

        return load_workbook_sheet(path, sheet)
    if sheet is not None:
        raise Invalid(f"{path}: --sheet applies to Excel workbooks (.xlsx) only")
    return read_csv(path)


def import_sheet(
    commands: Commands,
    path: Path,
    dry_run: bool = False,
    ladder: str | None = None,
    sheet_name: str | None = None,
    strict: bool = False,
    progress: Callable[[int, int], None] | None = None,
    again: bool = False,
) -> ImportPlan:
    """Validate a whole sheet, then (unless ``dry_run``) append its games in
    one transaction.

    ``ladder`` is the ladder of rows that name none. A new player whose name
    is close to a known one is a warning, or an error under ``strict``.
    ``progress(done, total)`` is told how many rows are checked so far.
    A row that is a game the referee voided, or a game as it was before a
    correction, is skipped with a warning saying so; ``again`` records such
    rows as games again (an explicit act, never a re-import's default).

    Memory stays bounded whatever the sheet: the rows are read from the file
    and checked one by one, each game's event is kept only as its stored form
    in a temporary file (``EventSpill``), and once every row is good they are
    appended in batches inside one transaction. ``ImportPlan.events`` holds
    the events in a dry run only (the CLI previews them on the views).
    """
    with _paused_gc():
        return _import_sheet(commands, path, dry_run, ladder, sheet_name, strict, progress, again)


@contextlib.contextmanager
def _paused_gc() -> Iterator[None]:
    """No cyclic garbage collection while a sheet is checked and appended:
    its rows make no cycles, and with a million games' ids and caches held
    each full collection would walk them all again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _import_sheet(
    commands: Commands,
    path: Path,
    dry_run: bool,
    ladder: str | None,
    sheet_name: str | None,
    strict: bool,
    progress: Callable[[int, int], None] | None,
    again: bool,
) -> ImportPlan:
    app = commands.app
    sheet = load_sheet(path, sheet_name)
    ladders = _ladders(commands, sheet, ladder)
    known_ladders = [state for state in ladders.values() if state is not None]
    columns = result_columns(known_ladders)
    check_columns(sheet.label, sheet.columns, columns, ladder_given=ladder is not None)
    book = PlayerBook(app, add_players=True)
    known_games = app.known_game_ids()
    identities = GameIdentities.load(app)
    stored_rounds = app.last_sequences(state.id for state in known_ladders)
    checks = GameChecks()
    name_of = _names(app, book)
    retired_notes: list[str] = []
    at = now()  # one import, one transaction, one moment
    errors: list[str] = list(sheet.bad_rows)
    previewed: list[ev.GameRecorded] = []  # a dry run's events
    # The first row of each game (by its id as a number: a million games
    # must fit in memory while their events do not).
    first_row: dict[int, int] = {}
    skipped: list[int] = []
    sequences: dict[str, int] = {}
    unknown_ladders: dict[str, list[int]] = {}
    layout = Layout.of(sheet.columns, columns, sheet.decimal_comma)
    spill = None if dry_run else EventSpill(app.mapper)
    memo = CellMemo(
        sheet.columns,
        layout.sides,
        (*(["neutral"] if "neutral" in sheet.columns else []), *layout.results, *layout.attributes),
        ladder,
        PURE_CHECKS,
    )
    label, by = sheet.label, commands.by
    known_games_get = known_games.__contains__
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
                state, dated, sides, result, neutral, attributes, event_of, round_of, table = known
                if len(sides) == 2:
                    a, b = sides[0].texts, sides[1].texts
                    if len(a) == 1 and len(b) == 1:  # one player a side: most games
                        who = [a[0], b[0]] if a[0] < b[0] else [b[0], a[0]]
                    else:
                        who = sorted(a + b)
                else:
                    who = sorted([t for side in sides for t in side.texts])
                # ``identity.game_identity`` and ``write_index.round_key`` of
                # these facts, from the date's common start.
                identity = (
                    f"{dated.prefix}{event_of or ''}|{round_of or ''}|{table or ''}|{','.join(who)}"
                )
                round_key_ = (
                    f"{dated.prefix}{event_of or ''}|{'' if round_of is None else round_of}"
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
                    date=dated.on,
                    sides=player_ids,
                    result=result,
                    event=event_of,
                    round=round_of,
                    table=table,
                    neutral=neutral,
                    attributes=attributes,
                )
            else:
                book.row = number
                try:
                    # An absent cell is None here, as ``get`` gives it.
                    inp = row_input(dict(zip(sheet.columns, cells, strict=False)), layout)
                    name = inp.ladder or ladder
                    if not name:
                        raise Invalid(
                            "no ladder given (fill the column or pass --ladder)", field="ladder"
                        )
                    state = ladders.get(name)
                    if state is None:
                        if name in unknown_ladders:
                            unknown_ladders[name].append(number)
                            continue
                        unknown_ladders[name] = [number]
                        raise Invalid(
                            f"unknown ladder {name!r} (see 'ledger ladder list')", field="ladder"
                        )
                    inp.result = _cells(state, inp, checks)
                    facts = commands.check_game(state, build_facts(state, inp, book), checks)
                except Invalid as exc:
                    errors.append(f"{path}: row {number}, column {exc.field or '?'}: {exc}")
                    continue
                identity = game_identity(facts)
                round_key_ = round_key(facts.ladder, facts.date, facts.event, facts.round)
                table = facts.table
            gid = game_id(identity)
            version = 1
            if known_games_get(gid.int):
                # Recorded before (or voided, or corrected since): read in full.
                try:
                    gid, version = commands.place_game(facts, known_games)
                except DuplicateGame as dup:
                    earlier = identities.earlier_version(dup.gid, facts)
                    if _same_game(dup.facts, facts):
                        skipped.append(number)
                    elif earlier is not None:
                        skipped.append(number)
                        retired_notes.append(
                            f"{label}: row {number}: not added: "
                            f"{corrected(dup.gid, earlier, name_of)}"
                        )
                    else:
                        errors.append(
                            f"{path}: row {number}: game {short(dup.gid)} is already recorded "
                            "with a different result; use 'ledger correct "
                            f"{short(dup.gid)}' to change it"
                        )
                    continue
            if identities and not again:
                retired = identities.retired(identity)
                if retired is not None:
                    # The referee already dealt with this game: never silently back.
                    skipped.append(number)
                    retired_notes.append(
                        f"{label}: row {number}: not added: "
                        f"{explain(retired, identity, name_of)} (import with --again to record "
                        "it as a game again)"
                    )
                    continue
            key = gid.int
            if key in first_row:
                errors.append(
                    f"{path}: row {number}: the same game as row {first_row[key]} (same "
                    "ladder, date, event, round, table and players); give one a different 'table'"
                )
                continue
            first_row[key] = number
            # Numbered in sheet order: the order of play of rows without a
            # table (``Commands.sequenced``, with the rounds read at once).
            last = sequences.get(round_key_)
            if last is None:
                last = stored_rounds.get(round_key_, 0)
            sequence = table if table is not None else last + 1
            sequences[round_key_] = sequence if sequence > last else last
            game = msgspec.structs.replace(facts, sequence=sequence)
            event = ev.GameRecorded(
                originator_id=gid,
                originator_version=version,
                recorded_at=at,
                recorded_by=by,
                source=ev.Source(label, number),
                game=game,
            )
            if errors:
                # Nothing will be appended: keep checking, store nothing.
                if known is None:
                    memo.learn(cells, state, facts, checks.family(state, facts.date))
                continue
            if spill is None:
                previewed.append(event)
            elif known is not None:
                # Its every value read back as written in an earlier event.
                spill.write(event, read_back=False)
                continue
            else:
                try:
                    spill.write(event)
                except Invalid as exc:  # a value that would not read back as written
                    errors.append(f"{path}: row {number}: {exc}")
                    continue
            if known is None:
                memo.learn(cells, state, facts, checks.family(state, facts.date))
        added = len(first_row)
        del first_row
        for name, numbers in unknown_ladders.items():
            if len(numbers) > 1:
                errors.append(
                    f"{path}: {len(numbers) - 1} more rows name the unknown ladder {name!r} "
                    f"(rows {_ranges(numbers[1:])})"
                )
        warnings = name_warnings(app, sheet.label, book.new, book.first_row)
        if strict and warnings:
            errors.extend(f"{w} (refused under --strict)" for w in warnings)
        if errors:
            raise Invalid("\n".join([*sheet.notices, *errors]))
        warnings[:0] = sheet.notices
        warnings.extend(retired_notes)
        registrations = [
            commands.registration(
                pid, book.new[key], ev.Source(sheet.label, book.first_row[key]), at
            )
            for key, pid in book.new_ids().items()
        ]
        if spill is not None:
            # Each round's last number as handed out here: the write index
            # takes it as is, never decoding the games again.
            app.append_batches(spill.batches(registrations), rounds=sequences)
    finally:
        if spill is not None:
            spill.close()
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
    events: list[Any] = [*registrations, *previewed] if dry_run else []
    return ImportPlan(report, events, sheet.label)


class EventSpill:
    """Events checked but not yet appended, kept in their stored form in a
    temporary file (a million games' events do not fit in memory; the file
    is about the size they take in the store), then read back in batches.

    The file holds the batches as the rows of the events table (``EventRow``)
    marshalled a batch at a time, each after its length: each batch is
    written and read back in one call, never a row at a time."""

    BATCH = 5000

    def __init__(self, mapper: MsgspecMapper) -> None:
        self.mapper = mapper
        self.file = tempfile.TemporaryFile(prefix="ledger-import-")  # noqa: SIM115 - see close
        self.count = 0
        self._rows: list[EventRow] = []  # the batch being filled
        self._endings: dict[type, bytes] = {}  # see _encode
        self._batches = 0  # batches in the file

    def write(self, event: Any, read_back: bool = True) -> None:
        """Map an event for the store (refused if it would not read back)
        and keep it. ``read_back=False``: an event made only of values that
        read back as written in events kept before (``ledger.sheets.cell_memo``),
        mapped as ``MsgspecMapper.stored_state`` maps it but for that guard."""
        if read_back:
            state = self.mapper.stored_state(event)
        else:
            mapper = self.mapper
            state = self._encode(event)
            if mapper.compressor:
                state = mapper.compressor.compress(state)
            if mapper.cipher:
                state = mapper.cipher.encrypt(state)
        rows = self._rows
        rows.append((event.originator_id.hex, event.originator_version, event.TOPIC, state))
        self.count += 1
        if len(rows) >= self.BATCH:
            self._dump()

    def _encode(self, event: Any) -> bytes:
        """``events.encode(event)``: the struct's JSON with its class's ending
        (its class version), found once per class from ``events.encode``."""
        plain = _json_encode(event)
        ending = self._endings.get(type(event))
        if ending is None:
            whole = ev.encode(event)
            if whole[: len(plain) - 1] != plain[:-1]:  # pragma: no cover - not its shape
                return whole
            ending = self._endings[type(event)] = whole[len(plain) - 1 :]
        return plain[:-1] + ending

    def _dump(self) -> None:
        """Write the batch being filled to the file."""
        data = marshal.dumps(self._rows)
        try:
            self.file.write(len(data).to_bytes(8, "little"))
            self.file.write(data)  # not joined to its length: no copy of the batch
        except OSError as exc:
            raise _refused(exc) from None
        self._rows = []
        self._batches += 1

    def batches(self, first: Sequence[Any]) -> SpillBatches:
        """``first`` (events appended before the kept ones), then the kept
        events, in batches."""
        return SpillBatches(self, first)

    def read(self) -> Iterator[tuple[list[EventRow], list[Any]]]:
        """The kept events in batches of ``BATCH``, as rows of the events
        table, with no decoded event (the write index takes the games'
        rounds from the import, ``rounds`` of ``append_batches``)."""
        if self._rows:
            self._dump()
        try:
            self.file.flush()
        except OSError as exc:
            raise _refused(exc) from None
        self.file.seek(0)
        read = self.file.read
        for _ in range(self._batches):
            # One read a batch (``marshal.load`` on a file reads per value).
            yield marshal.loads(read(int.from_bytes(read(8), "little"))), []

    def close(self) -> None:
        """Drop the file (its last writes may fail: they are not wanted)."""
        with contextlib.suppress(OSError):
            self.file.close()


_json_encode = msgspec.json.Encoder().encode


def _refused(exc: OSError) -> LedgerError:
    """The temporary file of checked games could not be written."""
    return LedgerError(
        "the disk refused a write (full, over a size limit, or failing) while keeping the "
        f"checked games in a temporary file ({exc.strerror or exc}): nothing of it was stored. "
        "Free some space (or point TMPDIR to a disk with room) and run it again."
    )


class SpillBatches:
    """What an import appends, batch by batch: its first events (the new
    players), then the spilled games. Read again from the start on each pass
    (a PostgreSQL append whose connection fails is retried whole)."""

    def __init__(self, spill: EventSpill, first: Sequence[Any]) -> None:
        self.spill, self.first = spill, first

    def __iter__(self) -> Iterator[tuple[list[EventRow], list[Any]]]:
        if self.first:
            stored = [self.spill.mapper.to_stored_event(e) for e in self.first]
            yield event_rows(stored), list(self.first)
        yield from self.spill.read()


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
        f"{label}: row {first_row[key]}: {typo_warning(new[key], close)}"
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
