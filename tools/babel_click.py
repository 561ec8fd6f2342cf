"""``pybabel extract`` for the command line's modules (``babel.cfg``): the
texts Babel's Python extractor finds (``gettext``, ``N_``, ...), and the
help texts written for click, which need no marks: each command's docstring
and the ``help=``, ``short_help=`` and ``epilog=`` texts of its decorators
and options. They are extracted as click shows them (``inspect.cleandoc``),
which is how ``ledger.cli.help`` looks them up."""

from __future__ import annotations

import ast
import inspect
import io
from collections.abc import Iterator
from typing import IO, Any

from babel.messages.extract import extract_python

#: The click decorators and calls whose keywords hold help texts.
CLICK_CALLS = {"command", "group", "option", "argument", "version_option", "help_option"}
#: A help text with a range added (``ledger.cli.bounded``): its first argument.
BOUNDED = "bounded_help"
HELP_KEYWORDS = {"help", "short_help", "epilog"}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _is_click(call: ast.expr) -> bool:
    return isinstance(call, ast.Call) and _name(call.func) in CLICK_CALLS


def extract(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: dict[str, Any]
) -> Iterator[tuple[int, str | None, Any, list[str]]]:
    """Babel's Python extraction, then the click help texts of the module."""
    source = fileobj.read()
    yield from extract_python(io.BytesIO(source), keywords, comment_tags, options)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and any(map(_is_click, node.decorator_list)):
            doc = ast.get_docstring(node, clean=True)
            if doc:
                yield node.lineno, None, doc, []
        if isinstance(node, ast.Call) and _name(node.func) == BOUNDED and node.args:
            text = node.args[0]
            if isinstance(text, ast.Constant) and isinstance(text.value, str):
                yield text.lineno, None, text.value, []
        if _is_click(node):
            for keyword in node.keywords:  # type: ignore[attr-defined]
                value = keyword.value
                if (
                    keyword.arg in HELP_KEYWORDS
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                    and value.value
                ):
                    yield value.lineno, None, inspect.cleandoc(value.value), []
