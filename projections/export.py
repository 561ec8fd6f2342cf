"""A whole ladder as open data: its games, rating changes and players.

``ladder_tables`` describes three tables whose rows are produced lazily from
the views (one streaming SELECT each), so an export of a million games holds
one row at a time, not the ladder:

- ``games``: one row per game, voided ones too, in effective order: ids,
  date, event, round, table, sequence, status, one column per side (names,
  ``;`` between team members, and the player ids the same way), one
  ``result_*`` column per result field, one ``attr_*`` column per attribute,
  ``neutral``, the sheet row it was imported from, who recorded it and when;
- ``changes``: one row per rating change in effective order: the entry (game,
  adjustment, season close), the player, K, P, S, before, change, after;
- ``players``: the ladder's players with their current rating.

Written as one CSV file per table in a directory, one JSON object of three
arrays of records, one XLSX workbook of three sheets, or one Parquet file per
table in a directory (``projections.parquet``: each column typed as
``Table.kinds`` says; pyarrow is an optional extra). Spreadsheet formats
(CSV, XLSX) neutralise text cells that a spreadsheet would run as a formula:
a text cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return gets a leading apostrophe (``=1+1`` is written ``'=1+1``). Numbers are
written as numbers and never altered.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from ledger.kernel import collection
from ledger.kernel.errors import Invalid
from ledger.kernel.identity import short
from ledger.kernel.translation import Message
from projections import parquet, queries
from projections.db import Database
from projections.formats import neutralise, render
from projections.formats import write_csv as write_csv_rows
from projections.parquet import ColumnKind
from projections.site import tables

FORMATS = ("csv", "json", "xlsx", "parquet")
#: The formats written as one file per table in a directory.
DIRECTORY_FORMATS = ("csv", "parquet")
#: History lines rendered at a time by ``write_history``.
HISTORY_BATCH = 5_000
#: Rows per XLSX sheet (Excel's limit, less the header); longer tables go on.
XLSX_ROWS = 1_048_575


class Table(msgspec.Struct):
    """One exported table: its name, its columns, and its rows (lazy).

    ``kinds`` says what each column holds (its type in a Parquet file);
    ``required`` names the columns that are never empty."""

    name: str
    columns: list[str]
    rows: Iterable[list[Any]]
    kinds: list[ColumnKind]
    required: frozenset[str] = frozenset()


class ExportReport(msgspec.Struct):
    ladder: str
    format: str
    written: list[str]
    rows: dict[str, int]


class PlayerHistoryLine(msgspec.Struct):
    """One line of a player's history, naming the player (``history LADDER``):
    ``queries.HistoryLine``'s fields after the player's name."""

    player: str
    date: str
    kind: str
    game: str | None
    event: str | None
    round: int | None
    table: int | None
    opponents: str
    result: str | None
    margin: str | None
    s: float | None
    p: float | None
    k: float | None
    before: float
    after: float
    change: float
    note: str


# -- the tables -------------------------------------------------------------------
def ladder_tables(conn: Database, ladder: str) -> list[Table]:
    """The games, changes and players tables of a ladder (rows read lazily)."""
    lid = queries.ladder_row(conn, ladder)["id"]
    who = tables.player_names(conn)
    result_keys, attribute_keys, n_sides = tables.result_and_attribute_keys(conn, lid)
    sides = [chr(ord("a") + i) for i in range(n_sides)]
    games_columns = [
        "game_id", "short_id", "date", "event", "round", "table", "sequence", "status",
        *[f"side_{s}" for s in sides], *[f"side_{s}_ids" for s in sides],
        *[f"result_{k}" for k in result_keys], *[f"attr_{k}" for k in attribute_keys],
        "neutral", "source", "recorded_at", "recorded_by",
    ]  # fmt: skip
    state_keys = _state_keys(conn, lid)
    changes_columns = [
        "date", "kind", "entry_id", "game_short_id", "event", "round", "player_id", "player",
        "side", "opponents", "k", "p", "s", "before", "change", "after", "games_after", "note",
        *[f"state_{k}" for k in state_keys],
    ]  # fmt: skip
    players_columns = [
        "player_id", "player", "rating", "games", "last_played", "rated_since", "registered_at",
    ]  # fmt: skip
    games_kinds: list[ColumnKind] = [
        "text", "text", "date", "text", "integer", "integer", "integer", "text",
        *["text"] * (2 * n_sides), *_result_kinds(conn, lid, result_keys),
        *["number"] * len(attribute_keys), "boolean", "text", "timestamp", "text",
    ]  # fmt: skip
    changes_kinds: list[ColumnKind] = [
        "date", "text", "text", "text", "text", "integer", "text", "text",
        "text", "text", "number", "number", "number", "number", "number", "number", "integer",
        "text", *["number"] * len(state_keys),
    ]  # fmt: skip
    players_kinds: list[ColumnKind] = [
        "text", "text", "number", "integer", "date", "date", "timestamp",
    ]  # fmt: skip
    return [
        Table(
            "games",
            games_columns,
            _game_rows(conn, lid, who, result_keys, attribute_keys, n_sides),
            games_kinds,
            frozenset(("game_id", "short_id", "date", "status", "neutral")),
        ),
        Table(
            "changes",
            changes_columns,
            _change_rows(conn, lid, who, state_keys),
            changes_kinds,
            frozenset(("date", "kind", "entry_id", "player_id", "before", "change", "after")),
        ),
        Table(
            "players",
            players_columns,
            (list(r) for r in tables.ladder_players(conn, lid)),
            players_kinds,
            frozenset(("player_id", "rating", "games")),
        ),
    ]


def _result_kinds(conn: Database, lid: str, result_keys: list[str]) -> list[ColumnKind]:
    """What each ``result_*`` column holds, read from the fields of the
    ``Result`` of the ladder's families: a number where every ruleset's
    family types that field as one, text otherwise (codes; lists and tables
    as JSON; a family that cannot be loaded here)."""
    import msgspec.inspect

    from ledger.families.registry import family_class

    found: dict[str, set[ColumnKind]] = {key: set() for key in result_keys}
    for _, ruleset in tables.rulesets(conn, lid):
        try:
            result = family_class(ruleset["family"]).Result
        except Exception:  # noqa: BLE001 - an untrusted or missing family: its fields as text
            return ["text"] * len(result_keys)
        fields = {f.encode_name: f.type for f in msgspec.inspect.type_info(result).fields}
        for key in result_keys:
            found[key].add(_kind_of(fields[key]) if key in fields else "text")
    return [kinds.pop() if len(kinds) == 1 else "text" for kinds in found.values()]


def _kind_of(t: msgspec.inspect.Type) -> ColumnKind:
    """The column kind of a result field's type (``None`` allowed: cells may be empty)."""
    inspect = msgspec.inspect
    if isinstance(t, inspect.UnionType):
        others = [u for u in t.types if not isinstance(u, inspect.NoneType)]
        return _kind_of(others[0]) if len(others) == 1 else "text"
    if isinstance(t, inspect.BoolType):
        return "boolean"
    if isinstance(t, inspect.IntType):
        return "integer"
    if isinstance(t, inspect.FloatType):
        return "number"
    return "text"


