"""A ladder's rules for people: the parameters that differ from the family's
defaults, and each rule change as what it changed (``k 24 → 32``), voided
ones included and marked (``ladder show``, ``ladder list``, ``diff``)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

import msgspec

from ledger.kernel import events as ev

#: The effective date of a ladder's first rules.
BEGINNING = date(1, 1, 1)


class RuleChange(msgspec.Struct):
    """One rule change of a ladder as ``ladder show`` gives it: the keys
    the views' rule history has, with what it changed and, when it no
    longer counts, when and why it was voided."""

    effective: str
    family: str
    params: dict[str, Any]
    recorded_at: str
    by: str
    reason: str | None
    #: What it changed from the rules in force before it (``k 24 → 32``);
    #: of the first rules, the parameters that differ from the family's defaults.
    changed: list[str]
    #: ``None`` while it counts; else when, by whom and why it was voided.
    voided: str | None = None


def value_text(value: Any) -> str:
    """A parameter's value as a person types it after ``--set KEY=``
    (``24``, ``0.5``, ``none``, ``true``, a list or table as compact JSON)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, dict)):
        return msgspec.json.encode(_lean(value)).decode()
    return str(value)


def _lean(value: Any) -> Any:
    """Plain data as a person writes it: whole floats as integers, the
    fields of an object that are none left out."""
    if isinstance(value, dict):
        return {k: _lean(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_lean(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal as parameters (``24`` and ``24.0`` are one value)."""
    return msgspec.json.encode(a) == msgspec.json.encode(b) or a == b


def not_defaults(family: str, params: dict[str, Any]) -> list[str]:
    """``key=value`` of each parameter that differs from ``family``'s
    default (all of them, for a family whose defaults cannot be read)."""
    defaults = _defaults(family)
    return [
        f"{key}={value_text(value)}"
        for key, value in params.items()
        if key not in defaults or not _same(defaults[key], value)
    ]


def _defaults(family: str) -> dict[str, Any]:
    from ledger.families.base import FamilyError
    from ledger.families.registry import family_class

    try:
        docs = family_class(family).describe_params()
    except FamilyError:  # a family that cannot be loaded: every parameter shown
        return {}
    return {doc.name: doc.default for doc in docs if not doc.required}


def changes(
    before: tuple[str, dict[str, Any]] | None, after: tuple[str, dict[str, Any]]
) -> list[str]:
    """What ``after`` (family, parameters) changes from ``before``: ``k 24 →
    32`` for each parameter; a change of family as ``family elo → adlg``
    with the new family's parameters other than its defaults."""
    family, params = after
    if before is None:
        return not_defaults(family, params)
    old_family, old = before
    if old_family != family:
        return [f"family {old_family} → {family}", *not_defaults(family, params)]
    out = [
        f"{key} {value_text(old.get(key))} → {value_text(value)}"
        for key, value in params.items()
        if key not in old or not _same(old[key], value)
    ]
    out += [f"{key} {value_text(value)} → (default)" for key, value in old.items()
            if key not in params]  # fmt: skip
    return out


def rule_history(events: Iterable[Any]) -> list[RuleChange]:
    """A ladder's rule changes from its aggregate's events, in effective
    order (then recording order), each with what it changed from the rules
    in force before it; voided ones kept, marked, and changing nothing for
    those after them."""
    adopted: list[tuple[int, ev.RulesetAdopted]] = []
    voided: dict[int, ev.RulesetVoided] = {}
    for e in events:
        if isinstance(e, ev.RulesetAdopted):
            adopted.append((e.originator_version, e))
        elif isinstance(e, ev.RulesetVoided):
            voided[e.adopted] = e
    adopted.sort(key=lambda a: (a[1].effective, a[0]))
    out, in_force = [], None
    for version, e in adopted:
        first = e.effective == BEGINNING
        void = voided.get(version)
        out.append(
            RuleChange(
                effective="from the start" if first else e.effective.isoformat(),
                family=e.family,
                params=e.params,
                recorded_at=e.recorded_at.isoformat(),
                by=e.recorded_by,
                reason=e.reason,
                changed=changes(in_force, (e.family, e.params)),
                voided=None if void is None else (
                    f"voided at {void.recorded_at:%Y-%m-%d %H:%M:%S} by "
                    f"{void.recorded_by}" + (f" ({void.reason})" if void.reason else "")
                ),
            )
        )  # fmt: skip
        if void is None:
            in_force = (e.family, e.params)
    return out
