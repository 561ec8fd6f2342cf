"""Properties of the replay and its incremental views (hypothesis, SQLite).

Random ladders of every family get games recorded in random order (late
results included), corrections of result or date, voids, rule changes,
rating adjustments and season closes, through ``LedgerApplication`` with the
views caught up after every command, exactly as ``ledger/cli.py`` does.
Checkpoints are taken every few games so that replays restart from them.

Properties:
(a) the incremental views equal views rebuilt from nothing;
(b) the same games, seasons, adjustments and rule change recorded in any
    order give identical standings and histories;
(c) correcting a game and correcting it back restores standings and
    histories exactly;
(d) the views as known at a moment just before a correction equal the
    standings and histories the ledger showed at that moment.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import projections.views.ladder_replay
from ledger.kernel import events as ev
from ledger.kernel.errors import Conflict, Invalid
from ledger.kernel.identity import ladder_id
from ledger.write.application import LedgerApplication
from ledger.write.commands import Commands, GameChanges
from ledger.write.game_batch import DuplicateGame
from ledger.write.game_input import GameInput
from ledger.write.storage import resolve
from projections import queries, verify, views
from projections.db import Database, SQLiteDatabase
from projections.views import games as kept_games
from projections.views import history

BY = "tester"
LADDER = "Club"
# A second ladder (plain elo) sharing the players: merges and catch-ups touch both.
OTHER = "Other"
NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve")
DATES = (
    date(2024, 2, 10),
    date(2024, 5, 20),
    date(2024, 9, 1),
    date(2025, 1, 15),
    date(2025, 4, 30),
    date(2025, 8, 8),
    date(2025, 12, 31),
)
# A tournament is played on one day.
EVENTS = {"T1": date(2024, 5, 20), "T2": date(2025, 4, 30), "T3": date(2025, 8, 8)}
SEASONS = {
    "2024": (date(2024, 1, 1), date(2024, 12, 31)),
    # Seasons of a ladder never overlap (overlapping closes are refused).
    "2026-H1": (date(2026, 1, 1), date(2026, 6, 30)),
    "2025": (date(2025, 1, 1), date(2025, 12, 31)),
}
SMALL_CHECKPOINTS = 3
# Examples per family and property (about 0.5 s each); raise it to hunt longer.
EXAMPLES = int(os.environ.get("LEDGER_PROPERTY_EXAMPLES", "25"))
PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# -- what a scenario is made of --------------------------------------------------
@dataclass(frozen=True)
class GameOp:
    on: date
    sides: tuple[tuple[str, ...], ...]
    result: dict[str, Any]
    event: str | None = None
    round: int | None = None
    table: int | None = None
    ladder: str = LADDER


@dataclass(frozen=True)
class SeasonOp:
    label: str
    ladder: str = LADDER


@dataclass(frozen=True)
class AdjustOp:
    player: str
    on: date
    to: float | None
    shift: float | None
    ladder: str = LADDER


@dataclass(frozen=True)
class RulesOp:
    overrides: dict[str, Any]
    effective: date


@dataclass(frozen=True)
class CorrectOp:
    """Correct the ``pick``-th live game (modulo their number): its result,
    its date, or the event and round it belongs to (``move``)."""

    pick: int
    result: dict[str, Any] | None
    on: date | None = None
    move: tuple[str | None, int | None] | None = None


@dataclass(frozen=True)
class VoidOp:
    pick: int


@dataclass(frozen=True)
class RerecordOp:
    """Record the ``pick``-th voided game again (``ledger record`` of the same
    date, event, round, table and players), with another result; with no
    voided game, void the ``pick``-th live game first."""

    pick: int
    result: dict[str, Any]


@dataclass(frozen=True)
class MergeOp:
    """``ledger player merge SOURCE INTO`` (skipped when the CLI refuses it:
    the two played in one game, or either is already merged)."""

    source: str
    into: str


@dataclass(frozen=True)
class Scenario:
    family: str
    params: dict[str, Any]
    ops: list[Any]

    def __repr__(self) -> str:  # readable falsifying examples
        lines = "\n".join(f"    {op!r}," for op in self.ops)
        return f"Scenario({self.family!r}, {self.params!r}, ops=[\n{lines}\n])"


# -- every family's vocabulary ---------------------------------------------------
def two_sided(results: st.SearchStrategy[dict[str, Any]]) -> Any:
    return lambda n: results


OUTCOME = st.sampled_from([{"result": "a"}, {"result": "b"}, {"result": "draw"}])
BE_OUTCOME = st.one_of(
    st.just({"result": "draw"}),
    st.builds(
        lambda r, m: {"result": r, "margin": m},
        st.sampled_from(["a", "b"]),
        st.sampled_from(["marginal", "decisive", "overwhelming"]),
    ),
)


@st.composite
def bv_totals(draw: st.DrawFn) -> dict[str, Any]:
    a_s = draw(st.integers(2, 12)) * 500
    b_s = draw(st.integers(2, 12)) * 500
    a_e = draw(st.integers(0, a_s // 500)) * 500
    b_e = draw(st.integers(0, b_s // 500)) * 500
    return {"bv": [a_s, a_e, b_s, b_e]}


def competition_ranks(order: list[int]) -> list[int]:
    """The valid ("1224") ranks of sides placed in ``order`` (lower is better)."""
    return [1 + sum(1 for other in order if other < mine) for mine in order]


def bga_result(n: int) -> st.SearchStrategy[dict[str, Any]]:
    ranks = st.lists(st.integers(1, n), min_size=n, max_size=n).map(competition_ranks)
    quit_ = st.one_of(st.none(), st.none(), st.none(), st.integers(1, n))
    return st.builds(
        lambda r, q: {"ranks": r} if q is None else {"ranks": r, "quit": q}, ranks, quit_
    )


@dataclass(frozen=True)
class FamilySpec:
    name: str
    params: dict[str, Any]
    rules: st.SearchStrategy[dict[str, Any]]
    result: Any  # number of sides -> strategy of results
    max_sides: int = 2
    events: bool = False
    teams: bool = False


FAMILIES: dict[str, FamilySpec] = {
    "elo": FamilySpec(
        "elo",
        {"k": 24, "season_penalties": [{"above": 1500, "penalty": 10}]},
        st.sampled_from([{"k": 10}, {"k": 32}, {"home_advantage": 30}, {"update": "event"}]),
        two_sided(OUTCOME),
        events=True,
        teams=True,
    ),
    "battle-empire": FamilySpec(
        "battle-empire",
        {},
        st.sampled_from([{"variant": "en"}, {"variant": "fr"}]),
        two_sided(BE_OUTCOME),
        teams=True,
    ),
    "adlg": FamilySpec("adlg", {}, st.just({}), two_sided(OUTCOME), events=True),
    "battletech": FamilySpec(
        "battletech",
        {},
        st.sampled_from([{"scale": 10}, {"scale": 40}, {"divisor": 300}]),
        two_sided(bv_totals()),
    ),
    "bga": FamilySpec(
        "bga",
        {"advised_players": 4},
        st.sampled_from([{"advised_players": 3}, {"k": 30}, {"quit_penalty": 25}]),
        bga_result,
        max_sides=4,
    ),
    # Families whose players' state holds more than a rating.
    "glicko2": FamilySpec(
        "glicko2",
        {"period": "month"},
        st.sampled_from([{"period": "event"}, {"period": "game", "tau": 0.3}]),
        two_sided(OUTCOME),
        events=True,
        teams=True,
    ),
    "weng-lin": FamilySpec(
        "weng-lin",
        {},
        st.sampled_from([{"model": "bradley-terry-full"}, {"beta": 3.0}]),
        lambda n: st.lists(st.integers(1, n), min_size=n, max_size=n).map(
            lambda order: {"ranks": competition_ranks(order)}
        ),
        max_sides=4,
        teams=True,
    ),
}


@st.composite
def game_ops(draw: st.DrawFn, spec: FamilySpec) -> GameOp:
    n = draw(st.integers(2, spec.max_sides))
    team = spec.teams and n == 2 and draw(st.integers(0, 4)) == 0
    size = 2 if team else 1
    players = draw(st.permutations(NAMES))[: n * size]
    sides = tuple(tuple(players[i * size : (i + 1) * size]) for i in range(n))
    result = draw(spec.result(n))
    if spec.events and draw(st.booleans()):
        event = draw(st.sampled_from(sorted(EVENTS)))
        return GameOp(EVENTS[event], sides, result, event, draw(st.integers(1, 3)))
    return GameOp(draw(st.sampled_from(DATES)), sides, result)


@st.composite
def adjust_ops(draw: st.DrawFn) -> AdjustOp:
    player = draw(st.sampled_from(NAMES))
    on = draw(st.sampled_from(DATES))
    if draw(st.booleans()):
        return AdjustOp(player, on, float(draw(st.sampled_from([900, 1200, 1600]))), None)
    return AdjustOp(player, on, None, float(draw(st.sampled_from([-40, 25, 60]))))


@st.composite
def base_ops(draw: st.DrawFn, spec: FamilySpec, max_rules: int, unique_rules: bool) -> list[Any]:
    """Games, season closes, adjustments and rule changes: facts whose effect
    does not depend on the order they are recorded in."""
    games = draw(st.lists(game_ops(spec), min_size=3, max_size=12))
    other = draw(st.lists(game_ops(FAMILIES["elo"]), max_size=3))
    games += [replace(g, ladder=OTHER, event=None, round=None) for g in other]
    # A table number of its own makes every game distinct (not a duplicate).
    ops: list[Any] = [replace(g, table=n) for n, g in enumerate(games, start=1)]
    ops += [SeasonOp(label) for label in draw(st.sets(st.sampled_from(sorted(SEASONS))))]
    if other and draw(st.booleans()):
        ops.append(SeasonOp("2024", OTHER))
    ops += draw(st.lists(adjust_ops(), max_size=2, unique=True))
    # Rule changes effective the same day apply in recording order, so they
    # are order-independent only on distinct days.
    effective = draw(
        st.lists(st.sampled_from(DATES[1:]), unique=unique_rules, min_size=0, max_size=max_rules)
    )
    ops += [RulesOp(draw(spec.rules), on) for on in effective]
    return ops


@st.composite
def edit_ops(draw: st.DrawFn, spec: FamilySpec) -> Any:
    pick = draw(st.integers(0, 50))
    kinds = ["result", "date", "both", "void", "rerecord", "merge"]
    kind = draw(st.sampled_from(kinds + (["move"] if spec.events else [])))
    if kind == "void":
        return VoidOp(pick)
    if kind == "merge":
        source, into = draw(st.permutations(NAMES))[:2]
        return MergeOp(source, into)
    # The number of sides of the game is known only when it is picked; a
    # result for another number of sides is fitted then (see World.fit).
    result = draw(st.one_of(*(spec.result(n) for n in range(2, spec.max_sides + 1))))
    if kind == "rerecord":
        return RerecordOp(pick, result)
    if kind == "move":
        event = draw(st.sampled_from([None, *sorted(EVENTS)]))
        return CorrectOp(
            pick, None, move=(event, None if event is None else draw(st.integers(1, 3)))
        )
    on = draw(st.sampled_from(DATES))
    return CorrectOp(pick, result if kind != "date" else None, on if kind != "result" else None)


def corrections(spec: FamilySpec) -> st.SearchStrategy[CorrectOp]:
    return edit_ops(spec).filter(lambda op: isinstance(op, CorrectOp))


@st.composite
def scenarios(draw: st.DrawFn, family: str, edits: bool, max_rules: int = 3) -> Scenario:
    spec = FAMILIES[family]
    ops = draw(st.permutations(draw(base_ops(spec, max_rules, unique_rules=not edits))))
    if edits:
        for edit in draw(st.lists(edit_ops(spec), min_size=1, max_size=4)):
            ops.insert(draw(st.integers(1, len(ops))), edit)
    return Scenario(family, spec.params, ops)


# -- running a scenario through the application ----------------------------------
@dataclass
class World:
    """One ledger: the application and its views in one SQLite file."""

    path: Path
    app: LedgerApplication = field(init=False)
    commands: Commands = field(init=False)
    db: Database = field(init=False)
    players: dict[str, UUID] = field(default_factory=dict)
    names: dict[UUID, str] = field(default_factory=dict)
    games: list[UUID] = field(default_factory=list)  # recording order
    voided: set[UUID] = field(default_factory=set)
    merged: set[str] = field(default_factory=set)
    facts: dict[UUID, ev.GameFacts] = field(default_factory=dict)
    reasons: Iterator[int] = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self.app = LedgerApplication(env=resolve(str(self.path)).app_env())
        self.commands = Commands(self.app, BY)
        self.db = views.connect(SQLiteDatabase(str(self.path)))
        self.catch_up()

    def catch_up(self) -> None:
        views.catch_up(self.db, self.app.recorder)

    def close(self) -> None:
        self.db.close()
        self.app.close()

    def open(self, scenario: Scenario) -> None:
        self.commands.open_ladder(LADDER, scenario.family, dict(scenario.params))
        self.commands.open_ladder(OTHER, "elo", {"season_regression": 0.5})
        self.catch_up()
        self.players = dict(zip(NAMES, self.commands.add_players(NAMES), strict=True))
        self.names = {pid: name for name, pid in self.players.items()}
        self.catch_up()

    def reason(self) -> str:
        return f"reason {next(self.reasons)}"

    def apply(self, op: Any, family: str) -> None:
        if isinstance(op, GameOp):
            game = GameInput(
                ladder=op.ladder,
                date=op.on.isoformat(),
                sides=[list(side) for side in op.sides],
                result=dict(op.result),
                event=op.event,
                round=op.round,
                table=op.table,
            )
            self.record(game)
        elif isinstance(op, RerecordOp):
            if not self.voided and self.live():
                self.apply(VoidOp(op.pick), family)
            voided = [g for g in self.games if g in self.voided]
            if voided:
                old = self.facts[voided[op.pick % len(voided)]]
                # A game corrected before its void is recorded again under a
                # new id; recording it once more is then refused as a duplicate.
                self.record(self.game_input(old, result=self.fit(op.result, old)), again=True)
        elif isinstance(op, SeasonOp):
            start, end = SEASONS[op.label]
            self.commands.close_season(op.ladder, op.label, start, end)
        elif isinstance(op, AdjustOp):
            # The name follows merges.
            self.commands.adjust(op.ladder, op.player, op.on, f"appeal {op}", op.to, op.shift)
        elif isinstance(op, MergeOp):
            self.merge(op)
        elif isinstance(op, RulesOp):
            if op.overrides:  # the command refuses a change that changes nothing
                self.commands.change_rules(LADDER, op.overrides, op.effective, "AGM vote")
        elif isinstance(op, CorrectOp):
            self.correct(op, family)
        elif isinstance(op, VoidOp):
            live = self.live()
            if live:
                gid = live[op.pick % len(live)]
                self.commands.void(str(gid), self.reason())
                self.voided.add(gid)
        else:  # pragma: no cover
            raise AssertionError(op)
        self.catch_up()

    def record(self, game: GameInput, again: bool = False) -> UUID | None:
        """The command ``ledger record`` runs. None when it refuses the game:
        a merge put one player on both sides, or (``again``: a voided game
        recorded again) a live game of the same identity is already recorded."""
        try:
            recorded = self.commands.record(game, again=again)
        except DuplicateGame:
            assert again
            return None
        except Invalid as exc:
            assert self.merged and "twice" in str(exc), exc
            return None
        gid = UUID(recorded.game)
        if gid not in self.games:
            self.games.append(gid)
        self.voided.discard(gid)
        self.facts[gid] = self.app.game(gid).facts
        return gid

    def game_input(self, facts: ev.GameFacts, **changes: Any) -> GameInput:
        """A recorded game in people's terms (as ``ledger correct`` rebuilds it)."""
        fields = {
            "ladder": self.app.ladder(facts.ladder).name,
            "date": facts.date.isoformat(),
            "sides": [[self.names[p] for p in side] for side in facts.sides],
            "result": dict(facts.result),
            "event": facts.event,
            "round": facts.round,
            "table": facts.table,
            "neutral": facts.neutral,
            "attributes": dict(facts.attributes),
        }
        return GameInput(**{**fields, **changes})

    @staticmethod
    def fit(result: dict[str, Any], facts: ev.GameFacts) -> dict[str, Any]:
        """A result drawn for the main ladder, fitted to this game: to its
        number of sides (bga), or to the other ladder's plain elo."""
        if facts.ladder == ladder_id(OTHER):
            return dict(result) if set(result) == {"result"} else dict(facts.result)
        n = len(facts.sides)
        if "ranks" not in result or len(result["ranks"]) == n:
            return dict(result)
        ranks = [min(r, n) for r in result["ranks"][:n]]
        return {"ranks": competition_ranks(ranks + [n] * (n - len(ranks)))}

    def live(self) -> list[UUID]:
        return [g for g in self.games if g not in self.voided]

    def correct(self, op: CorrectOp, family: str) -> UUID | None:
        """As ``ledger correct`` does: the recorded game with the fields given."""
        live = self.live()
        if not live:
            return None
        gid = live[op.pick % len(live)]
        old = self.facts[gid]
        changes = GameChanges()
        if op.result is not None:
            changes.result = self.fit(op.result, old)
        if op.on is not None:
            changes.date = op.on.isoformat()
        if op.move is not None:
            event, round_ = op.move
            # An empty event or round takes the game out of one.
            changes.event, changes.round = event or "", "" if round_ is None else round_
            if event is not None:
                changes.date = EVENTS[event].isoformat()
        return gid if self.correct_with(gid, changes) else None

    def merge(self, op: MergeOp) -> None:
        if op.source in self.merged or op.into in self.merged:
            return
        try:
            self.commands.merge_players(op.source, op.into, "same person")
        except Invalid as exc:  # they played in the same game
            assert "same game" in str(exc), exc
            return
        self.merged.add(op.source)

    def correct_with(self, gid: UUID, changes: GameChanges) -> bool:
        """The command ``ledger correct`` runs; False when it changes nothing."""
        try:
            self.commands.correct(str(gid), changes, self.reason())
        except Invalid as exc:
            assert "changes nothing" in str(exc), exc
            return False
        self.facts[gid] = self.app.game(gid).facts
        self.catch_up()
        return True

    def correct_to(self, gid: UUID, facts: ev.GameFacts) -> bool:
        """Correct a game back to ``facts`` (its players unchanged)."""
        changes = GameChanges(
            date=facts.date.isoformat(),
            event=facts.event or "",
            round="" if facts.round is None else facts.round,
            result={**dict.fromkeys(self.facts[gid].result), **facts.result},
            neutral=facts.neutral,
            attributes=dict(facts.attributes),
        )
        return self.correct_with(gid, changes)

    def run(self, scenario: Scenario, ops: list[Any] | None = None) -> None:
        for op in scenario.ops if ops is None else ops:
            self.apply(op, scenario.family)


