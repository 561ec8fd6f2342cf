"""The backend conformance suite: what a user sees must not depend on the
store. Written once, run on SQLite and PostgreSQL (``conformance`` marker);
the rest of the CLI tests run on SQLite only.

Also the CLI tests of ``whatif``, ``diff``, ``standings --as-known-at``,
``player duplicates`` and reading events stored in an older shape.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import msgspec
import pytest
from eventsourcing.persistence import StoredEvent

from ledger.kernel import events as ev
from ledger.kernel.identity import game_id, ladder_id, player_id
from ledger.write.application import LedgerApplication
from ledger.write.recorders import LedgerRecorder
from ledger.write.storage import resolve
from tests.conftest import Cli

pytestmark = pytest.mark.conformance


def club(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo", "--set", "k=20")
    cli.ok("player", "add", "Ann", "Bob", "Cat", "Éric Dupont")


def record(cli: Cli, on: str, a: str, b: str, result: str) -> str:
    out = cli.ok("record", "Club", "--date", on, "--side", a, "--side", b, "--result", result)
    return out.split()[2].rstrip(".")


def ratings(cli: Cli, *args: str) -> dict[str, float]:
    return {r["player"]: r["rating"] for r in cli.json("standings", "Club", *args)}


def test_a_ledgers_life_reads_the_same_on_every_backend(cli: Cli) -> None:
    club(cli)
    first = record(cli, "2025-01-05", "Ann", "Bob", "a")
    record(cli, "2025-01-05", "Cat", "eric dupont", "draw")  # names as matched
    record(cli, "2025-01-12", "Bob", "Cat", "b")
    cli.ok("correct", first[:6], "--result", "b", "--reason", "sheet misread")  # a prefix
    cli.ok("adjust", "Club", "Ann", "--shift", "+15", "--date", "2025-01-20", "--reason", "appeal")
    cli.ok("season", "close", "Club", "2025", "--from", "2025-01-01", "--to", "2025-12-31")
    # Bob won the corrected game (K 20, equal ratings: +-10); Cat then beat
    # Bob (1510) from 1500: P = 1 / (1 + 10^(10/400)); Ann's appeal: +15.
    p = 1 / (1 + 10 ** (10 / 400))
    standings = cli.json("standings", "Club")
    assert [(r["player"], r["rating"]) for r in standings] == [
        ("Cat", pytest.approx(1500 + 20 * (1 - p))),
        ("Ann", 1505.0),
        ("Éric Dupont", 1500.0),
        ("Bob", pytest.approx(1510 - 20 * (1 - p))),
    ]
    assert [h["kind"] for h in cli.json("history", "Club", "Ann")] == ["game", "adjust"]
    audit = [a["kind"] for a in cli.json("audit", "Club")]
    assert audit.count("game recorded") == 3 and "game corrected" in audit
    assert "OK" in cli.ok("verify")
    cli.ok("rebuild")
    assert cli.json("standings", "Club") == standings


def test_each_store_records_through_the_declared_recorder(cli: Cli) -> None:
    """Both stores' recorders are ``LedgerRecorder``s: the chain head one
    gives is the head ``audit --head`` prints, a game is found by a prefix of
    its id, and an aggregate's stored id finds its events."""
    club(cli)
    short_id = record(cli, "2025-01-05", "Ann", "Bob", "a")
    app = LedgerApplication(env=resolve(cli.db, cli.schema).app_env())
    try:
        assert isinstance(app.recorder, LedgerRecorder)
        assert app.recorder.chain_head() == cli.ok("audit", "--head").strip()
        assert app.game_by_ref(short_id[:6]).id.hex.startswith(short_id[:6])
        assert app.exists(ladder_id("Club")) and app.exists(player_id("Ann"))
        assert not app.exists(game_id("never recorded"))
    finally:
        app.close()


def test_whatif_replays_under_other_rules_and_records_nothing(cli: Cli) -> None:
    club(cli)
    record(cli, "2025-01-05", "Ann", "Bob", "a")
    events = cli.event_count()
    rows = {r["player"]: r for r in cli.json("whatif", "Club", "--set", "k=40")}
    assert (rows["Ann"]["rating_now"], rows["Ann"]["rating_whatif"]) == (1510.0, 1520.0)
    assert (rows["Bob"]["rating_now"], rows["Bob"]["rating_whatif"]) == (1490.0, 1480.0)
    assert rows["Ann"]["rating_move"] == 10.0
    assert cli.event_count() == events
    assert ratings(cli) == {"Ann": 1510.0, "Bob": 1490.0}
    assert "nothing to try" in cli.fails("whatif", "Club")


def later_than(moment: datetime) -> datetime:
    """The clock's first reading after ``moment`` (waits on the clock itself,
    not a guessed duration)."""
    while (now := datetime.now(UTC)) <= moment:
        time.sleep(0.0005)
    return now


def test_standings_as_known_at_and_diff_show_what_changed_since(cli: Cli) -> None:
    club(cli)
    game = record(cli, "2025-01-05", "Ann", "Bob", "a")
    at = later_than(datetime.now(UTC))  # strictly after the game was recorded
    later_than(at)  # the correction is recorded strictly after the moment
    moment = at.isoformat()
    cli.ok("correct", game, "--result", "b", "--reason", "misread")
    assert ratings(cli, "--as-known-at", moment) == {"Ann": 1510.0, "Bob": 1490.0}
    assert ratings(cli) == {"Ann": 1490.0, "Bob": 1510.0}
    lines = {d["player"]: d for d in cli.json("diff", "Club", "--from-known-at", moment)}
    assert set(lines) == {"Ann", "Bob"}
    assert (lines["Ann"]["rating_from"], lines["Ann"]["change"]) == (1510.0, -20.0)
    assert any("corrected" in e for e in lines["Ann"]["events"])


def test_player_duplicates_lists_similar_names_never_in_one_game(cli: Cli) -> None:
    club(cli)
    cli.ok("player", "add", "Anne Martin", "Martin Anne", "Bob Smith", "Bob Smyth")
    record(cli, "2025-01-05", "Bob Smith", "Bob Smyth", "a")  # they played each other
    pairs = {(p["player"], p["other"]) for p in cli.json("player", "duplicates")}
    assert ("Anne Martin", "Martin Anne") in pairs
    assert not any({"Bob Smith", "Bob Smyth"} == set(p) for p in pairs)


def test_events_stored_in_an_older_shape_are_read_through_their_upcasters(cli: Cli) -> None:
    """A game stored before sequences existed (class version 1) reads as
    version 2: its order of play is its table number."""
    club(cli)
    app = LedgerApplication(env=resolve(cli.db, cli.schema).app_env())
    try:
        facts = {
            "ladder": str(ladder_id("Club")),
            "date": "2025-01-05",
            "sides": [[str(player_id("Ann"))], [str(player_id("Bob"))]],
            "result": {"result": "a"},
            "table": 7,
        }
        gid = game_id("stored in the old shape")
        state = {
            "originator_id": str(gid),
            "originator_version": 1,
            "recorded_at": datetime.now(UTC).isoformat(),
            "recorded_by": "an older version",
            "game": facts,
        }
        app.recorder.insert_events(
            [StoredEvent(gid, 1, ev.GameRecorded.TOPIC, msgspec.json.encode(state))]
        )
        assert app.game(gid).facts.sequence == 7
    finally:
        app.close()
    assert ratings(cli) == {"Ann": 1510.0, "Bob": 1490.0}
    assert "OK" in cli.ok("verify")
