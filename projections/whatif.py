"""``ledger whatif``: a ladder's whole history replayed under other rules,
in memory, recording nothing."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

import msgspec

from ledger.families.base import Family, FamilyError
from ledger.families.registry import family_class, load_family
from ledger.kernel.errors import Invalid
from ledger.kernel.identity import short
from ledger.kernel.translation import said
from projections import queries
from projections.db import Database
from projections.replay import Duel, Entry, EntryFailed, Replay, event_ends, resolve_merges
from projections.timeline import sort_key
from projections.views import every_ladder_entry


class WhatIfLine(msgspec.Struct):
    player: str
    rank_now: int | None
    rating_now: float | None
    rank_whatif: int | None
    rating_whatif: float | None
    rank_move: int | None
    rating_move: float | None


class Unrated(msgspec.Struct):
    """Games the rules tried cannot rate, left out of the hypothetical (the
    real games stand): why (``the adlg family has no margin
    'overwhelming'``), how many, and the first few of them (short id and
    date)."""

    why: str
    count: int
    games: list[str]


class WhatIf(msgspec.Struct):
    """The hypothetical ranking beside today's, and the games it left out."""

    lines: list[WhatIfLine]
    unrated: list[Unrated]


#: Games named at most for each kind of result the other rules cannot rate.
UNRATED_SHOWN = 5
#: Causes of failure met at most before the hypothetical is given up (each
#: costs a replay).
UNRATED_KINDS = 20


def whatif(
    conn: Database,
    ladder: str,
    overrides: dict[str, Any],
    family: str | None = None,
    start: date | None = None,
) -> list[WhatIfLine]:
    """``whatif_report``'s lines alone."""
    return whatif_report(conn, ladder, overrides, family, start).lines


def whatif_report(
    conn: Database,
    ladder: str,
    overrides: dict[str, Any],
    family: str | None = None,
    start: date | None = None,
) -> WhatIf:
    """Replay ``ladder`` with ``overrides`` (from ``start`` on, or for its
    whole history) and compare with today's standings. Games the other
    rules cannot rate (a result another family's columns wrote) are left
    out of the hypothetical and listed; the real games are never in
    question."""
    tried = replay_under(conn, ladder, overrides, family, start)
    replay = tried.replay
    names = queries.names(conn)
    now = {r.player: (r.rank, r.rating) for r in queries.standings(conn, ladder)}
    ranked = sorted(replay.states.items(), key=lambda kv: (-kv[1].rating, names.get(kv[0], kv[0])))
    places = queries.ranks([state.rating for _, state in ranked])  # ties share a rank
    then = {
        names.get(p, p): (place, s.rating) for place, (p, s) in zip(places, ranked, strict=True)
    }
    lines = []
    # By hypothetical rank, ties (a shared rank) by name: never by a set's order.
    for player in sorted(set(now) | set(then), key=lambda p: (then.get(p, (10**9, 0))[0], p)):
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
    return WhatIf(lines, tried.unrated)


class LadderHistory(msgspec.Struct, frozen=True):
    """What a replay under other rules starts from: a ladder's name,
    entries in effective order and merged players (read once, replayed
    many times by ``ledger tune``)."""

    ladder: str
    entries: list[Entry | Duel]
    merges: dict[str, str]


class Tried(msgspec.Struct):
    """A ladder replayed under the rules tried: the ``Replay`` (its
    states), the entries it applied (games it could not rate left out) and
    those games."""

    replay: Replay
    entries: list[Entry | Duel]
    unrated: list[Unrated]


#: Hands a replay's history rows on, a chunk at a time (``Replay.run``'s ``write``).
RowSink = Callable[[list[tuple[Any, ...]]], None]


class _Itself(dict[str, str]):
    """Player numbers for a replay whose rows go to a ``RowSink``: each
    player is their own number."""

    def __missing__(self, player: str) -> str:
        self[player] = player  # the next look-up is a plain one
        return player


def history_of(conn: Database, ladder: str) -> LadderHistory:
    """``ladder``'s entries and merged players, as a replay under other
    rules reads them (the ladder named as it was opened)."""
    row = queries.replayed_ladder_row(conn, ladder)
    merges = resolve_merges(
        dict(conn.execute("SELECT id, merged_into FROM view_players WHERE merged_into IS NOT NULL"))
    )
    return LadderHistory(row["name"], every_ladder_entry(conn, row["n"]), merges)


