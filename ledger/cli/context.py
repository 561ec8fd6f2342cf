"""What every command shares: the opened ledger, error reporting, output
options and rendering helpers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ledger.application import LedgerApplication, current_user
from ledger.commands import Commands
from ledger.errors import Denied, Invalid
from ledger.output import FORMATS, render
from ledger.storage import Storage, resolve
from projections import views
from projections.db import Database, PostgresDatabase, SQLiteDatabase
from projections.views.schema import stored_version


class Ledger:
    """What every command shares: the storage, the application and the views,
    opened on first use."""

    def __init__(self, db: str | None, by: str | None, schema: str | None = None) -> None:
        self.db = db
        self.schema = schema
        self.by = current_user(by)
        self._storage: Storage | None = None
        self._app: LedgerApplication | None = None
        self._conn: Database | None = None

    @property
    def storage(self) -> Storage:
        if self._storage is None:
            self._storage = resolve(self.db, self.schema)
        return self._storage

    @property
    def app(self) -> LedgerApplication:
        if self._app is None:
            self._app = LedgerApplication(env=self.storage.app_env())
        return self._app

    @property
    def commands(self) -> Commands:
        """The command layer, recording as ``--by``."""
        return Commands(self.app, self.by)

    @property
    def conn(self) -> Database:
        if self._conn is None:
            self.app  # noqa: B018 - the event store's tables exist before the views read them
            db = open_views(self.storage)
            if db.kind == "postgres" and stored_version(db) != views.VERSION:
                # Creating or upgrading the views is DDL: the owner's alone.
                try:
                    self._refuse_unless_owner(
                        db,
                        "create them",
                        "ledger project",
                        "the views are missing or of another version: ",
                    )
                except Denied:
                    db.close()
                    raise
            self._conn = views.connect(db)
            self.caught_up()
        return self._conn

    def owner_only(self, action: str, command: str) -> None:
        """Refuse, before any DDL, a command that only the owner of the
        PostgreSQL schema may run: ``action`` (e.g. "rebuild the views (a
        rebuild drops and recreates their tables)"), run as ``command``."""
        self._refuse_unless_owner(self.conn, action, command)

    @staticmethod
    def _refuse_unless_owner(db: Database, action: str, command: str, state: str = "") -> None:
        owner = db.owner()
        if owner is not None:
            raise Denied(
                f"{state}only the schema's owner {owner!r} may {action}; run '{command}' "
                f"as {owner!r}"
            )

    def close(self) -> None:
        """Release connections (PostgreSQL pools hold server slots)."""
        if self._conn is not None:
            self._conn.close()
        if self._app is not None:
            self._app.close()

    def caught_up(self) -> None:
        """Bring the views up to the events just appended; say on stderr what
        the replay warns of (rules of another maths version). A role that may
        only read the views (a PostgreSQL reader) reads them as they stand,
        told on stderr how far behind the events they are."""
        conn, recorder = self.conn, self.app.recorder
        if not views.is_current(conn, recorder) and not conn.may_write(["view_tracking"]):
            behind = (recorder.max_notification_id() or 0) - views.position(conn)
            click.echo(
                f"Notice: the views are {behind} event{'s' if behind != 1 else ''} behind the "
                "event log and this role may "
                "only read them: shown as they stand (a referee's next command, or 'ledger "
                "project', brings them up to date).",
                err=True,
            )
            return
        report = views.catch_up_report(conn, recorder)
        for warning in report.warnings:
            click.echo(f"Warning: {warning}", err=True)


def open_views(storage: Storage) -> Database:
    """The views' database: the same SQLite file or PostgreSQL schema as the
    events."""
    if storage.kind == "sqlite":
        return SQLiteDatabase(storage.target)
    return PostgresDatabase(storage.target, storage.schema)


format_option = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
    help="table for people; json or csv for scripts.",
)  # fmt: skip


def export_options(f: Any) -> Any:
    """--format table|json|csv|xlsx and --output FILE (required for xlsx)."""
    f = click.option(
        "--output",
        "-o",
        type=click.Path(path_type=Path),
        default=None,
        help="Write to FILE instead of the terminal (required for xlsx).",
    )(f)
    return click.option(
        "--format", "fmt", type=click.Choice([*FORMATS, "xlsx"]), default="table",
        show_default=True, help="table for people; json, csv or xlsx for scripts and sheets.",
    )(f)  # fmt: skip


def emit(rows: Any, fmt: str, title: str, kind: Any, output: Path | None) -> None:
    """Print query rows, or write them to --output (an .xlsx for xlsx)."""
    if fmt == "xlsx":
        if output is None:
            raise Invalid("--format xlsx needs --output FILE.xlsx")
        from ledger.workbook import write_rows

        write_rows(output, rows, kind, title)
        click.echo(f"Wrote {len(rows)} rows to {output}.")
        return
    text = render(rows, fmt, title, kind=kind)
    if output is None:
        click.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")
        click.echo(f"Wrote {len(rows)} rows to {output}.")


pass_ledger = click.make_pass_decorator(Ledger)
