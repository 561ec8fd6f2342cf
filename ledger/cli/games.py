"""Recording games: record, import, correct, void; season closes and rating adjustments."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ledger.cli.bounded import ORDER, BoundedNumber, bounded_help
from ledger.cli.context import (
    Ledger,
    format_option,
    lang_option,
    pass_ledger,
)
from ledger.cli.family_help import result_fields_epilog
from ledger.cli.help import TranslatedCommand, TranslatedGroup
from ledger.cli.params import ATTRIBUTE, DATE, SETTING, STATE_VALUE, as_dict
from ledger.cli.progress import ProgressBar
from ledger.kernel import bounds
from ledger.kernel.errors import LedgerError
from ledger.kernel.identity import short
from ledger.kernel.translation import N_, Message, Translator, in_language
from ledger.write.commands import GameChanges
from ledger.write.game_input import GameInput, parse_number
from projections.formats import render
from projections.preview import FIRST_GAMES_SHOWN, preview_warnings
from projections.season_notes import replayed_closes, replayed_closes_of_import

if TYPE_CHECKING:
    from ledger.sheets.importer import ImportReport


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
            click.option("--reference", default=None, metavar="TEXT",
                         help="The game's own reference (BGA's table number, a club's game "
                              "number): with it, the ladder and the reference identify the "
                              "game, so the same players may play several games a day."),
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


def split_sides(sides: tuple[str, ...]) -> list[list[str]]:
    return [[n.strip() for n in side.split(";") if n.strip()] for side in sides]


@click.command(cls=TranslatedCommand, epilog=result_fields_epilog)
@click.argument("ladder_name", metavar="LADDER")
@game_options(required=True)
@click.option("--add-players", is_flag=True, help="Register players not yet known.")
@click.option("--again", is_flag=True,
              help="Record a game voided or corrected since as a game again.")  # fmt: skip
@allow_future_option
@lang_option
@pass_ledger
def record(
    led: Ledger, ladder_name: str, add_players: bool, again: bool, allow_future: bool,
    **opts: Any,
) -> None:  # fmt: skip
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
        reference=opts["reference"],
        neutral=bool(opts["neutral"]),
        attributes=as_dict(opts["attrs"]),
    )
    with led.writing(allow_future) as commands:
        recorded = commands.record(game, add_players, again)
    t = led.t
    click.echo(t.gettext("Recorded game {game}.").format(game=recorded.short))
    for line in rating_changes(led, recorded.short):
        click.echo(line)
    for warning in recorded.warnings:
        click.echo(t.gettext("warning: {text}").format(text=in_language(warning, t)))
    for note in replayed_closes(led.conn, recorded.game):
        click.echo(t.gettext("note: {text}").format(text=in_language(note, t)))


@click.command("import", cls=TranslatedCommand)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Check and report; write nothing.")
@click.option("--ladder", "ladder_name", default=None, help="Ladder for rows that name none.")
@click.option("--sheet", default=None, help="Worksheet of an .xlsx workbook (default: the first).")
@click.option("--strict", is_flag=True, help="A new name close to a known one is an error.")
@click.option("--again", is_flag=True,
              help="Record rows that are games voided or corrected since (by default they "
                   "are skipped, with a warning).")  # fmt: skip
@click.option(
    "--max-unzipped-mb",
    default=100,
    show_default=True,
    type=click.IntRange(1),
    help="An .xlsx whose parts inflate to more is refused, unread (a zip bomb).",
)
@click.option(
    "--max-rows",
    default=500_000,
    show_default=True,
    type=click.IntRange(1),
    help="An .xlsx with more rows is refused.",
)
@click.option(
    "--max-cells",
    default=5_000_000,
    show_default=True,
    type=click.IntRange(1),
    help="An .xlsx with more cells (and shared strings) is refused.",
)
@allow_future_option
@format_option
@lang_option
@pass_ledger
def import_(
    led: Ledger, file: Path, dry_run: bool, ladder_name: str | None, sheet: str | None,
    strict: bool, again: bool, max_unzipped_mb: int, max_rows: int, max_cells: int,
    allow_future: bool, fmt: str,
) -> None:  # fmt: skip
    """Import a result sheet (.csv or .xlsx): all rows or none.

    Every row is checked first; all errors are reported at once with their
    row and column, and nothing is recorded unless every row is good. Rows
    already recorded are skipped. Rows without a table number are numbered
    in sheet order (their order of play). --dry-run also warns of each new
    player's first game and of results that would move a rating by more than
    100. A row that is a game voided or corrected since is skipped with a
    warning saying so (--again records it).

    Cells may be separated by ',', ';' (French Excel) or a tab, found from
    the header line. A file is read as UTF-8 (byte-order mark or not) or
    UTF-16 with a byte-order mark, else as Windows-1252 with a warning (save
    as 'CSV UTF-8' to avoid it).

    Progress shows on a terminal through every phase: checking rows,
    storing games, then bringing the views up to date. Exit status: 0 done;
    1 refused (nothing stored); 130 interrupted (Ctrl-C) before the games
    were stored (nothing stored); 3 interrupted after they were stored,
    while the views caught up (the games are stored, as the message says;
    the next command brings the views up to date).

    An .xlsx is a zip archive of XML, often received from others: it is
    read only within the --max-* limits below, and refused beyond them in
    one line, before the rows are checked.
    """
    # Imported here: the importer (sheets, workbooks, the batch store) is
    # more than ``record`` and ``correct`` need to start.
    from ledger.sheets.importer import import_sheet
    from ledger.sheets.workbook import WorkbookLimits

    limits = WorkbookLimits(max_unzipped_mb, max_rows, max_cells)

    # A dry run appends nothing: the views it leaves are those it found.
    with (
        led.writing(allow_future, stores=not dry_run) as commands,
        ProgressBar(N_("checking rows"), 2000, led.t) as progress,
    ):
        plan = import_sheet(
            commands, file, dry_run, ladder_name, sheet, strict, progress, again=again,
            limits=limits,
        )  # fmt: skip
        if not dry_run:  # stored: what Ctrl-C says while the views catch up
            led.stored = import_line(file, plan.report, False, led.t)
    report = plan.report
    if dry_run:
        report.warnings += preview_warnings(led.app.recorder, plan.events, plan.label)
    elif report.added:  # an import that added nothing replayed no close
        notes = replayed_closes_of_import(led.conn, plan.label)
        report.warnings += [Message("{file}: {note}", file=plan.label, note=n) for n in notes]
    if fmt != "table":
        click.echo(render(report, fmt))
        return
    t = led.t
    click.echo(import_line(file, report, dry_run, t) + ".")
    for warning in report.warnings:
        click.echo(t.gettext("warning: {text}").format(text=in_language(warning, t)))


def import_line(file: Path, report: ImportReport, dry_run: bool, t: Translator) -> str:
    """What an import did (or would do, ``dry_run``), in one line without its
    full stop, in ``t``'s language."""
    rows = t.ngettext("{n} row", "{n} rows", report.rows).format(n=report.rows)
    games = t.ngettext("{n} game", "{n} games", report.added).format(n=report.added)
    did = (
        t.gettext("would add {games}, skipped {skipped} already recorded")
        if dry_run
        else t.gettext("added {games}, skipped {skipped} already recorded")
    )
    return t.gettext("{file}: {rows}: {did}").format(
        file=file, rows=rows, did=did.format(games=games, skipped=report.skipped)
    ) + new_players(report.new_players, t)


