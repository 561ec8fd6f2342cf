"""Ratings: a ladder's standings and a player's history, the queries people
run most.

Kept apart from the other queries so that running one loads only what it
needs: the ranking and a player's history for people are read as plain rows
(``projections.plain``), without msgspec or the views' query module; JSON,
CSV, a workbook or a past date go through ``projections.queries``.
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ledger.cli.context import (
    Ledger,
    emit,
    export_options,
    family_needed,
    lang_option,
    pass_ledger,
    plural,
    show,
    wide_option,
)
from ledger.cli.help import TranslatedCommand
from ledger.cli.params import DATE
from ledger.kernel import collection
from ledger.kernel.translation import N_, Translator
from projections.formats import table_lines

if TYPE_CHECKING:
    from projections.plain import PlainTable

#: What an empty ranking or history says instead of a table of no rows.
HOW_TO_RATE = N_("record a game ('ledger record') or import a result sheet ('ledger import').")
NOTHING_YET = N_("nothing yet (no game, rating adjustment or season penalty).")
#: The ranking's columns a narrow terminal leaves out first (names wrap after).
RANKING_SPARE = ("state", "last_played")
#: The history's columns a narrow terminal leaves out first, least read first:
#: the Elo terms (``explain`` gives them), where the game sat, then who it was.
HISTORY_SPARE = (
    "s", "p", "k", "table", "round", "margin", "game", "before", "event", "kind", "result",
)  # fmt: skip


@click.command(cls=TranslatedCommand)
@click.argument("ladder_name", metavar="LADDER")
@click.option("--as-of", default=None, type=DATE, help="The ranking at the end of DATE.")
@click.option(
    "--as-known-at", default=None, metavar="TIMESTAMP",
    help="The ranking as the ledger showed it at that moment (before later "
    "corrections and late results). A date alone means the end of that day, UTC.",
)  # fmt: skip
@lang_option
@export_options
@wide_option
@pass_ledger
def standings(
    led: Ledger, ladder_name: str, as_of: date | None, as_known_at: str | None,
    fmt: str, output: Path | None, wide: bool,
) -> None:  # fmt: skip
    """The ranking of LADDER: rank, player, rating, grade, games, last played.

    --as-of is effective time (the ranking on that date); --as-known-at is
    record time (what the ledger said then). Together: what did we publish on
    1 January, as it stood on 31 December?

    On a terminal, a ranking longer than the screen opens in a pager.
    """
    with family_needed(f"ladder {ladder_name!r}"):
        _standings(led, ladder_name, as_of, as_known_at, fmt, output, wide)


def _standings(
    led: Ledger, ladder_name: str, as_of: date | None, as_known_at: str | None,
    fmt: str, output: Path | None, wide: bool,
) -> None:  # fmt: skip
    lang, t = led.lang, led.t
    if fmt == "table" and output is None and as_of is None and as_known_at is None:
        from projections import plain

        conn = led.query_conn  # (caught up first, if behind: with collections)
        with collection.paused():
            table = plain.ranking(conn, ladder_name, lang)
            if table is not None:
                if not table.cells:
                    click.echo(
                        t.gettext("No one is rated in {ladder} yet: {how}").format(
                            ladder=table.title, how=t.gettext(HOW_TO_RATE)
                        )
                    )
                    return
                show_plain(table, RANKING_SPARE, wide, t)
                return
    from projections import queries

    conn = led.conn
    if as_known_at is not None:
        from projections import timetravel

        conn = timetravel.known_at(led.app.recorder, timetravel.parse_moment(as_known_at))
    rows = queries.standings(conn, ladder_name, as_of, lang)
    title = ladder_name
    if as_of:
        title += " " + t.gettext("as of {day}").format(day=as_of)
    if as_known_at:
        title += " " + t.gettext("as known at {moment}").format(moment=as_known_at)
    if not rows and fmt == "table" and output is None:
        click.echo(t.gettext("No one is rated in {ladder}.").format(ladder=title))
        return
    # A family whose ratings know their uncertainty adds columns (deviation...).
    kind = type(rows[0]) if rows else queries.StandingRow
    emit(rows, fmt, title, kind, output, RANKING_SPARE, wide, t)


@click.command(cls=TranslatedCommand)
@click.argument("ladder_name", metavar="LADDER")
@click.argument("player_name", metavar="[PLAYER]", required=False)
@lang_option
@export_options
@wide_option
@pass_ledger
def history(
    led: Ledger, ladder_name: str, player_name: str | None, fmt: str, output: Path | None,
    wide: bool,
) -> None:  # fmt: skip
    """PLAYER's history in LADDER: games, adjustments and season penalties.

    Without PLAYER, every player's history (grouped by player, each in
    effective order) in one table."""
    with family_needed(f"ladder {ladder_name!r}"):
        _history(led, ladder_name, player_name, fmt, output, wide)


def _history(
    led: Ledger, ladder_name: str, player_name: str | None, fmt: str, output: Path | None,
    wide: bool,
) -> None:  # fmt: skip
    t = led.t
    if player_name is not None and fmt == "table" and output is None:
        from projections import plain

        conn = led.query_conn  # (caught up first, if behind: with collections)
        with collection.paused():
            table = plain.history(conn, ladder_name, player_name, t)
            if not table.cells:
                click.echo(f"{table.title}: {t.gettext(NOTHING_YET)}")
                return
            show_plain(table, HISTORY_SPARE, wide, t)
        return
    from projections import queries

    if player_name is None:
        from projections import export as export_mod

        ladder_name = queries.ladder_row(led.conn, ladder_name)["name"]
        lines = export_mod.all_histories(led.conn, ladder_name)
        if fmt in ("csv", "json"):  # streamed: bounded memory at any ladder size
            if output is None:
                export_mod.write_history(lines, fmt, sys.stdout)
            else:
                with output.open("w", encoding="utf-8", newline="") as f:
                    n = export_mod.write_history(lines, fmt, f)
                click.echo(f"Wrote {plural(n, 'row')} to {output}.")
            return
        title = t.gettext("Every player in {ladder}").format(ladder=ladder_name)
        lines = list(lines)
        if not lines and fmt == "table" and output is None:
            click.echo(f"{title}: {t.gettext(NOTHING_YET)}")
            return
        emit(lines, fmt, title, export_mod.PlayerHistoryLine, output, HISTORY_SPARE, wide, t)
        return
    from projections.reads import history_subject

    rows = queries.history(led.query_conn, ladder_name, player_name)
    title = history_subject(led.conn, ladder_name, player_name).titled(t)
    if not rows and fmt == "table" and output is None:
        click.echo(f"{title}: {t.gettext(NOTHING_YET)}")
        return
    emit(rows, fmt, title, queries.HistoryLine, output, HISTORY_SPARE, wide, t)


def show_plain(
    table: PlainTable, spare: tuple[str, ...], wide: bool, t: Translator | None = None
) -> None:
    """Print a plain table for people (through a pager when long), fitting
    the terminal (``spare`` columns left out first) unless ``wide``, in
    ``t``'s language."""
    show(table_lines(table.columns, table.cells, table.title, spare, wide, t))
