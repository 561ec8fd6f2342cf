"""How a SQLite ledger stores an import's append: the chain's sequence is
the links table's row id, a ledger made with the older chain table still
appends and verifies, and the append's own settings (page cache, where a
statement's journal is kept) are the connection's again afterwards."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ledger.write.application import LedgerApplication
from ledger.write.storage import resolve
from tests.conftest import Cli
from tests.test_import_csv import open_club, sheet

HEADER = "ladder,date,side_a,side_b,result"
#: The chain table as the first ledgers made it (links as hex text).
OLD_CHAIN = "CREATE TABLE ledger_chain (seq BIGINT PRIMARY KEY, link TEXT NOT NULL)"


def games(count: int) -> list[str]:
    return [f"Club,2025-03-{1 + n % 28:02d},P{n % 7},Q{n % 5},a" for n in range(count)]


def test_a_new_ledgers_chain_is_one_btree_keyed_by_its_sequence(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "new.db"))
    open_club(cli)
    cli.ok("import", str(sheet(tmp_path, "a.csv", HEADER, *games(30))))
    # An INTEGER PRIMARY KEY is the row id: no second index beside the table.
    indexes = cli.sql(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger_chain'"
    )
    assert indexes == []
    assert cli.sql("SELECT COUNT(*), MIN(seq), MAX(seq) FROM ledger_chain")[0] == (
        cli.event_count(),
        1,
        cli.event_count(),
    )
    assert cli.sql("SELECT COUNT(*) FROM ledger_chain WHERE seq != rowid")[0][0] == 0
    assert "OK" in cli.ok("verify")


def test_a_ledger_with_the_older_chain_table_still_imports_and_verifies(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "old.db"))
    open_club(cli)
    with sqlite3.connect(cli.db) as conn:  # the table as ledgers made before had it
        conn.execute("ALTER TABLE ledger_chain RENAME TO newer_chain")
        conn.execute(OLD_CHAIN)
        conn.execute("INSERT INTO ledger_chain SELECT seq, link FROM newer_chain")
        conn.execute("DROP TABLE newer_chain")
    assert "added 30 games" in cli.ok("import", str(sheet(tmp_path, "a.csv", HEADER, *games(30))))
    assert (
        "BIGINT PRIMARY KEY"
        in cli.sql("SELECT sql FROM sqlite_master WHERE name = 'ledger_chain'")[0][0]
    )
    assert cli.sql("SELECT COUNT(*) FROM ledger_chain")[0][0] == cli.event_count()
    assert "OK" in cli.ok("verify")


def test_an_append_leaves_the_connections_settings_as_they_were(tmp_path: Path) -> None:
    cli = Cli(str(tmp_path / "l.db"))
    open_club(cli)
    app = LedgerApplication(env=resolve(cli.db, None).app_env())

    def settings() -> tuple[int, int]:
        with app.recorder.datastore.transaction(commit=False) as c:
            c.execute("PRAGMA temp_store")
            temp_store = c.fetchone()[0]
            c.execute("PRAGMA cache_size")
            return int(temp_store), int(c.fetchone()[0])

    before = settings()
    from ledger.sheets.importer import import_sheet
    from ledger.write.commands import Commands

    report = import_sheet(Commands(app, "tester"), sheet(tmp_path, "a.csv", HEADER, *games(40)))
    assert report.report.added == 40
    assert settings() == before


def test_statement_journals_go_to_memory_unless_sqlite_refuses_it(tmp_path: Path) -> None:
    from ledger.kernel.sqlite_pragmas import changed

    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    conn.execute("BEGIN")
    with changed(conn.cursor(), temp_store=2) as set_here:
        assert "temp_store" in set_here
        assert conn.execute("PRAGMA temp_store").fetchone()[0] == 2
    conn.execute("COMMIT")
    # Once the connection's temporary database is open, SQLite refuses the
    # setting inside a transaction: the append goes on with it unchanged.
    conn.execute("PRAGMA temp_store = 2")
    conn.execute("CREATE TEMP TABLE scratch (a)")
    conn.execute("BEGIN")
    with changed(conn.cursor(), temp_store=0) as set_here:
        assert "temp_store" not in set_here
        assert conn.execute("PRAGMA temp_store").fetchone()[0] == 2
    conn.execute("COMMIT")
    conn.close()
