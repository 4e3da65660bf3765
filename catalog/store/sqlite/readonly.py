"""`catalog sql`: one statement on a connection that cannot write, with errors explained.

Memory is bounded as time is (the caller's progress handler): no value may be larger than
MAX_VALUE_BYTES (SQLite's own length limit on this connection: `zeroblob(1000000000)` fails at
once instead of allocating a gigabyte), and the rows held for printing stop at about
MAX_RESULT_BYTES. SQLite's sorter and temporary tables spill to disk past their cache, so
these two are what could grow without end.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from catalog.errors import CatalogError

MAX_VALUE_BYTES = 64 << 20
MAX_RESULT_BYTES = 512 << 20
_ROW_COST = 64  # bytes Python spends on a row and on each value besides its text (an estimate)

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
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    return conn


def run(conn: sqlite3.Connection, statement: str) -> tuple[list[str], list[tuple]]:
    try:
        cursor = conn.execute(statement)
        return [d[0] for d in cursor.description or ()], _rows(cursor)
    except (sqlite3.Error, sqlite3.Warning) as exc:
        if str(exc) == "interrupted":
            raise  # the caller's stop; connection.stoppable turns it into Interrupted
        raise CatalogError(explain_sql_error(statement, exc)) from None


def _rows(cursor: sqlite3.Cursor) -> list[tuple]:
    """All the rows, until they would hold more than MAX_RESULT_BYTES (then CatalogError)."""
    rows: list[tuple] = []
    size = 0
    while batch := cursor.fetchmany(1000):
        rows.extend(batch)
        size += _ROW_COST * len(batch) * (1 + len(batch[0]))
        size += sum(len(v) for row in batch for v in row if isinstance(v, (str, bytes)))
        if size > MAX_RESULT_BYTES:
            raise CatalogError(f"the result passed {MAX_RESULT_BYTES >> 20} MB after {len(rows):,} rows; "
                               "add a LIMIT or select fewer columns")
    return rows


def explain_sql_error(sql: str, exc: sqlite3.Error | sqlite3.Warning) -> str:
    text = str(exc)
    words = sql.split()
    head = words[0].upper().rstrip(";") if words else ""
    if "one statement at a time" in text:
        return "`catalog sql` runs one statement at a time; leave out the `;` and what follows"
    if "too big" in text:
        return (f"a value in the result would be over {MAX_VALUE_BYTES >> 20} MB, the most `catalog sql` "
                "makes of one value")
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
