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
from pathlib import Path

from ledger.kernel.errors import Invalid

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
        return t.gettext(self.template).format(
            **{k: v.in_language(t) if isinstance(v, Message) else v for k, v in self.values.items()}
        )


def _message(template: str, values: dict[str, object]) -> Message:
    return Message(template, **values)


def in_language(text: object, t: Translator) -> str:
    """``text`` in ``t``'s language when it is a ``Message`` (an error's
    first argument), else as it is."""
    return text.in_language(t) if isinstance(text, Message) else str(text)


@functools.cache
def translator(lang: str = "en") -> Translator:
    """The texts in ``lang`` (one of ``LANGS``): English gives the code's
    own texts; another language reads its compiled catalog (a missing one
    is an error, never a silent fall back to English)."""
    if lang not in LANGS:
        raise Invalid(f"--lang must be one of {', '.join(LANGS)}, got {lang!r}", "lang")
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])
