"""The ``ledger`` command line: parses, calls the application, formats.

Every command that records something appends its events (or nothing, on any
error) and then brings the views up to date, so the next query reads its own
writes. Queries print ``--format table|json|csv``.
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import Any

import click
import msgspec

from ledger import __version__, bounds
from ledger import chain as ledger_chain
from ledger import migrate as migrate_mod
from ledger.application import LedgerApplication
from ledger.cli.context import (
    Ledger,
    LedgerGroup,
    emit,
    export_options,
    format_option,
    open_views,
    pass_ledger,
)
from ledger.cli.family_help import parameter_help, parameters_epilog, result_fields_epilog
from ledger.cli.params import ATTRIBUTE, DATE, ORDER, SETTING, BoundedNumber, as_dict, bounded_help
from ledger.commands import Commands, GameChanges
from ledger.errors import Invalid
from ledger.game_input import GameInput, parse_number
from ledger.importer import import_sheet
from ledger.matching import DuplicatePair, likely_duplicates
from ledger.output import render
from ledger.storage import resolve
from projections import export as export_mod
from projections import queries, service, timetravel, views
from projections import verify as verify_mod
from projections import whatif as whatif_mod
from projections.families.registry import BUILT_IN, family_class
from projections.families.registry import trust as trust_families
from projections.preview import preview_warnings


@click.group(cls=LedgerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ledger")
@click.option(
    "--db", envvar="LEDGER_DB", metavar="PATH|URL",
    help="SQLite file (default ./ledger.db, created on first use) or postgresql:// URL. "
    "Env: LEDGER_DB.",
)  # fmt: skip
@click.option(
    "--by", "by", envvar="LEDGER_USER", metavar="NAME",
    help="Who is recording (default: LEDGER_USER, else the OS user).",
)  # fmt: skip
@click.option(
    "--schema", envvar="LEDGER_SCHEMA", default=None, metavar="NAME",
    help="PostgreSQL schema for the events and views (default: ledger). Env: LEDGER_SCHEMA.",
)  # fmt: skip
@click.option(
    "--trust-family", "trusted", multiple=True, metavar="MODULE",
    help="Allow families (package.module:Class) from MODULE, which is then imported: "
    "trust only code you would run yourself. Registered families (entry points of the "
    "'ledger.families' group) need no trust. Env: LEDGER_TRUST_FAMILIES=mod1,mod2.",
)  # fmt: skip
@click.pass_context
def main(
    ctx: click.Context, db: str | None, by: str | None, schema: str | None,
    trusted: tuple[str, ...],
) -> None:  # fmt: skip
    """An event-sourced rating ledger for wargame and board-game communities.

    Every result, correction, void, rule change and season close is an
    append-only event; standings, histories and explanations are rebuilt from
    those events, so anyone can audit why a rating is what it is.
    """
    trust_families(trusted)
    ctx.obj = Ledger(db, by, schema)
    ctx.call_on_close(ctx.obj.close)


# -- ladders -----------------------------------------------------------------
@main.group()
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
    family_name = led.commands.open_ladder(name, family, as_dict(sets))
    led.caught_up()
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
    led.commands.change_rules(name, as_dict(sets), effective, reason, family)
    led.caught_up()
    click.echo(f"Rules of {name!r} changed from {effective}.")


@ladder.command("list")
@format_option
@pass_ledger
def ladder_list(led: Ledger, fmt: str) -> None:
    """List the ladders."""
    rows = queries.ladders(led.conn)
    for r in rows:
        r.rules = []
    click.echo(render(rows, fmt, "Ladders", kind=queries.LadderInfo))


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
    click.echo(f"Ladder:   {info.name}\nFamily:   {info.family}\nPlayers:  {info.players}")
    click.echo(f"Games:    {info.games}\nParameters in force:")
    family = family_class(info.family)
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


# -- players -------------------------------------------------------------------
@main.group()
def player() -> None:
    """Register, rename, merge and list players."""


@player.command("add")
@click.argument("names", nargs=-1, required=True)
@pass_ledger
def player_add(led: Ledger, names: tuple[str, ...]) -> None:
    """Register one or more players."""
    led.commands.add_players(names)
    led.caught_up()
    click.echo(f"Added {len(names)} player(s).")


@player.command("rename")
@click.argument("old")
@click.argument("new")
@click.option("--reason", default=None, help="Why (kept in the audit log).")
@pass_ledger
def player_rename(led: Ledger, old: str, new: str, reason: str | None) -> None:
    """Rename player OLD to NEW (history keeps following them)."""
    led.commands.rename_player(old, new, reason)
    led.caught_up()
    click.echo(f"Renamed {old!r} to {new!r}.")


@player.command("merge")
@click.argument("source", metavar="FROM")
@click.argument("into", metavar="INTO")
@click.option("--reason", required=True, help="Why they are the same person.")
@pass_ledger
def player_merge(led: Ledger, source: str, into: str, reason: str) -> None:
    """Merge FROM into INTO: every game of FROM is replayed as INTO's."""
    led.commands.merge_players(source, into, reason)
    led.caught_up()
    click.echo(f"Merged {source!r} into {into!r}.")


