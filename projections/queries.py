"""Queries over the views: standings, histories, explanations, the audit log.

Every query returns msgspec Structs (the shapes the CLI prints as a table,
JSON or CSV). Queries read the views only; they never replay aggregates.
They import the projection's modules (families, the views' facts) only
where they need them: a query command starts about as fast as
``ledger --version``.

Standings rank players by competition ranking ("1224"): players whose
ratings are equal (to ``ranking.TIE_DIGITS`` decimals, below which a difference is
floating-point noise) share a rank, and the next rank skips as many places.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.kernel.errors import NotFound
from ledger.kernel.identity import short
from ledger.kernel.translation import N_, Message, Translator, translator
from projections import ranking
from projections.db import Database, Row
from projections.ranking import ranks
from projections.reads import (
    CURRENT_STANDINGS_WITH_STATE,
    LadderProblem,
    entry_details,
    final_player,
    history_subject,
    ladder_row,
    player_history,
    replayed_ladder_row,
    ruleset_at_sql,
    today_key,
)
from projections.reads import player_by_name as player_by_name  # the queries' lookup too
from projections.views import games as kept_games
from projections.views import history as packed_history

if TYPE_CHECKING:
    from projections.views.source import Facts


#: An explained game's notes (English, as stored in the explanation; shown
#: through the catalogs: ``t.gettext(note)``).
VOIDED_NOTE = N_("voided: this game changes no rating")
PER_EVENT_NOTE = N_(
    "rated from the ratings before the event; the event's changes are summed and applied "
    "when it closes"
)


class StandingRow(msgspec.Struct):
    rank: int
    player: str
    rating: float
    grade: str | None
    games: int
    last_played: str | None


class UncertainStandingRow(StandingRow):
    """A row of the ranking of a family whose ratings know their
    uncertainty (``Family.deviation``): rating ± ``deviation``, whether the
    rating is still ``provisional``, and the ``state`` values a person reads
    and may set (``Family.settable_state``)."""

    deviation: float
    provisional: bool
    state: dict[str, float]


class HistoryLine(msgspec.Struct):
    date: str
    kind: str
    game: str | None
    event: str | None
    round: int | None
    table: int | None
    opponents: str
    #: The game's result for this player: won, lost or drew (the result's
    #: fields as recorded, for a family whose result is not a winner).
    result: str | None
    #: The winner's margin, where the family scores margins of victory.
    margin: str | None
    s: float | None
    p: float | None
    k: float | None
    before: float
    after: float
    change: float
    note: str


class AuditLine(msgspec.Struct):
    seq: int
    recorded_at: str
    by: str
    kind: str
    ladder: str | None
    summary: str
    reason: str | None
    source: str | None


class LadderInfo(msgspec.Struct):
    name: str
    family: str
    params: dict[str, Any]
    players: int
    games: int
    rules: list[dict[str, Any]] = []
    #: Why the ladder cannot be replayed (its queries are refused until then).
    problem: str | None = None
    #: Rulesets adopted under another version of their family's maths.
    version_warnings: list[str] = []


class PlayerInfo(msgspec.Struct):
    id: str
    name: str
    merged_into: str | None
    registered_at: str | None


class PlayerExplanation(msgspec.Struct):
    player: str
    side: str
    before: float
    change: float
    after: float
    values: dict[str, Any]


class Explanation(msgspec.Struct):
    game: str
    ladder: str
    date: str
    event: str | None
    round: int | None
    status: str
    family: str
    params: dict[str, Any]
    result: dict[str, Any]
    players: list[PlayerExplanation]
    note: str = ""


# -- resolving names --------------------------------------------------------
def game_row(conn: Database, ref: str) -> Row:
    """A game by its id or any unambiguous prefix of its short id."""
    return kept_games.by_ref(conn, ref)


def names(conn: Database) -> dict[str, str]:
    return dict(conn.execute("SELECT id, name FROM view_players").fetchall())


def names_of(conn: Database, pids: Sequence[str]) -> dict[str, str]:
    """The names of these players (by id), read for them alone."""
    marks, params = conn.in_list(pids)
    return dict(conn.execute(f"SELECT id, name FROM view_players WHERE id IN {marks}", params))


def player_name(conn: Database, pid: str) -> str:
    """The name of the player with this id."""
    row = conn.execute("SELECT name FROM view_players WHERE id=?", (pid,)).fetchone()
    if row is None:
        raise NotFound(Message("unknown player id {pid}", pid=pid))
    return row[0]


def numbers(conn: Database) -> dict[int, tuple[str, str]]:
    """The views' player number -> (id, name)."""
    return {n: (pid, name) for n, pid, name in conn.execute("SELECT n, id, name FROM view_players")}


