"""Everything SQLite-specific outside the search compiler: pragmas, FTS5 upkeep, safe read-only
connections. A PostgreSQL backend would replace this module (and search.py's FTS5 compiler).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

FTS_TABLE = "paper_fts"
# Indexed columns of `paper`, in FTS5 column order, with their bm25 weights: a hit in a title
# or tag counts for more than one in the abstract.
FTS_COLUMNS = {
    "user_title": 10.0,
    "title": 10.0,
    "headline": 6.0,
    "abstract_text": 1.0,
    "authors": 3.0,
    "tags_text": 8.0,
    "notes_text": 2.0,
    "search_extra": 1.0,
}
VIEWS = ("papers", "paper_tags", "paper_notes")
BULK_FLAG_TABLE = "fts_bulk_load"
BUSY_TIMEOUT_MS = 30_000
# What triggers copy onto paper.tags_text / paper.notes_text (the migrations hold their own
# frozen copy of these); `catalog doctor` recomputes them with these. {pid}: the paper id.
TAGS_TEXT_OF = """(SELECT coalesce(group_concat(name, ' '), '') FROM (
    SELECT t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id
    WHERE pt.paper_id = {pid} ORDER BY t.name))"""
NOTES_TEXT_OF = """(SELECT coalesce(group_concat(body, char(10)), '') FROM (
    SELECT body FROM note WHERE paper_id = {pid} ORDER BY created_at, id))"""


def is_hand_made_table(name: str) -> bool:
    """FTS5 tables and their shadow tables, and views, which SQLModel does not describe."""
    return (
        name == FTS_TABLE
        or name.startswith(FTS_TABLE + "_")
        or name in VIEWS
        or name == BULK_FLAG_TABLE
    )


def configure_connection(dbapi_connection: sqlite3.Connection) -> None:
    # Autocommit at the driver level: transactions are opened explicitly (db.py) so writers
    # can take the write lock up front with BEGIN IMMEDIATE.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    # Rows carry an abstract twice (as imported and rendered); 8 KiB pages hold several rows
    # where 4 KiB pages hold one. Takes effect only on a new, empty file.
    cursor.execute("PRAGMA page_size = 8192")
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.close()


def install_pragmas(engine: Engine) -> None:
    event.listen(engine, "connect", lambda dbapi_conn, _record: configure_connection(dbapi_conn))


def begin_write(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def begin_read(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN")


def commit(conn: Connection) -> None:
    conn.exec_driver_sql("COMMIT")


def rollback(conn: Connection) -> None:
    if conn.connection.dbapi_connection.in_transaction:
        conn.exec_driver_sql("ROLLBACK")


def index_papers_from(conn: Connection, first_id: int) -> None:
    """Index papers with id >= first_id in one statement (the bulk-import path)."""
    cols = ", ".join(FTS_COLUMNS)
    conn.exec_driver_sql(
        f"INSERT INTO {FTS_TABLE}(rowid, {cols}) SELECT id, {cols} FROM paper WHERE id >= ?",
        (first_id,),
    )


def set_bulk_loading(conn: Connection, on: bool) -> None:
    """Within the current transaction, make the per-row FTS insert trigger stand aside.

    The flag row is never visible to other connections: it is inserted and removed inside
    one write transaction, and a crash rolls it back with everything else.
    """
    if on:
        conn.exec_driver_sql("INSERT INTO fts_bulk_load(active) VALUES (1)")
    else:
        conn.exec_driver_sql("DELETE FROM fts_bulk_load")


def rebuild_fts(conn: Connection) -> None:
    conn.exec_driver_sql(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")


def fts_problem(conn: Connection) -> str | None:
    """None when the FTS index matches the paper table, else SQLite's complaint."""
    try:
        conn.exec_driver_sql(
            f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)"
        )
    except Exception as exc:  # SQLite reports corruption as an error
        return str(getattr(exc, "orig", exc))
    return None


def integrity_problems(conn: Connection) -> list[str]:
    rows = conn.exec_driver_sql("PRAGMA integrity_check").scalars().all()
    return [r for r in rows if r != "ok"]


def foreign_key_problems(conn: Connection) -> list[tuple]:
    return [tuple(r) for r in conn.exec_driver_sql("PRAGMA foreign_key_check").all()]


# --- read-only access for `catalog sql` ------------------------------------------------

class ReadOnlyViolation(Exception):
    pass


_DENIED = {
    sqlite3.SQLITE_ATTACH: "ATTACH is not allowed: `catalog sql` reads only this catalog",
    sqlite3.SQLITE_DETACH: "DETACH is not allowed in `catalog sql`",
}


def _authorizer(action, arg1, arg2, dbname, source):
    if action in _DENIED:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and arg2 and arg2.lower() == "load_extension":
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and arg2 is not None:
        return sqlite3.SQLITE_DENY  # `PRAGMA x = y` changes things
    return sqlite3.SQLITE_OK


def read_only_connection(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    conn.execute("PRAGMA query_only = ON")
    conn.set_authorizer(_authorizer)
    return conn


def explain_sql_error(sql: str, exc: sqlite3.Error) -> str:
    text = str(exc)
    head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
    if "attempt to write a readonly database" in text or "readonly" in text:
        return "`catalog sql` is read-only; change papers with the catalog commands instead"
    if "not authorized" in text:
        if head == "ATTACH":
            return _DENIED[sqlite3.SQLITE_ATTACH]
        if "load_extension" in sql.lower():
            return "load_extension is not allowed in `catalog sql`"
        if head == "PRAGMA":
            return "only reading PRAGMAs (without `=`) are allowed in `catalog sql`"
        return f"not allowed in `catalog sql`: {text}"
    return f"SQL error: {text}"
