"""``--help`` in the user's language: every command's and option's help,
and click's own words ("Usage:", "Options:", ...), through the translator.

The help texts are the English written in the commands (a command's
docstring, an option's ``help=``, an ``epilog``); ``pybabel extract`` reads
them with ``tools/babel_click.py`` (``babel.cfg``), so they need no marks.
An epilog made from the families (``family_help``) is a function of the
translator, called when the help is shown.

The language is the one the command line asks for (``--lang``, the
command's own or ``ledger --lang``, else ``LEDGER_LANG``): ``--help`` is
processed before any other option, so each command reads its ``--lang``
from its arguments first and keeps it in the context's ``meta`` (shared by
the contexts of one command line), never in the process.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import click

from ledger.kernel.translation import LANGS, N_, Translator, translator

_LANG = "ledger.help_lang"

#: click's own words in a help, looked up in the catalog (click's are English only).
CLICK_WORDS = (
    N_("Usage: "),
    N_("Options"),
    N_("Commands"),
    N_("Positional arguments"),
    N_("[OPTIONS]"),
    N_("COMMAND [ARGS]..."),
    N_("Show this message and exit."),
    N_("Show the version and exit."),
    N_("env var: {var}"),
    N_("default: {default}"),
    N_("required"),
    N_(" to "),  # a range: 0 to 100,000
)


def help_translator(ctx: click.Context) -> Translator:
    """The language a help is shown in: the command line's ``--lang`` (read
    before ``--help`` acts), else the ledger's, else English."""
    lang = ctx.meta.get(_LANG)
    if lang is None:
        lang = getattr(ctx.find_root().obj, "lang", "en")
    return translator(lang)


def _asked_lang(command: click.Command, ctx: click.Context, args: list[str]) -> str | None:
    """The ``--lang`` (or its environment variable) a command line gives
    ``command``, or None: read before click processes ``--help``, which is
    eager. Anything unclear is left for the real parse to report."""
    param = next((p for p in command.params if p.name == "lang"), None)
    if param is None:
        return None
    try:
        opts, _, _ = command.make_parser(ctx).parse_args(args=list(args))
    except click.UsageError:
        return None
    value = opts.get("lang")
    if not isinstance(value, str):
        value = param.resolve_envvar_value(ctx)
    return value if value in LANGS else None


def _text(t: Translator, english: str | None) -> str:
    return t.gettext(inspect.cleandoc(english)) if english else ""


class TranslatedCommand(click.Command):
    """A command whose ``--help`` is written in the user's language.
    ``epilog`` may be a function of the translator (a text made from the
    families)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        lang = _asked_lang(self, ctx, args)
        if lang is not None:
            ctx.meta[_LANG] = lang
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        t = help_translator(ctx)
        pieces = [t.gettext(p) if p in CLICK_WORDS else p for p in self.collect_usage_pieces(ctx)]
        formatter.write_usage(ctx.command_path, " ".join(pieces), t.gettext("Usage: "))

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        text = _text(help_translator(ctx), self.help).partition("\f")[0]
        if text:
            formatter.write_paragraph()
            with formatter.indentation():
                formatter.write_text(text)

    def format_arguments(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        t = help_translator(ctx)
        args = [p for p in self.get_params(ctx) if isinstance(p, click.Argument)]
        if any(arg.help is not None for arg in args):
            with formatter.section(t.gettext("Positional arguments")):
                formatter.write_dl([(a.make_metavar(ctx), _text(t, a.help)) for a in args])

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        t = help_translator(ctx)
        rows = [
            option_record(p, ctx, t)
            for p in self.get_params(ctx)
            if isinstance(p, click.Option) and not p.hidden
        ]
        if rows:
            with formatter.section(t.gettext("Options")):
                formatter.write_dl(rows)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        t = help_translator(ctx)
        epilog: str | Callable[[Translator], str] | None = self.epilog
        text = epilog(t) if callable(epilog) else _text(t, epilog)
        if text:
            formatter.write_paragraph()
            with formatter.indentation():
                formatter.write_text(inspect.cleandoc(text))


def option_record(option: click.Option, ctx: click.Context, t: Translator) -> tuple[str, str]:
    """An option's row in a help: its spellings, then its help and what
    click adds (default, environment variable, range, required) in ``t``'s
    language."""
    extra = option.get_help_extra(ctx)
    items = []
    if "envvars" in extra:
        items.append(t.gettext("env var: {var}").format(var=", ".join(extra["envvars"])))
    if "default" in extra:
        items.append(t.gettext("default: {default}").format(default=extra["default"]))
    if "range" in extra:
        items.append(extra["range"])
    if "required" in extra:
        items.append(t.gettext("required"))
    text = _text(t, option.help)
    head, bounded, tail = (option.help or "").rpartition(" [")
    if bounded and tail.endswith("]") and text == option.help:
        # ``bounded_help``: the text, then its range.
        text = f"{t.gettext(head)} [{tail.replace(' to ', t.gettext(' to '))}"
    if items:
        text = f"{text}  [{'; '.join(items)}]" if text else f"[{'; '.join(items)}]"
    return option.get_help_spec(ctx), text


def short_help(text: str, limit: int) -> str:
    """A command's line in its group's help: the first sentence of its
    help, cut at a word with ``...`` past ``limit`` characters."""
    sentence = " ".join(text.split("\n\n")[0].split())
    end = sentence.find(". ")
    sentence = sentence[: end + 1] if end >= 0 else sentence
    if len(sentence) <= limit:
        return sentence
    return sentence[: limit - 3].rsplit(" ", 1)[0] + "..."


class TranslatedGroup(TranslatedCommand, click.Group):
    """A group of commands whose ``--help`` (its commands' one-line helps
    included) is written in the user's language; its commands and groups
    are translated the same way."""

    command_class = TranslatedCommand
    group_class = type

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_options(ctx, formatter)  # TranslatedCommand's
        self.format_commands(ctx, formatter)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        t = help_translator(ctx)
        commands: list[tuple[str, Any]] = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                commands.append((name, command))
        if not commands:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in commands)
        rows = [
            (
                name,
                _text(t, command.short_help)
                if command.short_help
                else short_help(_text(t, command.help), limit),
            )
            for name, command in commands
        ]
        with formatter.section(t.gettext("Commands")):
            formatter.write_dl(rows)