def player_number(conn: Database, pid: str) -> int | None:
    row = conn.execute("SELECT n FROM view_players WHERE id=?", (pid,)).fetchone()
    return row[0] if row else None


def cut_pos(conn: Database, ladder: int, cut: str, through: bool = False) -> int:
    """The place in a ladder's effective order of its last entry before
    ``cut`` (or at it, ``through``): history rows at or before it are those
    of entries before it (a replay numbers the entries in order, so it is
    how many there are)."""
    op = "<=" if through else "<"
    played = kept_games.count(conn, ladder, cut, through=through)
    others = conn.execute(
        f"SELECT COUNT(*) FROM view_entries WHERE ladder=? AND key{op}?", (ladder, cut)
    ).fetchone()[0]
    return played + others


def game_facts(conn: Database, game: Row) -> dict[str, Any]:
    """A game's facts as stored (ids: ``GameFacts`` as plain data), read
    from the event its row (``views.games``) names."""
    return msgspec.to_builtins(kept_games.facts_at(conn, game["facts_n"]))


def ruleset_at(conn: Database, ladder: int, key: str | None = None) -> dict[str, Any]:
    """The ruleset in force at ``key`` (or today: a rule change announced
    for a later date is not yet in force)."""
    row = conn.execute(ruleset_at_sql(), (ladder, key or today_key())).fetchone()
    assert row is not None, "every ladder opens with a ruleset"
    return msgspec.json.decode(row[0])


# -- queries ------------------------------------------------------------------
def standings(
    conn: Database, ladder: str, as_of: date | None = None, lang: str = "en"
) -> list[StandingRow]:
    """The ranking: current, or as it stood at the end of ``as_of``."""
    lrow = replayed_ladder_row(conn, ladder)
    if as_of is None:
        rows = conn.execute(CURRENT_STANDINGS_WITH_STATE, (lrow["n"],)).fetchall()
        rows = [(*r[:4], msgspec.json.decode(r[4]) if r[4] else None) for r in rows]
        family = _family(ruleset_at(conn, lrow["n"]))
    else:
        cut = as_of.isoformat() + "\x7f"
        rows = _standings_at(conn, lrow["n"], cut_pos(conn, lrow["n"], cut))
        family = _family(ruleset_at(conn, lrow["n"], cut))
    from ledger.families.base import PlayerState

    # The family orders the ranking: by rating, or a conservative rating.
    states = {r[0]: PlayerState(rating=r[1], games=r[2], extra=r[4]) for r in rows}
    value = {name: family.ranking_value(state) for name, state in states.items()}
    ordered = sorted(rows, key=lambda r: (-value[r[0]], r[0]))
    shown = family.settable_state
    out = []
    for rank, (name, rating, games, last, extra) in zip(
        ranks(value[r[0]] for r in ordered), ordered, strict=True
    ):
        state = states[name]
        grade = family.grade(state, lang)
        deviation = family.deviation(state)
        if deviation is None:
            out.append(StandingRow(rank, name, rating, grade, games, last))
            continue
        out.append(
            UncertainStandingRow(
                rank, name, rating, grade, games, last, deviation, family.provisional(state),
                {k: extra[k] for k in shown if k in extra} if extra else {},
            )
        )  # fmt: skip
    return out


