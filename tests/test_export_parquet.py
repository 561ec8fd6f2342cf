"""``ledger export --format parquet``: the CSV export's three tables, typed,
read back by pyarrow (and DuckDB where it is installed)."""

from __future__ import annotations

import csv
import math
import sys
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from projections import parquet
from projections.formats import neutralise
from tests.browser.sample import FORMULA, make_sample
from tests.conftest import Cli

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

TABLES = ("games", "changes", "players")
#: The documented types of the fixed columns (result_* and attr_* follow the family).
TYPES = {
    "games": {
        "game_id": "string", "short_id": "string", "date": "date32[day]", "event": "string",
        "round": "int64", "table": "int64", "sequence": "int64", "status": "string",
        "side_a": "string", "side_b": "string", "side_a_ids": "string", "side_b_ids": "string",
        "result_result": "string", "neutral": "bool", "source": "string",
        "recorded_at": "timestamp[us, tz=UTC]", "recorded_by": "string",
    },
    "changes": {
        "date": "date32[day]", "kind": "string", "entry_id": "string",
        "game_short_id": "string", "event": "string", "round": "int64", "player_id": "string",
        "player": "string", "side": "string", "opponents": "string", "k": "double",
        "p": "double", "s": "double", "before": "double", "change": "double", "after": "double",
        "games_after": "int64", "note": "string",
    },
    "players": {
        "player_id": "string", "player": "string", "rating": "double", "games": "int64",
        "last_played": "date32[day]", "rated_since": "date32[day]",
        "registered_at": "timestamp[us, tz=UTC]",
    },
}  # fmt: skip


@pytest.fixture
def cli(backend: Callable[[str], Cli]) -> Cli:
    cli = backend("export")
    make_sample(cli)
    # A team game and a game with attributes and a neutral venue (more column shapes).
    cli.ok("record", "Club", "--date", "2025-05-01", "--side", "Anne Martin;Paul Roy",
           "--side", "Éric Dupont;" + FORMULA, "--result", "a", "--neutral")  # fmt: skip
    return cli


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def as_csv_text(value: Any) -> str:
    """A typed Parquet value as the CSV export writes it (text neutralised)."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(neutralise(value))


def same(parquet_value: Any, csv_text: str) -> bool:
    """A Parquet cell equals the CSV cell, types aside."""
    if isinstance(parquet_value, float):
        return csv_text != "" and parquet_value == float(csv_text)  # exactly: repr round-trips
    if isinstance(parquet_value, datetime):
        return parquet_value == datetime.fromisoformat(csv_text)
    return as_csv_text(parquet_value) == csv_text


@pytest.mark.conformance  # on SQLite and PostgreSQL (server-side cursors)
@pytest.mark.parametrize("ladder", ["Club", "Battle Empire"])
def test_parquet_holds_the_csv_rows_typed(cli: Cli, tmp_path: Path, ladder: str) -> None:
    cli.ok("export", ladder, "-o", str(tmp_path / "csv"))
    said = cli.ok("export", ladder, "--format", "parquet", "-o", str(tmp_path / "pq"))
    assert sorted(p.name for p in (tmp_path / "pq").iterdir()) == [
        "changes.parquet", "games.parquet", "players.parquet",
    ]  # fmt: skip
    for name in TABLES:
        columns, rows = read_csv(tmp_path / "csv" / f"{name}.csv")
        table = pq.read_table(tmp_path / "pq" / f"{name}.parquet")
        assert table.column_names == columns
        assert table.num_rows == len(rows) > 0
        assert f"{len(rows)} {name}" in said
        for i, (got, want) in enumerate(zip(table.to_pylist(), rows, strict=True)):
            for column in columns:
                assert same(got[column], want[column]), (name, i, column, got[column], want)
        types = {field.name: str(field.type) for field in table.schema}
        assert {c: t for c, t in types.items() if c in TYPES[name]} == {
            c: t for c, t in TYPES[name].items() if c in types
        }
        assert set(TYPES[name]) - {"result_result"} <= set(types)


def test_column_types_nulls_and_exact_text(cli: Cli, tmp_path: Path) -> None:
    cli.ok("export", "Club", "--format", "parquet", "-o", str(tmp_path / "pq"))
    games = pq.read_table(tmp_path / "pq" / "games.parquet")
    changes = pq.read_table(tmp_path / "pq" / "changes.parquet")
    # Empty cells are nulls, in typed columns too; required columns are not nullable.
    assert games.column("event").null_count > 0 and games.column("round").null_count > 0
    assert not games.schema.field("game_id").nullable and games.schema.field("event").nullable
    assert changes.column("k").null_count > 0  # an adjustment and the season close have no K
    assert not changes.schema.field("after").nullable
    # Parquet is not a spreadsheet: text is exact, never given an apostrophe.
    players = pq.read_table(tmp_path / "pq" / "players.parquet").column("player").to_pylist()
    assert FORMULA in players and "'" + FORMULA not in players
    team = [g for g in games.to_pylist() if g["neutral"]]
    assert len(team) == 1 and team[0]["side_b"] == "Éric Dupont;" + FORMULA
    assert team[0]["date"] == date(2025, 5, 1)


def test_a_family_number_field_is_float64(cli: Cli, tmp_path: Path) -> None:
    """result_* columns follow the family's Result: the worked example's points are numbers."""
    cli.ok("ladder", "open", "Skirmish", "--family", "tests.example_family:PointsShareElo")
    cli.ok("record", "Skirmish", "--date", "2025-05-01", "--side", "Anne Martin",
           "--side", "Paul Roy", "--field", "points_a=15", "--field", "points_b=5")  # fmt: skip
    cli.ok("export", "Skirmish", "--format", "parquet", "-o", str(tmp_path / "pq"))
    games = pq.read_table(tmp_path / "pq" / "games.parquet")
    assert str(games.schema.field("result_points_a").type) == "double"
    assert games.column("result_points_a").to_pylist() == [15.0]


def test_batches_stream_as_row_groups(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet, "BATCH_ROWS", 4)
    cli.ok("export", "Club", "--format", "parquet", "-o", str(tmp_path / "pq"))
    changes = pq.ParquetFile(tmp_path / "pq" / "changes.parquet")
    n = changes.metadata.num_rows
    assert n > 8 and changes.metadata.num_row_groups == math.ceil(n / 4)


def test_duckdb_reads_it(cli: Cli, tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (not a dependency)")
    cli.ok("export", "Club", "--format", "parquet", "-o", str(tmp_path / "pq"))
    path = str(tmp_path / "pq" / "changes.parquet")
    [(n, total)] = duckdb.sql(f"SELECT COUNT(*), SUM(change) FROM '{path}'").fetchall()
    table = pq.read_table(path)
    assert n == table.num_rows
    assert math.isclose(total, sum(table.column("change").to_pylist()), abs_tol=1e-9)


def test_without_pyarrow_one_clear_line(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An import of a module set to None in sys.modules raises ImportError.
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    out = cli.fails("export", "Club", "--format", "parquet", "-o", str(tmp_path / "pq"))
    lines = out.strip().splitlines()
    assert len(lines) == 1, out
    assert "pip install 'ledger[parquet]'" in lines[0] and "pyarrow" in lines[0]
    assert not (tmp_path / "pq").exists()  # nothing written


def test_parquet_needs_a_directory(cli: Cli, tmp_path: Path) -> None:
    out = cli.fails("export", "Club", "--format", "parquet")
    assert "-o DIRECTORY" in out
    (tmp_path / "file").write_text("x")
    out = cli.fails("export", "Club", "--format", "parquet", "-o", str(tmp_path / "file"))
    assert "expected a directory" in out