def rating_changes(led: Ledger, game: str) -> list[str]:
    """A line per player of a game just recorded: the change it made, or,
    rated with its event, the change it brings when the event ends."""
    from projections import queries

    try:
        x = queries.explain(led.conn, game)
    except LedgerError:  # a ladder that cannot be replayed: its warning says why
        return []
    per_event = bool(x.event) and x.note == queries.PER_EVENT_NOTE
    if per_event:
        line = led.t.gettext("  {player}: {change} at the end of {event} (rated from {before})")
        return [line.format(player=p.player, change=f"{p.change:+g}", event=x.event,
                            before=f"{p.before:g}") for p in x.players]  # fmt: skip
    return [f"  {p.player}: {p.before:g} → {p.after:g} ({p.change:+g})" for p in x.players]


def new_players(names: list[str], t: Translator) -> str:
    """The import line's new players, for people: every name when there are
    few, else how many, the first ten and how many more (as --dry-run lists
    first games; ``--format json`` keeps every name)."""
    if not names:
        return ""
    if len(names) <= FIRST_GAMES_SHOWN:
        return t.gettext(", new players: {names}").format(names=", ".join(names))
    more = len(names) - FIRST_GAMES_SHOWN
    shown = ", ".join(names[:FIRST_GAMES_SHOWN])
    return t.gettext(", {n} new players: {names} and {more} more").format(
        n=len(names), names=shown, more=more
    )


@click.command(cls=TranslatedCommand)
@click.argument("game")
@game_options(required=False)
@click.option("--reason", required=True, help="Why the record was wrong.")
@click.option("--add-players", is_flag=True, help="Register players not yet known.")
@allow_future_option
@lang_option
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
        reference=opts["reference"],
        sides=split_sides(opts["sides"]) or None,
        result=result_fields(opts),
        neutral=opts["neutral"],
        attributes=as_dict(opts["attrs"]),
    )
    with led.writing(allow_future) as commands:
        short_id = commands.correct(game, changes, reason, add_players)
    t = led.t
    click.echo(t.gettext("Corrected game {game}.").format(game=short_id))
    for note in replayed_closes(led.conn, short_id):
        click.echo(t.gettext("note: {text}").format(text=in_language(note, t)))