def _standings_at(conn: Database, ladder: int, upto: int) -> list[tuple[Any, ...]]:
    """(name, rating, games, last played, family state) of every player
    rated up to place ``upto`` of a ladder, from their last history row there."""
    state: dict[int, tuple[float, int, dict[str, float] | None]] = {}
    last_game: dict[int, int] = {}
    for rows in packed_history.last_rows(conn, ladder, upto):
        last = rows[-1]
        state[last.player] = (last.after, last.games_after, last.state)
        game = next((r for r in reversed(rows) if r.kind == "game"), None)
        if game is not None:
            last_game[last.player] = game.entry
    played = entry_details(conn, last_game.values())
    who = numbers(conn)
    return [
        (who[p][1], after, games, played[last_game[p]].date if p in last_game else None, extra)
        for p, (after, games, extra) in state.items()
    ]


def history(conn: Database, ladder: str, player: str) -> list[HistoryLine]:
    """Every entry that changed a player's rating in a ladder, in effective order."""
    subject = history_subject(conn, ladder, player)
    out = []
    for line in player_history(conn, subject.ladder, subject.player):
        row, entry, facts = line.row, line.entry, line.facts
        game = row.kind == "game"
        result, margin = (
            ranking.outcome(facts["result"], row.side) if facts is not None else (None, None)
        )
        out.append(
            HistoryLine(
                date=entry.date,
                kind=row.kind,
                game=short(entry.id) if game else None,
                event=entry.event,
                round=entry.round,
                table=facts.get("table") if facts is not None else None,
                opponents=", ".join(line.opponents),
                result=result,
                margin=margin,
                s=row.s,
                p=row.p,
                k=row.k,
                before=row.before,
                after=row.after,
                change=row.change,
                note=row.note,
            )
        )
    return out


def outcome(facts: Facts, side: int) -> tuple[str | None, str | None]:
    """A game's result for the player on ``side`` (``ranking.outcome``)."""
    return ranking.outcome(facts.result, side)


def explain(conn: Database, ref: str) -> Explanation:
    """Every input and intermediate value of one game's computation."""
    game = game_row(conn, ref)
    facts = game_facts(conn, game)
    lrow = conn.execute(
        "SELECT name, problem FROM view_ladders WHERE n=?", (game["ladder"],)
    ).fetchone()
    if lrow["problem"]:
        raise LadderProblem(lrow["problem"])
    ruleset = ruleset_at(conn, game["ladder"], game["key"])
    family = _family(ruleset) if game["status"] != "voided" else None
    sides = tuple(tuple(final_player(conn, p) for p in side) for side in facts["sides"])
    numbered = {player_number(conn, p): p for side in sides for p in side}
    rows = {
        numbered[r.player]: r
        for r in packed_history.entry_rows(conn, game["ladder"], game["n"], numbered)
        if r.kind == "game"
    }
    before = {  # a family's state before the game: the player's row before it
        p: packed_history.state_before(conn, game["ladder"], n, rows[p].pos)
        for n, p in numbered.items()
        if p in rows and rows[p].state is not None
    }
    return explanation(
        lrow["name"], game["id"], short(game["id"]), game["status"], facts, ruleset, family,
        sides, rows, names_of(conn, [p for side in sides for p in side]), before,
    )  # fmt: skip


