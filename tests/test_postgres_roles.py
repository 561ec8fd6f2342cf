"""The README's three PostgreSQL roles, set up by running the README's own SQL.

- the owner creates the ledger (its first command) and may upgrade it;
- a referee records and catches the views up, but can never change or
  delete a stored event or chain link, not even with plain SQL;
- a reader runs every query command and nothing else.

No command of a referee or reader runs DDL: while these tests run, an event
trigger refuses any DDL (even a temporary table, which PostgreSQL would
allow them) from the referee and reader roles, so a command that tried
would fail.

Roles are cluster-wide: each run of this module makes its own, named with a
random prefix, and drops them afterwards.
"""

from __future__ import annotations

import re
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PG_URL, Cli, require_postgres

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SECTION = "## Running the ledger for a federation (PostgreSQL)"


def readme_sql() -> tuple[str, str]:
    """The README's two SQL blocks: the superuser's, then the owner's."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    section = section[: section.index("\n## ", len(SECTION))]
    blocks = re.findall(r"```sql\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 2, f"the README's PostgreSQL section should show 2 SQL blocks: {blocks}"
    return blocks[0], blocks[1]


class Roles:
    """The README's roles under unique names, on a schema of their own."""

    def __init__(self) -> None:
        self.prefix = f"t{uuid.uuid4().hex[:10]}"
        self.schema = f"{self.prefix}_ledger"
        self.names = {kind: f"{self.prefix}_{kind}" for kind in ("owner", "referee", "reader")}

    def adapt(self, sql: str) -> str:
        """The README's SQL for these roles and this schema."""
        for kind, name in self.names.items():
            sql = sql.replace(f"ledger_{kind}", name)
        # The tests' database for the README's ``federation``.
        database = PG_URL.rsplit("/", 1)[1].split("?")[0]
        sql = sql.replace("DATABASE federation", f"DATABASE {database}")
        # The schema ``ledger`` (never the ledger_* tables or roles).
        return re.sub(r"\bledger\b(?=[.\s;])", self.schema, sql)

    def url(self, kind: str) -> str:
        return PG_URL.replace("postgres@", f"{self.names[kind]}@", 1)

    def cli(self, kind: str) -> Cli:
        return Cli(self.url(kind), self.schema)


#: Prefixed to SQL that grants or revokes on the database (one statement
#: string, one transaction): concurrent changes of the database's privileges
#: (this module's set-up in two test workers) fail with "tuple concurrently
#: updated".
ONE_AT_A_TIME = "SELECT pg_advisory_xact_lock(hashtext('ledger tests: database grants')); "


def superuser(sql: str, params: tuple[Any, ...] | None = None) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        cur = conn.execute(sql, params)
        return cur.fetchall() if cur.description else []


