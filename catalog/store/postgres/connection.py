"""PostgreSQL connections (psycopg 3) that run the shared modules' SQL as written: `?`
placeholders become `%s`, rows are read by column name or position (as sqlite3.Row), and the
results read the same few ways as SQLite's (connection.Result). Sessions run in UTC, without JIT."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache

import psycopg
from psycopg import errors as pg_errors

from catalog.errors import Interrupted, StoreError
from catalog.store.pool import Rows

# A stop request is looked at this often while a statement runs (seconds).
STOP_POLL = 0.05


@lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """`?` outside quoted text becomes `%s`; every `%` is doubled (psycopg's own marker)."""
    out, quote = [], None
    for ch in sql:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            out.append("%s")
            continue
        out.append("%%" if ch == "%" else ch)
    return "".join(out)


class Row(tuple):
    """A row read by position or by column name, like sqlite3.Row."""

    __slots__ = ()
    names: dict[str, int]

    def __getitem__(self, key):
        if isinstance(key, str):
            return tuple.__getitem__(self, type(self).names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(type(self).names)


def row_factory(cursor):
    description = cursor.description
    if description is None:
        return None
    names = {d.name: i for i, d in reversed(list(enumerate(description)))}
    kind = type("Row", (Row,), {"__slots__": (), "names": names})
    return lambda values: kind(values)


class Result(Rows):
    """A statement's rows (store/pool.py's Rows); a statement without rows reads as none."""

    __slots__ = ()

    def __init__(self, cursor: psycopg.Cursor):
        self._cursor = cursor

    def _fetch(self, many: bool):
        if self._cursor.description is None:
            return [] if many else None
        try:
            return self._cursor.fetchall() if many else self._cursor.fetchone()
        except psycopg.Error as exc:
            raise store_error(exc) from exc


def store_error(exc: psycopg.Error) -> Exception:
    if isinstance(exc, pg_errors.QueryCanceled):
        return Interrupted(str(exc).splitlines()[0])
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, pg_errors.InsufficientPrivilege):  # a role's privileges, row-level security
        return StoreError(f"{first} (docs/sharing.md says who may change what on a shared catalog)")
    return StoreError(first)


class Connection:
    """A psycopg connection in autocommit mode: transactions are explicit statements (the
    store's BEGIN ... ISOLATION LEVEL ...), as on SQLite."""

    def __init__(self, raw: psycopg.Connection):
        self.raw = raw

    def execute(self, sql: str, params: tuple | list = ()) -> Result:
        cursor = self.raw.cursor(row_factory=row_factory)
        try:
            cursor.execute(translate(sql), tuple(params) if params else None, prepare=False)
        except psycopg.Error as exc:
            raise store_error(exc) from exc
        return Result(cursor)

    def executemany(self, sql: str, rows) -> Result:
        cursor = self.raw.cursor(row_factory=row_factory)
        try:
            cursor.executemany(translate(sql), list(rows))
        except psycopg.Error as exc:
            raise store_error(exc) from exc
        return Result(cursor)

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def commit(self) -> None:
        if self.in_transaction:
            self.raw.execute("COMMIT")

    def rollback(self) -> None:
        if self.in_transaction:
            self.raw.execute("ROLLBACK")

    def close(self) -> None:
        self.raw.close()


# Every session: UTC; no JIT compilation. A statement the planner costs above jit_above_cost
# (100,000) is compiled first: ~120 ms before a search whose work takes 90 (a phrase ranked with
# its other forms' tiers, whose costs add up though they never run), more than any of the
# catalog's interactive statements gains from it.
SESSION = {"timezone": "UTC", "jit": "off"}


def connect(url: str, *, connect_timeout: int | None = None, **settings: str) -> Connection:
    options = " ".join(f"-c {name}={value}" for name, value in {**SESSION, **settings}.items())
    extra = {} if connect_timeout is None else {"connect_timeout": connect_timeout}
    raw = psycopg.connect(url, options=options, autocommit=True, **extra)
    return Connection(raw)


@contextmanager
def stoppable(raw: psycopg.Connection, stop: Callable[[], bool] | None) -> Iterator[None]:
    """While inside, a statement is cancelled on the server as soon as `stop()` is true (a
    watcher thread asks), and Interrupted is raised."""
    if stop is None:
        yield
        return
    if stop():
        raise Interrupted("stopped before it started")
    done = threading.Event()

    def watch() -> None:
        while not done.wait(STOP_POLL):
            if stop():
                try:
                    raw.cancel_safe()
                except Exception:
                    pass
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    except pg_errors.QueryCanceled as exc:
        raise Interrupted(str(exc).splitlines()[0]) from None
    finally:
        done.set()
        watcher.join()