@pytest.fixture(params=["compared", "cut"])
def worlds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Any]:
    """Makes fresh ledgers (one file each, for every hypothesis example), in
    memory-backed storage where there is some: every command commits twice.
    A replay's restart compares the rows it makes with the stored ones
    (``compared``) or cuts every stored chunk after it at once (``cut``),
    wherever it is (``history.COMPARED_CHUNKS``)."""
    monkeypatch.setattr(projections.views.ladder_replay, "CHECKPOINT_EVERY", SMALL_CHECKPOINTS)
    compared = request.param == "compared"
    monkeypatch.setattr(history, "COMPARED_CHUNKS", 10**9 if compared else 0)
    monkeypatch.setattr(history, "COMPARED_PLACES", 10**9)
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() else tmp_path
    made: list[World] = []

    def make() -> World:
        world = World(folder / f"{uuid.uuid4().hex}.db")
        made.append(world)
        return world

    yield make
    for world in made:
        world.close()
    if folder != tmp_path:
        shutil.rmtree(folder, ignore_errors=True)


# -- what is compared --------------------------------------------------------------
def snapshot(conn: Database) -> dict[str, Any]:
    """Standings and every player's history in both ladders, as queries show them."""
    return {
        ladder: {
            "standings": msgspec.to_builtins(queries.standings(conn, ladder)),
            "history": {n: msgspec.to_builtins(queries.history(conn, ladder, n)) for n in NAMES},
        }
        for ladder in (LADDER, OTHER)
    }


