"""``ledger whatif``: a ladder's whole history replayed under other rules,
in memory, recording nothing."""

from __future__ import annotations

from datetime import date
from typing import Any

import msgspec

from ledger.families.base import FamilyError
from ledger.families.registry import family_class, load_family
from ledger.kernel.errors import Invalid
from projections import queries
from projections.db import Database
from projections.replay import Entry, EntryFailed, Replay, event_ends, resolve_merges
from projections.timeline import sort_key
from projections.views import ladder_entries, problems


class WhatIfLine(msgspec.Struct):
    player: str
    rank_now: int | None
    rating_now: float | None
    rank_whatif: int | None
    rating_whatif: float | None
    rank_move: int | None
    rating_move: float | None


def whatif(
    conn: Database,
    ladder: str,
    overrides: dict[str, Any],
    family: str | None = None,
    start: date | None = None,
) -> list[WhatIfLine]:
    """Replay ``ladder`` with ``overrides`` (from ``start`` on, or for its
    whole history) and compare with today's standings."""
    lid = queries.replayed_ladder_row(conn, ladder)["n"]
    entries = list(ladder_entries(conn, lid, None))
    if start is None:
        changed = [_override(e, overrides, family) if e.kind == "ruleset" else e for e in entries]
    else:
        rulesets = [e for e in entries if e.kind == "ruleset" and e.date <= start.isoformat()]
        base = _override(rulesets[-1], overrides, family)
        marker = Entry(
            sort_key(start, "ruleset", "whatif"), "ruleset", 0, "whatif", start.isoformat(),
            base.data,
        )  # fmt: skip
        changed = sorted([*entries, marker], key=lambda e: e.key)
    merges = resolve_merges(
        dict(conn.execute("SELECT id, merged_into FROM view_players WHERE merged_into IS NOT NULL"))
    )
    replay = Replay({}, None, merges, event_ends(changed))
    try:
        replay.run(changed)
    except EntryFailed as failed:  # the other rules cannot rate some entry
        raise Invalid(problems.failure(ladder, failed)) from None
    names = queries.names(conn)
    now = {r.player: (r.rank, r.rating) for r in queries.standings(conn, ladder)}
    ranked = sorted(replay.states.items(), key=lambda kv: (-kv[1].rating, names.get(kv[0], kv[0])))
    places = queries.ranks([state.rating for _, state in ranked])  # ties share a rank
    then = {
        names.get(p, p): (place, s.rating) for place, (p, s) in zip(places, ranked, strict=True)
    }
    lines = []
    for player in sorted(set(now) | set(then), key=lambda p: then.get(p, (10**9, 0))[0]):
        rn, vn = now.get(player, (None, None))
        rw, vw = then.get(player, (None, None))
        lines.append(
            WhatIfLine(
                player=player,
                rank_now=rn,
                rating_now=vn,
                rank_whatif=rw,
                rating_whatif=vw,
                rank_move=None if rn is None or rw is None else rn - rw,
                rating_move=None if vn is None or vw is None else vw - vn,
            )
        )
    return lines


def _override(entry: Entry, overrides: dict[str, Any], family: str | None) -> Entry:
    data = dict(entry.data)
    try:
        if family is not None:
            cls = family_class(family)
            data["family"], data["params"] = (
                family,
                msgspec.to_builtins(cls.parse_params(overrides)),
            )
        else:
            fam = load_family(data["family"], {**data["params"], **overrides})
            data["params"] = fam.params_dict()
        load_family(data["family"], data["params"])
    except FamilyError as exc:
        raise Invalid(str(exc), field=exc.field) from None
    return Entry(entry.key, entry.kind, entry.n, entry.id, entry.date, data)
