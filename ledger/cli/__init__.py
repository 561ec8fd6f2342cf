"""The ``ledger`` command line: parses, calls the application, formats.

Every command that records something appends its events (or nothing, on any
error) and then brings the views up to date, so the next query reads its own
writes. Queries print ``--format table|json|csv``.

Commands live in modules by what they are for (``ladders``, ``players``, ``ratings``,
``games``, ``reports``, ``template``, ``admin``, ``site``, ``teams``) and are imported only
when run, so ``ledger --version`` or one query starts without loading every
other command's dependencies.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from ledger import __version__
from ledger.cli.group import LedgerGroup, fail
from ledger.cli.usage import asked_lang, in_language_of
from ledger.kernel.translation import LANGS, said

#: Every command: name -> (module under ledger.cli, attribute).
COMMANDS: dict[str, tuple[str, str]] = {
    "ladder": ("ladders", "ladder"),
    "player": ("players", "player"),
    "record": ("games", "record"),
    "import": ("games", "import_"),
    "correct": ("games", "correct"),
    "void": ("games", "void"),
    "season": ("games", "season"),
    "adjust": ("games", "adjust"),
    "standings": ("ratings", "standings"),
    "history": ("ratings", "history"),
    "explain": ("reports", "explain"),
    "audit": ("reports", "audit"),
    "verify": ("reports", "verify"),
    "diff": ("reports", "diff"),
    "whatif": ("reports", "whatif"),
    "evaluate": ("evidence", "evaluate"),
    "tune": ("evidence", "tune"),
    "template": ("template", "template"),
    "project": ("admin", "project"),
    "migrate": ("admin", "migrate"),
    "rebuild": ("admin", "rebuild"),
    "site": ("site", "site"),
    "export": ("site", "export"),
    "teams": ("teams", "teams"),
}


#: Where the context keeps the language the command line asks for.
ASKED_LANG = "ledger.asked_lang"


class LazyLedgerGroup(LedgerGroup):
    """The top-level group: each command's module is imported when it runs
    (or when ``--help`` lists it), the pattern click's documentation gives
    for lazily loaded subcommands."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; Ctrl-C says what the command stored
        (``interrupt``); a family that cannot be loaded is one line, not a
        traceback (``group.fail``); a reader that closed the pipe (``ledger export L |
        head``) ends it quietly with exit status 0, as Unix tools do: no
        traceback, and not click's own exit status 1. Caught here, once, for
        every command, while the ledger is still open (a query's cursors
        close before its connection does)."""
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:  # a subcommand's usage error
            raise in_language_of(exc, ctx.meta.get(ASKED_LANG, "en")) from None
        except KeyboardInterrupt:
            from ledger.cli.interrupt import interrupted

            led = ctx.obj
            interrupted(bool(getattr(led, "creates", False)), getattr(led, "stored", None))
        except BrokenPipeError:
            pass
        except Exception as exc:
            from ledger.cli.context import is_family_error

            if not is_family_error(exc):
                raise
            # A family that cannot be loaded (not installed, not trusted)
            # wherever a command meets it: one line, as a refused command.
            fail(said(exc))
        _stdout_to_devnull()
        return None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:  # fmt: skip
        """The command line's context; click's usage errors in the language
        the words ask for (``usage``), even before they are parsed."""
        lang = asked_lang(args)
        try:
            ctx = super().make_context(info_name, args, parent, **extra)
        except click.ClickException as exc:
            raise in_language_of(exc, lang) from None
        ctx.meta[ASKED_LANG] = lang
        return ctx

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(f"ledger.cli.{module}"), attribute)
        assert isinstance(command, click.Command), f"{module}.{attribute} is not a command"
        return command


def _stdout_to_devnull() -> None:
    """Point standard output at /dev/null: what is still buffered for the
    closed pipe is dropped at exit instead of failing there."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


@click.group(
    cls=LazyLedgerGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    # Plain text: the top-level help loads no family (see 'ladder open --help').
    epilog="The rating rules, family by family, with every decided ambiguity: "
    "docs/rules/README.md ('ledger ladder open --help' names each family's page).",
)
@click.version_option(__version__, prog_name="ledger")
@click.option(
    "--db", envvar="LEDGER_DB", metavar="PATH|URL",
    help="SQLite file (default ./ledger.db, created by the first command that records; a "
    "query on a missing one creates nothing) or postgresql:// URL. "
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
@click.option(
    "--lang", envvar="LEDGER_LANG", type=click.Choice(LANGS), default="en",
    show_default=True,
    help="Language of what every command prints (tables, messages, the site); a command's "
    "own --lang wins. Env: LEDGER_LANG.",
)  # fmt: skip
@click.pass_context
def main(
    ctx: click.Context, db: str | None, by: str | None, schema: str | None,
    trusted: tuple[str, ...], lang: str,
) -> None:  # fmt: skip
    """An event-sourced rating ledger for wargame and board-game communities.

    Every result, correction, void, rule change and season close is an
    append-only event; standings, histories and explanations are rebuilt from
    those events, so anyone can audit why a rating is what it is.
    """
    from ledger.cli.context import Ledger

    if trusted:  # the environment's list is read when a family is loaded
        from ledger.families.registry import trust

        trust(trusted)
    ctx.obj = Ledger(db, by, schema, lang)
    ctx.call_on_close(ctx.obj.close)


if __name__ == "__main__":  # pragma: no cover
    main()