def explanation(
    ladder: str,
    game_id: str,
    short_id: str,
    status: str,
    facts: dict[str, Any],
    ruleset: dict[str, Any],
    family: Any,
    sides: tuple[tuple[str, ...], ...],
    rows: Mapping[str, Any],
    names: Mapping[str, str],
    extra: Mapping[str, dict[str, float] | None] | None = None,
) -> Explanation:
    """A game's explanation from its stored facts, the ruleset in force, the
    players it counts for (``sides``, merges followed) and their history rows
    (by player id) and, for a family whose state holds more than a rating,
    their state before it (``extra``): the family rates it again with
    ``explain=True`` from the states those rows record."""
    from ledger.families.base import Game, PlayerState

    base = Explanation(
        game=short_id, ladder=ladder, date=facts["date"], event=facts.get("event"),
        round=facts.get("round"), status=status, family=ruleset["family"],
        params=ruleset["params"], result=facts["result"], players=[],
    )  # fmt: skip
    if status == "voided":
        base.note = VOIDED_NOTE
        return base
    states = [
        [
            PlayerState(
                rating=rows[p].before,
                games=rows[p].games_before,
                extra=(extra or {}).get(p) or family.initial_state(),
            )
            for p in side
        ]
        for side in sides
    ]
    changes = family.rate(
        Game(
            id=game_id,
            date=date.fromisoformat(facts["date"]),
            sides=sides,
            result=family.load_result(facts["result"]),
            event=facts.get("event"),
            round=facts.get("round"),
            neutral=facts.get("neutral", False),
            attributes=facts.get("attributes") or {},
        ),
        states,
        explain=True,
    )
    for side_no, (side, side_changes) in enumerate(zip(sides, changes, strict=True)):
        for player, change in zip(side, side_changes, strict=True):
            row = rows[player]
            base.players.append(
                PlayerExplanation(
                    player=names.get(player, player), side=chr(ord("A") + side_no),
                    before=row.before, change=row.change, after=row.after,
                    values=change.detail or {},
                )
            )  # fmt: skip
    if family.per_event and facts.get("event"):
        base.note = PER_EVENT_NOTE
    return base


def audit(
    conn: Database, ladder: str | None = None, t: Translator | None = None
) -> list[AuditLine]:
    """The event log in recording order (sequence = position in the store);
    games' summaries in ``t``'s language."""
    if ladder is None:
        return audit_lines(conn, t=t)
    return audit_lines(conn, "a.ladder=?", (ladder_row(conn, ladder)["n"],), t)


def audit_lines(
    conn: Database, where: str = "", params: tuple[Any, ...] = (), t: Translator | None = None
) -> list[AuditLine]:
    """Audit lines (``where``: a condition on the audit row ``a``), each
    game event's summary written from the game's facts then and the
    players' names now, any other's from its stored sentence (``said``),
    in ``t``'s language. A game's first record is audited on its own row."""
    from projections.views.said import sentence

    t = t or translator()
    who = names(conn)
    rows = kept_games.audit_rows(conn, where, params)
    return [
        AuditLine(
            seq=r["seq"],
            recorded_at=r["recorded_at"],
            by=r["recorded_by"],
            kind=r["kind"],
            ladder=r["ladder"],
            summary=sentence(r["summary"], t)
            if r["summary"] is not None
            else game_summary(r, who, t),
            reason=r["reason"],
            source=r["source"],
        )
        for r in rows
    ]


def game_summary(row: Row, who: Mapping[str, str], t: Translator | None = None) -> str:
    """An audit line of a game event (``views.games.audit_rows``): the
    game's facts as that event left them (read from it), with today's
    names (``who``: by player id), in ``t``'s language."""
    t = t or translator()
    game = short(row["game"])
    if row["kind"] == "game voided":
        return t.gettext("game {game} voided").format(game=game)
    facts = kept_games.line_facts(row)
    on, event, round_ = facts.date, facts.event, facts.round
    vs = t.gettext(" vs ")
    sides = vs.join(" & ".join(who.get(p, p) for p in side) for side in facts.sides)
    where = f" {event} r{round_}" if event else ""
    described = f"{on}{where}: {sides} ({summary_result(facts.result, t)})"
    if row["kind"] == "game corrected":
        return t.gettext("game {game} corrected: {described}").format(
            game=game, described=described
        )
    again = t.gettext(" (recorded again after a void)") if row["seq"] != row["subject"] else ""
    return summary_line(game, again, described, t)


