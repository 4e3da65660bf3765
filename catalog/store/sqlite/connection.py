"""SQLite connections: pragmas, a small pool, explicit transactions, stopping a statement.

The catalog's own work runs on plain sqlite3 connections: importing SQLAlchemy costs more than
a whole `catalog search`. Rows come back as sqlite3.Row, read by column name.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from catalog.errors import Interrupted, StoreError
from catalog.store.pool import ConnectionPool, Rows

BUSY_TIMEOUT_MS = 30_000
# SQLite calls the progress handler every this many virtual-machine instructions: about a
# millisecond of work, so a stop request is seen at once and the Python call costs little.
PROGRESS_STEPS = 10_000


def configure_connection(dbapi_connection: sqlite3.Connection) -> None:
    """The catalog's pragmas, on every connection (Alembic's engine runs this too)."""
    # Autocommit at the driver level: transactions are opened explicitly, so writers can take
    # the write lock up front with BEGIN IMMEDIATE.
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


def script_pragmas(dbapi_connection: sqlite3.Connection) -> None:
    """What a script's connection needs (catalog.models.engine): foreign keys and a busy
    timeout. Transactions are left to SQLAlchemy."""
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def timestamp(value: datetime) -> str:
    """A timestamp as SQLAlchemy writes them: "2026-11-30 12:00:00.000000"."""
    return value.isoformat(" ")


# Without relying on sqlite3's default adapter (deprecated since Python 3.12).
sqlite3.register_adapter(datetime, timestamp)


class Result(Rows):
    """A statement's rows (store/pool.py's Rows). SQLite reports some errors (a damaged page)
    only when rows are fetched: those become the store's errors too."""

    __slots__ = ()

    def __init__(self, cursor: sqlite3.Cursor):
        self._cursor = cursor

    def _fetch(self, many: bool):
        try:
            return self._cursor.fetchall() if many else self._cursor.fetchone()
        except sqlite3.Error as exc:
            raise store_error(exc) from exc

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid


class Connection:
    """A sqlite3 connection with the catalog's pragmas. Transactions are explicit (Pool)."""

    def __init__(self, raw: sqlite3.Connection):
        self.raw = raw

    def execute(self, sql: str, params: tuple | list = ()) -> Result:
        try:
            return Result(self.raw.execute(sql, tuple(params)))
        except sqlite3.Error as exc:
            raise store_error(exc) from exc

    def executemany(self, sql: str, rows) -> Result:
        try:
            return Result(self.raw.executemany(sql, rows))
        except sqlite3.Error as exc:
            raise store_error(exc) from exc

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


def store_error(exc: sqlite3.Error) -> Exception:
    """SQLite's error as the store's: Interrupted when a stop was asked for (see stoppable),
    else a StoreError with SQLite's message."""
    if isinstance(exc, sqlite3.OperationalError) and str(exc) == "interrupted":
        return Interrupted(str(exc))
    return StoreError(str(exc))


def connect(path: Path) -> Connection:
    raw = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                          isolation_level=None)
    try:
        configure_connection(raw)
    except sqlite3.Error:
        raw.close()
        raise
    raw.row_factory = sqlite3.Row
    return Connection(raw)


def plain_connection(path: Path | str, **kwargs) -> sqlite3.Connection:
    """A connection without the catalog's pragmas, for looking at a file without changing it."""
    return sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, **kwargs)


class Pool(ConnectionPool):
    """Connections to one catalog file (store/pool.py's ConnectionPool)."""

    def __init__(self, path: Path):
        super().__init__()
        self.path = path

    def _connect(self) -> Connection:
        return connect(self.path)

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction that holds the write lock from its first statement."""
        with self.connection() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.rollback()
                raise
            conn.commit()

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction: one consistent snapshot for several queries."""
        with self.connection() as conn:
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.rollback()

    @contextmanager
    def checking(self) -> Iterator[Connection]:
        """A write transaction that is always rolled back (FTS5 checks its index with an INSERT;
        a check changes nothing)."""
        with self.connection() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            finally:
                conn.rollback()


@contextmanager
def stoppable(conn: sqlite3.Connection, stop: Callable[[], bool] | None) -> Iterator[None]:
    """While inside, each statement on `conn` stops as soon as `stop()` is true, and Interrupted
    is raised. A long statement never returns to Python otherwise, so neither Ctrl-C nor a
    newer search could reach it."""
    if stop is None:
        yield
        return
    if stop():
        raise Interrupted("stopped before it started")
    conn.set_progress_handler(lambda: bool(stop()), PROGRESS_STEPS)
    try:
        yield
    except sqlite3.OperationalError as exc:  # from a raw connection (`catalog sql`)
        if str(exc) == "interrupted":
            raise Interrupted(str(exc)) from None
        raise
    finally:
        conn.set_progress_handler(None, 0)
