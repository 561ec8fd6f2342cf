"""Documentation of a family's parameters, read from its ``Params`` struct.

Each parameter's help text sits beside the field it documents, as
``Annotated[type, msgspec.Meta(description=...)]``; the name, type, default
and allowed values (``Literal`` types) come from the struct itself through
``msgspec.inspect``, so the documentation cannot drift from what
``parse_params`` accepts. Struct-typed and list-of-struct parameters (elo's
``k_rules`` of ``KRule``, ``season_penalties`` of ``Bracket``) are documented
with their sub-fields.

``render`` lays it out as plain text: ``Family.params_help()`` for
``--help``, ``ladder show`` and the README.
"""

from __future__ import annotations

import re
import textwrap
import typing
from typing import Any, Literal

import msgspec
import msgspec.inspect as mi

from ledger.kernel.translation import NC_, Translator, translator


class ParamDoc(msgspec.Struct, frozen=True):
    """One parameter (or sub-field of a structured parameter).

    ``type`` is for people ("number", "whole number ≥ 2 or none", "list of
    objects"...); ``default`` is plain data (None also when the parameter is
    required, see ``required``); ``choices`` the allowed values of a
    ``Literal`` type; ``fields`` the sub-fields of a struct or of each item of
    a list of structs.
    """

    name: str
    type: str
    help: str
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] = ()
    fields: tuple[ParamDoc, ...] = ()


def describe_struct(struct: type[msgspec.Struct]) -> list[ParamDoc]:
    """The documentation of every field of ``struct``, in declaration order."""
    info = mi.type_info(struct)
    assert isinstance(info, mi.StructType)
    return [_field_doc(field, struct) for field in info.fields]


def _declared_literal(annotation: Any) -> tuple[str, ...]:
    """The values of the first ``Literal`` inside an annotation, in declared
    order (msgspec.inspect sorts them; people expect the order written)."""
    if typing.get_origin(annotation) is Literal:
        return tuple(str(v) for v in typing.get_args(annotation))
    for arg in typing.get_args(annotation):
        found = _declared_literal(arg)
        if found:
            return found
    return ()


def _field_doc(field: mi.Field, struct: type[msgspec.Struct]) -> ParamDoc:
    described = _Described()
    text = described.walk(field.type)
    declared = _declared_literal(typing.get_type_hints(struct, include_extras=True)[field.name])
    if described.choices and set(declared) == set(described.choices):
        text = text.replace(", ".join(described.choices), ", ".join(declared))
        described.choices = declared
    if field.required:
        default = None
    elif field.default_factory is not mi.NODEFAULT:
        default = msgspec.to_builtins(field.default_factory())
    else:
        default = msgspec.to_builtins(field.default)
    return ParamDoc(
        name=field.name,
        type=text,
        help=described.help,
        default=default,
        required=field.required,
        choices=described.choices,
        fields=described.fields,
    )


class _Described:
    """Walks a msgspec type, collecting its help text, choices and sub-fields
    while building the type's name for people."""

    def __init__(self) -> None:
        self.help = ""
        self.choices: tuple[str, ...] = ()
        self.fields: tuple[ParamDoc, ...] = ()

    def walk(self, t: mi.Type) -> str:
        if isinstance(t, mi.Metadata):
            description = (t.extra_json_schema or {}).get("description")
            if description and not self.help:
                self.help = description
            return self.walk(t.type)
        if isinstance(t, mi.UnionType):
            parts = [self.walk(u) for u in t.types if not isinstance(u, mi.NoneType)]
            text = " or ".join(parts)
            return text + " or none" if len(parts) < len(t.types) else text
        if isinstance(t, mi.LiteralType):
            self.choices = tuple(str(v) for v in t.values)
            return "one of " + ", ".join(self.choices)
        if isinstance(t, mi.ListType):
            return "list of " + self._plural(t.item_type)
        if isinstance(t, mi.DictType):
            return f"table of {self.walk(t.key_type)} to {self.walk(t.value_type)}"
        if isinstance(t, mi.StructType):
            self.fields = tuple(_field_doc(f, t.cls) for f in t.fields)
            return "object"
        if isinstance(t, mi.BoolType):
            return "true or false"
        if isinstance(t, mi.IntType):
            return "whole number" + _bounds(t)
        if isinstance(t, mi.FloatType):
            return "number" + _bounds(t)
        if isinstance(t, mi.StrType):
            return "text"
        return type(t).__name__.removesuffix("Type").lower()

    def _plural(self, t: mi.Type) -> str:
        text = self.walk(t)
        return "objects" if text == "object" else f"{text}s" if " " not in text else text


def _bounds(t: mi.IntType | mi.FloatType) -> str:
    parts = []
    for attr, sign in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤")):
        value = getattr(t, attr)
        if value is not None:
            parts.append(f" {sign} {value:g}")
    return "".join(parts)


def default_text(doc: ParamDoc) -> str:
    """A default as a person types it after ``--set KEY=``."""
    if doc.required:
        return "required"
    if doc.default is None:
        return "none"
    if isinstance(doc.default, bool):
        return "true" if doc.default else "false"
    if isinstance(doc.default, float) and doc.default.is_integer():
        return str(int(doc.default))
    if isinstance(doc.default, (list, dict)):
        return msgspec.json.encode(doc.default).decode() if doc.default else "empty"
    return str(doc.default)


def render(
    docs: list[ParamDoc], indent: int = 0, width: int = 78, t: Translator | None = None
) -> list[str]:
    """Plain-text lines for ``docs``: a line per parameter, then its help
    and its sub-fields, indented; in ``t``'s language (English by default;
    the values a person types, defaults and choices, as they are)."""
    t = t or translator()
    pad = " " * indent
    lines: list[str] = []
    for doc in docs:
        default = (
            t.gettext("required")
            if doc.required
            else t.gettext("default {default}").format(default=default_text(doc))
        )
        lines.append(f"{pad}{doc.name} ({type_text(doc.type, t)}; {default})")
        if doc.help:
            lines += textwrap.wrap(
                t.gettext(doc.help), width, initial_indent=pad + "    ",
                subsequent_indent=pad + "    ",
            )  # fmt: skip
        if doc.fields:
            lines.append(f"{pad}    " + t.gettext("each has:"))
            lines += render(list(doc.fields), indent + 8, width, t)
    return lines


#: The words of a parameter's type (``_Described``), longest first.
_TYPE_WORDS = (
    NC_("type", "list of objects"), NC_("type", "true or false"), NC_("type", "whole number"),
    NC_("type", "number"),
    NC_("type", "text"), NC_("type", "objects"), NC_("type", "object"),
    NC_("type", "list of"), NC_("type", "table of"), NC_("type", "to"), NC_("type", "or"),
    NC_("type", "none"),
)  # fmt: skip
_ONE_OF = (NC_("type", "one of"), NC_("type", "or none"))
_TYPE_WORD = re.compile(r"\b(" + "|".join(map(re.escape, _TYPE_WORDS)) + r")\b")


def type_text(text: str, t: Translator) -> str:
    """A parameter's type in ``t``'s language: its words, not the choices
    after "one of" (values a person types), but a closing "or none"."""
    head, one_of, choices = text.partition("one of ")
    head = _TYPE_WORD.sub(lambda m: t.pgettext("type", m.group(1)), head)
    if not one_of:
        return head
    choices, none, _ = choices.partition(" or none")
    return (
        head + t.pgettext("type", "one of") + " " + choices
        + (" " + t.pgettext("type", "or none") if none else "")
    )  # fmt: skip
