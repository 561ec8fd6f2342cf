"""The views queries read, and the projection that keeps them current.

Tables (prefixed ``view_``, in the event store's database) are disposable:
``rebuild`` drops them and builds them again from the events alone. The
layers, one module each:

- ``schema``: the view tables and their version (DDL runs only when the
  stored version is missing or another);
- ``source``: reading the event store in raw pages, decoding games lean;
- ``runner``: catching up from the event store (``catch_up``, ``rebuild``,
  ``in_memory``, ``apply_events``; ``pages``, the notifications pager);
- ``swap``: a PostgreSQL rebuild built in a side schema, then swapped in;
- ``projector``: one handler per event class, writing the timeline tables;
- ``ladder_replay``: replaying a ladder from its last safe place; a ladder
  whose entries its family cannot apply becomes that ladder's problem;
- ``store``: one ladder's entries, checkpoints and standings;
- ``history``: history packed per (ladder, player) in chunks, written and
  read through this one module;
- ``games``: a ladder's games (their facts read from the events), written
  and read through this one module;
- ``problems``: how a failed replay and a maths-version mismatch are said.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Every name the package offers -> the module under it that defines it.
#: Loaded on first use (PEP 562), so that reading one module (``schema``,
#: ``games``) does not load the projection: a query starts faster.
_WHERE = {
    "CHECKPOINT_EVERY": "ladder_replay",
    "replay_ladder": "ladder_replay",
    "replay_ladders": "ladder_replay",
    "version_warnings": "problems",
    "KIND_NAMES": "projector",
    "Projector": "projector",
    "PAGE": "runner",
    "CatchUp": "runner",
    "apply_events": "runner",
    "catch_up": "runner",
    "catch_up_report": "runner",
    "in_memory": "runner",
    "is_current": "runner",
    "pages": "runner",
    "position": "runner",
    "rebuild": "runner",
    "rebuild_report": "runner",
    "TABLES": "schema",
    "VERSION": "schema",
    "connect": "schema",
    "LadderStore": "store",
    "every_ladder_entry": "store",
    "ladder_entries": "store",
    "ladder_number": "store",
    "ruleset_entries": "store",
    "ruleset_in_force": "store",
}

__all__ = [
    "CHECKPOINT_EVERY",
    "CatchUp",
    "KIND_NAMES",
    "LadderStore",
    "PAGE",
    "Projector",
    "TABLES",
    "VERSION",
    "apply_events",
    "catch_up",
    "catch_up_report",
    "connect",
    "every_ladder_entry",
    "in_memory",
    "is_current",
    "ladder_entries",
    "ladder_number",
    "pages",
    "position",
    "rebuild",
    "rebuild_report",
    "replay_ladder",
    "replay_ladders",
    "ruleset_entries",
    "ruleset_in_force",
    "version_warnings",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from projections.views.ladder_replay import CHECKPOINT_EVERY, replay_ladder, replay_ladders
    from projections.views.problems import version_warnings
    from projections.views.projector import KIND_NAMES, Projector
    from projections.views.runner import (
        PAGE,
        CatchUp,
        apply_events,
        catch_up,
        catch_up_report,
        in_memory,
        is_current,
        pages,
        position,
        rebuild,
        rebuild_report,
    )
    from projections.views.schema import TABLES, VERSION, connect
    from projections.views.store import (
        LadderStore,
        every_ladder_entry,
        ladder_entries,
        ladder_number,
        ruleset_entries,
        ruleset_in_force,
    )
