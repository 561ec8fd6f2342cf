"""Keeping the store and its views: project (and follow), migrate, rebuild."""

from __future__ import annotations

import sys

import click

from ledger.cli.context import (
    Ledger,
    format_option,
    lang_option,
    open_views,
    pass_ledger,
)
from ledger.cli.group import fail, machine_failure
from ledger.cli.help import TranslatedCommand
from ledger.kernel.errors import Invalid, LedgerError
from ledger.kernel.translation import N_, Message
from ledger.write import migrate as migrate_mod
from ledger.write.application import LedgerApplication
from ledger.write.storage import resolve
from projections import migration, service, views
from projections import verify as verify_mod
from projections.formats import render


@click.command(cls=TranslatedCommand)
@click.option("--follow", is_flag=True, help="Keep running: catch up as events arrive.")
@click.option("--interval", default=0.2, show_default=True, type=float,
              help="Seconds between two polls when following.")  # fmt: skip
@pass_ledger
def project(led: Ledger, follow: bool, interval: float) -> None:
    """Bring the views up to date (once, or continuously with --follow).

    With --follow this is the projection service for a ledger that other
    machines write to: it stops cleanly on Ctrl-C or SIGTERM and resumes where
    it stopped; a second follower of the same views refuses to start. It
    outlives its database: a lost connection (a restart, a crash of the
    server) is one line, retried with a growing wait, and one line again
    when it is back. Any other failure of the database ends it, in one line.
    """
    led.creates = True  # the owner's first 'project' sets a PostgreSQL ledger up
    if not follow:
        click.echo(f"Applied {views.catch_up(led.conn, led.app.recorder)} new events.")
        return
    lock = service.FollowerLock(
        led.conn, led.storage.target if led.storage.kind == "sqlite" else None
    )
    lock.acquire()
    try:
        total = service.follow(
            led.conn, led.app.recorder, interval,
            on_batch=lambda n: click.echo(f"applied {n} events", err=True),
            on_warning=lambda w: click.echo(f"Warning: {w}", err=True),
            on_start=lambda: click.echo(
                f"Following {led.storage.kind} views (Ctrl-C to stop)...", err=True
            ),
            on_connection=lambda line: click.echo(line, err=True),
            lock=lock,
        )  # fmt: skip
    except LedgerError:
        raise
    except Exception as exc:
        if machine_failure(exc) is not None:
            raise
        fail(Message("the follower stopped: {reason}", reason=service.first_line(exc)))
    finally:
        lock.release()
    click.echo(f"Stopped after applying {total} events.", err=True)


@click.command(cls=TranslatedCommand)
@click.option("--from", "source", required=True, metavar="PATH|URL", help="The ledger to copy.")
@click.option("--to", "target", required=True, metavar="PATH|URL", help="An empty ledger.")
@click.option(
    "--to-schema", default=None, help="PostgreSQL schema of the target (default: ledger)."
)
@format_option
@pass_ledger
def migrate(led: Ledger, source: str, target: str, to_schema: str | None, fmt: str) -> None:
    """Copy every event to an empty store, e.g. into PostgreSQL.

    Order, content and hash chain are kept; the target's views are rebuilt
    and its standings proven identical to the source's. A target that holds
    events is refused."""
    source_store, target_store = (
        resolve(source, led.schema, create=False),
        resolve(target, to_schema),
    )
    source_app = LedgerApplication(env=source_store.app_env())
    target_app = LedgerApplication(env=target_store.app_env())
    try:
        source_views = views.connect(open_views(source_store))
        views.catch_up(source_views, source_app.recorder)
        problems = verify_mod.check_chain(source_views, source_app.recorder, None)
        if problems:
            raise Invalid(
                Message("the source ledger fails verification: {problems}", problems=problems[0])
            )
        copied, head = migrate_mod.copy_events(source_app, target_app)
        target_views = views.connect(open_views(target_store))
        views.rebuild(target_views, target_app.recorder)
        report = migration.compared(copied, head, source_views, target_views)
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


@click.command(cls=TranslatedCommand)
@lang_option
@pass_ledger
def rebuild(led: Ledger) -> None:
    """Drop every view and rebuild it from the events alone."""
    from ledger.cli.progress import ProgressBar

    with ProgressBar(N_("reading events"), 20_000, led.t) as bar:
        report = led.rebuilt(lambda stage, done, total: bar(done, total, stage))
    t = led.t
    for warning in report.warnings:
        click.echo(t.gettext("Warning: {text}").format(text=warning), err=True)
    click.echo(t.gettext("Rebuilt the views from {n} events.").format(n=report.applied))