def as_role(roles: Roles, kind: str, sql: str) -> list[tuple[Any, ...]]:
    """Run SQL as one of the roles (plain SQL, as someone with a psql prompt)."""
    import psycopg

    with psycopg.connect(roles.url(kind), autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{roles.schema}"')
        cur = conn.execute(sql)
        return cur.fetchall() if cur.description else []


def no_ddl_guard(roles: Roles) -> tuple[str, str]:
    """SQL creating and dropping an event trigger that refuses DDL by the
    referee and reader roles (only: event triggers are database-wide)."""
    function = f"public.{roles.prefix}_refuse_ddl"
    trigger = f"{roles.prefix}_no_ddl"
    watched = ", ".join(f"'{roles.names[k]}'" for k in ("referee", "reader"))
    create = (
        f"CREATE FUNCTION {function}() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF current_user IN ({watched}) THEN RAISE EXCEPTION 'DDL by %: %', current_user, "
        f"tg_tag USING ERRCODE = 'insufficient_privilege'; END IF; END $$; "
        f"CREATE EVENT TRIGGER {trigger} ON ddl_command_start EXECUTE FUNCTION {function}()"
    )
    drop = f"DROP EVENT TRIGGER IF EXISTS {trigger}; DROP FUNCTION IF EXISTS {function}()"
    return create, drop


SHEET = """ladder,date,side_a,side_b,result
Club,2025-02-01,Ann,Bob,a
Club,2025-02-02,Cid,Dee,b
Club,2025-02-03,Ann,Cid,draw
"""


@pytest.fixture(scope="module")
def roles(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Roles]:
    """The README's roles, the owner's ledger with a few games recorded by
    the referee, and the no-DDL guard for the referee and reader."""
    require_postgres()
    roles = Roles()
    first, second = readme_sql()
    guard, unguard = no_ddl_guard(roles)
    try:
        superuser(ONE_AT_A_TIME + roles.adapt(first))
        roles.cli("owner").ok("project")
        import psycopg

        with psycopg.connect(roles.url("owner"), autocommit=True) as conn:
            conn.execute(roles.adapt(second))
        superuser(guard)
        referee = roles.cli("referee")
        referee.ok("ladder", "open", "Club", "--family", "elo")
        referee.ok("player", "add", "Ann", "Bob", "Cid", "Dee", "Eve")
        sheet = tmp_path_factory.mktemp("roles") / "club.csv"
        sheet.write_text(SHEET, encoding="utf-8")
        referee.ok("import", str(sheet))
        yield roles
    finally:
        superuser(unguard)
        superuser(f'DROP SCHEMA IF EXISTS "{roles.schema}" CASCADE')
        for name in roles.names.values():
            if superuser("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)):
                superuser(f"{ONE_AT_A_TIME}DROP OWNED BY {name} CASCADE; DROP ROLE {name}")


def clean_failure(cli: Cli, *args: str) -> str:
    """Run a command that must be refused in one line, without a traceback."""
    result = cli.run(*args)
    assert result.exit_code == 1, f"{args}: exit {result.exit_code}: {result.output}"
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result.output


def test_the_owner_created_everything_the_others_use(roles: Roles) -> None:
    owned = superuser(
        "SELECT c.relname, pg_get_userbyid(c.relowner) FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
        "AND c.relkind IN ('r', 'v')",
        (roles.schema,),
    )
    tables = {name for name, _ in owned}
    assert {"ledger_events", "ledger_chain", "ledger_names", "view_tracking"} <= tables
    assert {owner for _, owner in owned} == {roles.names["owner"]}


def test_a_referee_records_imports_corrects_and_voids(roles: Roles) -> None:
    referee = roles.cli("referee")
    before = referee.event_count()
    out = referee.ok("record", "Club", "--date", "2025-03-01", "--side", "Eve", "--side", "Ann",
                     "--result", "a")  # fmt: skip
    game = re.search(r"\b([0-9a-f]{8})\b", out)
    assert game is not None, out
    referee.ok("correct", game.group(1), "--result", "b", "--reason", "misread")
    referee.ok("void", game.group(1), "--reason", "never played")
    referee.ok("player", "rename", "Dee", "Dee Dee")
    assert referee.event_count() == before + 4
    standings = referee.json("standings", "Club")
    assert {row["player"] for row in standings} >= {"Ann", "Bob", "Cid", "Dee Dee"}
    assert "OK" in roles.cli("reader").ok("verify")


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_events SET topic = topic",
        "UPDATE ledger_events SET state = state WHERE notification_id = 1",
        "DELETE FROM ledger_events WHERE notification_id = 1",
        "TRUNCATE ledger_events",
        "UPDATE ledger_chain SET link = link",
        "DELETE FROM ledger_chain",
        "TRUNCATE ledger_chain",
    ],
)
@pytest.mark.parametrize("kind", ["referee", "owner"])
def test_nobody_changes_history_even_with_sql(roles: Roles, kind: str, sql: str) -> None:
    import psycopg

    before = superuser(
        f'SELECT (SELECT COUNT(*) FROM "{roles.schema}".ledger_events), '
        f"(SELECT string_agg(link, ',' ORDER BY seq) FROM \"{roles.schema}\".ledger_chain)"
    )
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
        as_role(roles, kind, sql)
    message = str(refused.value)
    if kind == "owner":
        # Only the trigger stops the owner (it has every privilege).
        assert "the ledger's history is append-only" in message
    else:
        assert "permission denied" in message or "append-only" in message
    after = superuser(
        f'SELECT (SELECT COUNT(*) FROM "{roles.schema}".ledger_events), '
        f"(SELECT string_agg(link, ',' ORDER BY seq) FROM \"{roles.schema}\".ledger_chain)"
    )
    assert after == before


