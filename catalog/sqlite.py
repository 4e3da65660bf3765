"""Everything SQLite-specific outside the search compiler: connections and pragmas, FTS5
upkeep, safe read-only connections. A PostgreSQL backend would replace this module (and
search.py's FTS5 compiler).

The catalog's own work runs on plain sqlite3 connections: SQLAlchemy costs ~150 ms to import,
more than a whole `catalog search`. SQLModel and Alembic own the schema and migrations.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

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
INSERT_TRIGGER = "paper_fts_insert"
# Papers whose `abstract` was edited by hand, waiting for their derived text (migration 0006).
REDERIVE_TABLE = "paper_rederive"
# Page cache of a bulk import (KiB): the key and fingerprint indexes take random inserts,
# and the 2 MB default sends their pages to disk and back.
BULK_CACHE_KIB = 32 * 1024
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
        or name == REDERIVE_TABLE
    )


def configure_connection(dbapi_connection: sqlite3.Connection) -> None:
    # Autocommit at the driver level: transactions are opened explicitly (db.py) so writers
    # can take the write lock up front with BEGIN IMMEDIATE.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    # Rows carry an abstract twice (as imported and rendered), about 2.4 KB. 16 KiB pages
    # hold six with little slack; against 8 KiB, a 100k import writes 6% less and commits
    # 25% faster (4 KiB: 20% more). Takes effect only on a new, empty file.
    cursor.execute("PRAGMA page_size = 16384")
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as exc:
            if "readonly" not in str(exc):
                raise  # a read-only catalog is read in the mode it has
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.close()


def timestamp(value: datetime) -> str:
    """A timestamp as SQLAlchemy writes them: "2026-11-30 12:00:00.000000"."""
    return value.isoformat(" ")


# Without relying on sqlite3's default adapter (deprecated since Python 3.12).
sqlite3.register_adapter(datetime, timestamp)


class Values(list):
    """First-column values; `.all()` reads like the rest of the Result API."""

    def all(self) -> list:
        return list(self)


class Result:
    """A statement's rows, read the few ways the catalog needs."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: sqlite3.Cursor):
        self._cursor = cursor

    def all(self) -> list[tuple]:
        return self._cursor.fetchall()

    def first(self) -> tuple | None:
        return self._cursor.fetchone()

    def one(self) -> tuple:
        row = self._cursor.fetchone()
        if row is None:
            raise LookupError("the query returned no row")
        return row

    def scalar(self):
        row = self._cursor.fetchone()
        return None if row is None else row[0]

    def scalars(self) -> "Values":
        return Values(row[0] for row in self._cursor.fetchall())

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    def __iter__(self):
        return iter(self._cursor)


class Connection:
    """A sqlite3 connection with the catalog's pragmas. Transactions are explicit (db.py)."""

    def __init__(self, raw: sqlite3.Connection):
        self.raw = raw

    def execute(self, sql: str, params: tuple | list = ()) -> Result:
        """A list of parameter tuples runs the statement once per tuple (executemany)."""
        if isinstance(params, list):
            return Result(self.raw.executemany(sql, params))
        return Result(self.raw.execute(sql, params))

    @property
    def in_transaction(self) -> bool:
        return self.raw.in_transaction

    def commit(self) -> None:
        if self.raw.in_transaction:
            self.raw.execute("COMMIT")

    def rollback(self) -> None:
        if self.raw.in_transaction:
            self.raw.execute("ROLLBACK")

    def close(self) -> None:
        self.raw.close()


def connect(path: Path) -> Connection:
    raw = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                          isolation_level=None)
    try:
        configure_connection(raw)
    except sqlite3.Error:
        raw.close()
        raise
    return Connection(raw)


def begin_write(conn: Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")


def begin_read(conn: Connection) -> None:
    conn.execute("BEGIN")


def index_papers_from(conn: Connection, first_id: int) -> None:
    """Index papers with id >= first_id in one statement (the bulk-import path)."""
    cols = ", ".join(FTS_COLUMNS)
    conn.execute(
        f"INSERT INTO {FTS_TABLE}(rowid, {cols}) SELECT id, {cols} FROM paper WHERE id >= ?",
        (first_id,),
    )


@contextmanager
def bulk_load(conn: Connection) -> Iterator[None]:
    """Within the current write transaction, make many inserts into `paper` cheap.

    The per-row FTS insert trigger is dropped (the caller indexes new rows with
    `index_papers_from`) and created again from its own stored SQL before the caller
    commits; the page cache is larger meanwhile. Other connections never see the trigger
    missing: DDL is transactional, and a crash or a rollback restores it with everything else.
    """
    trigger_sql = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", (INSERT_TRIGGER,)
    ).scalar()
    cache = conn.execute("PRAGMA cache_size").scalar()
    conn.execute(f"PRAGMA cache_size = {-BULK_CACHE_KIB}")
    if trigger_sql:
        conn.execute(f"DROP TRIGGER {INSERT_TRIGGER}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = {int(cache)}")
    # Not in `finally`: after an error the caller rolls back, which restores the trigger.
    if trigger_sql:
        conn.execute(trigger_sql)


