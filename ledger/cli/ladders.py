"""Ladders: open them, change their rules, list and show them."""

from __future__ import annotations

import sys
import textwrap
from datetime import date
from typing import Any

import click
import msgspec

from ledger.cli.context import (
    Ledger,
    family_needed,
    format_option,
    lang_option,
    pass_ledger,
    wide_option,
)
from ledger.cli.family_help import parameter_help, parameters_epilog
from ledger.cli.help import TranslatedGroup
from ledger.cli.params import DATE, SETTING, as_dict
from ledger.families.base import Family
from ledger.families.registry import family_class
from ledger.kernel.translation import Translator
from projections import queries
from projections.formats import render, terminal_width
from projections.rule_changes import not_defaults, rule_history, value_text


@click.group(cls=TranslatedGroup)
def ladder() -> None:
    """Open ladders, change their rules, list and show them."""


@ladder.command("open", epilog=parameters_epilog)
@click.argument("name")
@click.option(
    "--family", required=True, metavar="FAMILY",
    help="Rating family: one of the built-in families listed below, or package.module:Class.",
)  # fmt: skip
@click.option("--set", "sets", multiple=True, type=SETTING, help="A family parameter.")
@lang_option
@pass_ledger
def ladder_open(led: Ledger, name: str, family: str, sets: tuple[tuple[str, Any], ...]) -> None:
    """Open ladder NAME with a rating family and its parameters."""
    with led.writing() as commands:
        family_name = commands.open_ladder(name, family, as_dict(sets))
    click.echo(
        led.t.gettext("Opened ladder {name} ({family}).").format(
            name=repr(name), family=family_name
        )
    )


@ladder.command("rules")
@click.argument("name")
@click.option("--set", "sets", multiple=True, type=SETTING, help="A parameter to change.")
@click.option("--family", default=None, help="Switch to another family (its defaults + --set).")
@click.option("--effective", required=True, type=DATE, help="First day the rules apply.")
@click.option("--reason", required=True, help="Why the rules change (kept in the audit log).")
@lang_option
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
    click.echo(led.t.gettext("Rules of {name} changed from {day}.").format(
        name=repr(name), day=effective))  # fmt: skip


@ladder.command("void-rules")
@click.argument("name")
@click.option("--effective", required=True, type=DATE, help="The date the rule change took effect.")
@click.option("--reason", required=True, help="Why it no longer counts (kept in the audit log).")
@lang_option
@pass_ledger
def ladder_void_rules(led: Ledger, name: str, effective: date, reason: str) -> None:
    """Void the rule change of NAME that takes effect on a date: the rules
    before it apply again, and later history is replayed under them.

    Of two changes for one date, the later recorded (the one in force) is
    voided. The change stays in the audit log; the first rules cannot be voided.
    """
    with led.writing() as commands:
        voided = commands.void_rules(name, effective, reason)
    click.echo(led.t.gettext("Voided the {family} rules of {name} from {day}.").format(
        family=voided.family, name=repr(name), day=effective))  # fmt: skip


@ladder.command("list")
@format_option
@wide_option
@lang_option
@pass_ledger
def ladder_list(led: Ledger, fmt: str, wide: bool) -> None:
    """List the ladders: family, players, games, rule changes and the
    parameters that differ from the family's defaults."""
    ladders = queries.ladders(led.conn)
    if fmt != "table":
        click.echo(render(ladders, fmt, "Ladders", kind=queries.LadderInfo))
        return
    rows = [LadderLine(
        name=info.name, family=info.family, players=info.players, games=info.games,
        rule_changes=len(info.rules) - 1 if info.rules else 0,
        params=", ".join(not_defaults(info.family, info.params)) or led.t.gettext("defaults"),
        problem="; ".join(filter(None, [info.problem, *info.version_warnings])),
    ) for info in ladders]  # fmt: skip
    spare = ("problem", "rule_changes", "games", "params")
    t = led.t
    click.echo(render(rows, fmt, t.gettext("Ladders"), kind=LadderLine, spare=spare, wide=wide,
                      t=t))  # fmt: skip


