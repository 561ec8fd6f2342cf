"""Help texts read from the families themselves, so a family's vocabulary
(parameters, result columns) is written once, beside its maths."""

from __future__ import annotations

from ledger.families.base import Family
from ledger.families.registry import BUILT_IN
from ledger.kernel.translation import Translator


def _verbatim(text: str) -> str:
    # click rewraps paragraphs unless they start with \b.
    return "\n\n".join("\b\n" + block for block in text.split("\n\n"))


def parameters_epilog(t: Translator) -> str:
    """Every parameter of the generic elo family, with sub-fields and allowed
    values (the other built-in families take a subset under their own names),
    in ``t``'s language."""
    others = ", ".join(sorted(n for n in BUILT_IN if n != "elo"))
    return _verbatim(
        BUILT_IN["elo"].params_help(t)
        + "\n\n"
        + t.gettext(
            "The other families ({others}) document theirs in 'ledger ladder show' and the README."
        ).format(others=others)
        + "\n\n"
        + rules_pages(t)
    )


def rules_pages(t: Translator) -> str:
    """Where each built-in family's rules are stated, decided ambiguities included."""
    lines = [t.gettext("The rules of each family, every decided ambiguity included:")]
    lines += [f"  {name:<14}{cls.rules_doc}" for name, cls in sorted(BUILT_IN.items())]
    return "\n".join(lines)


def result_fields_epilog(t: Translator) -> str:
    """Each built-in family's result fields, as --field NAME=TEXT (or sheet
    columns of the same names), in ``t``'s language."""
    lines = [t.gettext("Result fields by family (--field NAME=TEXT, or sheet columns):")]
    for name, cls in sorted(BUILT_IN.items()):
        lines.append(f"  {name}:")
        for column in cls.result_columns():
            lines.append(f"    {column.name:<11} {column.help_in(t)}")
    return _verbatim("\n".join(lines))


def parameter_help(family: type[Family], key: str) -> str:
    """A parameter's whole help, examples included ("" when undocumented)."""
    for doc in family.describe_params():
        if doc.name == key:
            return doc.help
    return ""