@player.command("unmerge")
@click.argument("name", metavar="PLAYER")
@click.option("--reason", required=True, help="Why the merge was wrong.")
@pass_ledger
def player_unmerge(led: Ledger, name: str, reason: str) -> None:
    """Undo a merge: PLAYER's games are replayed as their own again."""
    led.commands.unmerge_player(name, reason)
    led.caught_up()
    click.echo(f"Unmerged {name!r}.")


@player.command("duplicates")
@format_option
@pass_ledger
def player_duplicates(led: Ledger, fmt: str) -> None:
    """Likely duplicate players, with the evidence: similar names (typos,
    swapped first and last names, initials) of players never in the same game."""
    rows = likely_duplicates(*queries.identity_evidence(led.conn))
    click.echo(render(rows, fmt, "Likely duplicates", kind=DuplicatePair))


@player.command("list")
@format_option
@pass_ledger
def player_list(led: Ledger, fmt: str) -> None:
    """List registered players."""
    click.echo(render(queries.players(led.conn), fmt, "Players", kind=queries.PlayerInfo))


# -- recording games -------------------------------------------------------------
def game_options(required: bool) -> Any:
    """The options that describe a game (shared by record and correct)."""

    def decorate(f: Any) -> Any:
        options = [
            click.option("--date", required=required, type=DATE, help="Date played."),
            click.option("--event", default=None, help="Tournament / event id."),
            click.option("--round", "round_", default=None, type=ORDER,
                         help=bounded_help("Round in the event.", bounds.ORDER)),
            click.option("--table", default=None, type=ORDER,
                         help=bounded_help("Table number within the round; it is also the "
                              "order of play (without it, the game is numbered after those "
                              "already recorded for its date, event and round).",
                              bounds.ORDER)),
            click.option("--side", "sides", multiple=True, metavar="NAMES",
                         help="A side's players, ';'-separated; repeat: first side is A."),
            click.option("--result", default=None,
                         help="Two-sided families: a (side A won), b (side B won) or draw."),
            click.option("--margin", default=None,
                         help="Winner's margin (battle-empire: marginal, decisive, overwhelming)."),
            click.option("--ranks", default=None,
                         help="bga: finishing ranks per side, e.g. 1,2,2,4 (ties share a rank)."),
            click.option("--quit", "quitter", default=None,
                         help="bga: the player who quit first."),
            click.option("--bv", default=None, metavar="AS,AE,BS,BE",
                         help=bounded_help("battletech: starting and ending BV of sides A "
                                           "and B.", bounds.RESULT_NUMBER)),
            click.option("--field", "fields", multiple=True, type=SETTING, metavar="KEY=JSON",
                         help="Any other result field of the family (e.g. units=[...], or a "
                              "custom family's own field)."),
            click.option("--neutral/--not-neutral", default=None,
                         help="No first-player (home) advantage in this game (or, to "
                              "correct, there was)."),
            click.option("--attr", "attrs", multiple=True, type=ATTRIBUTE,
                         help=bounded_help("An extra numeric attribute (points scored...).",
                                           bounds.ATTRIBUTE)),
        ]  # fmt: skip
        for option in reversed(options):
            f = option(f)
        return f

    return decorate


def result_fields(opts: dict[str, Any]) -> dict[str, Any]:
    """The result fields given on the command line, in the family's terms."""
    raw: dict[str, Any] = {}
    for key, option in (("result", "result"), ("margin", "margin"), ("ranks", "ranks"),
                        ("quit", "quitter")):  # fmt: skip
        if opts[option] is not None:
            raw[key] = opts[option]
    if opts["bv"] is not None:
        raw["bv"] = [parse_number(v, "bv", bounds.RESULT_NUMBER) for v in opts["bv"].split(",")]
    raw.update(as_dict(opts["fields"]))
    return raw


