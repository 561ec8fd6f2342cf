"""A PostgreSQL rebuild that nobody waits for: built aside, swapped in.

A rebuild that dropped and refilled the view tables in place would hold
their ACCESS EXCLUSIVE locks until it committed, and every ``standings``
and every ``record`` (which catches the views up) would wait for the whole
rebuild. Instead the rebuild's connection opens one transaction, creates a
fresh side schema (``<schema>__rebuild_<random>``) and points its
``search_path`` there alone, so the views' SQL, unchanged, fills new tables
there while readers and referees use the old ones, and catches them up
with what was recorded meanwhile. Then, still in that transaction,
``Aside.swap_in`` takes the catch-up lock, drops the old tables, moves the
new ones (indexes and constraints follow) into the ledger's schema with the
old tables' owner and privileges, and the caller applies the few events
recorded since; the side schema is dropped and the transaction commits.
Others wait only for that swap.

All of it is one transaction: a failed or killed rebuild rolls back, and
with it the side schema, which no other session ever saw; the old views
stay as they were.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import msgspec

from projections.db import Database
from projections.views import schema

#: What the side schema's name adds to the ledger's schema name (whose first
#: 40 bytes it keeps: PostgreSQL names have at most 63).
SUFFIX = "__rebuild_"


def builds_aside(db: Database) -> bool:
    """Whether a rebuild of ``db`` may build aside and swap: PostgreSQL,
    and a role that may create a schema in the database."""
    if db.kind != "postgres":
        return False
    row = db.execute("SELECT has_database_privilege(current_database(), 'CREATE')").fetchone()
    return bool(row[0])


def why_in_place(db: Database) -> str:
    """Why a PostgreSQL rebuild ran in place (every other command waited for
    it), and the grant that lets the next one build aside."""
    user, database = db.execute("SELECT current_user, current_database()").fetchone()
    return (
        f"the views were rebuilt in place, so other commands waited for the rebuild: role "
        f"{user!r} may not create a schema to build them aside (GRANT CREATE ON DATABASE "
        f"{database} TO {user} lets a rebuild build aside, then swap)"
    )


class Aside:
    """A rebuild under way in a side schema of ``main`` (see ``aside``)."""

    def __init__(self, db: Database, main: str, side: str) -> None:
        self.db = db
        self.main = main
        self.side = side
        self.swapped = False

    def swap_in(self) -> None:
        """Put the tables built aside in the place of the ledger's views,
        under the catch-up lock (held until the rebuild's transaction ends,
        so the caller then applies, still under it, what was recorded while
        the rebuild ran): the old tables' owners and privileges carried over."""
        db = self.db
        db.execute(f"SET search_path TO {_quoted(self.main)}")
        db.lock_catch_ups()  # type: ignore[attr-defined]
        rights = _rights(db, self.main)
        for name in (*schema.VIEWS, *schema.OLD_TABLES, *schema.TABLES):
            _drop(db, self.main, name)
        built = db.execute(
            "SELECT relname FROM pg_class WHERE relnamespace = to_regnamespace(?) "
            "AND relkind = 'r' AND relname = ANY(?)",
            (self.side, list(schema.TABLES)),
        ).fetchall()
        for (name,) in built:
            db.execute(f"ALTER TABLE {_quoted(self.side)}.{name} SET SCHEMA {_quoted(self.main)}")
            _grant(db, self.main, name, rights[name])
        self.swapped = True


@contextmanager
def aside(db: Database) -> Iterator[Aside]:
    """One transaction in which the block builds the views in a fresh side
    schema (``db``'s search path points there alone), then calls
    ``Aside.swap_in`` and applies the events recorded meanwhile. Committed
    when the block ends (the side schema dropped first); rolled back, side
    schema and all, if it raises."""
    main = db.execute("SELECT current_schema()").fetchone()[0]
    kept = main.encode()[:40].decode(errors="ignore")
    import secrets  # (here: a catch-up on PostgreSQL builds nothing aside)

    side = f"{kept}{SUFFIX}{secrets.token_hex(4)}"
    db.execute("BEGIN")
    try:
        db.execute(f"CREATE SCHEMA {_quoted(side)}")
        # The side schema alone: an unqualified view_* name must never reach
        # the ledger's own tables while they are being built (the rebuild
        # reads the events through the event store's own connection).
        db.execute(f"SET search_path TO {_quoted(side)}")
        built = Aside(db, main, side)
        yield built
        if not built.swapped:
            raise RuntimeError("a rebuild built aside ended without swapping its tables in")
        # What stays behind (the empty chain table ``schema.create`` makes).
        db.execute(f"DROP SCHEMA {_quoted(side)} CASCADE")
    except BaseException:
        db.execute("ROLLBACK")  # the search path set in it goes back too
        raise
    db.execute("COMMIT")


