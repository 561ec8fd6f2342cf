"""``ledger teams``: split registered players into fair camps (the thin
command: read players and ratings, call projections.teams.balance, render)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import click
import msgspec

from ledger.cli.context import Ledger, family_needed, lang_option, pass_ledger
from ledger.cli.help import TranslatedCommand
from ledger.cli.params import DATE
from ledger.families.registry import family_class
from ledger.kernel.errors import Invalid
from ledger.kernel.identity import name_key
from ledger.kernel.translation import Message, Translator, translator
from ledger.sheets.workbook import read_player_names, team_game_rows, write_camp_sheet
from projections.formats import csv_text
from projections.teams.balance import Balance, balance
from projections.teams.camps import CAMPS_SHEET, CSV_COLUMNS, camp_games
from projections.teams.roster import roster


def split_group(text: str, option: str) -> list[str]:
    names = [n.strip() for n in text.split(";") if n.strip()]
    if len(names) < 2:
        raise Invalid(
            Message(
                "--{option} takes two or more names separated by ';', got {text!r}",
                option=option,
                text=text,
            )
        )
    return [name_key(n) for n in names]


def render_table(result: Balance, ladder: str, t: Translator | None = None) -> str:
    """The splits for people, in ``t``'s language (English without)."""
    t = t or translator()
    vs_ = t.gettext("{p} vs {camp}")
    new = t.gettext("  (new player, initial rating)")
    out = []
    for number, split in enumerate(result.splits, start=1):
        head = t.gettext("{ladder}: {n} camps").format(ladder=ladder, n=result.camps)
        if len(result.splits) > 1:
            head += t.gettext(", split {number} of {count}").format(
                number=number, count=len(result.splits)
            )
        out.append(head)
        for camp in split.camps:
            vs = ", ".join(vs_.format(p=f"{p:.2f}", camp=c) for c, p in camp.expected.items())
            out.append("  " + t.gettext("Camp {camp}: side rating {rating}; expected {vs}").format(
                camp=camp.camp, rating=f"{camp.side_rating:g}", vs=vs))  # fmt: skip
            for p in camp.players:
                flag = new if p.new else ""
                grade = f"  {p.grade}" if p.grade else ""
                out.append(f"    {p.player:<28} {p.rating:>8g}{grade}{flag}")
        proof = (
            t.gettext("proven optimum") if result.status == "optimal"
            else t.gettext("best found, not proven")
        )  # fmt: skip
        within = (
            t.gettext("within a point") if split.gap_points == 1
            else t.gettext("{n} rounded up").format(n=split.gap_points)
        )  # fmt: skip
        out.append("  " + t.gettext(
            "Gap: {gap} rating points between side ratings ({within}, {proof}); "
            "expected-score gap {expected}"
        ).format(gap=f"{split.gap:g}", within=within, proof=proof,
                 expected=f"{split.expected_gap:.4f}"))  # fmt: skip
        if result.top_grades:
            spread = (
                t.gettext("least possible") if result.spread_proven else t.gettext("best found")
            )
            out.append("  " + t.gettext("Top grades ({grades}) per camp: {camps} ({spread})").format(
                grades=", ".join(result.top_grades),
                camps=", ".join(f"{c.camp} {c.top_grades}" for c in split.camps),
                spread=spread,
            ))  # fmt: skip
        out.append("")
    if result.status != "optimal":
        out.append(
            t.gettext(
                "Time limit reached: no split can have a gap of {n} points or less; a better "
                "one may exist."
            ).format(n=result.bound_points - 1)
            if result.bound_points > 0
            else t.gettext("Time limit reached: the best split found is shown, not proven optimal.")
        )
    return "\n".join(out).rstrip()


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


@click.command(cls=TranslatedCommand)
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
@lang_option
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "xlsx"]),
              default="table", show_default=True)  # fmt: skip
@click.option("--output", "-o", type=click.Path(path_type=Path), default=None,
              help="Write to FILE (required for xlsx).")  # fmt: skip
@pass_ledger
def teams(
    led: Ledger, ladder_name: str, players: tuple[str, ...], sheet: Path | None, camps: int,
    sizes: str | None, together: tuple[str, ...], apart: tuple[str, ...], as_of: date | None,
    alternatives: int, time_limit: float, on: date | None, fmt: str,
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
        raise Invalid(Message("--format xlsx needs --output FILE.xlsx"))
    names = list(players) + (read_player_names(sheet) if sheet else [])
    if not names:
        raise Invalid(Message("no players: name them or give --from SHEET"))
    size_list = None
    if sizes is not None:
        try:
            size_list = [int(s) for s in sizes.split(",")]
        except ValueError:
            raise Invalid(
                Message("--sizes takes whole numbers like 4,4,3, got {sizes!r}", sizes=sizes)
            ) from None
    with family_needed(f"ladder {ladder_name!r}"):
        entered = roster(led.conn, ladder_name, names, as_of, led.lang)
    result = balance(
        entered.entrants, camps, entered.strength, sizes=size_list,
        together=[split_group(t, "together") for t in together],
        apart=[split_group(a, "apart") for a in apart],
        alternatives=alternatives, time_limit=time_limit,
    )  # fmt: skip
    title = entered.ladder
    if fmt == "xlsx":
        assert output is not None
        games = camp_games(
            [[p.player for p in c.players] for c in result.splits[0].camps],
            family_class(entered.family).max_sides,
        )
        write_camp_sheet(
            output, result.splits[0], team_game_rows(games, on), family=entered.family,
            params=entered.params, ladder=title, camps_sheet=CAMPS_SHEET, t=led.t,
        )  # fmt: skip
        click.echo(led.t.gettext("Wrote the camp sheet to {path}.").format(path=output))
        return
    if fmt == "json":
        text = msgspec.json.format(msgspec.json.encode(result)).decode()
    elif fmt == "csv":
        text = csv_text(CSV_COLUMNS, csv_rows(result), _number)
    else:
        text = render_table(result, title, led.t)
    if output is None:
        click.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")
        click.echo(f"Wrote {len(result.splits)} split(s) to {output}.")