@click.command(cls=TranslatedCommand)
@click.argument("ref", metavar="ID")
@click.option("--reason", required=True, help="Why it does not count (kept in the audit log).")
@lang_option
@pass_ledger
def void(led: Ledger, ref: str, reason: str) -> None:
    """Void a game, a rating adjustment or a season close by its ID (or an
    unambiguous prefix, as printed): it no longer counts, and later ratings
    are recomputed. It stays in the audit log.

    Season closes can also be voided by label ('ledger season void'), rule
    changes by date ('ledger ladder void-rules')."""
    with led.writing() as commands:
        what = commands.void(ref, reason)
    click.echo(led.t.gettext("Voided {what}.").format(what=what))


@click.group(cls=TranslatedGroup)
def season() -> None:
    """Season closes (year-end decay)."""


@season.command("close")
@click.argument("ladder_name", metavar="LADDER")
@click.argument("label")
@click.option("--from", "start", required=True, type=DATE, help="First day of the season.")
@click.option("--to", "end", required=True, type=DATE, help="Last day of the season.")
@allow_future_option
@lang_option
@pass_ledger
def season_close(
    led: Ledger, ladder_name: str, label: str, start: date, end: date, allow_future: bool
) -> None:
    """Close season LABEL of LADDER: apply the family's decay to inactive players.

    Seasons of one ladder never overlap: closing the same stretch of time
    again (under another label) is refused, since it would decay players twice.
    """
    from projections import queries

    def at_end() -> dict[str, float]:
        return {r.player: r.rating for r in queries.standings(led.conn, ladder_name, end)}

    before = at_end()
    with led.writing(allow_future) as commands:
        sid = commands.close_season(ladder_name, label, start, end)
    t = led.t
    click.echo(t.gettext("Closed season {label} of {ladder} (season close {id}).").format(
        label=repr(label), ladder=repr(ladder_name), id=short(sid)))  # fmt: skip
    # The ranking at the season's end, before and after: the close's own changes.
    moved = [(name, was, now) for name, now in at_end().items()
             if (was := before.get(name, now)) != now]  # fmt: skip
    if not moved:
        click.echo(t.gettext("No rating changed: every rated player played, or none was in "
                             "reach of the family's season rules."))  # fmt: skip
    for name, was, now in sorted(moved, key=lambda m: (m[2] - m[1], m[0])):
        click.echo(f"  {name}: {was:g} → {now:g} ({now - was:+g})")


@season.command("void")
@click.argument("ladder_name", metavar="LADDER")
@click.argument("label")
@click.option(
    "--reason", required=True, help="Why the close does not count (kept in the audit log)."
)
@lang_option
@pass_ledger
def season_void(led: Ledger, ladder_name: str, label: str, reason: str) -> None:
    """Void the close of season LABEL of LADDER: its decay no longer counts
    and later ratings are recomputed. The season can then be closed again."""
    with led.writing() as commands:
        commands.void_season(ladder_name, label, reason)
    click.echo(led.t.gettext("Voided the close of season {label} of {ladder}.").format(
        label=repr(label), ladder=repr(ladder_name)))  # fmt: skip


@click.command(cls=TranslatedCommand)
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
@click.option(
    "--state", "values", multiple=True, type=STATE_VALUE, metavar="NAME=VALUE",
    help="Set a value of the family's state beyond the rating, by the name the ladder's "
    "family gives it (its rules page lists them; repeatable).",
)  # fmt: skip
@click.option("--date", "on", required=True, type=DATE, help="Effective date.")
@click.option("--reason", required=True, help="Why (kept in history and audit).")
@lang_option
@pass_ledger
def adjust(
    led: Ledger, ladder_name: str, player_name: str, to: float | None, shift: float | None,
    values: tuple[tuple[str, float], ...], on: date, reason: str,
) -> None:  # fmt: skip
    """Set (--to) or shift (--shift) PLAYER's rating in LADDER from a date,
    and/or values of its family's state (--state)."""
    with led.writing() as commands:
        aid = commands.adjust(
            ladder_name, player_name, on, reason, to=to, shift=shift, values=dict(values)
        )
    click.echo(led.t.gettext("Adjusted {player} in {ladder} (adjustment {id}).").format(
        player=repr(player_name), ladder=repr(ladder_name), id=short(aid)))  # fmt: skip