def replay_under(
    conn: Database | LadderHistory,
    ladder: str,
    overrides: dict[str, Any],
    family: str | None = None,
    start: date | None = None,
    sink: Callable[[list[Entry | Duel]], RowSink] | None = None,
) -> Tried:
    """``ladder`` replayed in memory with ``overrides`` on its rules (or
    ``family`` with its defaults and ``overrides``), from ``start`` on or
    for its whole history; with neither, under the rules in force. With
    ``sink``, each attempt at the replay (``sink(its entries)``) is handed
    its history rows, players by id, as they come. Records nothing."""
    base = conn if isinstance(conn, LadderHistory) else history_of(conn, ladder)
    changed = rules_tried(base, overrides, family, start)
    return _replay_rating_what_it_can(ladder, changed, base.merges, family, sink)


def rules_tried(
    history: LadderHistory,
    overrides: dict[str, Any],
    family: str | None = None,
    start: date | None = None,
) -> list[Entry | Duel]:
    """``history``'s entries with its rulesets changed as ``replay_under``
    says (each checked by the family: Invalid names a bad parameter)."""
    entries = history.entries
    if not overrides and family is None:
        return entries
    if start is None:
        return [_override(e, overrides, family) if e.kind == "ruleset" else e for e in entries]
    rulesets = [e for e in entries if e.kind == "ruleset" and e.date <= start.isoformat()]
    ruleset = _override(rulesets[-1], overrides, family)
    marker = Entry(
        sort_key(start, "ruleset", "whatif"), "ruleset", 0, "whatif", start.isoformat(),
        ruleset.data,
    )  # fmt: skip
    return sorted([*entries, marker], key=lambda e: e.key)


def in_force_point(history: LadderHistory, points: list[dict[str, Any]]) -> int | None:
    """The first of ``points`` (each a set of overrides) that leaves every
    ruleset of ``history`` as it is: under it the ladder is tried under the
    rules in force. None when none does."""
    rulesets = [e for e in history.entries if e.kind == "ruleset"]
    for at, point in enumerate(points):
        if all(_override(e, point, None).data == e.data for e in rulesets):
            return at
    return None


class _Scalar(Exception):
    """A family whose maths serves plain numbers only (``with_values``)."""


def replay_grid(
    history: LadderHistory,
    points: list[dict[str, Any]],
    sink: Callable[[list[Entry | Duel], Callable[[str, Mapping[str, Any]], Family]], RowSink],
) -> Tried | None:
    """``history`` replayed once for every grid point (each a set of
    overrides of the same parameters), its families bound to arrays of
    the points' values (``Family.with_values``), its history rows handed
    to ``sink(entries, how a family is bound)``: ratings and P come out as
    arrays, a column per point. None when a family's maths (or the sink)
    cannot take arrays, or the rules cannot rate some game
    (``replay_under``, one point at a time, says which)."""
    import numpy as np  # here: ``ledger whatif`` starts without it

    names = list(points[0])
    rulesets = [e for e in history.entries if e.kind == "ruleset"]
    for point in points:  # each point's values checked as numbers
        for ruleset in rulesets:
            _override(ruleset, point, None)
    arrays = {name: np.array([p[name] for p in points], dtype=np.float64) for name in names}
    entries = rules_tried(history, points[0], None)

    def load(name: str, params: Mapping[str, Any]) -> Family:
        family = load_family(name, params).with_values(arrays)
        if family is None:
            raise _Scalar(name)
        return family

    replay = Replay({}, None, history.merges, event_ends(entries), _Itself(), load=load)
    try:
        replay.run(entries, write=sink(entries, load))
    except Exception:  # noqa: BLE001 - an array where the maths wants a number, a game it cannot rate
        return None
    return Tried(replay, entries, [])


