"""Queries over the views: standings, histories, explanations, the audit log.

Every query returns msgspec Structs (the shapes the CLI prints as a table,
JSON or CSV). Queries read the views only; they never replay aggregates.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

import msgspec

from ledger.errors import LedgerError, NotFound
from ledger.identity import name_key, short
from projections import views
from projections.db import Database, Row
from projections.families.base import FamilyError, Game, PlayerState
from projections.families.registry import family_class, load_family


class StandingRow(msgspec.Struct):
    rank: int
    player: str
    rating: float
    grade: str | None
    games: int
    last_played: str | None


class HistoryLine(msgspec.Struct):
    date: str
    kind: str
    game: str | None
    event: str | None
    round: int | None
    opponents: str
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


class LadderProblem(LedgerError):
    """A query on a ladder whose entries cannot all be replayed (the message
    names the entry, the error and what to do)."""


# -- resolving names --------------------------------------------------------
def ladder_row(conn: Database, name: str) -> Row:
    row = conn.execute("SELECT * FROM view_ladders WHERE key=?", (name_key(name),)).fetchone()
    if row is None:
        raise NotFound(f"unknown ladder {name!r} (see 'ledger ladder list')")
    return row


def replayed_ladder_row(conn: Database, name: str) -> Row:
    """``ladder_row`` of a ladder whose ratings can be read (raises
    LadderProblem for a ladder that cannot be replayed)."""
    row = ladder_row(conn, name)
    if row["problem"]:
        raise LadderProblem(row["problem"])
    return row


def player_by_name(conn: Database, name: str, follow_merge: bool = True) -> str:
    """The id of the player called ``name`` (case and accents ignored);
    a merged player resolves to the player they were merged into."""
    row = conn.execute(
        "SELECT id, merged_into FROM view_players WHERE key=?", (name_key(name),)
    ).fetchone()
    if row is None:
        raise NotFound(f"unknown player {name!r} (add them with 'ledger player add')")
    if follow_merge and row["merged_into"]:
        return _final(conn, row["merged_into"])
    return row["id"]


def _final(conn: Database, pid: str) -> str:
    seen = set()
    while pid not in seen:
        seen.add(pid)
        row = conn.execute("SELECT merged_into FROM view_players WHERE id=?", (pid,)).fetchone()
        if row is None or not row[0]:
            return pid
        pid = row[0]
    return pid


def game_row(conn: Database, ref: str) -> Row:
    """A game by its id or any unambiguous prefix of its short id."""
    ref = ref.strip().lower()
    prefix = ref.replace("-", "")[:8]
    if len(ref) == 36:
        rows = conn.execute("SELECT * FROM view_games WHERE id=?", (ref,)).fetchall()
    else:  # a prefix range uses the index on short ids
        rows = conn.execute(
            "SELECT * FROM view_games WHERE short>=? AND short<? LIMIT 2",
            (prefix, prefix + "\x7f"),
        ).fetchall()
    if not rows or not ref:
        raise NotFound(f"unknown game {ref!r} (game ids are shown by 'history' and 'audit')")
    if len(rows) > 1:
        raise NotFound(f"game id {ref!r} is ambiguous: give more characters")
    return rows[0]


def names(conn: Database) -> dict[str, str]:
    return dict(conn.execute("SELECT id, name FROM view_players").fetchall())


def ruleset_at(conn: Database, ladder: str, key: str | None = None) -> dict[str, Any]:
    """The ruleset in force at ``key`` (or today: a rule change announced
    for a later date is not yet in force)."""
    data = views.ruleset_in_force(conn, ladder, key or date.today().isoformat() + "\x7f")
    assert data is not None, "every ladder opens with a ruleset"
    return data


# -- queries ------------------------------------------------------------------
def standings(
    conn: Database, ladder: str, as_of: date | None = None, lang: str = "en"
) -> list[StandingRow]:
    """The ranking: current, or as it stood at the end of ``as_of``."""
    lrow = replayed_ladder_row(conn, ladder)
    if as_of is None:
        rows = conn.execute(
            "SELECT player, rating, games, last_played FROM view_standings WHERE ladder=?",
            (lrow["id"],),
        ).fetchall()
        family = _family(ruleset_at(conn, lrow["id"]))
    else:
        cut = as_of.isoformat() + "\x7f"
        rows = conn.execute(
            """
            SELECT h.player, h.after, h.games_after,
                   (SELECT MAX(g.date) FROM view_history g WHERE g.ladder=h.ladder
                      AND g.player=h.player AND g.kind='game' AND g.key<?) AS last_played
            FROM view_history h
            JOIN (SELECT player, MAX(key) AS key FROM view_history
                  WHERE ladder=? AND key<? GROUP BY player) m
              ON h.player=m.player AND h.key=m.key
            WHERE h.ladder=?
            """,
            (cut, lrow["id"], cut, lrow["id"]),
        ).fetchall()
        family = _family(ruleset_at(conn, lrow["id"], cut))
    who = names(conn)
    ordered = sorted(rows, key=lambda r: (-r[1], who.get(r[0], r[0])))
    out = []
    for rank, (player, rating, games, last) in enumerate(ordered, start=1):
        grade = family.grade(PlayerState(rating=rating, games=games), lang)
        out.append(StandingRow(rank, who.get(player, player), rating, grade, games, last))
    return out


def history(conn: Database, ladder: str, player: str) -> list[HistoryLine]:
    """Every entry that changed a player's rating in a ladder, in effective order."""
    lrow = replayed_ladder_row(conn, ladder)
    pid = player_by_name(conn, player)
    who = names(conn)
    out = []
    for r in conn.execute(
        "SELECT * FROM view_history WHERE ladder=? AND player=? ORDER BY key",
        (lrow["id"], pid),
    ):
        opponents = ", ".join(who.get(o, o) for o in r["opponents"].split(",") if o)
        out.append(
            HistoryLine(
                date=r["date"],
                kind=r["kind"],
                game=short(r["entry"]) if r["kind"] == "game" else None,
                event=r["event"],
                round=r["round"],
                opponents=opponents,
                s=r["s"],
                p=r["p"],
                k=r["k"],
                before=r["before"],
                after=r["after"],
                change=r["change"],
                note=r["note"],
            )
        )
    return out