def summary_result(result: Mapping[str, Any], t: Translator) -> str:
    """A game's result in an audit line: ``result=a margin=decisive``, each
    field and stored code through its label in ``t``'s language."""
    return " ".join(
        f"{t.pgettext('result field', k)}={t.pgettext(k, v) if type(v) is str else v}"
        for k, v in result.items()
        if v is not None
    )


def summary_line(game: str, again: str, described: str, t: Translator) -> str:
    """A game's recording in an audit line: ``game 1a2b3c4d: 2025-01-05: ...``."""
    return t.gettext("game {game}{again}: {described}").format(
        game=game, again=again, described=described
    )


def ladders(conn: Database) -> list[LadderInfo]:
    """Every ladder, with its rule history (``rules``: a ladder has few)."""
    return [
        ladder_info(conn, r["name"])
        for r in conn.execute("SELECT name FROM view_ladders ORDER BY key")
    ]


def ladder_info(conn: Database, name: str, rules: bool = True) -> LadderInfo:
    """A ladder's family, the parameters in force now and its rule history;
    why it cannot be replayed, if so; rulesets of other maths versions."""
    from ledger.families.base import FamilyError
    from ledger.families.registry import family_class
    from projections import views

    lrow = ladder_row(conn, name)
    current = ruleset_at(conn, lrow["n"])
    try:
        params = msgspec.to_builtins(
            family_class(current["family"]).parse_params(current["params"])
        )
    except FamilyError:  # a family that cannot be loaded: the ladder's problem
        params = current["params"]
    players = conn.execute(
        "SELECT COUNT(*) FROM view_standings WHERE ladder=?", (lrow["n"],)
    ).fetchone()[0]
    played = kept_games.count(conn, lrow["n"])
    history_rows = []
    if rules:
        for on, data in conn.execute(
            "SELECT date, data FROM view_entries WHERE ladder=? AND kind='ruleset' ORDER BY key",
            (lrow["n"],),
        ):
            d = msgspec.json.decode(data)
            history_rows.append(
                {
                    "effective": "from the start" if on == "0001-01-01" else on,
                    "family": d["family"],
                    "params": d["params"],
                    "recorded_at": d["recorded_at"],
                    "by": d["recorded_by"],
                    "reason": d["reason"],
                }
            )
    return LadderInfo(
        name=lrow["name"],
        family=current["family"],
        params=params,
        players=players,
        games=played,
        rules=history_rows,
        problem=lrow["problem"],
        version_warnings=views.version_warnings(views.ruleset_entries(conn, lrow["n"])),
    )


def players(conn: Database) -> list[PlayerInfo]:
    return [
        PlayerInfo(r["id"], r["name"], r["merged_into"], r["registered_at"])
        for r in conn.execute("SELECT * FROM view_players ORDER BY key")
    ]


def identity_evidence(conn: Database) -> tuple[dict[str, str], set[frozenset[str]]]:
    """Names of players not merged away, and the pairs that played in the
    same game (who cannot be one person)."""
    names = dict(conn.execute("SELECT id, name FROM view_players WHERE merged_into IS NULL"))
    ids = {n: pid for n, (pid, _) in numbers(conn).items()}
    together = set()
    for (ladder,) in conn.execute("SELECT n FROM view_ladders").fetchall():
        at: dict[int, list[int]] = {}
        for row in packed_history.ladder_rows(conn, ladder):
            if row.kind == "game":
                at.setdefault(row.pos, []).append(row.player)
        together |= {
            frozenset((ids[a], ids[b])) for game in at.values() for a in game for b in game if a < b
        }
    return names, together


def _family(ruleset: dict[str, Any]) -> Any:
    from ledger.families.registry import load_family

    return load_family(ruleset["family"], ruleset["params"])
