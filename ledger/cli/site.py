"""``ledger site build`` and ``ledger export``: publishing a ladder."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

import click

from ledger.cli.context import Ledger, lang_option, pass_ledger
from ledger.cli.help import TranslatedCommand, TranslatedGroup
from ledger.cli.params import DATE
from ledger.kernel.translation import N_


@click.group(cls=TranslatedGroup)
def site() -> None:
    """Publish the rankings as a static web site."""


@site.command("build")
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--ladder", "ladders", multiple=True, metavar="NAME",
              help="A ladder to include (repeat; default: every ladder).")  # fmt: skip
@lang_option
@click.option("--title", default=None, help="The site's title (default: Ladders / Classements).")
@click.option("--as-of", default=None, type=DATE,
              help="Publish the rankings as they stood at the end of DATE.")  # fmt: skip
@pass_ledger
def site_build(
    led: Ledger, out_dir: Path, ladders: tuple[str, ...], title: str | None, as_of: date | None,
) -> None:  # fmt: skip
    """Build the site into OUT_DIR (created if needed), or bring it up to
    date: only pages whose content changed are rewritten. Open
    OUT_DIR/index.html in a browser, or serve OUT_DIR with any web server."""
    from ledger.cli.progress import ProgressBar
    from projections.site.build import build_site

    with ProgressBar(N_("writing pages"), 500, led.t) as progress:
        report = build_site(led.conn, out_dir, list(ladders) or None, led.lang, title, as_of,
                            progress if progress.shown else None)  # fmt: skip
    t = led.t
    click.echo(
        t.gettext(
            "Site in {out}: {pages} pages, {written} written ({unchanged} unchanged); {files} "
            "downloads and assets, {files_written} written; {removed} stale files removed."
        ).format(
            out=report.out_dir, pages=report.pages, written=report.pages_written,
            unchanged=report.pages - report.pages_written, files=report.files,
            files_written=report.files_written, removed=report.removed,
        )
    )  # fmt: skip
    click.echo(t.gettext("Open {uri}").format(uri=(out_dir / "index.html").resolve().as_uri()))
    for skipped in report.skipped:
        click.echo(
            t.gettext(
                "Warning: skipped ladder {ladder} (its pages of an earlier build are left as "
                "they were): {reason}"
            ).format(ladder=repr(skipped.ladder), reason=skipped.reason),
            err=True,
        )


@click.command(cls=TranslatedCommand)
@click.argument("ladder_name", metavar="LADDER")
@click.option("--format", "fmt", type=click.Choice(["csv", "json", "xlsx", "parquet"]),
              default="csv", show_default=True,
              help="csv: one file per table in the -o directory; json: one object of three "
              "arrays; xlsx: one workbook of three sheets; parquet: one typed file per table "
              "in the -o directory (needs: pip install 'ledger[parquet]').")  # fmt: skip
@click.option("--output", "-o", type=click.Path(path_type=Path), default=None,
              help="The directory (csv, parquet) or file (json, xlsx) to write; json without "
              "it goes to standard output.")  # fmt: skip
@pass_ledger
def export(led: Ledger, ladder_name: str, fmt: str, output: Path | None) -> None:
    """The whole of LADDER as open data: every game, every rating change and
    the players, in shapes that load straight into pandas, R, polars, DuckDB
    or a spreadsheet. Scripts read a ladder's history here: the views'
    tables are an internal, packed cache.

    Text cells that a spreadsheet would run as a formula (beginning with =,
    +, -, @, a tab or a carriage return) are written with a leading
    apostrophe in csv and xlsx, so they read as plain text.
    """
    from projections.export import export_ladder

    report = export_ladder(led.conn, ladder_name, fmt, output, out=sys.stdout)
    if report.written:
        rows = ", ".join(f"{n} {name}" for name, n in report.rows.items())
        click.echo(f"Exported {report.ladder} ({rows}) to {', '.join(report.written)}.")