def _game_rows(
    conn: Database,
    lid: str,
    who: dict[str, str],
    result_keys: list[str],
    attribute_keys: list[str],
    n_sides: int,
) -> Iterator[list[Any]]:
    decode = msgspec.json.Decoder(dict[str, Any]).decode
    for (
        gid,
        short_id,
        status,
        facts_json,
        recorded_at,
        recorded_by,
        source,
    ) in tables.games_by_short(conn, lid):
        facts = decode(facts_json)
        sides = facts["sides"] + [[]] * (n_sides - len(facts["sides"]))
        result = facts["result"]
        attributes = facts.get("attributes") or {}
        yield [
            gid, short_id, facts["date"], facts.get("event"), facts.get("round"),
            facts.get("table"), facts.get("sequence"), status,
            *[";".join(who.get(p, p) for p in side) for side in sides],
            *[";".join(side) for side in sides],
            *[_plain(result.get(k)) for k in result_keys],
            *[attributes.get(k) for k in attribute_keys],
            bool(facts.get("neutral", False)), source, recorded_at, recorded_by,
        ]  # fmt: skip


def _plain(value: Any) -> Any:
    """A result value as one cell (lists and dicts as JSON text)."""
    if isinstance(value, list | dict):
        return msgspec.json.encode(value).decode()
    return value