def test_the_referee_lacks_the_privileges_too(roles: Roles) -> None:
    """Privileges, not only the trigger: a referee may not delete events or
    touch chain links, nor set the store's versions."""
    rows = superuser(
        "SELECT t, p, has_table_privilege(%s, %s || '.' || t, p) FROM "
        "unnest(ARRAY['ledger_events', 'ledger_chain', 'ledger_store_version', "
        "'ledger_index_version']) t, unnest(ARRAY['DELETE', 'TRUNCATE']) p",
        (roles.names["referee"], roles.schema),
    )
    assert [r for r in rows if r[2]] == []
    assert not superuser(
        "SELECT has_table_privilege(%s, %s, 'UPDATE')",
        (roles.names["referee"], f"{roles.schema}.ledger_chain"),
    )[0][0]


TODAY = datetime.now(UTC).date().isoformat()
QUERIES = [
    ("ladder", "list"),
    ("ladder", "show", "Club"),
    ("player", "list"),
    ("player", "duplicates"),
    ("standings", "Club"),
    ("standings", "Club", "--as-of", "2025-02-02"),
    ("standings", "Club", "--as-known-at", TODAY),
    ("history", "Club", "Ann"),
    ("audit",),
    ("audit", "--head"),
    ("verify",),
    ("diff", "Club", "--from-known-at", "2020-01-01"),
    ("whatif", "Club", "--set", "k=32"),
    ("teams", "Club", "Ann", "Bob", "Cid", "Dee", "--camps", "2"),
]


@pytest.mark.parametrize("args", QUERIES, ids=" ".join)
def test_a_reader_runs_every_query_command(roles: Roles, args: tuple[str, ...]) -> None:
    reader = roles.cli("reader")
    before = reader.event_count()
    result = reader.run(*args)
    assert result.exit_code == 0, f"{args}: {result.output}\n{result.exception!r}"
    assert "Notice" not in result.output  # the views were current
    assert reader.event_count() == before


def test_a_reader_explains_and_exports(roles: Roles, tmp_path: Path) -> None:
    reader = roles.cli("reader")
    audit = reader.json("audit")
    assert isinstance(audit, list)
    games = [row for row in audit if "Ann" in str(row) and "game" in str(row).lower()]
    game = re.search(r"\b[0-9a-f]{8}\b", str(games[0]))
    assert game is not None, games[0]
    assert "Ann" in reader.ok("explain", game.group(0))
    reader.ok("export", "Club", "--output", str(tmp_path / "club"))
    assert any((tmp_path / "club").iterdir())
    reader.ok("site", "build", str(tmp_path / "site"))
    assert (tmp_path / "site" / "index.html").exists()


def test_a_reader_cannot_record(roles: Roles) -> None:
    reader = roles.cli("reader")
    before = reader.event_count()
    message = clean_failure(
        reader, "record", "Club", "--date", "2025-04-01", "--side", "Ann", "--side", "Bob",
        "--result", "a",
    )  # fmt: skip
    assert message.strip() == (
        f"Error: role {roles.names['reader']!r} may not record in this ledger (permission "
        "denied for table ledger_events); nothing was recorded: use a referee's role"
    )
    assert reader.event_count() == before


@pytest.mark.parametrize("kind", ["reader", "referee"])
def test_only_the_owner_rebuilds(roles: Roles, kind: str) -> None:
    before = superuser(f'SELECT COUNT(*) FROM "{roles.schema}".view_standings')
    message = clean_failure(roles.cli(kind), "rebuild")
    name, owner = roles.names[kind], roles.names["owner"]
    assert message.startswith(f"Error: role {name!r} may not do this: ") or message.startswith(
        f"Error: only the schema's owner {owner!r} may rebuild the views"
    ), message
    assert superuser(f'SELECT COUNT(*) FROM "{roles.schema}".view_standings') == before