class LadderLine(msgspec.Struct):
    """A ladder as ``ladder list`` shows it to people."""

    name: str
    family: str
    players: int
    games: int
    #: Rule changes after the first rules (``ladder show`` lists them).
    rule_changes: int
    #: The parameters other than the family's defaults, ``key=value``.
    params: str
    problem: str


@ladder.command("show")
@click.argument("name")
@format_option
@lang_option
@pass_ledger
def ladder_show(led: Ledger, name: str, fmt: str) -> None:
    """Show NAME's family, the parameters in force and its rule history
    (what each change changed; voided changes marked)."""
    from ledger.kernel.identity import ladder_id

    info = queries.ladder_info(led.conn, name)
    history = rule_history(led.app.events.get(ladder_id(info.name)))
    info.rules = [msgspec.to_builtins(change) for change in history]
    if fmt != "table":
        click.echo(render(info, fmt))
        return
    with family_needed(f"ladder {info.name!r}"):
        family = family_class(info.family)
    t = led.t
    facts = [(t.gettext("Ladder:"), info.name), (t.gettext("Family:"), info.family),
             (t.gettext("Players:"), info.players)]  # fmt: skip
    if family.rules_doc:
        facts.append((t.gettext("Rules:"), family.rules_doc))
    facts.append((t.gettext("Games:"), info.games))
    pad = max(len(label) for label, _ in facts) + 2
    for label, value in facts:
        click.echo(f"{label:<{pad}}{value}")
    click.echo(t.gettext("Parameters in force:"))
    for line in parameter_lines(family, info.params, t):
        click.echo(line)
    for warning in info.version_warnings:
        click.echo(t.gettext("Warning: {text}").format(text=warning))
    if info.problem:
        click.echo(t.gettext("Problem: {text}").format(text=info.problem))
    click.echo(t.gettext("Rule history:"))
    for change in history:
        what = ", ".join(change.changed) or (
            t.gettext("the family's defaults") if change.effective == "from the start"
            else t.gettext("no parameter")
        )  # fmt: skip
        why = f" ({change.reason})" if change.reason else ""
        at = change.recorded_at[:19].replace("T", " ")
        effective = (
            t.gettext("from the start") if change.effective == "from the start"
            else change.effective
        )  # fmt: skip
        click.echo(f"  {effective}: {change.family}: {what}")
        click.echo("      " + t.gettext("by {who} at {moment}").format(who=change.by, moment=at)
                   + why)  # fmt: skip
        if change.voided:
            click.echo("      " + t.gettext("VOIDED ({when}): it no longer counts").format(
                when=change.voided))  # fmt: skip


def parameter_lines(family: type[Family], params: dict[str, Any], t: Translator) -> list[str]:
    """The parameters in force, each with its help (wrapped, never cut);
    for a family with none, that its rules are fixed and the values they fix;
    in ``t``'s language."""
    width = min(terminal_width(), 100) if sys.stdout.isatty() else 78
    if not params:
        fixed_rules = t.gettext("none: {family}'s rules are fixed").format(family=family.name)
        lines = [f"  {fixed_rules}" + (
            f" ({family.rules_doc})." if family.rules_doc else ".")]  # fmt: skip
        to_elo = getattr(family, "to_elo", None)
        if to_elo is not None:
            fixed = not_defaults("elo", msgspec.to_builtins(to_elo(family.default_params())))
            lines += textwrap.wrap(
                t.gettext("They rate as the elo family with {values}.").format(
                    values=", ".join(fixed)
                ), width,
                initial_indent="  ", subsequent_indent="    ",
            )  # fmt: skip
        return lines
    lines = []
    for key, value in params.items():
        lines.append(f"  {key} = {value_text(value)}")
        about = parameter_help(family, key)
        if about:  # (never gettext(""): that is the catalog's header)
            lines += textwrap.wrap(t.gettext(about), width, initial_indent="      ",
                                   subsequent_indent="      ")  # fmt: skip
    return lines
