"""The user's language (``--lang``): every text a person reads, looked up in
gettext message catalogs.

The catalogs are ``ledger/locale/LANG/LC_MESSAGES/ledger.po`` (the texts)
and ``ledger.mo`` (compiled from it by ``pybabel compile``; committed, so a
fresh clone and an installed package read it with the standard library
alone). English is the source language: the texts in the code are the
English, and an English translator gives them back unchanged.

A text is marked where it is written, for ``pybabel extract``:
``t.gettext("Standings")``, ``t.pgettext("margin", "decisive")`` for a
stored code shown through a label, ``N_("...")`` / ``NC_(ctx, "...")`` for a
text written in a table and looked up later, ``Message("unknown ladder
{name}", name=...)`` for a refusal raised far from the command line (its
English is the exception's text; the CLI prints it in the user's
language). The language is passed, as a translator from
``translator(lang)``; nothing here is set process-wide.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Sequence
from pathlib import Path

#: The languages the catalogs give, English (the code's own texts) first.
LANGS = ("en", "fr")
DOMAIN = "ledger"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

#: What a caller holds: ``gettext``, ``ngettext``, ``pgettext``, ``npgettext``.
Translator = gettext.NullTranslations


def N_(message: str) -> str:
    """Marks ``message`` for extraction where it is only stored (a table of
    texts looked up later with ``gettext``); returns it unchanged."""
    return message


def NC_(context: str, message: str) -> str:
    """Marks ``message`` in ``context`` for extraction (looked up later with
    ``pgettext(context, message)``); returns it unchanged."""
    return message


class Message(str):
    """A text made from a marked ``template`` and its ``values``: the
    English text itself (a ``str``, so everything that reads an error's
    message is unchanged), which ``in_language`` gives in another. A value
    that is a ``Message`` (a hint) is translated with it."""

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, **values: object) -> Message:
        text = super().__new__(cls, template.format(**values))
        text.template, text.values = template, values
        return text

    def __reduce__(self) -> tuple:
        return (_message, (self.template, self.values))

    def in_language(self, t: Translator) -> str:
        """The text in ``t``'s language."""
        return t.gettext(self.template).format(**{k: _value(v, t) for k, v in self.values.items()})


def _value(value: object, t: Translator) -> object:
    # A value that is a Message, or an error whose text is one (a family's
    # refusal quoted in a command's), is translated with the text it is in.
    if isinstance(value, BaseException) and value.args and isinstance(value.args[0], Message):
        value = said(value)
    return value.in_language(t) if isinstance(value, Message) else value


def _message(template: str, values: dict[str, object]) -> Message:
    return Message(template, **values)


class Lines(Message):
    """Several texts, one a line (every bad row of a sheet): each given in
    the language of the whole."""

    lines: list[object]

    def __new__(cls, lines: Sequence[object]) -> Lines:
        text = str.__new__(cls, "\n".join(str(line) for line in lines))
        text.template, text.values, text.lines = "{lines}", {}, list(lines)
        return text

    def __reduce__(self) -> tuple:
        return (Lines, (self.lines,))

    def in_language(self, t: Translator) -> str:
        """Each line in ``t``'s language."""
        return "\n".join(in_language(line, t) for line in self.lines)


class Headless(Message):
    """A refusal without its head, the text up to ``{key}`` and the colon
    after it (``--vary 'k=1': ``, ``value: ``): what click shows after the
    option's own name."""

    key: str

    def __new__(cls, text: Message, key: str) -> Headless:
        headless = super().__new__(cls, text.template, **text.values)
        english = cls._cut(str(text), text.template, key, text.values)
        cut = str.__new__(cls, english)
        cut.template, cut.values, cut.key = headless.template, headless.values, key
        return cut

    def __reduce__(self) -> tuple:
        return (Headless, (Message(self.template, **self.values), self.key))

    @staticmethod
    def _cut(text: str, template: str, key: str, values: dict[str, object]) -> str:
        at = template.find("{" + key)
        end = template.find("}", at)
        if at < 0 or end < 0:
            return text
        head = template[: end + 1].format(**values)
        return text.removeprefix(head).lstrip(" :")

    def in_language(self, t: Translator) -> str:
        """The text in ``t``'s language, without its head."""
        return self._cut(
            Message.in_language(self, t), t.gettext(self.template), self.key, self.values
        )


def headless(text: object, key: str, head: str) -> object:
    """``text`` without the head that ends with ``{key}`` and its colon: a
    ``Message`` stays one (``Headless``); a plain text loses ``head``."""
    if isinstance(text, Message) and not isinstance(text, Lines):
        return Headless(text, key) if "{" + key in text.template else text
    return str(text).removeprefix(head)


def in_language(text: object, t: Translator) -> str:
    """``text`` in ``t``'s language when it is a ``Message`` (an error's
    first argument), else as it is."""
    return text.in_language(t) if isinstance(text, Message) else str(text)


def said(exc: BaseException) -> object:
    """What a refusal says: its ``Message`` (to translate where it is
    shown) or its text."""
    return exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Message) else str(exc)


@functools.cache
def translator(lang: str = "en") -> Translator:
    """The texts in ``lang`` (one of ``LANGS``): English gives the code's
    own texts; another language reads its compiled catalog (a missing one
    is an error, never a silent fall back to English)."""
    if lang not in LANGS:
        from ledger.kernel.errors import Invalid  # here: the errors module marks its texts

        raise Invalid(
            Message(
                "--lang must be one of {langs}, got {lang!r}", langs=", ".join(LANGS), lang=lang
            ),
            "lang",
        )
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])
