"""Who may use a catalog on a server. Its owner (the role that owns its tables: the one that
created it) adds and removes member roles; nothing here needs a superuser.

A member reads every paper, tag, title, note and saved search, and adds and changes them
(imports, tags, titles, notes, saved searches, the ranked lists searches keep); its status
and ratings are its own. Row-level security (migration 0014) keeps its marks from the others
and theirs from it, and lets it edit and delete only the notes it signed. A member never
deletes a paper (that would take everyone's marks and notes on it along) and never changes the
schema or the catalog's settings. Tables that later revisions make reach members through the
owner's default privileges.
"""

from __future__ import annotations

import re

from psycopg import sql

from catalog.errors import CatalogError
from catalog.results import Members

TABLES = "SELECT, INSERT, UPDATE, DELETE"
SEQUENCES = "USAGE, SELECT, UPDATE"  # an import moves the id sequences past the rows it copied
MEMBERS_MAY_NOT = (("INSERT, UPDATE, DELETE", ("alembic_version", "catalog_setting")),
                   ("DELETE", ("paper",)))
# The roles holding privileges on `paper` other than its owner: the members.
_MEMBERS = ("SELECT DISTINCT r.rolname::text FROM pg_class c CROSS JOIN aclexplode(c.relacl) AS a"
            " JOIN pg_roles r ON r.oid = a.grantee WHERE c.oid = 'paper'::regclass AND a.grantee <> c.relowner"
            " ORDER BY 1")


class Sharing:
    """The members of one catalog on a server (PostgresStore.sharing)."""

    def __init__(self, store):
        self.store = store

    def members(self) -> Members:
        with self.store.read() as tx:
            return Members(owner_of(tx.conn), tuple(tx.conn.execute(_MEMBERS).scalars()), self.store.user)

    def add(self, role: str) -> bool:
        """Make `role` a member; False when it was one already."""
        with self.store.write(catch_up=False) as tx:
            owner = self._acting_owner(tx.conn, role, "adds")
            if role in tx.conn.execute(_MEMBERS).scalars():
                return False
            _grant(tx.conn, owner, role)
            return True

    def remove(self, role: str) -> bool:
        """Take `role`'s privileges away (its marks and notes stay); False when it had none."""
        with self.store.write(catch_up=False) as tx:
            owner = self._acting_owner(tx.conn, role, "removes")
            if role not in tx.conn.execute(_MEMBERS).scalars():
                return False
            _revoke(tx.conn, owner, role)
            return True

    def _acting_owner(self, conn, role: str, verb: str) -> str:
        """The catalog's owner, when this session may act for it and `role` can be a member."""
        owner = owner_of(conn)
        if not may_act_as(conn, owner):
            raise CatalogError(f"only the catalog's owner ({owner}) {verb} members; you are {self.store.user}")
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = ?", (role,)).first() is None:
            raise CatalogError(f"there is no role {role!r} on this server: a database administrator makes it first "
                               f"(CREATE ROLE {shown_role(role)} LOGIN PASSWORD '...'; docs/sharing.md)")
        if role == owner:
            raise CatalogError(f"{role} owns this catalog: it needs no membership")
        return owner


def _grant(conn, owner: str, role: str) -> None:
    who, schema, owner_name = sql.Identifier(role), sql.Identifier(_schema(conn)), sql.Identifier(owner)
    run = conn.raw.execute
    run(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(_database(conn)), who))
    run(sql.SQL(f"GRANT {TABLES} ON ALL TABLES IN SCHEMA {{}} TO {{}}").format(schema, who))
    for privileges, tables in MEMBERS_MAY_NOT:
        run(sql.SQL(f"REVOKE {privileges} ON {{}} FROM {{}}").format(
            sql.SQL(", ").join(map(sql.Identifier, tables)), who))
    run(sql.SQL(f"GRANT {SEQUENCES} ON ALL SEQUENCES IN SCHEMA {{}} TO {{}}").format(schema, who))
    for kind, privileges in (("TABLES", TABLES), ("SEQUENCES", SEQUENCES)):
        run(sql.SQL(f"ALTER DEFAULT PRIVILEGES FOR ROLE {{}} IN SCHEMA {{}} GRANT {privileges} ON {kind} TO {{}}")
            .format(owner_name, schema, who))


def _revoke(conn, owner: str, role: str) -> None:
    who, schema, owner_name = sql.Identifier(role), sql.Identifier(_schema(conn)), sql.Identifier(owner)
    run = conn.raw.execute
    for kind in ("TABLES", "SEQUENCES"):
        run(sql.SQL(f"REVOKE ALL ON ALL {kind} IN SCHEMA {{}} FROM {{}}").format(schema, who))
        run(sql.SQL(f"ALTER DEFAULT PRIVILEGES FOR ROLE {{}} IN SCHEMA {{}} REVOKE ALL ON {kind} FROM {{}}")
            .format(owner_name, schema, who))
    run(sql.SQL("REVOKE CONNECT ON DATABASE {} FROM {}").format(sql.Identifier(_database(conn)), who))


def _schema(conn) -> str:
    return conn.execute("SELECT current_schema()::text").scalar()


def _database(conn) -> str:
    return conn.execute("SELECT current_database()::text").scalar()


def owner_of(conn) -> str | None:
    """The role that owns the catalog's tables (None before there are any); anyone may ask."""
    return conn.execute("SELECT tableowner::text FROM pg_tables WHERE schemaname = current_schema()"
                        " AND tablename = 'paper'").scalar()


def may_act_as(conn, owner: str | None) -> bool:
    """Whether this session's role is `owner` or may act as it (a superuser, a member of it)."""
    return owner is None or bool(conn.execute("SELECT pg_has_role(current_user, ?::text, 'MEMBER')",
                                              (owner,)).scalar())


def shown_role(name: str) -> str:
    """A role name as SQL would need it typed: plain when it is a lower-case identifier."""
    return name if re.fullmatch(r"[a-z_][a-z0-9_$]*", name) else sql.Identifier(name).as_string(None)
