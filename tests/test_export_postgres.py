"""``ledger export`` and ``ledger history LADDER`` give the same rows on
PostgreSQL as on SQLite, read through server-side cursors that hold a batch
of rows at a time, not the ladder."""

from __future__ import annotations

import csv
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from projections import views
from projections.db import PostgresDatabase
from projections.site import tables
from tests.browser.sample import make_sample
from tests.conftest import PG_URL, Cli, drop_schema, require_postgres


@pytest.fixture
def ledgers(tmp_path: Path) -> Iterator[tuple[Cli, Cli]]:
    """The same sample ledger on SQLite and on PostgreSQL."""
    require_postgres()
    schema = f"test_export_{uuid.uuid4().hex[:10]}"
    lite, pg = Cli(str(tmp_path / "export.db")), Cli(PG_URL, schema)
    try:
        make_sample(lite)
        make_sample(pg)
        yield lite, pg
    finally:
        drop_schema(schema)


def without_ids(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Rows with the ids each ledger drew (game and player ids, times of
    recording) left out, sorted: what must be equal across backends."""
    drop = {"game_id", "short_id", "entry_id", "game_short_id", "player_id", "recorded_at",
            "registered_at", "side_a_ids", "side_b_ids", "rated_since"}  # fmt: skip
    return sorted(
        (sorted((k, v) for k, v in r.items() if k not in drop) for r in rows),
        key=lambda r: json.dumps(r),
    )


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_export_on_postgres_gives_the_rows_sqlite_gives(
    ledgers: tuple[Cli, Cli], tmp_path: Path
) -> None:
    lite, pg = ledgers
    for ladder in ("Club", "Battle Empire"):
        a, b = tmp_path / f"lite-{ladder}", tmp_path / f"pg-{ladder}"
        lite.ok("export", ladder, "-o", str(a))
        pg.ok("export", ladder, "-o", str(b))
        for table in ("games", "changes", "players"):
            rows_a, rows_b = read_csv(a / f"{table}.csv"), read_csv(b / f"{table}.csv")
            assert rows_a, (ladder, table)
            assert without_ids(rows_a) == without_ids(rows_b), (ladder, table)
        # The changes come in effective order on both.
        order_a = [(r["date"], r["player"], r["change"]) for r in read_csv(a / "changes.csv")]
        order_b = [(r["date"], r["player"], r["change"]) for r in read_csv(b / "changes.csv")]
        assert order_a == order_b
        json_a = json.loads(lite.ok("export", ladder, "--format", "json"))
        json_b = json.loads(pg.ok("export", ladder, "--format", "json"))
        assert len(json_a["changes"]) == len(json_b["changes"]) == len(order_a)


def test_every_players_history_on_postgres(ledgers: tuple[Cli, Cli]) -> None:
    lite, pg = ledgers
    rows_a, rows_b = lite.json("history", "Club"), pg.json("history", "Club")
    assert len(rows_a) > 10
    strip = ("game",)  # short ids differ (each ledger draws its own)
    key = lambda r: json.dumps([r["player"], r["date"], r["change"]])  # noqa: E731
    assert sorted(({k: v for k, v in r.items() if k not in strip} for r in rows_a), key=key) == (
        sorted(({k: v for k, v in r.items() if k not in strip} for r in rows_b), key=key)
    )


def test_streams_read_through_server_side_cursors(ledgers: tuple[Cli, Cli]) -> None:
    """A stream on PostgreSQL opens a named cursor, holds a batch, lets other
    queries run while it is read, and closes its cursor when done."""
    _, pg = ledgers
    conn = views.connect(PostgresDatabase(PG_URL, pg.schema or ""))
    rows = tables.stream(conn, "SELECT n FROM view_games ORDER BY n")
    first = next(rows)
    open_cursors = conn.execute("SELECT name FROM pg_cursors").fetchall()
    assert any(name.startswith("ledger_stream_") for (name,) in open_cursors)
    # Another query in the middle of the stream.
    assert conn.execute("SELECT COUNT(*) FROM view_games").fetchone()[0] == 9
    assert [first[0], *(r[0] for r in rows)] == sorted(
        n for (n,) in conn.execute("SELECT n FROM view_games").fetchall()
    )
    assert conn.execute("SELECT COUNT(*) FROM pg_cursors").fetchone()[0] == 0
    conn.close()
