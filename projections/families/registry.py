"""Finding a family by name, or by import path for a community's own."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
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


def family_class(name: str) -> type[Family]:
    """The class for ``name``: a built-in family or ``package.module:Class``."""
    if name in BUILT_IN:
        return BUILT_IN[name]
    if ":" not in name:
        raise FamilyError(
            f"unknown family {name!r} (built-in: {', '.join(sorted(BUILT_IN))}; "
            "or give a class as package.module:Class)",
            field="family",
        )
    module_name, _, attr = name.partition(":")
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
