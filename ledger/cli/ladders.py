"""Ladders: open them, change their rules, list and show them."""

from __future__ import annotations

from datetime import date
from typing import Any

import click
import msgspec

from ledger.cli.context import (
    Ledger,
    family_needed,
    format_option,
    pass_ledger,
)
from ledger.cli.family_help import parameter_help, parameters_epilog
from ledger.cli.params import DATE, SETTING, as_dict
from ledger.families.registry import BUILT_IN, family_class
from projections import queries
from projections.formats import render


@click.group()
def ladder() -> None:
    """Open ladders, change their rules, list and show them."""


@ladder.command("open", epilog=parameters_epilog())
@click.argument("name")
@click.option(
    "--family", required=True, metavar="FAMILY",
    help=f"Rating family: {', '.join(sorted(BUILT_IN))}, or package.module:Class.",
)  # fmt: skip
@click.option("--set", "sets", multiple=True, type=SETTING, help="A family parameter.")
@pass_ledger
def ladder_open(led: Ledger, name: str, family: str, sets: tuple[tuple[str, Any], ...]) -> None:
    """Open ladder NAME with a rating family and its parameters."""
    with led.writing() as commands:
        family_name = commands.open_ladder(name, family, as_dict(sets))
    click.echo(f"Opened ladder {name!r} ({family_name}).")


@ladder.command("rules")
@click.argument("name")
@click.option("--set", "sets", multiple=True, type=SETTING, help="A parameter to change.")
@click.option("--family", default=None, help="Switch to another family (its defaults + --set).")
@click.option("--effective", required=True, type=DATE, help="First day the rules apply.")
@click.option("--reason", required=True, help="Why the rules change (kept in the audit log).")
@pass_ledger
def ladder_rules(
    led: Ledger,
    name: str,
    sets: tuple[tuple[str, Any], ...],
    family: str | None,
    effective: date,
    reason: str,
) -> None:
    """Change NAME's rules from a date; later history is replayed under them.

    With neither --set nor --family, the rules in force are adopted again
    under the family's current maths version (when it differs)."""
    with led.writing() as commands:
        commands.change_rules(name, as_dict(sets), effective, reason, family)
    click.echo(f"Rules of {name!r} changed from {effective}.")


@ladder.command("void-rules")
@click.argument("name")
@click.option("--effective", required=True, type=DATE, help="The date the rule change took effect.")
@click.option("--reason", required=True, help="Why it no longer counts (kept in the audit log).")
@pass_ledger
def ladder_void_rules(led: Ledger, name: str, effective: date, reason: str) -> None:
    """Void the rule change of NAME that takes effect on a date: the rules
    before it apply again, and later history is replayed under them.

    Of two changes for one date, the later recorded (the one in force) is
    voided. The change stays in the audit log; the first rules cannot be voided.
    """
    with led.writing() as commands:
        voided = commands.void_rules(name, effective, reason)
    click.echo(f"Voided the {voided.family} rules of {name!r} from {effective}.")


@ladder.command("list")
@format_option
@pass_ledger
def ladder_list(led: Ledger, fmt: str) -> None:
    """List the ladders."""
    click.echo(render(queries.ladders(led.conn), fmt, "Ladders", kind=queries.LadderInfo))


@ladder.command("show")
@click.argument("name")
@format_option
@pass_ledger
def ladder_show(led: Ledger, name: str, fmt: str) -> None:
    """Show NAME's family, the parameters in force and its rule history."""
    info = queries.ladder_info(led.conn, name)
    if fmt != "table":
        click.echo(render(info, fmt))
        return
    with family_needed(f"ladder {info.name!r}"):
        family = family_class(info.family)
    click.echo(f"Ladder:   {info.name}\nFamily:   {info.family}\nPlayers:  {info.players}")
    if family.rules_doc:
        click.echo(f"Rules:    {family.rules_doc}")
    click.echo(f"Games:    {info.games}\nParameters in force:")
    for key, value in info.params.items():
        about = parameter_help(family, key)
        click.echo(
            f"  {key} = {msgspec.json.encode(value).decode()}" + (f"  # {about}" if about else "")
        )
    for warning in info.version_warnings:
        click.echo(f"Warning: {warning}")
    if info.problem:
        click.echo(f"Problem: {info.problem}")
    click.echo("Rule history:")
    for r in info.rules:
        why = f" ({r['reason']})" if r["reason"] else ""
        click.echo(f"  {r['effective']}: {r['family']} {msgspec.json.encode(r['params']).decode()}"
                   f" by {r['by']} at {r['recorded_at']}{why}")  # fmt: skip
