"""Finding a family: built in, registered, or trusted.

A family is code, and a family named in an event is loaded by every reader
of the ledger. So a ``package.module:Class`` path is imported only when it is
registered (a ``ledger.families`` entry point of an installed package, the
ecosystem's plugin convention, as pytest's ``pytest11``) or when its module is
trusted by whoever runs the command (``--trust-family MODULE`` or
``LEDGER_TRUST_FAMILIES=mod1,mod2``). Anything else is refused before it is
imported.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from ledger.kernel.translation import Message

if TYPE_CHECKING:
    from ledger.families.base import Family


class _Entry:
    """A built-in family: where its class is, and whether it overrides
    ``Family.grade`` (a grade column to show)."""

    __slots__ = ("path", "grades")

    def __init__(self, path: str, grades: bool) -> None:
        self.path = path  # package.module:Class
        self.grades = grades


class _BuiltIn(Mapping[str, "type[Family]"]):
    """The built-in families by name, each module imported when its class is
    first asked for: naming them (``--help``, an error's list, ``name in
    BUILT_IN``) imports none (nor msgspec), and a query on an elo ladder
    imports elo alone, only if it needs it."""

    def __init__(self, entries: Mapping[str, _Entry]) -> None:
        self.entries = dict(entries)

    def __getitem__(self, name: str) -> type[Family]:
        module, _, attr = self.entries[name].path.partition(":")
        cls: type[Family] = getattr(importlib.import_module(module), attr)
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, name: object) -> bool:
        return name in self.entries


#: name -> class of the families that come with the ledger (each name is its
#: class's ``name``; tests/test_family_trust.py checks both columns).
BUILT_IN = _BuiltIn({
    "elo": _Entry("ledger.families.elo:EloFamily", grades=False),
    "battle-empire": _Entry("ledger.families.battle_empire:BattleEmpireFamily", grades=True),
    "adlg": _Entry("ledger.families.adlg:AdlgFamily", grades=True),
    "battletech": _Entry("ledger.families.battletech:BattleTechFamily", grades=False),
    "bga": _Entry("ledger.families.bga:BgaFamily", grades=True),
    "glicko2": _Entry("ledger.families.glicko2:Glicko2Family", grades=False),
    "weng-lin": _Entry("ledger.families.weng_lin:WengLinFamily", grades=False),
})  # fmt: skip


class _BuiltInClasses:
    """The built-in family classes, known by where they are: ``cls in
    BUILT_IN_CLASSES`` imports no family (a subclass elsewhere, a
    community's own, is not one of them)."""

    def __init__(self, built_in: _BuiltIn) -> None:
        self._paths = frozenset(entry.path for entry in built_in.entries.values())

    def __contains__(self, cls: object) -> bool:
        path = f"{getattr(cls, '__module__', '')}:{getattr(cls, '__qualname__', '')}"
        return path in self._paths


#: ``type(family) in BUILT_IN_CLASSES``: whether a family is a built-in's
#: own class (a record's check reads this, loading no other family).
BUILT_IN_CLASSES = _BuiltInClasses(BUILT_IN)

#: The entry-point group a package registers its families in.
ENTRY_POINT_GROUP = "ledger.families"
#: Modules trusted from the environment (comma-separated).
TRUST_VARIABLE = "LEDGER_TRUST_FAMILIES"

_trusted: set[str] = set()


def trust(modules: Iterable[str]) -> None:
    """Trust these modules (and the modules under them) to hold families."""
    _trusted.update(m.strip() for m in modules if m.strip())


@cache
def registered() -> dict[str, str]:
    """Registered families: entry-point name -> ``package.module:Class``."""
    from importlib.metadata import entry_points  # 25 ms to import: only when needed

    return {point.name: point.value for point in entry_points(group=ENTRY_POINT_GROUP)}


def is_trusted(path: str) -> bool:
    """Whether ``package.module:Class`` may be imported."""
    if path in registered().values():
        return True
    module = path.partition(":")[0]
    trusted = _trusted | {m.strip() for m in os.environ.get(TRUST_VARIABLE, "").split(",")}
    return any(module == t or module.startswith(t + ".") for t in trusted if t)


def gives_grades(name: str) -> bool:
    """Whether the family ``name`` gives grades (a ranking's grade column):
    a built-in's is known without importing it; any other family is loaded
    (raises FamilyError) and asked."""
    if name in BUILT_IN:
        return BUILT_IN.entries[name].grades
    from ledger.families.base import Family

    return family_class(name).grade is not Family.grade


def family_class(name: str) -> type[Family]:
    """The class for ``name``: a built-in or registered family's name, or a
    registered or trusted ``package.module:Class``."""
    from ledger.families.base import Family, FamilyError

    if name in BUILT_IN:
        return BUILT_IN[name]
    path = registered().get(name, name)
    if ":" not in path:
        from ledger.kernel import suggest  # (difflib: only for a name not found)

        close = suggest.did_you_mean(suggest.close_names(name, [*BUILT_IN, *registered()]))
        raise FamilyError(
            Message(
                "unknown family {name!r} ({close}built-in: {built_in}; registered: "
                "{registered}; or a trusted package.module:Class)",
                name=name,
                close=close + " " if close else "",
                built_in=", ".join(sorted(BUILT_IN)),
                registered=", ".join(sorted(registered())) or Message("none"),
            ),
            field="family",
        )
    if not is_trusted(path):
        module = path.partition(":")[0]
        raise FamilyError(
            Message(
                "family {name!r} is neither built in nor registered: loading it would "
                "run the code of module {module!r}. Register it as a "
                "{group!r} entry point, or trust it with --trust-family "
                "{module} (or {variable}={module})",
                name=name,
                module=module,
                group=ENTRY_POINT_GROUP,
                variable=TRUST_VARIABLE,
            ),
            field="family",
        )
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, attr)
    except (ImportError, AttributeError) as exc:
        raise FamilyError(
            Message("cannot load family {name!r}: {exc}", name=name, exc=exc), field="family"
        ) from None
    if not (isinstance(cls, type) and issubclass(cls, Family)):
        raise FamilyError(
            Message(
                "{name!r} is not a rating family (a subclass of ledger.families.base.Family)",
                name=name,
            ),
            field="family",
        )
    return cls


def load_family(name: str, params: Mapping[str, Any]) -> Family:
    """A family bound to validated parameters (raises FamilyError)."""
    cls = family_class(name)
    return cls(cls.parse_params(params))
