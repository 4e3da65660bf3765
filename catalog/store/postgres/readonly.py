"""`catalog sql` on a server: one query, in a read-only transaction it cannot leave, never as a
role that can reach the server's files or programs.

Each layer, and what it keeps out:

- The role. From inside a read-only transaction a superuser can still run programs and read
  or write files on the server (`COPY ... TO PROGRAM`, lo_import, pg_read_file), and so can
  members of pg_execute_server_program, pg_read_server_files and pg_write_server_files:
  such a role is refused before anything runs. Other roles may not call the server-file
  functions at all (PostgreSQL grants them to no one), and row-level security (migration
  0014) keeps other people's marks from them whatever they write.
- One query. The text is sent as `PREPARE catalog_sql AS <text>` through the extended
  protocol, so the server's own parser accepts exactly one statement (a `;` and a second one
  are refused) and only one PREPARE takes: SELECT, WITH, VALUES, TABLE (and INSERT, UPDATE,
  DELETE, MERGE, which the next layer refuses). Transaction control, SET, SHOW, COPY,
  ALTER SYSTEM, DDL, DO, CALL and EXPLAIN are not statements PREPARE takes.
- The transaction. It runs in `BEGIN ... READ ONLY` on a connection of its own (whose
  sessions also default to read-only), after a first query has taken the snapshot, so not even
  `set_config('transaction_read_only', 'off', true)` can turn it back; the server refuses every
  write in it (a data-modifying WITH, nextval() included). Rolled back, then closed.
- The clock. `statement_timeout` bounds it on the server, even when this program is gone.
"""

from __future__ import annotations

import re

import psycopg
from psycopg import errors as pg_errors

from catalog.errors import CatalogError
from catalog.store.postgres.connection import Connection

PREFIX = "PREPARE catalog_sql AS "
# Roles whose members can reach the server's files and programs from a read-only transaction.
SERVER_FILE_ROLES = ("pg_execute_server_program", "pg_read_server_files", "pg_write_server_files")
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


def refuse_privileged(conn: Connection) -> None:
    """One line, before anything runs, when this session's role can reach the server's files."""
    row = conn.execute(
        "SELECT current_user::text AS me, rolsuper AS superuser,"
        " array(SELECT name FROM unnest(?::text[]) AS name WHERE pg_has_role(current_user, name, 'USAGE'))"
        " AS powers FROM pg_roles WHERE rolname = current_user", (list(SERVER_FILE_ROLES),)).one()
    if row["superuser"]:
        why = "a PostgreSQL superuser"
    elif row["powers"]:
        why = f"a member of {row['powers'][0]}"
    else:
        return
    raise CatalogError(
        f"`catalog sql` does not run as {row['me']}, {why}: even a read-only query could run programs or read "
        "files on the server that way; connect as a member role instead (docs/sharing.md)")


def run(conn: Connection, statement: str) -> tuple[list[str], list[tuple]]:
    """(column names, rows) of one query, read-only (the module's docstring says how)."""
    raw = conn.raw
    raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    try:
        raw.execute("SELECT 1")  # the snapshot: the transaction's read-only mode is fixed from here
        try:
            raw.execute(PREFIX + statement, prepare=True)  # Parse: one statement, or an error
            cursor = raw.execute("EXECUTE catalog_sql", prepare=False)
            return [d.name for d in cursor.description or ()], [tuple(r) for r in cursor.fetchall()]
        except pg_errors.QueryCanceled:
            raise  # the caller's stop or the timeout: connection.stoppable says which
        except psycopg.Error as exc:
            raise CatalogError(explain(statement, exc)) from None
    finally:
        if not raw.closed:
            conn.rollback()


def explain(statement: str, exc: psycopg.Error) -> str:
    """The server's refusal, said as what the user can do about it."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, pg_errors.ReadOnlySqlTransaction) or "read-write mode" in text:
        return "`catalog sql` is read-only; change papers with the catalog commands instead"
    if "multiple commands" in text:
        return "`catalog sql` runs one statement at a time; leave out the `;` and what follows"
    first = _refused_first_word(statement, exc)
    if first:
        return (f"`catalog sql` runs one query on a server (SELECT, WITH, VALUES or TABLE); "
                f"{first.upper()} is not one")
    return f"SQL error: {text}"


def _refused_first_word(statement: str, exc: psycopg.Error) -> str | None:
    """The statement's first word, when the server's syntax error points at it (a statement
    PREPARE does not take: BEGIN, COPY, SET, ALTER ...)."""
    position = getattr(exc.diag, "statement_position", None)
    if not isinstance(exc, pg_errors.SyntaxError) or not position:
        return None
    at = int(position) - 1 - len(PREFIX)
    if at < 0 or _COMMENTS.sub(" ", statement[:at]).strip():
        return None
    word = re.match(r"\w+", statement[at:])
    return word[0] if word else None
