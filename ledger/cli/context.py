"""What every command shares: the opened ledger, error reporting, output
options and rendering helpers."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ledger.kernel.errors import Denied, Invalid
from ledger.kernel.translation import LANGS, N_, Message, Translator, translator
from ledger.write.storage import Storage, resolve
from projections.db import Database, PostgresDatabase, SQLiteDatabase
from projections.formats import FORMATS, render

if TYPE_CHECKING:
    from ledger.write.application import LedgerApplication
    from ledger.write.commands import Commands
    from projections.views.runner import CatchUp, Progress


class Ledger:
    """What every command shares: the storage, the application and the views,
    opened on first use.

    A query opens the views with the database driver alone and checks with
    plain SQL that they have applied every stored event: the event store's
    machinery (``eventsourcing``, the projection) is loaded only when they
    have not, or when a command appends. Views that cannot be brought up to
    date here (a read-only ledger file, a PostgreSQL role that may only read)
    are read as they stand, with a notice of how far behind they are. Views
    missing or of another version in a read-only file are computed in memory
    from the events, with a notice; on PostgreSQL only the schema's owner
    may create them, and other roles are told so."""

    def __init__(
        self, db: str | None, by: str | None, schema: str | None = None, lang: str = "en"
    ) -> None:
        self.db = db
        #: The language of what this command prints (``--lang``).
        self.lang = lang
        self.schema = schema
        self._by = by
        self._storage: Storage | None = None
        self._app: LedgerApplication | None = None
        self._conn: Database | None = None
        #: Events stored that the views read by this command have not applied.
        self.behind = 0
        #: Whether this command may create the ledger: only commands that
        #: write may (``writing``, ``rebuilt``, ``project``); a query on a
        #: missing ledger is refused and creates nothing.
        self.creates = False
        #: What this command has stored, in words, once its transaction has
        #: committed (None before, and for a query): what Ctrl-C reports.
        self.stored: str | None = None
        #: Whether this command's write block completed (its append committed).
        self.wrote = False

    @property
    def t(self) -> Translator:
        """The texts in this command's language (``--lang``)."""
        return translator(self.lang)

    @property
    def by(self) -> str:
        from ledger.write.application import current_user

        return current_user(self._by)

    @property
    def storage(self) -> Storage:
        if self._storage is None:
            self._storage = resolve(self.db, self.schema, create=self.creates)
        return self._storage

    @property
    def app(self) -> LedgerApplication:
        if self._app is None:
            from ledger.write.application import LedgerApplication

            self._app = LedgerApplication(env=self.storage.app_env())
        return self._app

    @contextmanager
    def writing(self, allow_future: bool = False, stores: bool = True) -> Iterator[Commands]:
        """The command layer, recording as ``--by`` (accepting dates more
        than a day ahead when ``allow_future``); when the block ends, the
        views are caught up with what it appended, so that what follows
        reads its own writes. A block that raises appended nothing (a
        command appends all its events or none) and catches nothing up.
        Once the block ends, ``stored`` says the command's changes are
        stored (unless it ``stores`` nothing: a dry run), for Ctrl-C to
        report while the views catch up."""
        from ledger.write.commands import Commands

        self.creates = stores  # a dry run on a missing ledger creates none
        self.writable()
        yield Commands(self.app, self.by, allow_future)
        if stores and self.stored is None:
            self.stored = "the command's changes were stored"
        # Committed: a connection lost from here on must not say otherwise.
        self.wrote = True
        self.caught_up()

    def writable(self) -> None:
        """Refuse, before anything is attempted, to write a read-only ledger."""
        if self.storage.read_only:
            raise Denied(
                Message(
                    "the ledger {target!r} is read-only (an archived or published copy?): "
                    "queries and 'verify' run on it, nothing can be recorded",
                    target=self.storage.target,
                )
            )

    @property
    def conn(self) -> Database:
        if self._conn is None:
            db = open_views(self.storage)
            try:
                self._conn = self._current(db)
            except BaseException:
                db.close()
                raise
        return self._conn

    @property
    def query_conn(self) -> Database:
        """``conn`` for a query's scattered reads (``Database.for_scattered_reads``)."""
        return self.conn.for_scattered_reads()

    def _current(self, db: Database) -> Database:
        """The views, current: as they are when they have applied every
        stored event (plain SQL, nothing else loaded); else caught up, or,
        where they cannot be written, read as they stand or computed in
        memory."""
        from projections.views.version import VERSION

        standing = db.standing()
        if standing.version == VERSION and standing.last is not None and not standing.behind:
            return db
        usable = standing.version == VERSION
        if self.storage.read_only:
            return self._as_they_stand(db, usable, standing.behind)
        if usable and standing.last is not None and not db.may_write(["view_tracking"]):
            # A PostgreSQL role that may only read; views missing or of
            # another version there are the owner's to create (refused below).
            return self._as_they_stand(db, True, standing.behind)
        self.app  # noqa: B018 - the event store's tables exist before the views read them
        from projections import views

        if db.kind == "postgres" and standing.version != VERSION:
            # Creating or upgrading the views is DDL: the owner's alone.
            self._refuse_unless_owner(
                db, Message("create them"), "ledger project",
                Message("the views are missing or of another version: "),
            )  # fmt: skip
        views.connect(db)
        self._conn = db
        self.caught_up()
        return db

    def _as_they_stand(self, db: Database, usable: bool, behind: int) -> Database:
        """Views this process may not write: read as they stand (with a
        notice when they are behind the events), or, missing or of another
        version, computed in memory from the events."""
        where = "this ledger file is read-only" if self.storage.read_only else (
            "this role may only read them"
        )  # fmt: skip
        if usable:
            if behind:
                self.behind = behind
                click.echo(
                    f"Notice: the views are {behind} event{'s' if behind != 1 else ''} behind "
                    f"the event log and {where}: shown as they stand (a referee's next "
                    "command, or 'ledger project', brings them up to date).",
                    err=True,
                )
            return db
        from projections import views

        click.echo(
            f"Notice: the views are missing or of another version and {where}: computed in "
            "memory from the events for this command.",
            err=True,
        )
        db.close()
        return views.in_memory(self.app.recorder)

    def rebuilt(self, progress: Progress | None = None) -> CatchUp:
        """Drop every view and rebuild it from the events alone (the schema's
        owner only, on PostgreSQL). The views are opened as they are stored,
        never caught up first: a rebuild would project every event again."""
        from projections import views

        self.creates = True
        self.writable()
        if self._conn is None:
            self._conn = open_views(self.storage)
        self._refuse_unless_owner(
            self._conn, Message("rebuild the views (a rebuild drops and recreates their tables)"),
            "ledger rebuild",
        )  # fmt: skip
        self.app  # noqa: B018 - the event store's tables exist before the views read them
        return views.rebuild_report(self._conn, self.app.recorder, progress)

    @staticmethod
    def _refuse_unless_owner(db: Database, action: str, command: str, state: str = "") -> None:
        owner = db.owner()
        if owner is not None:
            raise Denied(
                Message(
                    "{state}only the schema's owner {owner!r} may {action}; run '{command}' "
                    "as {owner!r}",
                    state=state,
                    owner=owner,
                    action=action,
                    command=command,
                )
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
        from projections import views

        conn, recorder = self.conn, self.app.recorder
        if self.storage.read_only:
            return
        if not views.is_current(conn, recorder) and not conn.may_write(["view_tracking"]):
            behind = (recorder.max_notification_id() or 0) - views.position(conn)
            self._as_they_stand(conn, True, behind)
            return
        from ledger.cli.progress import ProgressBar

        with ProgressBar(N_("bringing the views up to date"), CATCH_UP_SHOWN, self.t) as bar:
            report = views.catch_up_report(
                conn, recorder,
                progress=lambda stage, done, total: bar(done, total, f"views: {stage}"),
            )  # fmt: skip
        for warning in report.warnings:
            click.echo(f"Warning: {warning}", err=True)


def is_family_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a family's error (``FamilyError``: a family this
    installation cannot load, not installed or not trusted; bad parameters),
    told without importing the families (a query that loaded none raised
    none)."""
    base = sys.modules.get("ledger.families.base")
    return base is not None and isinstance(exc, base.FamilyError)


@contextmanager
def family_needed(subject: str) -> Iterator[None]:
    """A query on ``subject`` (``ladder 'Club'``, ``game 1a2b3c4d``) whose
    family cannot be loaded here ends in one line naming the subject and
    what to do (install or trust it), never in a traceback."""
    try:
        yield
    except Exception as exc:
        if not is_family_error(exc):
            raise
        raise Invalid(Message("{subject}: {exc}", subject=subject, exc=exc)) from None


def open_views(storage: Storage) -> Database:
    """The views' database: the same SQLite file or PostgreSQL schema as the
    events (a read-only ledger's opened read-only)."""
    if storage.kind == "sqlite":
        return SQLiteDatabase(storage.target, storage.uri)
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


wide_option = click.option(
    "--wide", is_flag=True,
    help="Every column of a table, however wide (by default, a table on a terminal leaves "
    "out the columns that do not fit, and says which).",
)  # fmt: skip


def emit(
    rows: Any, fmt: str, title: str, kind: Any, output: Path | None,
    spare: tuple[str, ...] = (), wide: bool = False, t: Translator | None = None,
) -> None:  # fmt: skip
    """Print query rows, or write them to --output (an .xlsx for xlsx); a
    table on a terminal fits its width (``spare`` columns left out first)
    unless ``wide``, its headings in ``t``'s language."""
    if fmt == "xlsx":
        if output is None:
            raise Invalid(Message("--format xlsx needs --output FILE.xlsx"))
        from ledger.sheets.workbook import write_rows

        write_rows(output, rows, kind, title)
        click.echo(f"Wrote {plural(len(rows), 'row')} to {output}.")
        return
    text = render(rows, fmt, title, kind=kind, spare=spare, wide=wide or output is not None, t=t)
    if output is None and fmt == "table":
        show([text + "\n"])
    elif output is None:
        click.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")
        click.echo(f"Wrote {plural(len(rows), 'row')} to {output}.")


def plural(count: int, noun: str) -> str:
    """``1 game``, ``2 games``, ``0 games``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def show(chunks: Iterable[str]) -> None:
    """Print a table for people, chunk by chunk; on a terminal, one whose
    rendered lines (folded cells, title and notes included) are more than
    the screen holds goes through a pager (click's: ``$PAGER``, else less),
    as git does. Piped or redirected, every row is written as it comes."""
    if not (sys.stdout.isatty() and sys.stdin.isatty()):
        for chunk in chunks:
            click.echo(chunk, nl=False)
        return
    # Rendered text is read until it passes the screen's height (the
    # prompt's line kept free): short tables print, long ones page.
    screen, held, lines = _screen_lines() - 1, [], 0
    chunks = iter(chunks)
    for chunk in chunks:
        held.append(chunk)
        lines += chunk.count("\n")
        if lines > screen:
            click.echo_via_pager(itertools.chain(held, chunks))
            return
    click.echo("".join(held), nl=False)


def _screen_lines() -> int:
    try:
        lines = os.get_terminal_size().lines
    except OSError:  # no terminal after all
        lines = 0
    return lines if lines > 0 else 1 << 30  # a size it cannot tell: no pager


pass_ledger = click.make_pass_decorator(Ledger)


def _set_lang(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.ensure_object(Ledger).lang = value


#: ``--lang`` on a command: what it prints in that language (else
#: ``ledger --lang``, ``LEDGER_LANG``, English); read as ``led.lang``/``led.t``.
lang_option = click.option(
    "--lang", type=click.Choice(LANGS), default=None, expose_value=False, callback=_set_lang,
    help="Language of what is printed (default: 'ledger --lang', else LEDGER_LANG, else en).",
)  # fmt: skip

#: Events a catch-up of the views brings before it shows a progress bar (on a
#: terminal): a large import's, or the next command's after one.
CATCH_UP_SHOWN = 20_000
