"""What both backends' connections share: a statement's rows read the few ways the store needs,
and a pool lending each connection to one unit of work at a time."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager


class Rows:
    """A statement's rows, read the few ways the store needs; a backend's Result provides
    `_cursor` and `_fetch(many)` (which turns its driver's errors into the store's)."""

    __slots__ = ("_cursor",)

    def _fetch(self, many: bool):
        raise NotImplementedError

    def all(self) -> list:
        return self._fetch(True)

    def first(self):
        return self._fetch(False)

    def one(self):
        row = self._fetch(False)
        if row is None:
            raise LookupError("the query returned no row")
        return row

    def scalar(self):
        row = self._fetch(False)
        return None if row is None else row[0]

    def scalars(self) -> list:
        return [row[0] for row in self._fetch(True)]

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    def __iter__(self):
        return iter(self._fetch(True))


class ConnectionPool(ABC):
    """Connections to one catalog, each lent to one unit of work at a time, so threads such as
    the TUI's workers never share one. Idle ones are kept: opening a connection costs more
    than a typical query. A backend says how to open one, and when one must not be lent again."""

    KEEP_IDLE = 4

    def __init__(self):
        self._idle: list = []
        self._lock = threading.Lock()

    @abstractmethod
    def _connect(self): ...

    def _spent(self, conn) -> bool:
        """A connection left inside a transaction is closed, not lent out again."""
        return conn.in_transaction

    @contextmanager
    def connection(self) -> Iterator:
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self._connect()
        try:
            yield conn
        except BaseException:
            conn.close()  # its state is unknown; don't lend it out again
            raise
        if self._spent(conn):
            conn.close()
            return
        with self._lock:
            if len(self._idle) < self.KEEP_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
