"""How chain links are stored: a new ledger keeps each as the digest's 32
bytes (a BLOB on SQLite, BYTEA on PostgreSQL), a ledger made before keeps its
hex text, and either reads, verifies, grows and migrates with the same heads:
a link is still the hex digest of the previous link's hex text and the event.
"""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger.kernel import chain
from tests.conftest import PG_URL, Cli, drop_schema, require_postgres
from tests.test_import_csv import open_club, sheet
from tests.test_verify import replace_in_state, verify

HEADER = "ladder,date,side_a,side_b,result"
#: The chain table as ledgers made before stored it (links as hex text).
OLD_CHAIN = "CREATE TABLE ledger_chain (seq BIGINT PRIMARY KEY, link TEXT NOT NULL)"


def games(count: int, first: int = 0) -> list[str]:
    return [
        f"Club,2025-03-{1 + n % 28:02d},P{n % 7},Q{n % 5},a" for n in range(first, first + count)
    ]


def imported(cli: Cli, tmp_path: Path, name: str, count: int, first: int = 0) -> None:
    out = cli.ok("import", str(sheet(tmp_path, name, HEADER, *games(count, first))))
    assert f"added {count} games" in out


def link_types(cli: Cli) -> set[str]:
    """SQLite's storage classes of the links (``blob``, ``text``)."""
    return {row[0] for row in cli.sql("SELECT DISTINCT typeof(link) FROM ledger_chain")}


def recomputed(cli: Cli) -> list[tuple[int, str]]:
    """(sequence, link) of every stored event of a SQLite ledger, hashed here
    as links always were: the previous link's 64 hex digits, then the topic,
    the id as a UUID's text and the version, each ended by a NUL, then the
    state. Independent of ``chain``, so a change of what a link is shows."""
    previous, out = "0" * 64, []
    rows = cli.sql(
        "SELECT rowid, originator_id, originator_version, topic, state "
        "FROM stored_events ORDER BY rowid"
    )
    for seq, uid, version, topic, state in rows:
        h = hashlib.sha256(f"{previous}\x00{topic}\x00{uuid.UUID(uid)}\x00{version}\x00".encode())
        h.update(state)
        previous = h.hexdigest()
        out.append((seq, previous))
    return out


def stored_as_hex(cli: Cli) -> list[tuple[int, str]]:
    """(sequence, link as hex digits) as stored, whatever each one's form."""
    return [
        (seq, link.hex() if isinstance(link, bytes) else link)
        for seq, link in cli.sql("SELECT seq, link FROM ledger_chain ORDER BY seq")
    ]


def values(links: list[tuple[int, str]]) -> list[str]:
    """The links alone (sequence numbers are not kept across stores)."""
    return [link for _, link in links]


def to_old_shape(cli: Cli) -> None:
    """Give a SQLite ledger the chain table ledgers made before had: TEXT
    links, each the 64 lower-case hex digits."""
    with sqlite3.connect(cli.db) as conn:
        conn.execute("ALTER TABLE ledger_chain RENAME TO newer_chain")
        conn.execute(OLD_CHAIN)
        conn.execute("INSERT INTO ledger_chain SELECT seq, lower(hex(link)) FROM newer_chain")
        conn.execute("DROP TABLE newer_chain")


# -- SQLite -----------------------------------------------------------------------------
def test_a_new_sqlite_ledger_stores_each_link_as_32_bytes(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "new.db"))
    open_club(cli)
    imported(cli, tmp_path, "a.csv", 30)
    assert "link BLOB" in cli.sql("SELECT sql FROM sqlite_master WHERE name = 'ledger_chain'")[0][0]
    assert cli.sql(
        "SELECT typeof(link), length(link), COUNT(*) FROM ledger_chain GROUP BY 1, 2"
    ) == [("blob", 32, cli.event_count())]
    assert "OK" in cli.ok("verify")