def explain(conn: Database, ref: str) -> Explanation:
    """Every input and intermediate value of one game's computation."""
    game = game_row(conn, ref)
    facts = msgspec.json.decode(game["facts"])
    lrow = conn.execute(
        "SELECT name, problem FROM view_ladders WHERE id=?", (game["ladder"],)
    ).fetchone()
    if lrow["problem"]:
        raise LadderProblem(lrow["problem"])
    ruleset = ruleset_at(conn, game["ladder"], game["key"])
    rows = {
        r["player"]: r
        for r in conn.execute(
            "SELECT * FROM view_history WHERE ladder=? AND key=?", (game["ladder"], game["key"])
        )
    }
    family = _family(ruleset) if game["status"] != "voided" else None
    sides = tuple(tuple(_final(conn, p) for p in side) for side in facts["sides"])
    return explanation(
        lrow["name"], game["id"], game["short"], game["status"], facts, ruleset, family,
        sides, rows, names(conn),
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
) -> Explanation:
    """A game's explanation from its stored facts, the ruleset in force, the
    players it counts for (``sides``, merges followed) and their history rows
    (by player id): the family rates it again with ``explain=True`` from the
    states those rows record."""
    base = Explanation(
        game=short_id, ladder=ladder, date=facts["date"], event=facts.get("event"),
        round=facts.get("round"), status=status, family=ruleset["family"],
        params=ruleset["params"], result=facts["result"], players=[],
    )  # fmt: skip
    if status == "voided":
        base.note = "voided: this game changes no rating"
        return base
    states = [
        [PlayerState(rating=rows[p]["before"], games=rows[p]["games_before"]) for p in side]
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
                    before=row["before"], change=row["change"], after=row["after"],
                    values=change.detail or {},
                )
            )  # fmt: skip
    if family.per_event and facts.get("event"):
        base.note = (
            "rated from the ratings before the event; the event's changes are "
            "summed and applied when it closes"
        )
    return base


def audit(conn: Database, ladder: str | None = None) -> list[AuditLine]:
    """The event log in recording order (sequence = position in the store)."""
    who = {r[0]: r[1] for r in conn.execute("SELECT id, name FROM view_ladders")}
    if ladder is None:
        rows = conn.execute("SELECT * FROM view_audit ORDER BY seq")
    else:
        lid = ladder_row(conn, ladder)["id"]
        rows = conn.execute("SELECT * FROM view_audit WHERE ladder=? ORDER BY seq", (lid,))
    return [
        AuditLine(
            seq=r["seq"],
            recorded_at=r["recorded_at"],
            by=r["recorded_by"],
            kind=r["kind"],
            ladder=who.get(r["ladder"]) if r["ladder"] else None,
            summary=r["summary"],
            reason=r["reason"],
            source=r["source"],
        )
        for r in rows
    ]


def ladders(conn: Database) -> list[LadderInfo]:
    return [
        ladder_info(conn, r["name"], rules=False)
        for r in conn.execute("SELECT name FROM view_ladders ORDER BY key")
    ]


def ladder_info(conn: Database, name: str, rules: bool = True) -> LadderInfo:
    """A ladder's family, the parameters in force now and its rule history;
    why it cannot be replayed, if so; rulesets of other maths versions."""
    lrow = ladder_row(conn, name)
    current = ruleset_at(conn, lrow["id"])
    try:
        params = msgspec.to_builtins(
            family_class(current["family"]).parse_params(current["params"])
        )
    except FamilyError:  # a family that cannot be loaded: the ladder's problem
        params = current["params"]
    players = conn.execute(
        "SELECT COUNT(*) FROM view_standings WHERE ladder=?", (lrow["id"],)
    ).fetchone()[0]
    games = conn.execute(
        "SELECT COUNT(*) FROM view_games WHERE ladder=? AND status!='voided'", (lrow["id"],)
    ).fetchone()[0]
    history_rows = []
    if rules:
        for on, data in conn.execute(
            "SELECT date, data FROM view_entries WHERE ladder=? AND kind='ruleset' ORDER BY key",
            (lrow["id"],),
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
        games=games,
        rules=history_rows,
        problem=lrow["problem"],
        version_warnings=views.version_warnings(views.ruleset_entries(conn, lrow["id"])),
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
    together = {
        frozenset(pair)
        for pair in conn.execute(
            "SELECT DISTINCT a.player, b.player FROM view_history a JOIN view_history b "
            "ON a.ladder=b.ladder AND a.key=b.key AND a.player<b.player "
            "WHERE a.kind='game' AND b.kind='game'"
        )
    }
    return names, together


def _family(ruleset: dict[str, Any]) -> Any:
    return load_family(ruleset["family"], ruleset["params"])
