"""click's own errors (a mistyped option, a missing argument, a bad value)
in the language of the command line (``--lang``, ``LEDGER_LANG``).

click writes its messages in English when it raises them (its gettext
domain is the process's global one, which nothing here sets). So the
group catches a ``click.ClickException`` and, for a language other than
English, raises ``InLanguage`` in its place: the same exit status, shown as
click shows it (usage line, help hint, ``Error: ...``), each text looked up
in our catalog. A message is recognised by click's own template, whose
values are read back from the English text; one that matches no template
stays as click wrote it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import IO, Any

import click

from ledger.kernel.translation import LANGS, N_, Translator, in_language, translator

#: click's message templates (click 8.1 to 8.5), as it fills them in.
CLICK_TEXTS = (
    N_("No such option {name!r}."),
    N_("No such option: {name}"),
    N_("No such command {name!r}."),
    N_("No such command '{name}'."),
    N_("Missing command."),
    N_("Option {name!r} requires an argument."),
    N_("Option {name!r} requires {nargs} arguments."),
    N_("Option {name!r} does not take a value."),
    N_("Argument {name!r} takes {nargs} values."),
    N_("Got unexpected extra argument ({args})"),
    N_("Got unexpected extra arguments ({args})"),
    N_("{value!r} is not one of {choices}."),
    N_("invalid choice: {value}. (choose from {choices})"),
    N_("{value!r} is not a valid {number_type}."),
    N_("{value} is not in the range {range}."),
    N_("{value!r} is not a valid boolean. Recognized values: {states}"),
    N_("{value!r} does not match the format {format}."),
    N_("{value!r} does not match the formats {formats}."),
    N_("{name} {filename!r} does not exist."),
    N_("{name} {filename!r} is a file."),
    N_("{name} {filename!r} is a directory."),
    N_("{name} {filename!r} is not readable."),
    N_("{name} {filename!r} is not writable."),
    N_("Could not open file {filename!r}: {message}"),
    N_("Choose from:\n\t{choices}"),
    # Last: its {choice} would match the end of the texts above.
    N_("{value!r} is not {choice}."),
)

#: The words click fills into its templates, and the number types it names.
CLICK_WORDS = (N_("file"), N_("directory"), N_("path"), N_("integer"), N_("float"))

_PLACEHOLDER = re.compile(r"\{(\w+)(![rsa])?\}")


def _pattern(template: str) -> re.Pattern[str]:
    parts = _PLACEHOLDER.split(template)
    # split gives text, name, conversion, text, name, conversion, ..., text
    regex = "".join(
        re.escape(part) if i % 3 == 0 else f"(?P<{part}>.+?)" if i % 3 == 1 else ""
        for i, part in enumerate(parts)
        if part is not None or i % 3 == 0
    )
    return re.compile(regex + r"\Z", re.S)


_PATTERNS = [(_pattern(template), template) for template in CLICK_TEXTS]


def click_text(text: object, t: Translator) -> str:
    """A text click wrote (or one of ours, a ``Message``), in ``t``'s
    language: matched against click's templates, the values kept as
    written (quotes and all)."""
    if not isinstance(text, str) or isinstance(text, click.ClickException):
        return str(text)
    if hasattr(text, "in_language"):
        return in_language(text, t)
    for pattern, template in _PATTERNS:
        found = pattern.match(text)
        if found:
            values = {
                k: t.gettext(v) if v in CLICK_WORDS else v for k, v in found.groupdict().items()
            }
            return _PLACEHOLDER.sub(r"{\1}", t.gettext(template)).format(**values)
    return text


def _hint(param_hint: Sequence[str] | str | None) -> str | None:
    if param_hint is not None and not isinstance(param_hint, str):
        return " / ".join(repr(x) for x in param_hint)
    return param_hint


def _possibilities(error: Any, t: Translator) -> str:
    found = getattr(error, "possibilities", None)
    if not found:
        return ""
    listed = ", ".join(repr(p) for p in sorted(found))
    said = t.ngettext(
        "Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)", len(found)
    )
    return " " + said.format(possibility=listed, possibilities=listed)


def message(error: click.ClickException, t: Translator) -> str:
    """What ``error.format_message()`` says, in ``t``'s language."""
    if isinstance(error, click.MissingParameter):
        hint = _hint(error.param_hint) if error.param_hint is not None else (
            _hint(error.param.get_error_hint(error.ctx)) if error.param is not None else None
        )  # fmt: skip
        kind = error.param_type or (error.param.param_type_name if error.param else None)
        missing = {
            "argument": t.gettext("Missing argument"),
            "option": t.gettext("Missing option"),
            "parameter": t.gettext("Missing parameter"),
        }.get(kind or "parameter", t.gettext("Missing parameter"))
        extra = click_text(error.message, t) if error.message else ""
        if error.param is not None:
            more = error.param.type.get_missing_message(param=error.param, ctx=error.ctx)
            if more:
                more = click_text(more, t)
                extra = f"{extra}. {more}" if extra else more
        return f"{missing}{' ' + hint if hint else ''}.{' ' + extra if extra else ''}"
    if isinstance(error, click.BadParameter):
        said = click_text(error.message, t)
        if error.param_hint is not None:
            hint = _hint(error.param_hint)
        elif error.param is not None:
            hint = _hint(error.param.get_error_hint(error.ctx))
        else:
            return t.gettext("Invalid value: {message}").format(message=said)
        return t.gettext("Invalid value for {param_hint}: {message}").format(
            param_hint=hint, message=said
        )
    return click_text(error.message, t) + _possibilities(error, t)