def _state_keys(conn: Database, lid: str) -> list[str]:
    """The state values (``Family.state_columns``) of the families a ladder
    was rated by, in order: a ``state_NAME`` column each in the changes."""
    from ledger.families.registry import family_class

    keys: dict[str, None] = {}
    for _, ruleset in tables.rulesets(conn, lid):
        try:
            keys.update(dict.fromkeys(family_class(ruleset["family"]).state_columns))
        except Exception:  # noqa: BLE001 - an untrusted or missing family: none known
            continue
    return list(keys)


def _change_rows(
    conn: Database, lid: str, who: dict[str, str], state_keys: list[str]
) -> Iterator[list[Any]]:
    for r in tables.history_rows(conn, lid, tables.ALL, by_player=False):
        row = dict(zip(tables.HISTORY_COLUMNS, r, strict=True))
        state = row["state"] or {}
        opponents = ";".join(who.get(o, o) for o in row["opponents"].split(",") if o)
        yield [
            row["date"], row["kind"], row["entry"],
            short(row["entry"]) if row["kind"] == "game" else None,
            row["event"], row["round"], row["player"], who.get(row["player"], row["player"]),
            chr(ord("a") + row["side"]) if row["kind"] == "game" else None, opponents,
            row["k"], row["p"], row["s"], row["before"], row["change"], row["after"],
            row["games_after"], row["note"], *[state.get(k) for k in state_keys],
        ]  # fmt: skip


def all_histories(conn: Database, ladder: str) -> Iterator[PlayerHistoryLine]:
    """Every player's history in a ladder (``ledger history LADDER``): the
    lines of ``queries.history`` for each player, player by player (in
    player-id order), each in effective order; streamed."""
    lid = queries.ladder_row(conn, ladder)["id"]
    who = tables.player_names(conn)
    for r in tables.history_rows(conn, lid, tables.ALL, by_player=True):
        row = dict(zip(tables.HISTORY_COLUMNS, r, strict=True))
        facts = row["facts"]
        result, margin = queries.outcome(facts, row["side"]) if facts else (None, None)
        yield PlayerHistoryLine(
            player=who.get(row["player"], row["player"]),
            date=row["date"],
            kind=row["kind"],
            game=short(row["entry"]) if row["kind"] == "game" else None,
            event=row["event"],
            round=row["round"],
            table=facts.table if facts is not None else None,
            opponents=", ".join(who.get(o, o) for o in row["opponents"].split(",") if o),
            result=result,
            margin=margin,
            s=row["s"],
            p=row["p"],
            k=row["k"],
            before=row["before"],
            after=row["after"],
            change=row["change"],
            note=row["note"],
        )


def write_history(lines: Iterable[PlayerHistoryLine], fmt: str, out: IO[str]) -> int:
    """``history LADDER`` as csv or json text on ``out``, the same text
    ``projections.formats.render`` gives for the whole list, written a batch of
    lines at a time (bounded memory at any ladder size). Returns the lines."""
    if fmt not in ("csv", "json"):
        raise Invalid(Message("streamed history is csv or json, not {fmt!r}", fmt=fmt))
    n = 0
    batch: list[PlayerHistoryLine] = []
    if fmt == "json":
        out.write("[")

    def flush() -> None:
        if fmt == "csv":
            text = render(batch, "csv", kind=PlayerHistoryLine)
            out.write((text if n == len(batch) else text.split("\n", 1)[1]) + "\n")
        else:
            body = render(batch, "json")[1:-1].strip("\n")  # the records, without [ ]
            out.write(("\n" if n == len(batch) else ",\n") + body)

    for line in lines:
        batch.append(line)
        n += 1
        if len(batch) == HISTORY_BATCH:
            flush()
            batch = []
    if batch or (n == 0 and fmt == "csv"):
        flush()
    if fmt == "json":
        out.write("\n]\n" if n else "]\n")
    return n