def view_rights(roles: Roles) -> list[tuple[Any, ...]]:
    """Every view table's owner and privileges (grantee, privilege, grantable)."""
    return superuser(
        "SELECT c.relname, pg_get_userbyid(c.relowner), pg_get_userbyid(a.grantee), "
        "a.privilege_type, a.is_grantable FROM pg_class c, aclexplode(c.relacl) a "
        "WHERE c.relnamespace = to_regnamespace(%s) AND c.relkind = 'r' "
        "AND starts_with(c.relname, 'view_') ORDER BY 1, 3, 4",
        (roles.schema,),
    )


def view_tables(roles: Roles) -> list[tuple[Any, ...]]:
    """Every view table's name and oid (a new table has a new oid)."""
    return superuser(
        "SELECT relname, oid FROM pg_class WHERE relnamespace = to_regnamespace(%s) "
        "AND relkind = 'r' AND starts_with(relname, 'view_') ORDER BY 1",
        (roles.schema,),
    )


def test_the_owners_rebuild_keeps_every_roles_rights(roles: Roles) -> None:
    """The owner's rebuild builds aside and swaps (the README grants it
    CREATE on the database), as a superuser's does; without that grant, it
    rebuilds in place and says so. Either way the new tables carry the old
    ones' owner and privileges: the referee records and the reader reads on."""
    rights, tables = view_rights(roles), view_tables(roles)
    assert {row[2] for row in rights} >= {roles.names["referee"], roles.names["reader"]}
    result = roles.cli("owner").run("rebuild")
    assert result.exit_code == 0 and "Warning" not in result.output, result.output
    assert view_rights(roles) == rights
    swapped = view_tables(roles)
    assert [name for name, _ in swapped] == [name for name, _ in tables]
    assert not {oid for _, oid in swapped} & {oid for _, oid in tables}
    assert superuser("SELECT 1 FROM pg_namespace WHERE starts_with(nspname, %s)",
                     (f"{roles.schema}__rebuild_",)) == []  # fmt: skip
    # A superuser's rebuild too leaves the tables the owner's.
    Cli(PG_URL, roles.schema).ok("rebuild")
    assert view_rights(roles) == rights
    database = PG_URL.rsplit("/", 1)[1].split("?")[0]
    superuser(f"{ONE_AT_A_TIME}REVOKE CREATE ON DATABASE {database} FROM {roles.names['owner']}")
    try:
        result = roles.cli("owner").run("rebuild")
    finally:
        superuser(f"{ONE_AT_A_TIME}GRANT CREATE ON DATABASE {database} TO {roles.names['owner']}")
    assert result.exit_code == 0, result.output
    assert "Warning: the views were rebuilt in place, so other commands waited" in result.output
    assert f"GRANT CREATE ON DATABASE {database} TO {roles.names['owner']}" in result.output
    assert view_rights(roles) == rights
    roles.cli("referee").ok("record", "Club", "--date", "2025-06-01", "--side", "Ann",
                            "--side", "Eve", "--result", "b")  # fmt: skip
    assert "Eve" in {row["player"] for row in roles.cli("reader").json("standings", "Club")}
    assert "OK" in roles.cli("reader").ok("verify")


def _append_without_catch_up_main() -> None:
    """``python -c ... URL SCHEMA``: a referee's append that stops before the
    views are caught up (a command interrupted between the two)."""
    from ledger.write.application import LedgerApplication
    from ledger.write.commands import Commands
    from ledger.write.storage import resolve

    app = LedgerApplication(env=resolve(sys.argv[1], sys.argv[2]).app_env())
    Commands(app, "referee").add_players(["Late Comer"])
    app.close()