class InLanguage(click.ClickException):
    """A click error shown in another language than English: as click shows
    it, with the same exit status."""

    def __init__(self, error: click.ClickException, t: Translator) -> None:
        super().__init__(error.message)
        self.error, self.t = error, t
        self.exit_code = error.exit_code  # type: ignore[misc]  # a usage error's is 2

    def show(self, file: IO[Any] | None = None) -> None:
        t, error = self.t, self.error
        ctx = getattr(error, "ctx", None)
        if isinstance(error, click.UsageError) and ctx is not None:
            usage = ctx.get_usage()  # a TranslatedCommand's in the language (cli.help)
            if usage.startswith("Usage: "):
                usage = t.gettext("Usage: ") + usage.removeprefix("Usage: ")
            hint = ""
            if ctx.command.get_help_option(ctx) is not None:
                names = ctx.command.get_help_option_names(ctx)
                hint = t.gettext("Try '{command} {option}' for help.").format(
                    command=ctx.command_path, option=max(names, key=len)
                )
                hint += "\n"
            click.echo(f"{usage}\n{hint}", file=file, err=file is None, color=ctx.color)
        said = t.gettext("Error: {message}").format(message=message(error, t))
        click.echo(said, file=file, err=file is None)


def asked_lang(args: Sequence[str]) -> str:
    """The language a command line asks for: its last ``--lang`` (a
    command's own comes after ``ledger --lang``), else ``LEDGER_LANG``,
    else English; read from the words themselves, for an error met before
    click has parsed them."""
    lang = os.environ.get("LEDGER_LANG", "en")
    words = list(args)
    for i, word in enumerate(words):
        if word == "--":
            break
        if word == "--lang" and i + 1 < len(words):
            lang = words[i + 1]
        elif word.startswith("--lang="):
            lang = word.removeprefix("--lang=")
    return lang if lang in LANGS else "en"


def in_language_of(error: click.ClickException, lang: str) -> click.ClickException:
    """``error`` to raise for a command line in ``lang``: itself in English
    (click shows it), else ``InLanguage``."""
    if lang == "en" or isinstance(error, InLanguage | click.exceptions.NoArgsIsHelpError):
        return error
    return InLanguage(error, translator(lang))