def rating_rows(conn: Database) -> dict[str, list[tuple[Any, ...]]]:
    """The stored history and standings rows, every column."""
    return {t: verify.rows(conn, t) for t in ("view_history", "view_standings")}


def played(world: World) -> None:
    """Guard: the scenario rated something (so comparisons are not vacuous)."""
    rows = [r for r in verify.rows(world.db, "view_history") if r[5] == "game"]
    assert rows or not world.live()


FAMILY_NAMES = sorted(FAMILIES)


# -- (a) incremental views equal a rebuild -------------------------------------------
@pytest.mark.parametrize("family", FAMILY_NAMES)
@PROPERTY_SETTINGS
@given(data=st.data())
def test_incremental_views_equal_a_rebuild(worlds: Any, family: str, data: st.DataObject) -> None:
    scenario = data.draw(scenarios(family, edits=True), label="scenario")
    world = worlds()
    world.open(scenario)
    world.run(scenario)
    played(world)

    problems, _ = verify.check_views(world.db, world.app.recorder)
    assert problems == []
    fresh = views.in_memory(world.app.recorder)
    assert verify.checksum(world.db) == verify.checksum(fresh)
    assert snapshot(world.db) == snapshot(fresh)

    # And a rebuild of the stored views in place changes nothing either.
    before = verify.checksum(world.db)
    views.rebuild(world.db, world.app.recorder)
    assert verify.checksum(world.db) == before