def test_a_reader_reads_views_left_behind_with_a_notice(roles: Roles) -> None:
    import subprocess

    code = "from tests.test_postgres_roles import _append_without_catch_up_main as m; m()"
    subprocess.run(
        [sys.executable, "-c", code, roles.url("referee"), roles.schema],
        cwd=ROOT, check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    reader = roles.cli("reader")
    result = reader.run("player", "list")
    assert result.exit_code == 0, result.output
    assert (
        "Notice: the views are 1 event behind the event log and this role may only read them: "
        "shown as they stand (a referee's next command, or 'ledger project', brings them up "
        "to date)."
    ) in result.output
    assert "Late Comer" not in result.output
    # Nor can the reader bring them up to date.
    message = clean_failure(reader, "project")
    assert f"Error: role {roles.names['reader']!r} may not do this: permission denied" in message
    # A referee's next command brings them up to date; the notice goes.
    roles.cli("referee").ok("project")
    result = reader.run("player", "list")
    assert "Late Comer" in result.output and "Notice" not in result.output


def test_the_no_ddl_guard_is_live(roles: Roles) -> None:
    """The guard that makes every referee and reader command above prove it
    ran no DDL: even a temporary table is refused."""
    import psycopg

    for kind in ("referee", "reader"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="DDL by"):
            as_role(roles, kind, "CREATE TEMP TABLE scratch (a int)")


def test_an_old_store_is_upgraded_by_the_owner_alone(roles: Roles) -> None:
    store = f'"{roles.schema}".ledger_store_version'
    (version,) = superuser(f"SELECT version FROM {store}")[0]
    # A store from before the version row (and before the triggers).
    superuser(
        f"DELETE FROM {store}; "
        f'DROP TRIGGER ledger_append_only ON "{roles.schema}".ledger_events; '
        f'DROP TRIGGER ledger_append_only ON "{roles.schema}".ledger_chain'
    )
    owner = roles.names["owner"]
    try:
        for kind in ("referee", "reader"):
            message = clean_failure(roles.cli(kind), "standings", "Club")
            assert message.strip() == (
                f"Error: the ledger in schema {roles.schema!r} is of an older version and only "
                f"its owner {owner!r} may set it up (this is {roles.names[kind]!r}): run 'ledger "
                f"project' once as {owner!r}"
            )
    finally:
        roles.cli("owner").ok("project")
    assert superuser(f"SELECT version FROM {store}") == [(version,)]
    roles.cli("referee").ok("standings", "Club")
    triggers = superuser(
        "SELECT tgrelid::regclass::text FROM pg_trigger WHERE tgname = 'ledger_append_only' "
        "AND tgrelid::regclass::text LIKE %s ORDER BY 1",
        (f"{roles.schema}.%",),
    )
    assert triggers == [(f"{roles.schema}.ledger_chain",), (f"{roles.schema}.ledger_events",)]


def test_views_of_another_version_are_recreated_by_the_owner_alone(roles: Roles) -> None:
    views = f'"{roles.schema}".view_version'
    superuser(f"UPDATE {views} SET version = version - 1")
    owner = roles.names["owner"]
    for kind in ("referee", "reader"):
        message = clean_failure(roles.cli(kind), "standings", "Club")
        assert message.strip() == (
            "Error: the views are missing or of another version: only the schema's owner "
            f"{owner!r} may create them; run 'ledger project' as {owner!r}"
        )
    roles.cli("owner").ok("project")
    # The new view tables carry the README's default privileges.
    standings = roles.cli("reader").json("standings", "Club")
    assert isinstance(standings, list) and standings
    roles.cli("referee").ok("record", "Club", "--date", "2025-05-01", "--side", "Bob",
                            "--side", "Cid", "--result", "draw")  # fmt: skip
    assert "OK" in roles.cli("reader").ok("verify")


def test_a_referee_cannot_set_up_a_missing_ledger(roles: Roles) -> None:
    missing = f"{roles.prefix}_missing"
    referee = Cli(roles.url("referee"), missing)
    # A query creates nothing, whoever runs it (issue 26).
    message = clean_failure(referee, "standings", "Club")
    assert message.strip() == f"Error: no ledger in schema {missing!r} at {roles.url('referee')}"
    message = clean_failure(referee, "ladder", "open", "Club", "--family", "elo")
    assert message.strip() == (
        f"Error: the ledger in schema {missing!r} is not set up and role "
        f"{roles.names['referee']!r} may not create the schema: a superuser creates it "
        f"(CREATE SCHEMA {missing} AUTHORIZATION <owner>), then its owner runs 'ledger "
        "project' once (see the README's PostgreSQL roles)"
    )
    assert superuser("SELECT to_regnamespace(%s)", (missing,)) == [(None,)]
