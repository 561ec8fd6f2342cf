"""``ledger evaluate`` and ``ledger tune``: evidence for rule changes."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import click
import msgspec

from ledger.cli.context import Ledger, family_needed, format_option, pass_ledger
from ledger.cli.help import TranslatedCommand
from ledger.cli.params import DATE, SETTING, VARY, as_dict
from ledger.cli.progress import ProgressBar
from ledger.cli.reports import note_unrated
from ledger.kernel.translation import N_
from projections.formats import render

#: Grid points a table shows (the best first); json and csv give them all.
GRID_SHOWN = 10


def _window(start: date | None, end: date | None) -> str:
    if start and end:
        return f" from {start} to {end}"
    return f" from {start}" if start else f" to {end}" if end else ""


@click.command(cls=TranslatedCommand)
@click.argument("ladder_name", metavar="LADDER")
@click.option("--from", "start", default=None, type=DATE, help="Score games from this date.")
@click.option("--to", "end", default=None, type=DATE, help="Score games up to this date.")
@click.option(
    "--as-known-at", default=None, metavar="TIMESTAMP",
    help="The ledger as it stood at that moment (before later corrections and "
    "late results). A date alone means the end of that day, UTC.",
)  # fmt: skip
@click.option("--family", default=None, help="Also try another family (its defaults + --set).")
@click.option("--set", "sets", multiple=True, type=SETTING, help="Also try this parameter.")
@format_option
@pass_ledger
def evaluate(
    led: Ledger, ladder_name: str, start: date | None, end: date | None,
    as_known_at: str | None, family: str | None, sets: tuple[tuple[str, Any], ...], fmt: str,
) -> None:  # fmt: skip
    """How well LADDER's rules predicted its games: log-loss (binomial
    deviance, predictions clipped to [0.01, 0.99]), Brier score, accuracy on
    decisive games and a calibration table, beside two baselines (always
    1/2; the first-player advantage alone, where the rules give one).

    With --set or --family, other rules are replayed in memory (as 'ledger
    whatif' does, recording nothing) and scored on the same games. A game
    of more than two sides counts each pair of sides. --format json gives
    everything; csv the measures."""
    from projections.evidence.evaluate import Line, evaluate

    conn = led.conn
    if as_known_at is not None:
        from projections import timetravel

        conn = timetravel.known_at(led.app.recorder, timetravel.parse_moment(as_known_at))
    with family_needed(f"ladder {ladder_name!r}"):
        report = evaluate(conn, ladder_name, start, end, as_dict(sets), family)
    note_unrated(report.unrated, family, led.t)
    if fmt == "json":
        click.echo(render(report, fmt))
        return
    title = f"{report.ladder}: predictions{_window(start, end)}"
    title += f" as known at {as_known_at}" if as_known_at else ""
    if fmt == "table" and not report.lines[0].comparisons:
        click.echo(f"No rated game to score in {title}.")
        return
    click.echo(render(report.lines, fmt, title, kind=Line))
    if fmt == "table":  # the bins that hold a prediction; json gives all ten
        for rules in dict.fromkeys(row.rules for row in report.calibration):
            rows = [
                Bin(f"{r.low:g}-{r.high:g}", r.predicted, r.observed, r.count)
                for r in report.calibration
                if r.rules == rules and r.count
            ]
            click.echo("")
            click.echo(render(rows, fmt, f"Calibration: {rules}", kind=Bin))


class Bin(msgspec.Struct):
    """A calibration bin as a table for people shows it."""

    predicted_from: str
    mean_predicted: float | None
    observed: float | None
    count: int


@click.command(cls=TranslatedCommand)
@click.argument("ladder_name", metavar="LADDER")
@click.option("--vary", "varies", multiple=True, required=True, type=VARY,
              help="A parameter and its values, STOP included: k=10:40:2 (repeat: a grid).")  # fmt: skip
@click.option("--train-until", default=None, type=DATE,
              help="Games before this date only warm the ratings; the rest are scored.")  # fmt: skip
@click.option("--from", "start", default=None, type=DATE, help="Score games from this date.")
@click.option("--to", "end", default=None, type=DATE, help="Score games up to this date.")
@click.option("--effective", default=None, type=DATE,
              help="The date the command to adopt the best point names (default: today, UTC).")  # fmt: skip
@click.option("--seed", default=27, show_default=True, type=int,
              help="The bootstrap's seed: the same seed, the same interval.")  # fmt: skip
@format_option
@pass_ledger
def tune(
    led: Ledger, ladder_name: str, varies: tuple[Any, ...], train_until: date | None,
    start: date | None, end: date | None, effective: date | None, seed: int, fmt: str,
) -> None:  # fmt: skip
    """Which values of LADDER's numeric parameters would have predicted its
    games best: a grid search by log-loss, the best point's gain over the
    rules in force with a bootstrap interval over events (95%), and the
    'ledger ladder rules' command that would adopt it. Records nothing.

    A table shows the best points; --format json|csv gives the whole grid."""
    from projections.evidence.tune import GridPoint, tune

    on = effective or datetime.now(UTC).date()
    with (
        family_needed(f"ladder {ladder_name!r}"),
        ProgressBar(N_("rating the grid's points"), 2, led.t) as progress,
    ):
        report = tune(
            led.conn, ladder_name, list(varies), on, train_until, start, end, seed, progress
        )
    if fmt == "json":
        click.echo(render(report, fmt))
        return
    if fmt == "csv":
        click.echo(render(report.grid, fmt, kind=GridPoint))
        return
    scored = _window(train_until or start, end)
    best = sorted(report.grid, key=lambda g: (g.log_loss is None, g.log_loss or 0.0))
    shown = [BestPoint(g.point, g.log_loss, g.brier, g.accuracy) for g in best[:GRID_SHOWN]]
    how = "one replay for the whole grid" if report.at_once else "one replay per point"
    click.echo(f"{report.ladder}: {len(report.grid)} grid points ({how}), {report.games} "
               f"games scored{scored}")  # fmt: skip
    click.echo(render(shown, fmt, "Best points by log-loss"))
    if len(report.grid) > GRID_SHOWN:
        click.echo(f"({len(report.grid) - GRID_SHOWN} more: --format csv gives the whole grid)")
    click.echo(f"\nRules in force: log-loss {_num(report.in_force)}")
    click.echo(f"Best point:     {report.best.point}, log-loss {_num(report.best.log_loss)}")
    if report.gain is not None and report.interval is not None:
        i = report.interval
        click.echo(
            f"Gain:           {report.gain:+.4f} (95% interval {i.low:+.4f} to {i.high:+.4f}, "
            f"{i.resamples} resamples of the events, seed {i.seed})"
        )
        if i.low <= 0:
            click.echo("The interval reaches 0: the evidence does not favour a change.")
    edges = [v.name for v in varies if len(v.values) > 1
             and report.best.values[v.name] in (v.values[0], v.values[-1])]  # fmt: skip
    if edges:
        click.echo(f"The best point is at the edge of the grid ({', '.join(edges)}): "
                   "a wider --vary may find better.")  # fmt: skip
    click.echo(f"To adopt it:\n  {report.adopt}")


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


class BestPoint(msgspec.Struct):
    """A grid point as the table of the best shows it."""

    point: str
    log_loss: float | None
    brier: float | None
    accuracy: float | None