class Grant(msgspec.Struct, frozen=True):
    """One privilege on a table: ``grantee`` a role's name or ``PUBLIC``."""

    grantee: str
    privilege: str
    grantable: bool


class Rights(msgspec.Struct):
    """Who owns a view table and who else may do what with it."""

    owner: str
    grants: list[Grant]


def _rights(db: Database, main: str) -> dict[str, Rights]:
    """The owner and privileges of each view table of ``main`` now: the new
    table of that name gets them. A table new in this version gets what the
    schema's default privileges give a table this role creates."""
    owners = dict(
        db.execute(
            "SELECT relname, pg_get_userbyid(relowner) FROM pg_class "
            "WHERE relnamespace = to_regnamespace(?) AND relkind = 'r' AND relname = ANY(?)",
            (main, list(schema.TABLES)),
        ).fetchall()
    )
    (user,) = db.execute("SELECT current_user").fetchone()
    rights = {}
    for name in schema.TABLES:
        owner = owners.get(name, user)
        granted = db.execute(
            "SELECT COALESCE(pg_get_userbyid(NULLIF(a.grantee, 0)), 'PUBLIC'), "
            "a.privilege_type, a.is_grantable FROM pg_class c, aclexplode(c.relacl) a "
            "WHERE c.relnamespace = to_regnamespace(?) AND c.relname = ? AND c.relkind = 'r' "
            "UNION SELECT COALESCE(pg_get_userbyid(NULLIF(a.grantee, 0)), 'PUBLIC'), "
            "a.privilege_type, a.is_grantable FROM pg_default_acl d, aclexplode(d.defaclacl) a "
            "WHERE d.defaclnamespace = to_regnamespace(?) AND d.defaclobjtype = 'r' "
            "AND pg_get_userbyid(d.defaclrole) = ?",
            (main, name, main, owner),
        ).fetchall()
        grants = [Grant(grantee, privilege, bool(option)) for grantee, privilege, option in granted]
        rights[name] = Rights(owner, [g for g in grants if g.grantee != owner])
    return rights


def _grant(db: Database, main: str, name: str, rights: Rights) -> None:
    """Give the table ``main.name`` just moved in the owner and privileges
    its predecessor had (``_rights``)."""
    table = f"{_quoted(main)}.{name}"
    (current,) = db.execute(
        "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = to_regclass(?)", (table,)
    ).fetchone()
    if current != rights.owner:  # (a superuser rebuilt a table its owner had made)
        db.execute(f"ALTER TABLE {table} OWNER TO {_quoted(rights.owner)}")
    for grant in rights.grants:
        to = "PUBLIC" if grant.grantee == "PUBLIC" else _quoted(grant.grantee)
        option = " WITH GRANT OPTION" if grant.grantable else ""
        db.execute(f"GRANT {grant.privilege} ON {table} TO {to}{option}")


def _drop(db: Database, main: str, name: str) -> None:
    """Drop the view table or SQL view ``main.name`` of any version, if any."""
    row = db.execute(
        "SELECT relkind FROM pg_class WHERE relnamespace = to_regnamespace(?) AND relname = ?",
        (main, name),
    ).fetchone()
    kind = {"v": "VIEW", "r": "TABLE"}.get(row[0]) if row else None
    if kind is not None:
        db.execute(f"DROP {kind} {_quoted(main)}.{name}")


def _quoted(name: str) -> str:
    """``name`` as a PostgreSQL identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'
