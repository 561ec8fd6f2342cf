"""The shortest path through the CLI: open, record, query."""

from tests.conftest import Cli


def test_record_then_standings(cli: Cli) -> None:
    cli.ok("ladder", "open", "Club", "--family", "elo", "--set", "k=32")
    cli.ok("player", "add", "Alice", "Bob")
    cli.ok("record", "Club", "--date", "2025-01-05", "--side", "Alice", "--side", "Bob",
           "--result", "a")  # fmt: skip
    rows = cli.json("standings", "Club")
    assert [(r["player"], r["rating"]) for r in rows] == [("Alice", 1516.0), ("Bob", 1484.0)]