allow_future_option = click.option(
    "--allow-future", is_flag=True,
    help="Accept a date more than a day ahead (refused otherwise: most often a mistyped year).",
)  # fmt: skip


def commands_for(led: Ledger, allow_future: bool) -> Commands:
    """The command layer, accepting future dates when asked to."""
    commands = led.commands
    commands.allow_future = allow_future
    return commands


def split_sides(sides: tuple[str, ...]) -> list[list[str]]:
    return [[n.strip() for n in side.split(";") if n.strip()] for side in sides]


@main.command(epilog=result_fields_epilog())
@click.argument("ladder_name", metavar="LADDER")
@game_options(required=True)
@click.option("--add-players", is_flag=True, help="Register players not yet known.")
@allow_future_option
@pass_ledger
def record(
    led: Ledger, ladder_name: str, add_players: bool, allow_future: bool, **opts: Any
) -> None:
    """Record one game of LADDER.

    \b
    elo, adlg:      --side Alice --side Bob --result a|b|draw
    battle-empire:  ... --result a --margin marginal|decisive|overwhelming
    bga:            --side A --side B --side C --ranks 1,2,2 [--quit C]
    battletech:     --side A --side B --bv 5000,3000,5000,1000
                    (or --field units='[[{"name":..,"bv":..,"state":..}],[..]]')
    your own:       --field NAME=VALUE for each of its result fields
    Team sides: --side "Alice;Bob" --side "Carol;Dan".
    """
    game = GameInput(
        ladder=ladder_name,
        date=opts["date"].isoformat(),
        sides=split_sides(opts["sides"]),
        result=result_fields(opts),
        event=opts["event"],
        round=opts["round_"],
        table=opts["table"],
        neutral=bool(opts["neutral"]),
        attributes=as_dict(opts["attrs"]),
    )
    recorded = commands_for(led, allow_future).record(game, add_players)
    led.caught_up()
    click.echo(f"Recorded game {recorded.short}.")


@main.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Check and report; write nothing.")
@click.option("--ladder", "ladder_name", default=None, help="Ladder for rows that name none.")
@click.option("--sheet", default=None, help="Worksheet of an .xlsx workbook (default: the first).")
@click.option("--strict", is_flag=True, help="A new name close to a known one is an error.")
@allow_future_option
@format_option
@pass_ledger
def import_(
    led: Ledger, file: Path, dry_run: bool, ladder_name: str | None, sheet: str | None,
    strict: bool, allow_future: bool, fmt: str,
) -> None:  # fmt: skip
    """Import a result sheet (.csv or .xlsx): all rows or none.

    Every row is checked first; all errors are reported at once with their
    row and column, and nothing is recorded unless every row is good. Rows
    already recorded are skipped. Rows without a table number are numbered
    in sheet order (their order of play). --dry-run also warns of each new
    player's first game and of results that would move a rating by more than
    100.
    """
    with ImportProgress() as progress:
        plan = import_sheet(
            commands_for(led, allow_future), file, dry_run, ladder_name, sheet, strict, progress
        )
    report = plan.report
    if dry_run:
        report.warnings += preview_warnings(led.app.recorder, plan.events, plan.label)
    else:
        led.caught_up()
    if fmt != "table":
        click.echo(render(report, fmt))
        return
    verb = "would add" if dry_run else "added"
    click.echo(
        f"{file}: {report.rows} rows: {verb} {report.added} games, "
        f"skipped {report.skipped} already recorded"
        + (f", new players: {', '.join(report.new_players)}" if report.new_players else "")
        + "."
    )
    for warning in report.warnings:
        click.echo(f"warning: {warning}")