# -- writers ----------------------------------------------------------------------
def write_csv(table: Table, out: IO[str]) -> int:
    """One table as CSV (header first, text cells spreadsheet-safe); returns
    the number of rows."""
    return write_csv_rows(out, table.columns, table.rows)


def write_json(name: str, tables_: list[Table], out: IO[str]) -> dict[str, int]:
    """``{"ladder": name, "games": [{...}], "changes": [...], "players": [...]}``,
    written record by record."""
    encode = msgspec.json.Encoder().encode
    counts = {}
    out.write('{"ladder": ' + encode(name).decode())
    for table in tables_:
        out.write(f',\n"{table.name}": [')
        n = 0
        for row in table.rows:
            record = dict(zip(table.columns, row, strict=True))
            out.write(("\n" if n == 0 else ",\n") + encode(record).decode())
            n += 1
        out.write("\n]")
        counts[table.name] = n
    out.write("}\n")
    return counts


def write_xlsx(tables_: list[Table], path: Path) -> dict[str, int]:
    """One sheet per table (continued on "NAME (2)", ... past Excel's row
    limit), streamed with openpyxl's write-only workbook."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    counts = {}
    for table in tables_:
        part, n, sheet = 1, 0, None
        for row in table.rows:
            if sheet is None or n >= XLSX_ROWS * part:
                if sheet is not None:
                    part += 1
                sheet = book.create_sheet(table.name if part == 1 else f"{table.name} ({part})")
                sheet.append(table.columns)
            sheet.append([neutralise(v) for v in row])
            n += 1
        if sheet is None:
            book.create_sheet(table.name).append(table.columns)
        counts[table.name] = n
    book.save(path)
    return counts


@collection.paused()
def export_ladder(
    conn: Database, ladder: str, fmt: str, output: Path | None, out: IO[str] | None = None
) -> ExportReport:
    """Write a ladder's tables: csv into the directory ``output`` (games.csv,
    changes.csv, players.csv), parquet the same way (games.parquet, ...),
    json to ``output`` or ``out``, xlsx to ``output``. Writes nothing
    anywhere else. Runs with the cyclic garbage collector paused
    (``collection``: a ladder's rows held, none of them freed meanwhile; 1M
    elo games in csv: 156 full collections, 70-77 -> 56-62 s CPU)."""
    if fmt not in FORMATS:
        raise Invalid(
            Message(
                "--format must be one of {formats}, got {fmt!r}",
                formats=", ".join(FORMATS),
                fmt=fmt,
            )
        )
    name = queries.ladder_row(conn, ladder)["name"]
    tables_ = ladder_tables(conn, ladder)
    if fmt in DIRECTORY_FORMATS:
        if output is None:
            raise Invalid(
                Message("--format {fmt} writes one file per table: give -o DIRECTORY", fmt=fmt)
            )
        if output.exists() and not output.is_dir():
            raise Invalid(
                Message(
                    "-o {output}: expected a directory for --format {fmt}, found a file",
                    output=output,
                    fmt=fmt,
                )
            )
        if fmt == "parquet":
            parquet.arrow()  # not installed: say so before anything is written
        output.mkdir(parents=True, exist_ok=True)
        counts, written = {}, []
        for table in tables_:
            path = output / f"{table.name}.{fmt}"
            if fmt == "parquet":
                counts[table.name] = parquet.write_parquet(
                    path, table.name, table.columns, table.kinds, table.rows, table.required
                )
            else:
                with path.open("w", encoding="utf-8", newline="") as f:
                    counts[table.name] = write_csv(table, f)
            written.append(str(path))
        return ExportReport(name, fmt, written, counts)
    if fmt == "xlsx":
        if output is None:
            raise Invalid(Message("--format xlsx needs -o FILE.xlsx"))
        return ExportReport(name, fmt, [str(output)], write_xlsx(tables_, output))
    if output is not None:
        with output.open("w", encoding="utf-8") as f:
            counts = write_json(name, tables_, f)
        return ExportReport(name, fmt, [str(output)], counts)
    assert out is not None, "json without -o goes to the given stream"
    return ExportReport(name, fmt, [], write_json(name, tables_, out))