def _replay_rating_what_it_can(
    ladder: str, entries: list[Entry | Duel], merges: dict[str, str], family: str | None,
    sink: Callable[[list[Entry | Duel]], RowSink] | None,
) -> Tried:  # fmt: skip
    """The replay of ``entries``, leaving out the games the rules tried
    cannot rate: each failure leaves out every game that fails the same way
    (the family's maths fails on the result, not on who played: a result
    value it has no meaning for, else a result that reads the same), and the
    replay starts again. Refuses (Invalid) when something other than a game
    fails, or too many causes do."""
    left_out: dict[str, Unrated] = {}
    skipped: set[str] = set()
    while True:
        kept = [e for e in entries if e.key not in skipped] if skipped else entries
        numbers = None if sink is None else _Itself()
        replay = Replay({}, None, merges, event_ends(kept), numbers)
        try:
            replay.run(kept, write=None if sink is None else sink(kept))
        except EntryFailed as failed:  # the other rules cannot rate some entry
            entry, cause = failed.entry, failed.cause
            if entry.kind != "game" or len(left_out) >= UNRATED_KINDS:
                why = str(cause) if isinstance(cause, FamilyError) else (
                    f"{type(cause).__name__}: {cause}"
                )  # fmt: skip
                raise Invalid(_cannot_try(ladder, entry, why, family, left_out)) from None
            why, alike = _cause(cause, entry.data, family)
            same = [e for e in kept if e.kind == "game" and alike(e.data)]
            skipped.update(e.key for e in same)
            left_out[why] = Unrated(
                why, len(same), [f"{short(e.id)} of {e.date}" for e in same[:UNRATED_SHOWN]]
            )
            continue
        if left_out and not any(e.kind == "game" for e in kept):
            raise Invalid(_cannot_try(ladder, None, "", family, left_out))
        return Tried(replay, kept, list(left_out.values()))


#: msgspec's words for a result column the family's ``Result`` does not have.
_UNKNOWN_FIELD = re.compile(r"unknown field `([^`]+)`")


def _cause(
    cause: BaseException, play: Any, family: str | None
) -> tuple[str, Callable[[Any], bool]]:
    """Why the rules tried cannot rate a game, in words, and which games
    fail the same way: those with the result value they have no meaning for
    (a KeyError on one of the game's result values), else those whose
    result reads the same."""
    if isinstance(cause, KeyError) and cause.args:
        for column, value in play.result.items():
            if value == cause.args[0]:
                rules = f"the {family} family" if family else "these rules"
                return f"{rules} has no {column} {value!r}", (
                    lambda other, column=column, value=value: other.result.get(column) == value
                )
    unknown = _UNKNOWN_FIELD.search(str(cause))
    if isinstance(cause, msgspec.ValidationError) and unknown and unknown[1] in play.result:
        field = unknown[1]
        rules = f"the {family} family" if family else "these rules"
        return f"{rules} has no result column {field!r}", lambda other: field in other.result
    reads = _reads(play)
    error = str(cause) if isinstance(cause, FamilyError) else f"{type(cause).__name__}: {cause}"
    return f"a result {reads}: {error}", lambda other: _reads(other) == reads


def _reads(play: Any) -> str:
    """How a game's result reads (its columns, and the numbers a family may
    rate from): games that read alike fail alike under another family."""
    result = {k: v for k, v in play.result.items() if v is not None}
    attributes = dict(play.attributes)
    shape = "v".join(str(len(side)) for side in play.sides)
    text = ", ".join(
        f"{k} {v if isinstance(v, str) else msgspec.json.encode(v).decode()}"
        for k, v in result.items()
    )
    extra = ", ".join(f"{k} {v:g}" for k, v in attributes.items())
    players = "" if shape == "1v1" else f"{shape} players"
    return ", ".join(part for part in (text, extra, players) if part)


def _cannot_try(
    ladder: str, entry: Entry | None, why: str, family: str | None,
    left_out: dict[str, Unrated],
) -> str:  # fmt: skip
    """Why the hypothetical cannot be computed at all, naming what fails
    under the rules tried (never advising to change a real entry)."""
    rules = f"the {family} family" if family else "these rules"
    head = f"what if {ladder!r} were rated under {rules}: "
    if entry is None:
        results = "; ".join(u.why for u in left_out.values())
        return (
            f"{head}no game can be rated: {results}. Nothing was recorded: this is a "
            "hypothetical, the ladder itself is unchanged"
        )
    what = {
        "ruleset": f"its ruleset {entry.date}",
        "season": f"the close of season {entry.data.get('label')} ({entry.date})",
        "adjust": f"the rating adjustment {short(entry.id)} of {entry.date}",
        "game": f"game {short(entry.id)} of {entry.date}",
    }.get(entry.kind, f"{entry.kind} {entry.id}")
    more = (
        f" (after {len(left_out)} other causes of games it cannot rate)" if left_out else ""
    )  # fmt: skip
    return (
        f"{head}{what} cannot be applied: {why}{more}. Nothing was recorded: this is a "
        "hypothetical, the ladder itself is unchanged"
    )


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
        raise Invalid(said(exc), field=exc.field) from None
    return Entry(entry.key, entry.kind, entry.n, entry.id, entry.date, data)
