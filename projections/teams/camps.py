"""The camps of ``ledger teams`` once written: read back from its json, csv
or xlsx camp sheet, and the games a referee plays between them.

The xlsx camp sheet itself is written with the other workbooks
(``ledger.sheets.workbook.write_camp_sheet``), under the sheet name
``CAMPS_SHEET`` this module reads.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import msgspec

from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Message
from projections.teams.balance import Balance

#: The printable sheet of the xlsx camp sheet: one column per camp, a header row.
CAMPS_SHEET = "Camps"
#: The columns of the csv of ``ledger teams``, one row per player of a split.
CSV_COLUMNS = ["split", "camp", "player", "rating", "grade", "new", "side_rating"]


class CampGame(msgspec.Struct, frozen=True):
    """A game between camps: its sides (the players of each camp in it),
    and its round and table when the camps play in rounds."""

    sides: list[list[str]]
    round: int | None = None
    table: int | None = None


def camp_games(camps: Sequence[Sequence[str]], max_sides: int) -> list[CampGame]:
    """The games a referee plays between the camps.

    Two camps: one game, A against B. More camps, when the family rates a
    game of that many sides (``max_sides``; bga): one game with every camp a
    side. Otherwise every pair of camps once, in rounds where each camp plays
    at most once (the circle method: with an odd number of camps one sits out
    each round), numbered round 1.., table 1.. within a round.
    """
    sides = [list(c) for c in camps]
    if len(sides) == 2 or max_sides >= len(sides):
        return [CampGame(sides)]
    return [
        CampGame([sides[a], sides[b]], number, table)
        for number, pairs in enumerate(round_robin(len(sides)), start=1)
        for table, (a, b) in enumerate(pairs, start=1)
    ]


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


def read_camps(path: Path, split: int = 1) -> list[list[str]]:
    """The camps (players of each, in order) of a ``ledger teams`` output:
    the json (split number ``split``), the csv (its ``split`` column), or the
    xlsx camp sheet (its ``CAMPS_SHEET``: one column per camp, a header row)."""
    suffix = path.suffix.lower()
    if not path.exists():
        raise Invalid(Message("{path}: no such file", path=path), field="camps")
    if suffix == ".json":
        camps = _from_json(path, split)
    elif suffix == ".xlsx":
        camps = _from_xlsx(path, split)
    elif suffix == ".csv":
        camps = _from_csv(path, split)
    else:
        raise Invalid(
            Message("{path}: --camps takes the .json, .csv or .xlsx of 'ledger teams'", path=path)
        )
    camps = [c for c in camps if c]
    if len(camps) < 2:
        raise Invalid(
            Message(
                "{path}: found {count} camp(s), need at least two", path=path, count=len(camps)
            ),
            field="camps",
        )
    return camps


def _from_json(path: Path, split: int) -> list[list[str]]:
    try:
        data = msgspec.json.decode(path.read_bytes(), type=Balance)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise Invalid(
            Message("{path}: not the json of 'ledger teams': {exc}", path=path, exc=exc),
            field="camps",
        ) from None
    if not 1 <= split <= len(data.splits):
        raise Invalid(
            Message(
                "{path}: no split {split} (it has {count})",
                path=path,
                split=split,
                count=len(data.splits),
            ),
            field="split",
        )
    return [[p.player for p in c.players] for c in data.splits[split - 1].camps]


def _from_xlsx(path: Path, split: int) -> list[list[str]]:
    import openpyxl

    if split != 1:
        raise Invalid(
            Message("{path}: a camp sheet holds one split; --split takes json or csv", path=path)
        )
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds on a broken file
        raise Invalid(
            Message("{path}: cannot read it as an Excel workbook: {exc}", path=path, exc=exc)
        ) from None
    if CAMPS_SHEET not in book.sheetnames:
        raise Invalid(
            Message(
                "{path}: no {sheet!r} sheet (a 'ledger teams' camp sheet has one)",
                path=path,
                sheet=CAMPS_SHEET,
            )
        )
    columns = list(zip(*book[CAMPS_SHEET].iter_rows(values_only=True), strict=False))
    book.close()
    return [[str(v).strip() for v in col[1:] if v is not None and str(v).strip()]
            for col in columns if col and col[0] is not None]  # fmt: skip


def _from_csv(path: Path, split: int) -> list[list[str]]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or not {"split", "camp", "player"} <= set(rows[0]):
        raise Invalid(
            Message("{path}: expected the csv of 'ledger teams' (split, camp, player)", path=path)
        )
    by_camp: dict[str, list[str]] = {}
    for row in rows:
        if row["split"].strip() == str(split):
            by_camp.setdefault(row["camp"].strip(), []).append(row["player"].strip())
    return list(by_camp.values())
