"""``ledger template``: a ready result sheet to fill in, empty (an example
row) or pre-filled with the games between the camps of ``ledger teams``."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click

from ledger.cli.context import Ledger, lang_option, pass_ledger
from ledger.cli.help import TranslatedCommand
from ledger.cli.params import DATE
from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Message, said
from projections import queries


@click.command(cls=TranslatedCommand)
@click.option("--family", default=None, help="Family of the sheet (or take the ladder's).")
@click.option(
    "--ladder",
    "ladder_name",
    default=None,
    help="Make the sheet for this ladder (its family, margins and name in the rows).",
)
@click.option(
    "--camps",
    "camps_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Pre-fill the games between the camps of 'ledger teams' (its .json, .csv or .xlsx).",
)
@click.option("--split", "split", type=int, default=1, show_default=True,
              help="With --camps from json/csv: which of the --alternatives splits.")  # fmt: skip
@click.option("--date", "on", default=None, type=DATE, help="With --camps: the games' date.")
@click.option("--event", default=None, help="With --camps: the games' event.")
@click.argument("output", type=click.Path(path_type=Path))
@lang_option
@pass_ledger
def template(
    led: Ledger, family: str | None, ladder_name: str | None, camps_file: Path | None,
    split: int, on: date | None, event: str | None, output: Path,
) -> None:  # fmt: skip
    """Write a ready result sheet for a family: OUTPUT.xlsx has headers, an
    instructions sheet, dropdowns for results and margins and an example row
    (on the ladder's name with --ladder); OUTPUT.csv the headers and the
    example row.

    With --camps (the output of 'ledger teams'), the rows are the games the
    camps play, their team sides filled in: two camps, one game; more camps,
    every pair once in rounds (one game of every camp for a family that rates
    games of that many sides, bga). Write the results in and 'ledger import'
    the sheet.
    """
    from ledger.families.base import FamilyError
    from ledger.families.registry import family_class
    from ledger.sheets.workbook import team_game_rows, write_csv_template, write_template

    suffix = output.suffix.lower()
    if suffix not in (".csv", ".xlsx"):
        raise Invalid(
            Message(
                "{output}: a template is written as .csv or .xlsx, not {suffix}",
                output=output,
                suffix=repr(output.suffix)
                if output.suffix
                else Message("a name without extension"),
            )
        )
    from projections.teams.camps import camp_games, read_camps

    params = None
    ladder = None
    if ladder_name is not None:
        info = queries.ladder_info(led.conn, ladder_name, rules=False)
        family, params, ladder = family or info.family, info.params, info.name
    if family is None:
        raise Invalid(Message("give --family F or --ladder NAME"))
    games = None
    if camps_file is not None:
        try:
            max_sides = family_class(family).max_sides
        except FamilyError as exc:
            raise Invalid(said(exc), field="family") from None
        camps = read_camps(camps_file, split)
        games = team_game_rows(camp_games(camps, max_sides), on, event)
    elif on is not None or event is not None:
        raise Invalid(Message("--date and --event go with --camps"))
    t = led.t
    if suffix == ".csv":
        write_csv_template(output, family, params=params, ladder=ladder, games=games)
    else:
        write_template(output, family, params=params, ladder=ladder, games=games, t=t)
    if games:
        what = t.ngettext(
            "{games} game between {camps} camps", "{games} games between {camps} camps", len(games)
        ).format(games=len(games), camps=len(camps))
    else:
        what = t.gettext("an example row")
    click.echo(
        t.gettext("Wrote the {family} result sheet to {output} ({what}).").format(
            family=family, output=output, what=what
        )
    )