def test_a_links_value_is_unchanged_only_its_storage_is(tmp_path: Path) -> None:
    """Each stored link, shown as hex, is the link computed the way it always
    was (from the previous link's hex text); the head printed is the last."""
    cli = Cli(str(tmp_path / "new.db"))
    open_club(cli)
    imported(cli, tmp_path, "a.csv", 20)
    cli.ok("player", "add", "Zed")
    expected = recomputed(cli)
    assert stored_as_hex(cli) == expected
    head = expected[-1][1]
    assert cli.ok("audit", "--head").strip() == head
    assert cli.json("audit", "--head") == {"events": expected[-1][0], "head": head}
    code, report = verify(cli, "--head", head)
    assert code == 0, report["problems"]
    assert report["head"] == head


def test_an_old_sqlite_ledger_keeps_its_text_links_and_takes_new_ones(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "old.db"))
    open_club(cli)
    imported(cli, tmp_path, "a.csv", 10)
    to_old_shape(cli)
    assert link_types(cli) == {"text"}
    old_head = cli.ok("audit", "--head").strip()
    assert old_head == recomputed(cli)[-1][1]
    assert "OK" in cli.ok("verify", "--head", old_head)

    imported(cli, tmp_path, "b.csv", 10, first=10)
    cli.ok("player", "add", "Zed")
    # The column stays TEXT and holds both forms: the old links as text,
    # the new ones as blobs; the chain runs on across them.
    assert "link TEXT" in cli.sql("SELECT sql FROM sqlite_master WHERE name = 'ledger_chain'")[0][0]
    assert link_types(cli) == {"text", "blob"}
    assert stored_as_hex(cli) == recomputed(cli)
    head = cli.ok("audit", "--head").strip()
    assert head == recomputed(cli)[-1][1] != old_head
    code, report = verify(cli, "--head", old_head)
    assert code == 0, report["problems"]
    assert report["head"] == head


@pytest.mark.parametrize("shape", ["bytes", "text", "mixed"])
def test_a_changed_event_is_found_whatever_the_links_form(tmp_path: Path, shape: str) -> None:
    cli = Cli(str(tmp_path / "l.db"))
    open_club(cli)
    imported(cli, tmp_path, "a.csv", 5)
    if shape != "bytes":
        to_old_shape(cli)
    if shape == "mixed":
        imported(cli, tmp_path, "b.csv", 5, first=5)
    assert "OK" in cli.ok("verify")
    # The last game's result, changed in place by SQL.
    seq = cli.sql("SELECT MAX(rowid) FROM stored_events WHERE topic = 'ledger:GameRecorded'")[0][0]
    replace_in_state(cli, seq, '"result":"a"', '"result":"b"')
    code, report = verify(cli)
    assert code != 0
    chain_problems = [p for p in report["problems"] if p.startswith("event ")]
    assert len(chain_problems) == 1, chain_problems
    assert chain_problems[0].startswith(f"event {seq} (ledger:GameRecorded")
    assert "changed after it was recorded" in chain_problems[0]


def test_an_old_sqlite_ledger_migrates_to_a_new_one_with_the_same_head(tmp_path: Path) -> None:
    source = Cli(str(tmp_path / "old.db"))
    open_club(source)
    imported(source, tmp_path, "a.csv", 12)
    to_old_shape(source)
    head = source.ok("audit", "--head").strip()
    target = Cli(str(tmp_path / "new.db"))
    out = source.ok("migrate", "--from", source.db, "--to", target.db)
    assert f"head {head}" in out
    assert link_types(target) == {"blob"}
    assert target.ok("audit", "--head").strip() == head
    assert values(stored_as_hex(target)) == values(stored_as_hex(source))
    assert "OK" in target.ok("verify", "--head", head)


def test_the_two_forms_turn_into_each_other() -> None:
    link = hashlib.sha256(b"x").hexdigest()
    assert chain.stored(link) == hashlib.sha256(b"x").digest()
    assert chain.hex_link(chain.stored(link)) == link
    assert chain.hex_link(memoryview(chain.stored(link))) == link
    assert chain.hex_link(link) == link


