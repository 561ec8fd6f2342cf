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
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from projections.families.adlg import AdlgFamily
from projections.families.base import Family, FamilyError
from projections.families.battle_empire import BattleEmpireFamily
from projections.families.battletech import BattleTechFamily
from projections.families.bga import BgaFamily
from projections.families.elo import EloFamily

BUILT_IN: dict[str, type[Family]] = {
    cls.name: cls
    for cls in (EloFamily, BattleEmpireFamily, AdlgFamily, BattleTechFamily, BgaFamily)
}

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


def family_class(name: str) -> type[Family]:
    """The class for ``name``: a built-in or registered family's name, or a
    registered or trusted ``package.module:Class``."""
    if name in BUILT_IN:
        return BUILT_IN[name]
    path = registered().get(name, name)
    if ":" not in path:
        raise FamilyError(
            f"unknown family {name!r} (built-in: {', '.join(sorted(BUILT_IN))}; registered: "
            f"{', '.join(sorted(registered())) or 'none'}; or a trusted package.module:Class)",
            field="family",
        )
    if not is_trusted(path):
        module = path.partition(":")[0]
        raise FamilyError(
            f"family {name!r} is neither built in nor registered: loading it would run the code "
            f"of module {module!r}. Register it as a {ENTRY_POINT_GROUP!r} entry point, or "
            f"trust it with --trust-family {module} (or {TRUST_VARIABLE}={module})",
            field="family",
        )
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, attr)
    except (ImportError, AttributeError) as exc:
        raise FamilyError(f"cannot load family {name!r}: {exc}", field="family") from None
    if not (isinstance(cls, type) and issubclass(cls, Family)):
        raise FamilyError(
            f"{name!r} is not a rating family (a subclass of projections.families.base.Family)",
            field="family",
        )
    return cls


def load_family(name: str, params: Mapping[str, Any]) -> Family:
    """A family bound to validated parameters (raises FamilyError)."""
    cls = family_class(name)
    return cls(cls.parse_params(params))