# -- (b) the recording order does not matter -------------------------------------------
@pytest.mark.parametrize("family", FAMILY_NAMES)
@PROPERTY_SETTINGS
@given(data=st.data())
def test_any_recording_order_gives_identical_results(
    worlds: Any, family: str, data: st.DataObject
) -> None:
    # At most one rule change: its parameters are those in force at its date
    # plus its own, so two rule changes depend on which was recorded first.
    scenario = data.draw(scenarios(family, edits=False, max_rules=1), label="scenario")
    order = data.draw(st.permutations(scenario.ops), label="other order")
    first, second = worlds(), worlds()
    first.open(scenario)
    first.run(scenario)
    second.open(scenario)
    second.run(scenario, order)
    played(first)

    assert snapshot(first.db) == snapshot(second.db)
    assert rating_rows(first.db) == rating_rows(second.db)


# -- (c) correcting a game and back is a no-op -------------------------------------------
@pytest.mark.parametrize("family", FAMILY_NAMES)
@PROPERTY_SETTINGS
@given(data=st.data())
def test_correcting_a_game_and_back_restores_everything(
    worlds: Any, family: str, data: st.DataObject
) -> None:
    scenario = data.draw(scenarios(family, edits=data.draw(st.booleans())), label="scenario")
    edit = data.draw(corrections(FAMILIES[family]), label="correction")
    world = worlds()
    world.open(scenario)
    world.run(scenario)
    before, rows = snapshot(world.db), rating_rows(world.db)

    gid = world.correct(edit, family)
    if gid is None:  # every game voided, or the correction changed nothing
        return
    original = world.app.game(gid)
    assert original.version >= 2
    recorded = [e.game for e in world.app._events(gid) if hasattr(e, "game")]
    back = recorded[-2]  # the game as it stood before this correction
    assert back != recorded[-1]
    assert world.correct_to(gid, back)

    assert snapshot(world.db) == before
    assert rating_rows(world.db) == rows
    problems, _ = verify.check_views(world.db, world.app.recorder)
    assert problems == []