def papers_to_rederive(conn: Connection) -> list[int]:
    """Ids of papers whose abstract was edited by hand since their text was derived."""
    try:
        return conn.execute(f"SELECT paper_id FROM {REDERIVE_TABLE}").scalars().all()
    except sqlite3.OperationalError as exc:  # a file not migrated yet
        if "no such table" in str(exc):
            return []
        raise


def rederived(conn: Connection, ids: list[int]) -> None:
    conn.execute(f"DELETE FROM {REDERIVE_TABLE} WHERE paper_id = ?", [(pid,) for pid in ids])


def rebuild_fts(conn: Connection) -> None:
    conn.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")


def fts_problem(conn: Connection) -> str | None:
    """None when the FTS index matches the paper table, else SQLite's complaint."""
    try:
        conn.execute(
            f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)"
        )
    except sqlite3.DatabaseError as exc:  # SQLite reports corruption as an error
        return str(exc)
    return None


def integrity_problems(conn: Connection) -> list[str]:
    rows = conn.execute("PRAGMA integrity_check").scalars().all()
    return [r for r in rows if r != "ok"]


def foreign_key_problems(conn: Connection) -> list[tuple]:
    return [tuple(r) for r in conn.execute("PRAGMA foreign_key_check").all()]


# --- stopping a statement -----------------------------------------------------------------

class Interrupted(Exception):
    """A statement stopped before it finished because it was told to (a newer search, Ctrl-C)."""


# SQLite calls the progress handler every this many virtual-machine instructions: about a
# millisecond of work, so a stop request is seen at once and the Python call costs little.
PROGRESS_STEPS = 10_000


@contextmanager
def stoppable(conn: sqlite3.Connection, stop) -> Iterator[None]:
    """While inside, each statement on `conn` stops (SQLite's "interrupted" error) as soon as
    `stop()` is true. A long statement never returns to Python otherwise, so neither Ctrl-C
    nor a newer search could reach it."""
    if stop is None:
        yield
        return
    if stop():
        raise Interrupted("stopped before it started")
    conn.set_progress_handler(lambda: bool(stop()), PROGRESS_STEPS)
    try:
        yield
    finally:
        conn.set_progress_handler(None, 0)


def is_interrupted(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and str(exc) == "interrupted"


# --- read-only access for `catalog sql` ------------------------------------------------

class ReadOnlyViolation(Exception):
    pass


_DENIED = {
    sqlite3.SQLITE_ATTACH: "ATTACH is not allowed: `catalog sql` reads only this catalog",
    sqlite3.SQLITE_DETACH: "DETACH is not allowed in `catalog sql`",
}
# Functions that reach outside the database: load_extension runs native code; fts3_tokenizer
# hands out (and, given a second argument, installs) raw C pointers.
_DENIED_FUNCTIONS = {"load_extension", "fts3_tokenizer"}
# Pragmas that take an argument and only read (`PRAGMA table_info(paper)`). Any other pragma
# with an argument or `= value` sets something, and is refused.
_READING_PRAGMAS_WITH_ARGUMENT = {
    "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
    "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
}


def _authorizer(action, arg1, arg2, dbname, source):
    if action in _DENIED:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and arg2 and arg2.lower() in _DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and arg2 is not None:
        if (arg1 or "").lower() not in _READING_PRAGMAS_WITH_ARGUMENT:
            return sqlite3.SQLITE_DENY  # `PRAGMA x = y` and `PRAGMA x(y)` change things
    return sqlite3.SQLITE_OK


def read_only_connection(path: Path) -> sqlite3.Connection:
    """Read-only three times over: the file is opened read-only, query_only is on, and the
    authorizer refuses ATTACH (VACUUM INTO attaches too), setting pragmas and the functions above."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    conn.execute("PRAGMA query_only = ON")
    conn.set_authorizer(_authorizer)
    return conn


def explain_sql_error(sql: str, exc: sqlite3.Error | sqlite3.Warning) -> str:
    text = str(exc)
    words = sql.split()
    head = words[0].upper().rstrip(";") if words else ""
    if "one statement at a time" in text:
        return "`catalog sql` runs one statement at a time; leave out the `;` and what follows"
    if "readonly" in text:
        return "`catalog sql` is read-only; change papers with the catalog commands instead"
    if "not authorized" in text or "authorization denied" in text:
        lowered = sql.lower()
        for name in sorted(_DENIED_FUNCTIONS):
            if name in lowered:
                return f"{name} is not allowed in `catalog sql`"
        if head == "ATTACH":
            return _DENIED[sqlite3.SQLITE_ATTACH]
        if head == "VACUUM":
            return "VACUUM is not allowed in `catalog sql` (it writes a database file); use `catalog backup`"
        if head == "PRAGMA":
            return "only reading PRAGMAs (without `=`) are allowed in `catalog sql`"
        return f"{head or 'this statement'} is not allowed in `catalog sql`"
    return f"SQL error: {text}"