# -- PostgreSQL -------------------------------------------------------------------------
@pytest.fixture
def pg() -> Iterator[Cli]:
    """A PostgreSQL ledger in a throwaway schema, dropped afterwards."""
    require_postgres()
    schema = f"test_chain_{uuid.uuid4().hex[:12]}"
    yield Cli(PG_URL, schema)
    drop_schema(schema)


def pg_link_type(cli: Cli) -> str:
    return cli.sql(
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = 'ledger_chain'::regclass AND attname = 'link'"
    )[0][0]


def pg_links(cli: Cli) -> list[tuple[int, str]]:
    """(sequence, link as hex digits), whatever the column's type."""
    hexed = "encode(link, 'hex')" if pg_link_type(cli) == "bytea" else "link"
    return [tuple(r) for r in cli.sql(f"SELECT seq, {hexed} FROM ledger_chain ORDER BY seq")]


def test_a_new_postgres_ledger_stores_each_link_as_32_bytes(pg: Cli, tmp_path: Path) -> None:
    open_club(pg)
    imported(pg, tmp_path, "a.csv", 20)
    pg.ok("player", "add", "Zed")
    assert pg_link_type(pg) == "bytea"
    assert pg.sql("SELECT octet_length(link), COUNT(*) FROM ledger_chain GROUP BY 1") == [
        (32, pg.event_count())
    ]
    head = pg.ok("audit", "--head").strip()
    assert head == pg_links(pg)[-1][1]
    code, report = verify(pg, "--head", head)
    assert code == 0, report["problems"]


def test_an_old_postgres_ledger_keeps_text_links(pg: Cli, tmp_path: Path) -> None:
    """A TEXT column would keep bytea as its escaped text (``\\x…``): the
    recorder finds the column's type and writes the hex digits into it."""
    open_club(pg)
    imported(pg, tmp_path, "a.csv", 10)
    # The table as ledgers made before had it (the append-only trigger kept).
    pg.sql("ALTER TABLE ledger_chain ALTER COLUMN link TYPE TEXT USING encode(link, 'hex')")
    assert pg_link_type(pg) == "text"
    old_head = pg.ok("audit", "--head").strip()
    assert old_head == pg_links(pg)[-1][1]
    assert "OK" in pg.ok("verify", "--head", old_head)

    imported(pg, tmp_path, "b.csv", 10, first=10)
    pg.ok("player", "add", "Zed")
    assert pg_link_type(pg) == "text"
    assert pg.sql("SELECT COUNT(*) FROM ledger_chain WHERE link !~ '^[0-9a-f]{64}$'") == [(0,)]
    assert pg.sql("SELECT COUNT(*) FROM ledger_chain")[0][0] == pg.event_count()
    head = pg.ok("audit", "--head").strip()
    assert head == pg_links(pg)[-1][1] != old_head
    code, report = verify(pg, "--head", old_head)
    assert code == 0, report["problems"]


def test_migrations_between_the_forms_keep_the_head(pg: Cli, tmp_path: Path) -> None:
    """An old SQLite ledger (text) to PostgreSQL (bytes), then that one back
    to a new SQLite ledger (bytes): one head throughout."""
    source = Cli(str(tmp_path / "old.db"))
    open_club(source)
    imported(source, tmp_path, "a.csv", 12)
    to_old_shape(source)
    head = source.ok("audit", "--head").strip()
    source.ok("migrate", "--from", source.db, "--to", PG_URL, "--to-schema", pg.schema)
    assert pg_link_type(pg) == "bytea"
    assert values(pg_links(pg)) == values(stored_as_hex(source))
    assert pg.ok("audit", "--head").strip() == head

    back = Cli(str(tmp_path / "back.db"))
    pg.ok("migrate", "--from", PG_URL, "--to", back.db)
    assert link_types(back) == {"blob"}
    assert values(stored_as_hex(back)) == values(stored_as_hex(source))
    assert "OK" in back.ok("verify", "--head", head)
