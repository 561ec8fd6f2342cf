"""Players: register, rename, merge, unmerge, list and find duplicates."""

from __future__ import annotations

import click

from ledger.cli.context import (
    Ledger,
    format_option,
    lang_option,
    pass_ledger,
    wide_option,
)
from ledger.cli.help import TranslatedGroup
from ledger.kernel.matching import DuplicatePair, likely_duplicates
from ledger.kernel.translation import in_language
from projections import queries
from projections.formats import render


@click.group(cls=TranslatedGroup)
def player() -> None:
    """Register, rename, merge and list players."""


@player.command("add")
@click.argument("names", nargs=-1, required=True)
@lang_option
@pass_ledger
def player_add(led: Ledger, names: tuple[str, ...]) -> None:
    """Register one or more players (a name close to a known one, a likely
    typo, is registered with a warning)."""
    with led.writing() as commands:
        warnings = commands.typo_warnings(names)
        commands.add_players(names)
    t = led.t
    click.echo(t.ngettext("Added {n} player.", "Added {n} players.", len(names)).format(
        n=len(names)))  # fmt: skip
    for warning in warnings:
        click.echo(t.gettext("warning: {text}").format(text=in_language(warning, t)))


@player.command("rename")
@click.argument("old")
@click.argument("new")
@click.option("--reason", default=None, help="Why (kept in the audit log).")
@lang_option
@pass_ledger
def player_rename(led: Ledger, old: str, new: str, reason: str | None) -> None:
    """Rename player OLD to NEW (history keeps following them)."""
    with led.writing() as commands:
        commands.rename_player(old, new, reason)
    click.echo(led.t.gettext("Renamed {old} to {new}.").format(old=repr(old), new=repr(new)))


@player.command("merge")
@click.argument("source", metavar="FROM")
@click.argument("into", metavar="INTO")
@click.option("--reason", required=True, help="Why they are the same person.")
@lang_option
@pass_ledger
def player_merge(led: Ledger, source: str, into: str, reason: str) -> None:
    """Merge FROM into INTO: every game of FROM is replayed as INTO's.

    Games entered once under each name (the same ladder, date, event, round,
    table and players once merged: the duplicate 'record' refuses) are
    listed with a warning: void the one entered twice."""
    with led.writing() as commands:
        twins = commands.merge_players(source, into, reason)
    click.echo(
        led.t.gettext("Merged {source} into {into}.").format(source=repr(source), into=repr(into))
    )
    if not twins:
        return
    t, n = led.t, len(twins)
    click.echo(
        t.ngettext(
            "warning: after this merge, {n} game entered once under each name stands twice "
            "(the same ladder, date, event, round, table and players: the duplicate 'record' "
            "refuses):",
            "warning: after this merge, {n} games entered once under each name stand twice "
            "(the same ladder, date, event, round, table and players: the duplicate 'record' "
            "refuses):",
            n,
        ).format(n=n)
    )
    differ = t.gettext(" (the results differ: check which is right)")
    for twin in twins:
        differs = "" if twin.same_result else differ
        click.echo(f"  {twin.twin} {twin.twin_game}\n    = {twin.kept} {twin.kept_game}{differs}")
    click.echo(
        t.gettext("Void the one entered twice, e.g. ledger void {id} --reason 'entered twice'")
        .format(id=twins[0].twin)
    )  # fmt: skip


@player.command("unmerge")
@click.argument("name", metavar="PLAYER")
@click.option("--reason", required=True, help="Why the merge was wrong.")
@lang_option
@pass_ledger
def player_unmerge(led: Ledger, name: str, reason: str) -> None:
    """Undo a merge: PLAYER's games are replayed as their own again."""
    with led.writing() as commands:
        commands.unmerge_player(name, reason)
    click.echo(led.t.gettext("Unmerged {name}.").format(name=repr(name)))


@player.command("duplicates")
@format_option
@lang_option
@pass_ledger
def player_duplicates(led: Ledger, fmt: str) -> None:
    """Likely duplicate players, with the evidence: similar names (typos,
    swapped first and last names, initials) of players never in the same game."""
    rows = likely_duplicates(*queries.identity_evidence(led.conn))
    t = led.t
    click.echo(render(rows, fmt, t.gettext("Likely duplicates"), kind=DuplicatePair, t=t))


@player.command("list")
@format_option
@wide_option
@lang_option
@pass_ledger
def player_list(led: Ledger, fmt: str, wide: bool) -> None:
    """List registered players (a merged player with the name of the one
    it was merged into)."""
    players = queries.players(led.conn)
    if fmt == "table":
        names = {p.id: p.name for p in players}
        players = [
            queries.PlayerInfo(
                id=p.id, name=p.name,
                merged_into=names.get(p.merged_into, p.merged_into) if p.merged_into else None,
                registered_at=(p.registered_at or "")[:19].replace("T", " ") or None,
            )
            for p in players
        ]  # fmt: skip
    spare = ("id", "registered_at")
    t = led.t
    click.echo(render(players, fmt, t.gettext("Players"), kind=queries.PlayerInfo, spare=spare,
                      wide=wide, t=t))  # fmt: skip