# -- (d) time travel shows what the ledger said then -----------------------------------
def last_recorded_at(world: World) -> datetime:
    return max(datetime.fromisoformat(a.recorded_at) for a in queries.audit(world.db))


@pytest.mark.parametrize("family", FAMILY_NAMES)
@PROPERTY_SETTINGS
@given(data=st.data())
def test_known_at_before_a_correction_shows_the_ledger_then(
    worlds: Any, family: str, data: st.DataObject
) -> None:
    scenario = data.draw(scenarios(family, edits=True), label="scenario")
    edit = data.draw(corrections(FAMILIES[family]), label="correction")
    cut = data.draw(st.integers(0, len(scenario.ops)), label="cut")
    world = worlds()
    world.open(scenario)
    world.run(scenario, scenario.ops[:cut])
    then, views_then = snapshot(world.db), all_views(world.db)
    moment = last_recorded_at(world)
    # Later events are recorded strictly after the moment: wait for the clock.
    while datetime.now(moment.tzinfo) <= moment:
        time.sleep(0.0005)

    recorded = len(queries.audit(world.db))
    corrected = world.correct(edit, family)
    world.run(scenario, scenario.ops[cut:])
    if len(queries.audit(world.db)) > recorded:
        assert last_recorded_at(world) > moment

    known = views.in_memory(world.app.recorder, known_at=moment)
    assert snapshot(known) == then
    assert all_views(known) == views_then
    if corrected is not None:
        # The correction is in the ledger now, not in the ledger as known then.
        assert game_row(world.db, corrected) != game_row(known, corrected)


