"""``ledger teams``: split registered players into fair camps (the thin
command: read players and ratings, call projections.teams.balance, render)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import click
import msgspec

from ledger.cli.context import Ledger, pass_ledger
from ledger.cli.params import DATE
from ledger.families.base import PlayerState
from ledger.families.registry import family_class, load_family
from ledger.kernel.errors import Invalid
from ledger.kernel.identity import name_key
from ledger.sheets.sheet import PLAYER_SEPARATOR, SIDE_COLUMNS
from ledger.sheets.workbook import append_row
from projections import queries
from projections.formats import csv_text
from projections.teams.balance import Balance, Entrant, balance, family_strength

#: The printable sheet of the camp sheet: one column per camp.
CAMPS_SHEET = "Camps"


def read_names(path: Path) -> list[str]:
    """The ``player`` column of a CSV or xlsx sheet, one name a row."""
    if path.suffix.lower() == ".xlsx":
        import openpyxl

        sheet = openpyxl.load_workbook(path, read_only=True, data_only=True).worksheets[0]
        rows = [
            ["" if v is None else str(v) for v in row] for row in sheet.iter_rows(values_only=True)
        ]
    else:
        with path.open(encoding="utf-8-sig", newline="") as f:
            rows = list(csv.reader(f))
    if not rows:
        raise Invalid(f"{path}: empty sheet, expected a 'player' column", field="from")
    header = [h.strip().lower() for h in rows[0]]
    if "player" not in header:
        raise Invalid(f"{path}: no 'player' column (columns: {', '.join(header)})", field="from")
    col = header.index("player")
    return [r[col].strip() for r in rows[1:] if col < len(r) and r[col].strip()]


def split_group(text: str, option: str) -> list[str]:
    names = [n.strip() for n in text.split(";") if n.strip()]
    if len(names) < 2:
        raise Invalid(f"--{option} takes two or more names separated by ';', got {text!r}")
    return [name_key(n) for n in names]


def render_table(result: Balance, ladder: str) -> str:
    out = []
    for number, split in enumerate(result.splits, start=1):
        head = f"{ladder}: {result.camps} camps"
        if len(result.splits) > 1:
            head += f", split {number} of {len(result.splits)}"
        out.append(head)
        for camp in split.camps:
            vs = ", ".join(f"{p:.2f} vs {c}" for c, p in camp.expected.items())
            out.append(f"  Camp {camp.camp}: side rating {camp.side_rating:g}; expected {vs}")
            for p in camp.players:
                flag = "  (new player, initial rating)" if p.new else ""
                grade = f"  {p.grade}" if p.grade else ""
                out.append(f"    {p.player:<28} {p.rating:>8g}{grade}{flag}")
        proof = "proven optimum" if result.status == "optimal" else "best found, not proven"
        within = "within a point" if split.gap_points == 1 else f"{split.gap_points} rounded up"
        out.append(
            f"  Gap: {split.gap:g} rating points between side ratings "
            f"({within}, {proof}); expected-score gap {split.expected_gap:.4f}"
        )
        if result.top_grades:
            spread = "least possible" if result.spread_proven else "best found"
            out.append(
                f"  Top grades ({', '.join(result.top_grades)}) per camp: "
                + ", ".join(f"{c.camp} {c.top_grades}" for c in split.camps)
                + f" ({spread})"
            )
        out.append("")
    if result.status != "optimal":
        out.append(
            f"Time limit reached: no split can have a gap of {result.bound_points - 1} "
            "points or less; a better one may exist."
            if result.bound_points > 0
            else "Time limit reached: the best split found is shown, not proven optimal."
        )
    return "\n".join(out).rstrip()


CSV_COLUMNS = ["split", "camp", "player", "rating", "grade", "new", "side_rating"]


def csv_rows(result: Balance) -> list[list[Any]]:
    """The splits as CSV rows (numbers as numbers: a text cell is neutralised)."""
    rows: list[list[Any]] = []
    for number, split in enumerate(result.splits, start=1):
        for camp in split.camps:
            for p in camp.players:
                rows.append([number, camp.camp, p.player, p.rating, p.grade or "",
                             "yes" if p.new else "", camp.side_rating])  # fmt: skip
    return rows


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def camp_games(camps: Sequence[Sequence[str]], max_sides: int) -> list[dict[str, str]]:
    """The games a referee plays between the camps, as result-sheet cells
    (sides as "A;B;C", round, table), results left blank.

    Two camps: one game, A against B. More camps, when the family rates a
    game of that many sides (bga): one game with every camp a side. Otherwise
    every pair of camps once, in rounds where each camp plays at most once
    (the circle method: with an odd number of camps one sits out each round),
    numbered round 1.., table 1.. within a round.
    """
    sides = [PLAYER_SEPARATOR.join(c) for c in camps]
    if len(sides) == 2 or max_sides >= len(sides):
        return [dict(zip(SIDE_COLUMNS, sides, strict=False))]
    games = []
    for number, pairs in enumerate(round_robin(len(sides)), start=1):
        for table, (a, b) in enumerate(pairs, start=1):
            games.append(
                {"side_a": sides[a], "side_b": sides[b], "round": str(number), "table": str(table)}
            )
    return games


def round_robin(teams: int) -> list[list[tuple[int, int]]]:
    """Rounds in which every pair of ``teams`` meets once (the circle method)."""
    seats: list[int | None] = list(range(teams)) + ([None] if teams % 2 else [])
    rounds = []
    for _ in range(len(seats) - 1):
        pairs = []
        for i in range(len(seats) // 2):
            a, b = seats[i], seats[len(seats) - 1 - i]
            if a is not None and b is not None:
                pairs.append((min(a, b), max(a, b)))
        rounds.append(sorted(pairs))
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return rounds


def write_camp_sheet(
    path: Path, result: Balance, ladder: str, family: str, params: Any, on: date | None
) -> None:
    """The camp sheet: one column per camp (printable), a detail sheet, and
    the family's result sheet ("Result") pre-filled with the camps' games
    (``camp_games``), ready for import once the results are written in."""
    import openpyxl
    from openpyxl.styles import Font

    from ledger.sheets.workbook import add_result_sheet

    split = result.splits[0]
    wb = openpyxl.Workbook()
    camps = wb.active
    camps.title = CAMPS_SHEET
    append_row(camps, [f"Camp {c.camp}" for c in split.camps])
    for cell in camps[1]:
        cell.font = Font(bold=True)
    for i in range(max(len(c.players) for c in split.camps)):
        append_row(
            camps, [c.players[i].player if i < len(c.players) else None for c in split.camps]
        )
    for col in camps.columns:
        camps.column_dimensions[col[0].column_letter].width = 28
    detail = wb.create_sheet("Detail")
    append_row(detail, ["camp", "player", "rating", "grade", "new", "side_rating"])
    for c in split.camps:
        for p in c.players:
            append_row(
                detail,
                [c.camp, p.player, p.rating, p.grade, "yes" if p.new else None, c.side_rating],
            )
    games = camp_games([[p.player for p in c.players] for c in split.camps], _max_sides(family))
    if on is not None:
        games = [{"date": on.isoformat(), **g} for g in games]
    add_result_sheet(wb, family, params=params, ladder=ladder, games=games, title="Result")
    try:
        wb.save(path)
    except OSError as exc:
        raise Invalid(f"{path}: cannot write: {exc.strerror or exc}") from None


def _max_sides(family: str) -> int:
    return family_class(family).max_sides


def read_camps(path: Path, split: int = 1) -> list[list[str]]:
    """The camps (players of each, in order) of a ``ledger teams`` output:
    the json (split number ``split``), the csv (its ``split`` column), or the
    xlsx camp sheet (its "Camps" sheet: one column per camp, a header row)."""
    suffix = path.suffix.lower()
    if not path.exists():
        raise Invalid(f"{path}: no such file", field="camps")
    camps: list[list[str]]
    if suffix == ".json":
        try:
            data = msgspec.json.decode(path.read_bytes(), type=Balance)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise Invalid(f"{path}: not the json of 'ledger teams': {exc}", field="camps") from None
        if not 1 <= split <= len(data.splits):
            raise Invalid(f"{path}: no split {split} (it has {len(data.splits)})", field="split")
        camps = [[p.player for p in c.players] for c in data.splits[split - 1].camps]
    elif suffix == ".xlsx":
        import openpyxl

        if split != 1:
            raise Invalid(f"{path}: a camp sheet holds one split; --split takes json or csv")

        try:
            book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        except Exception as exc:  # openpyxl raises many kinds on a broken file
            raise Invalid(f"{path}: cannot read it as an Excel workbook: {exc}") from None
        if CAMPS_SHEET not in book.sheetnames:
            raise Invalid(f"{path}: no {CAMPS_SHEET!r} sheet (a 'ledger teams' camp sheet has one)")
        columns = list(zip(*book[CAMPS_SHEET].iter_rows(values_only=True), strict=False))
        book.close()
        camps = [[str(v).strip() for v in col[1:] if v is not None and str(v).strip()]
                 for col in columns if col and col[0] is not None]  # fmt: skip
    elif suffix == ".csv":
        with path.open(encoding="utf-8-sig", newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows or not {"split", "camp", "player"} <= set(rows[0]):
            raise Invalid(f"{path}: expected the csv of 'ledger teams' (split, camp, player)")
        by_camp: dict[str, list[str]] = {}
        for row in rows:
            if row["split"].strip() == str(split):
                by_camp.setdefault(row["camp"].strip(), []).append(row["player"].strip())
        camps = list(by_camp.values())
    else:
        raise Invalid(f"{path}: --camps takes the .json, .csv or .xlsx of 'ledger teams'")
    camps = [c for c in camps if c]
    if len(camps) < 2:
        raise Invalid(f"{path}: found {len(camps)} camp(s), need at least two", field="camps")
    return camps


@click.command()
@click.argument("ladder_name", metavar="LADDER")
@click.argument("players", nargs=-1, metavar="[PLAYER...]")
@click.option("--from", "sheet", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help="A .csv or .xlsx with a 'player' column, one name a row.")  # fmt: skip
@click.option("--camps", type=int, required=True, help="How many camps (2 or more).")
@click.option("--sizes", default=None, metavar="4,4,3", help="Camp sizes (default: nearly equal).")
@click.option("--together", multiple=True, metavar='"A;B"', help="Players who share a camp.")
@click.option("--apart", multiple=True, metavar='"C;D"', help="Players in different camps.")
@click.option("--as-of", default=None, type=DATE, help="Ratings as they stood on DATE.")
@click.option("--alternatives", type=int, default=1, show_default=True,
              help="List the K best distinct splits.")  # fmt: skip
@click.option("--time-limit", type=float, default=10.0, show_default=True,
              help="Seconds; past it the best split found is shown, said as such.")  # fmt: skip
@click.option("--date", "on", default=None, type=DATE,
              help="xlsx: the date written in the result sheet's rows.")  # fmt: skip
@click.option("--lang", default="en", show_default=True, help="Language of the grades.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "xlsx"]),
              default="table", show_default=True)  # fmt: skip
@click.option("--output", "-o", type=click.Path(path_type=Path), default=None,
              help="Write to FILE (required for xlsx).")  # fmt: skip
@pass_ledger
def teams(
    led: Ledger, ladder_name: str, players: tuple[str, ...], sheet: Path | None, camps: int,
    sizes: str | None, together: tuple[str, ...], apart: tuple[str, ...], as_of: date | None,
    alternatives: int, time_limit: float, on: date | None, lang: str, fmt: str,
    output: Path | None,
) -> None:  # fmt: skip
    """Split PLAYERs (and --from a sheet) into --camps fair camps.

    Minimises the largest gap between the camps' side ratings (as the
    ladder's family aggregates a side: the mean for Battle Empire and AdlG),
    to the rating point (gaps under a point are ties), then spreads the top
    grades (e.g. Marshals) evenly;
    the answer is the proven optimum unless the time limit is reached, which
    is said. Names unknown to the ladder are new players at the family's
    initial rating (flagged). Families without an Elo side rating (battletech,
    bga, custom) use the mean and the Elo logistic with their divisor (400 if
    none).
    """
    if fmt == "xlsx" and output is None:
        raise Invalid("--format xlsx needs --output FILE.xlsx")
    names = list(players) + (read_names(sheet) if sheet else [])
    if not names:
        raise Invalid("no players: name them or give --from SHEET")
    size_list = None
    if sizes is not None:
        try:
            size_list = [int(s) for s in sizes.split(",")]
        except ValueError:
            raise Invalid(f"--sizes takes whole numbers like 4,4,3, got {sizes!r}") from None
    conn = led.conn
    info = queries.ladder_info(conn, ladder_name, rules=False)
    family = load_family(info.family, info.params)
    rated = {name_key(r.player): r for r in queries.standings(conn, ladder_name, as_of, lang)}
    # A merged or renamed player is matched under any name the ledger knows.
    known = queries.names(conn)
    entrants = []
    for name in names:
        key = name_key(name)
        row = rated.get(key)
        if row is None:
            try:
                row = rated.get(name_key(known[queries.player_by_name(conn, name)]))
            except Exception:  # noqa: BLE001 - unknown to the ledger: a new player
                row = None
        if row is not None:
            entrants.append(Entrant(row.player, name_key(row.player), row.rating, row.grade))
        else:
            initial = family.initial_rating()
            grade = family.grade(PlayerState(rating=initial), lang)
            entrants.append(Entrant(name, key, initial, grade, new=True))
    result = balance(
        entrants, camps, family_strength(family), sizes=size_list,
        together=[split_group(t, "together") for t in together],
        apart=[split_group(a, "apart") for a in apart],
        alternatives=alternatives, time_limit=time_limit,
    )  # fmt: skip
    title = info.name
    if fmt == "xlsx":
        assert output is not None
        write_camp_sheet(output, result, title, info.family, info.params, on)
        click.echo(f"Wrote the camp sheet to {output}.")
        return
    if fmt == "json":
        text = msgspec.json.format(msgspec.json.encode(result)).decode()
    elif fmt == "csv":
        text = csv_text(CSV_COLUMNS, csv_rows(result), _number)
    else:
        text = render_table(result, title)
    if output is None:
        click.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")
        click.echo(f"Wrote {len(result.splits)} split(s) to {output}.")
