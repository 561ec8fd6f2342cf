"""Queries: explanations, the audit log, verification, diffs, what-ifs
(standings and histories are ``ratings``)."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import Any

import click
import msgspec

from ledger.cli.context import (
    Ledger,
    emit,
    export_options,
    family_needed,
    format_option,
    lang_option,
    pass_ledger,
    wide_option,
)
from ledger.cli.help import TranslatedCommand
from ledger.cli.params import DATE, SETTING, as_dict
from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Message, Translator
from projections import queries
from projections.formats import render
from projections.rule_changes import not_defaults, value_text

# Each command imports what only it needs (the export, verify, time travel,
# what-if modules and the event store) when it runs: a query starts in
# about the time ``ledger --version`` does.


@click.command(cls=TranslatedCommand)
@click.argument("game")
@format_option
@lang_option
@pass_ledger
def explain(led: Ledger, game: str, fmt: str) -> None:
    """Every input and intermediate value of GAME's rating computation."""
    with family_needed(f"game {game!r}"):
        x = queries.explain(led.conn, game)
    if fmt != "table":
        click.echo(render(x, fmt))
        return
    t = led.t
    where = (
        ", " + t.gettext("{event} round {round}").format(event=x.event, round=x.round)
        if x.event else ""
    )  # fmt: skip
    click.echo(t.gettext("Game {game} in {ladder}: {date}{where} [{status}]").format(
        game=x.game, ladder=x.ladder, date=x.date, where=where,
        status=t.pgettext("status", x.status)))  # fmt: skip
    params = not_defaults(x.family, x.params)
    click.echo(t.gettext("Family: {family}").format(family=x.family)
               + (f" ({', '.join(params)})" if params else ""))  # fmt: skip
    # Units and objectives are each player's explained values, below; a
    # stored code (a result's ``a``, a margin) through its label.
    result = [
        f"{t.pgettext('result field', k)} "
        f"{t.pgettext(k, v) if isinstance(v, str) else value_text(v)}"
        for k, v in x.result.items()
        if k not in LISTED_BELOW
    ]
    click.echo(t.gettext("Result: {result}").format(result=", ".join(result)))
    per_event = bool(x.event) and x.note == queries.PER_EVENT_NOTE
    if x.note:
        click.echo(t.gettext("Note: {text}").format(text=t.gettext(x.note)))
    for p in x.players:
        if per_event:
            click.echo("\n" + t.gettext(
                "{player} (side {side}): {change} from this game, rated from {before} (the "
                "rating before the event);\n  the change applies at the event's end, with its "
                "other games ({after} counting those so far)"
            ).format(player=p.player, side=p.side, change=f"{p.change:+g}",
                     before=f"{p.before:g}", after=f"{p.after:g}"))  # fmt: skip
        else:
            click.echo("\n" + t.gettext("{player} (side {side}): {before} -> {after} ({change})")
                       .format(player=p.player, side=p.side, before=f"{p.before:g}",
                               after=f"{p.after:g}", change=f"{p.change:+g}"))  # fmt: skip
        labels = {key: t.pgettext("explained", key) for key in p.values}
        width = max([32, *map(len, labels.values())])
        for key, value in p.values.items():
            lines = explained(value, t)
            click.echo(f"  {labels[key]:<{width}} {lines[0]}")
            for line in lines[1:]:
                click.echo(f"  {'':<{width}} {line}")


#: Result fields that ``explain`` lists with each player's values rather than on the result line.
LISTED_BELOW = ("units", "objectives")


