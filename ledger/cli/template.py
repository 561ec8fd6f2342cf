"""``ledger template``: a ready result sheet to fill in."""

from __future__ import annotations

from pathlib import Path

import click

from ledger.cli.context import Ledger, pass_ledger
from ledger.errors import Invalid
from projections import queries


@click.command()
@click.option("--family", default=None, help="Family of the sheet (or take the ladder's).")
@click.option(
    "--ladder",
    "ladder_name",
    default=None,
    help="Make the sheet for this ladder (its family and margins).",
)
@click.argument("output", type=click.Path(path_type=Path))
@pass_ledger
def template(led: Ledger, family: str | None, ladder_name: str | None, output: Path) -> None:
    """Write a ready result sheet (.xlsx) for a family: headers, an
    instructions sheet, dropdowns for results and margins, an example row."""
    from ledger.workbook import write_template

    params = None
    if ladder_name is not None:
        info = queries.ladder_info(led.conn, ladder_name, rules=False)
        family, params = family or info.family, info.params
    if family is None:
        raise Invalid("give --family F or --ladder NAME")
    write_template(output, family, params=params)
    click.echo(f"Wrote a {family} result sheet to {output}.")