class ImportProgress:
    """A progress bar for long imports, on a terminal only (plain when piped)."""

    THRESHOLD = 2000

    def __init__(self) -> None:
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> ImportProgress:
        return self

    def __call__(self, done: int, total: int) -> None:
        if total < self.THRESHOLD or not sys.stderr.isatty():
            return
        if self.bar is None:
            from rich.progress import Progress

            self.bar = Progress(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("checking rows", total=total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


@main.command()
@click.argument("game")
@game_options(required=False)
@click.option("--reason", required=True, help="Why the record was wrong.")
@click.option("--add-players", is_flag=True, help="Register players not yet known.")
@allow_future_option
@pass_ledger
def correct(
    led: Ledger, game: str, reason: str, add_players: bool, allow_future: bool, **opts: Any
) -> None:
    """Correct GAME: give the fields that change; the rest stays as recorded.

    Players are kept by identity: a player renamed or merged since keeps the
    game unless --side names other players. The corrected game takes effect
    at its own date and every later rating is recomputed.
    """
    changes = GameChanges(
        date=opts["date"].isoformat() if opts["date"] else None,
        event=opts["event"],
        round=opts["round_"],
        table=opts["table"],
        sides=split_sides(opts["sides"]) or None,
        result=result_fields(opts),
        neutral=opts["neutral"],
        attributes=as_dict(opts["attrs"]),
    )
    short_id = commands_for(led, allow_future).correct(game, changes, reason, add_players)
    led.caught_up()
    click.echo(f"Corrected game {short_id}.")


@main.command()
@click.argument("game")
@click.option("--reason", required=True, help="Why the game does not count.")
@pass_ledger
def void(led: Ledger, game: str, reason: str) -> None:
    """Void GAME: it no longer counts, and later ratings are recomputed."""
    short_id = led.commands.void(game, reason)
    led.caught_up()
    click.echo(f"Voided game {short_id}.")


@main.group()
def season() -> None:
    """Season closes (year-end decay)."""


@season.command("close")
@click.argument("ladder_name", metavar="LADDER")
@click.argument("label")
@click.option("--from", "start", required=True, type=DATE, help="First day of the season.")
@click.option("--to", "end", required=True, type=DATE, help="Last day of the season.")
@allow_future_option
@pass_ledger
def season_close(
    led: Ledger, ladder_name: str, label: str, start: date, end: date, allow_future: bool
) -> None:
    """Close season LABEL of LADDER: apply the family's decay to inactive players.

    Seasons of one ladder never overlap: closing the same stretch of time
    again (under another label) is refused, since it would decay players twice.
    """
    commands_for(led, allow_future).close_season(ladder_name, label, start, end)
    led.caught_up()
    click.echo(f"Closed season {label!r} of {ladder_name!r}.")


@main.command()
@click.argument("ladder_name", metavar="LADDER")
@click.argument("player_name", metavar="PLAYER")
@click.option(
    "--to", "to", type=BoundedNumber(bounds.RATING), default=None,
    help=bounded_help("Set the rating to this value.", bounds.RATING),
)  # fmt: skip
@click.option(
    "--shift", "shift", type=BoundedNumber(bounds.SHIFT), default=None,
    help=bounded_help("Shift the rating by this amount (+ or -).", bounds.SHIFT),
)  # fmt: skip
@click.option("--date", "on", required=True, type=DATE, help="Effective date.")
@click.option("--reason", required=True, help="Why (kept in history and audit).")
@pass_ledger
def adjust(
    led: Ledger, ladder_name: str, player_name: str, to: float | None, shift: float | None,
    on: date, reason: str,
) -> None:  # fmt: skip
    """Set (--to) or shift (--shift) PLAYER's rating in LADDER from a date."""
    led.commands.adjust(ladder_name, player_name, on, reason, to=to, shift=shift)
    led.caught_up()
    click.echo(f"Adjusted {player_name!r} in {ladder_name!r}.")


# -- queries ----------------------------------------------------------------------
@main.command()
@click.argument("ladder_name", metavar="LADDER")
@click.option("--as-of", default=None, type=DATE, help="The ranking at the end of DATE.")
@click.option(
    "--as-known-at", default=None, metavar="TIMESTAMP",
    help="The ranking as the ledger showed it at that moment (before later "
    "corrections and late results). A date alone means the end of that day, UTC.",
)  # fmt: skip
@click.option("--lang", type=click.Choice(["en", "fr"]), default="en", show_default=True,
              help="Language of grades.")  # fmt: skip
@export_options
@pass_ledger
def standings(
    led: Ledger, ladder_name: str, as_of: date | None, as_known_at: str | None, lang: str,
    fmt: str, output: Path | None,
) -> None:  # fmt: skip
    """The ranking of LADDER: rank, player, rating, grade, games, last played.

    --as-of is effective time (the ranking on that date); --as-known-at is
    record time (what the ledger said then). Together: what did we publish on
    1 January, as it stood on 31 December?
    """
    conn = led.conn
    if as_known_at is not None:
        conn = timetravel.known_at(led.app.recorder, timetravel.parse_moment(as_known_at))
    rows = queries.standings(conn, ladder_name, as_of, lang)
    title = ladder_name + (f" as of {as_of}" if as_of else "")
    title += f" as known at {as_known_at}" if as_known_at else ""
    emit(rows, fmt, title, queries.StandingRow, output)


@main.command()
@click.argument("ladder_name", metavar="LADDER")
@click.argument("player_name", metavar="[PLAYER]", required=False)
@export_options
@pass_ledger
def history(
    led: Ledger, ladder_name: str, player_name: str | None, fmt: str, output: Path | None
) -> None:
    """PLAYER's history in LADDER: games, adjustments and season penalties.

    Without PLAYER, every player's history (grouped by player, each in
    effective order) in one table."""
    if player_name is None:
        ladder_name = queries.ladder_row(led.conn, ladder_name)["name"]
        rows = list(export_mod.all_histories(led.conn, ladder_name))
        emit(rows, fmt, f"Every player in {ladder_name}", export_mod.PlayerHistoryLine, output)
        return
    rows = queries.history(led.conn, ladder_name, player_name)
    who = queries.names(led.conn)[queries.player_by_name(led.conn, player_name)]
    title = f"{who} in {queries.ladder_row(led.conn, ladder_name)['name']}"
    emit(rows, fmt, title, queries.HistoryLine, output)


@main.command()
@click.argument("game")
@format_option
@pass_ledger
def explain(led: Ledger, game: str, fmt: str) -> None:
    """Every input and intermediate value of GAME's rating computation."""
    x = queries.explain(led.conn, game)
    if fmt != "table":
        click.echo(render(x, fmt))
        return
    where = f", {x.event} round {x.round}" if x.event else ""
    click.echo(f"Game {x.game} in {x.ladder}: {x.date}{where} [{x.status}]")
    click.echo(f"Family: {x.family} {msgspec.json.encode(x.params).decode()}")
    click.echo(f"Result: {msgspec.json.encode(x.result).decode()}")
    if x.note:
        click.echo(f"Note: {x.note}")
    for p in x.players:
        click.echo(f"\n{p.player} (side {p.side}): {p.before:g} -> {p.after:g} ({p.change:+g})")
        for key, value in p.values.items():
            shown = f"{value:.6g}" if isinstance(value, float) else value
            click.echo(f"  {key:<32} {shown}")


@main.command()
@click.argument("ladder_name", metavar="[LADDER]", required=False)
@click.option("--head", is_flag=True, help="Print only the hash-chain head (to publish).")
@export_options
@pass_ledger
def audit(led: Ledger, ladder_name: str | None, head: bool, fmt: str, output: Path | None) -> None:
    """The event log: sequence, recorded at, by, kind, summary, reason."""
    if head:
        seq, link = ledger_chain.head(led.conn)
        click.echo(link if fmt == "table" else render(HeadLine(seq, link), fmt))
        return
    rows = queries.audit(led.conn, ladder_name)
    emit(rows, fmt, "Audit log", queries.AuditLine, output)


class HeadLine(msgspec.Struct):
    events: int
    head: str


@main.command()
@click.option(
    "--head",
    "published",
    default=None,
    metavar="HASH",
    help="A head published earlier: it must be a link of this ledger's chain.",
)
@format_option
@pass_ledger
def verify(led: Ledger, published: str | None, fmt: str) -> None:
    """Check the event log against its hash chain and the views against a
    rebuild from the events; name the first event or view row that differs."""
    report = verify_mod.verify(led.conn, led.app.recorder, published)
    if fmt != "table":
        click.echo(render(report, fmt))
    else:
        click.echo(f"Events chained: {report.events}\nHead: {report.head}")
        click.echo(f"Views checksum: {report.views_checksum}")
        for problem in report.problems:
            click.echo(f"PROBLEM: {problem}")
        for warning in report.warnings:
            click.echo(f"WARNING: {warning}")
        click.echo("OK: the event log matches its chain and the views match a rebuild."
                   if report.ok else f"{len(report.problems)} problem(s) found.")  # fmt: skip
    if not report.ok:
        sys.exit(1)


@main.command()
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
@pass_ledger
def diff(led: Ledger, ladder_name: str, start: str, end: str | None, fmt: str) -> None:
    """Every player whose rating in LADDER changed between two moments of the
    ledger, and the events recorded in between that changed it."""
    rows = timetravel.diff(
        led.app.recorder, ladder_name, timetravel.parse_moment(start),
        timetravel.parse_moment(end) if end else None, led.conn,
    )  # fmt: skip
    click.echo(render(rows, fmt, f"{ladder_name}: changes", kind=timetravel.DiffLine))


@main.command()
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
        raise Invalid("nothing to try: give --set KEY=VALUE or --family")
    rows = whatif_mod.whatif(led.conn, ladder_name, as_dict(sets), family, start)
    click.echo(render(rows, fmt, f"{ladder_name}: what if", kind=whatif_mod.WhatIfLine))


@main.command()
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


@main.command()
@click.option("--follow", is_flag=True, help="Keep running: catch up as events arrive.")
@click.option("--interval", default=0.2, show_default=True, type=float,
              help="Seconds between two polls when following.")  # fmt: skip
@pass_ledger
def project(led: Ledger, follow: bool, interval: float) -> None:
    """Bring the views up to date (once, or continuously with --follow).

    With --follow this is the projection service for a ledger that other
    machines write to: it stops cleanly on Ctrl-C or SIGTERM and resumes where
    it stopped; a second follower of the same views refuses to start.
    """
    if not follow:
        click.echo(f"Applied {views.catch_up(led.conn, led.app.recorder)} new events.")
        return
    lock = service.FollowerLock(
        led.conn, led.storage.target if led.storage.kind == "sqlite" else None
    )
    lock.acquire()
    click.echo(f"Following {led.storage.kind} views (Ctrl-C to stop)...", err=True)
    try:
        total = service.follow(
            led.conn, led.app.recorder, interval,
            on_batch=lambda n: click.echo(f"applied {n} events", err=True),
            on_warning=lambda w: click.echo(f"Warning: {w}", err=True),
        )  # fmt: skip
    finally:
        lock.release()
    click.echo(f"Stopped after applying {total} events.", err=True)


@main.command()
@click.option("--from", "source", required=True, metavar="PATH|URL", help="The ledger to copy.")
@click.option("--to", "target", required=True, metavar="PATH|URL", help="An empty ledger.")
@click.option(
    "--to-schema", default=None, help="PostgreSQL schema of the target (default: ledger)."
)
@format_option
@pass_ledger
def migrate(led: Ledger, source: str, target: str, to_schema: str | None, fmt: str) -> None:
    """Copy every event to another store (e.g. SQLite to PostgreSQL), keeping
    order, content and hash chain; rebuild the target's views and prove its
    standings identical. Refuses a non-empty target."""
    source_store, target_store = resolve(source, led.schema), resolve(target, to_schema)
    source_app = LedgerApplication(env=source_store.app_env())
    target_app = LedgerApplication(env=target_store.app_env())
    try:
        source_views = views.connect(open_views(source_store))
        views.catch_up(source_views, source_app.recorder)
        problems = verify_mod.check_chain(source_views, source_app.recorder, None)
        if problems:
            raise Invalid(f"the source ledger fails verification: {problems[0]}")
        copied, head = migrate_mod.copy_events(source_app, target_app)
        target_views = views.connect(open_views(target_store))
        views.rebuild(target_views, target_app.recorder)
        report = MigrationReport(copied, head, *same_standings(source_views, target_views))
    finally:
        source_app.close()
        target_app.close()
    if fmt != "table":
        click.echo(render(report, fmt))
    else:
        click.echo(f"Copied {report.events} events; head {report.head}; {report.ladders} "
                   f"ladders, standings identical: {report.standings_identical}.")  # fmt: skip
    if not report.standings_identical:
        sys.exit(1)


class MigrationReport(msgspec.Struct):
    events: int
    head: str
    ladders: int
    standings_identical: bool


def same_standings(first: Any, second: Any) -> tuple[int, bool]:
    """(ladders, whether every ladder's standings are identical) of two views."""
    names = [r.name for r in queries.ladders(first)]
    identical = all(
        msgspec.to_builtins(queries.standings(first, n))
        == msgspec.to_builtins(queries.standings(second, n))
        for n in names
    )
    return len(names), identical


@main.command()
@pass_ledger
def rebuild(led: Ledger) -> None:
    """Drop every view and rebuild it from the events alone."""
    report = views.rebuild_report(led.conn, led.app.recorder)
    for warning in report.warnings:
        click.echo(f"Warning: {warning}", err=True)
    applied = report.applied
    click.echo(f"Rebuilt the views from {applied} events.")


from ledger.cli.site import export, site  # noqa: E402

main.add_command(site)
main.add_command(export)


from ledger.cli.teams import teams  # noqa: E402

main.add_command(teams)


if __name__ == "__main__":  # pragma: no cover
    main()
