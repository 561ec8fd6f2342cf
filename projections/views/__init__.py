"""The views queries read, and the projection that keeps them current.

Tables (prefixed ``view_``, in the event store's database) are disposable:
``rebuild`` drops them and builds them again from the events alone. The
layers, one module each:

- ``schema``: the view tables and their version (DDL runs only when the
  stored version is missing or another);
- ``source``: reading the event store in raw pages, decoding games lean;
- ``runner``: catching up from the event store (``catch_up``, ``rebuild``,
  ``in_memory``, ``apply_events``; ``pages``, the notifications pager);
- ``projector``: one handler per event class, writing the timeline tables;
- ``ladder_replay``: replaying a ladder from its last safe place; a ladder
  whose entries its family cannot apply becomes that ladder's problem;
- ``store``: one ladder's entries, checkpoints, history and standings;
- ``facts``: a game's facts as the views keep them (compactly) and read them;
- ``problems``: how a failed replay and a maths-version mismatch are said.
"""

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
    ladder_entries,
    ladder_number,
    ruleset_entries,
    ruleset_in_force,
)

__all__ = [
    "CHECKPOINT_EVERY",
    "KIND_NAMES",
    "PAGE",
    "TABLES",
    "VERSION",
    "CatchUp",
    "LadderStore",
    "Projector",
    "apply_events",
    "catch_up",
    "catch_up_report",
    "connect",
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