def explained(value: Any, t: Translator) -> list[str]:
    """An explained value for people, one line or several (a list of units,
    of objectives): numbers to 6 significant digits, yes/no, none; never a
    Python repr. A family's labels and sentences (marked ``NC_("explained",
    ...)`` where the family writes them) in ``t``'s language."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [explained(v, t)[0] for v in value]
    if isinstance(value, dict):
        named = f"{value['name']}: " if isinstance(value.get("name"), str) else ""
        return [named + ", ".join(f"{t.pgettext('explained', k)} {explained(v, t)[0]}"
                                  for k, v in value.items()
                                  if v is not None and not (named and k == "name"))]  # fmt: skip
    if isinstance(value, list):
        return ["[" + ", ".join(explained(v, t)[0] for v in value) + "]"]
    if isinstance(value, bool):
        return [t.pgettext("explained", "yes") if value else t.pgettext("explained", "no")]
    if value is None:
        return [t.pgettext("explained", "none")]
    if isinstance(value, float):
        return [f"{value:.6g}"]
    if isinstance(value, str):
        return [t.pgettext("explained", value)]
    return [str(value)]


@click.command(cls=TranslatedCommand)
@click.argument("ladder_name", metavar="[LADDER]", required=False)
@click.option("--head", is_flag=True, help="Print only the hash-chain head (to publish).")
@export_options
@lang_option
@pass_ledger
def audit(led: Ledger, ladder_name: str | None, head: bool, fmt: str, output: Path | None) -> None:
    """The event log: sequence, recorded at, by, kind, summary, reason."""
    if head:
        from ledger.kernel import chain as ledger_chain

        seq, link = ledger_chain.head(led.conn)
        click.echo(link if fmt == "table" else render(HeadLine(seq, link), fmt))
        return
    rows = queries.audit(led.conn, ladder_name, led.t)
    emit(rows, fmt, led.t.gettext("Audit log"), queries.AuditLine, output, t=led.t)


class HeadLine(msgspec.Struct):
    events: int
    head: str


@click.command(cls=TranslatedCommand)
@click.option(
    "--head",
    "published",
    default=None,
    metavar="HASH",
    help="A head published earlier: it must be a link of this ledger's chain.",
)
@format_option
@lang_option
@pass_ledger
def verify(led: Ledger, published: str | None, fmt: str) -> None:
    """Check the event log against its hash chain and the views against a
    rebuild from the events; name the first event or view row that differs."""
    from projections import verify as verify_mod

    conn = led.conn
    if led.behind:  # views this process may not bring up to date: not compared
        conn = verify_mod.stand_in(conn, led.app.recorder)
        click.echo(
            "Notice: the stored views were not compared with a rebuild (they are behind and "
            "cannot be brought up to date here); the event log and its chain were checked.",
            err=True,
        )
    report = verify_mod.verify(conn, led.app.recorder, published)
    if fmt != "table":
        click.echo(render(report, fmt))
    else:
        t = led.t
        click.echo(t.gettext("Events chained: {n}").format(n=report.events))
        click.echo(t.gettext("Head: {hash}").format(hash=report.head))
        click.echo(t.gettext("Views checksum: {hash}").format(hash=report.views_checksum))
        for problem in report.problems:
            click.echo(t.gettext("PROBLEM: {text}").format(text=problem))
        for warning in report.warnings:
            click.echo(t.gettext("WARNING: {text}").format(text=warning))
        n = len(report.problems)
        click.echo(
            t.gettext("OK: the event log matches its chain and the views match a rebuild.")
            if report.ok
            else t.ngettext("{n} problem found.", "{n} problems found.", n).format(n=n)
        )
    if not report.ok:
        sys.exit(1)


@click.command(cls=TranslatedCommand)
@click.argument("ladder_name", metavar="LADDER")
@click.option(
    "--from-known-at",
    "start",
    required=True,
    metavar="TIMESTAMP",
    help="The earlier moment (record time).",
)
@click.option(
    "--to-known-at",
    "end",
    default=None,
    metavar="TIMESTAMP",
    help="The later moment (default: now).",
)
@format_option
@wide_option
@lang_option
@pass_ledger
def diff(led: Ledger, ladder_name: str, start: str, end: str | None, fmt: str, wide: bool) -> None:
    """Every player whose rating in LADDER changed between two moments of the
    ledger, with their own entries that changed (+ new, - voided, ~ another
    change); then the rule changes and season closes recorded in between."""
    from ledger.kernel.identity import ladder_id
    from projections import timetravel
    from projections.rule_changes import rule_history

    since = timetravel.parse_moment(start)
    until = timetravel.parse_moment(end) if end else None
    rows = timetravel.diff(led.app.recorder, ladder_name, since, until, led.conn)
    t = led.t
    title = t.gettext("{ladder}: changes").format(ladder=ladder_name)
    click.echo(render(rows, fmt, title, kind=timetravel.DiffLine, wide=wide, t=t))
    if fmt != "table":
        return
    name = queries.ladder_row(led.conn, ladder_name)["name"]
    between = [
        t.gettext("rules from {day}: {what}").format(
            day=c.effective, what=", ".join(c.changed) or t.gettext("no parameter changed")
        )
        + (f" ({c.reason})" if c.reason else "")
        for c in rule_history(led.app.events.get(ladder_id(name)))
        if since.isoformat() < c.recorded_at and (until is None or c.recorded_at <= until.isoformat())
    ]  # fmt: skip
    between += timetravel.ladder_events(led.conn, ladder_name, since, until, t)
    if between:
        click.echo(t.gettext("Recorded in between, for the whole ladder:"))
        for line in between:
            click.echo(f"  {line}")
    elif not rows:
        click.echo(t.gettext("No rating changed between these moments."))


@click.command(cls=TranslatedCommand)
@click.argument("ladder_name", metavar="LADDER")
@click.option("--set", "sets", multiple=True, type=SETTING, help="A parameter to try.")
@click.option("--family", default=None, help="Try another family (its defaults + --set).")
@click.option(
    "--from",
    "start",
    default=None,
    type=DATE,
    help="Apply the rules from this date only (default: the whole history).",
)
@format_option
@lang_option
@pass_ledger
def whatif(
    led: Ledger,
    ladder_name: str,
    sets: tuple[tuple[str, Any], ...],
    family: str | None,
    start: date | None,
    fmt: str,
) -> None:
    """Replay LADDER under other rules, recording nothing, and show the
    ranking side by side with today's (rank and rating moves)."""
    if not sets and not family:
        raise Invalid(Message("nothing to try: give --set KEY=VALUE or --family"))
    from projections import whatif as whatif_mod

    report = whatif_mod.whatif_report(led.conn, ladder_name, as_dict(sets), family, start)
    t = led.t
    note_unrated(report.unrated, family, t)
    title = t.gettext("{ladder}: what if").format(ladder=ladder_name)
    click.echo(render(report.lines, fmt, title, kind=whatif_mod.WhatIfLine, t=t))


def note_unrated(unrated: list[Any], family: str | None, t: Translator) -> None:
    """Say on standard error which games the rules tried cannot rate
    (``whatif.Unrated``), left out of a hypothetical."""
    rules = (
        t.gettext("the {family} family").format(family=family) if family
        else t.gettext("these rules")
    )  # fmt: skip
    for one in unrated:
        more = one.count - len(one.games)
        shown = ", ".join(one.games)
        if more:
            shown = t.gettext("{names} and {more} more").format(names=shown, more=more)
        click.echo(
            t.ngettext(
                "Note: {n} game cannot be rated under {rules} and is left out of this "
                "hypothetical: {why} ({games}). The ladder's games stand as recorded.",
                "Note: {n} games cannot be rated under {rules} and are left out of this "
                "hypothetical: {why} ({games}). The ladder's games stand as recorded.",
                one.count,
            ).format(n=one.count, rules=rules, why=one.why, games=shown),
            err=True,
        )