def all_views(conn: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every compared view (the tracking position aside: it is the last
    event read, whether or not it was known at the moment)."""
    return {t: verify.rows(conn, t) for t in verify.COMPARED if t != "view_tracking"}


def game_row(conn: Database, gid: UUID) -> tuple[Any, ...]:
    return tuple(kept_games.by_ref(conn, str(gid)))


# -- a game recorded again after a void ----------------------------------------------
def recorded_again(worlds: Any) -> tuple[World, UUID]:
    """Ann beats Ben; the game is voided, then recorded again as Ben's win."""
    world = worlds()
    world.open(Scenario("elo", {}, []))
    world.apply(GameOp(date(2025, 1, 1), (("Ann",), ("Ben",)), {"result": "a"}, table=1), "elo")
    gid = world.games[0]
    world.apply(VoidOp(0), "elo")
    world.apply(RerecordOp(0, {"result": "b"}), "elo")
    return world, gid


def test_a_game_recorded_again_after_a_void_counts_again(worlds: Any) -> None:
    world, gid = recorded_again(worlds)
    standings = {r.player: r.rating for r in queries.standings(world.db, LADDER)}
    assert standings == {"Ben": 1510.0, "Ann": 1490.0}  # K = 20: the second record counts
    assert kept_games.by_ref(world.db, str(gid))["status"] == "recorded"
    problems, _ = verify.check_views(world.db, world.app.recorder)
    assert problems == []


def test_a_game_recorded_again_after_a_void_can_be_corrected(worlds: Any) -> None:
    world, gid = recorded_again(worlds)
    state = world.app.game(gid)
    assert not state.voided
    assert state.facts.result == {"result": "b"}
    world.commands.correct(str(gid), GameChanges(result={"result": "draw"}), "typo")
    assert world.app.game(gid).facts.result == {"result": "draw"}


def test_a_game_recorded_again_after_a_void_is_not_recorded_twice(worlds: Any) -> None:
    world, gid = recorded_again(worlds)
    ladder = world.app.ladder(LADDER)
    with pytest.raises(Conflict):
        world.commands.record_batch().add(world.commands.check_game(ladder, world.facts[gid]))


def replace_result(facts: ev.GameFacts, result: dict[str, Any]) -> ev.GameFacts:
    return msgspec.structs.replace(facts, result=result)
