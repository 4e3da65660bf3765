"""The storage interface: what a backend gives the rest of the program.

A `Store` is one catalog (a SQLite file today; a PostgreSQL database next). It hands out
transactions: `read()` (one consistent snapshot) and `write()` (holds the write lock from its
first statement). A transaction object carries every named query the program runs (see
papers.py, edits.py, imports.py for the shared ones; the backend adds search and upkeep) and
returns the dataclasses of catalog/results.py, read by column name. Nothing outside this
package sees a connection, a cursor or SQL.

Modelled on harlequin's adapters (HarlequinAdapter / Connection / Cursor): a small abstract
seam with one implementation per backend, and tests parametrized over backends.
"""

from __future__ import annotations

import importlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path


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


class Store(ABC):
    """One open catalog. Holds connections, never a transaction between calls."""

    #: How users name this catalog (a path or a URL, password hidden): messages show it.
    location: str
    #: The file, for a file backend; None for a server.
    path: Path | None
    #: Who is reading: whose status and rating transactions read and write, who signs notes
    #: (on a server the database role).
    user: str
    #: Who may use the catalog (a server's members: postgres/sharing.py); None for a file.
    sharing = None

    @abstractmethod
    def read(self) -> AbstractContextManager:
        """A read transaction: `with store.read() as tx: tx.detail(paper_id)`."""

    @abstractmethod
    def write(self, *, catch_up: bool = True) -> AbstractContextManager:
        """A write transaction; all of it commits, or none. `catch_up`: first derive the text
        of papers whose abstract was edited by hand since (doctor does that itself)."""

    @abstractmethod
    def close(self) -> None: ...

    # --- the catalog as a whole --------------------------------------------------------------

    @abstractmethod
    def is_seeded(self) -> bool:
        """Whether the bundled seed lists were imported completely (the default catalog)."""

    @abstractmethod
    def mark_seeded(self) -> None: ...

    @abstractmethod
    def data_version(self) -> int:
        """A number that changes when another connection commits a change: cheap to poll."""

    @abstractmethod
    def backup(self, target: Path) -> None:
        """A consistent copy at `target` (a SQLite file), safe while others use the catalog."""

    @abstractmethod
    def run_sql(self, statement: str, *, stop: Callable[[], bool] | None = None,
                timeout: float | None = None) -> tuple[list[str], list[tuple]]:
        """One read-only statement: (column names, rows). Raises CatalogError for what cannot
        run, Interrupted once `stop()` is true or after `timeout` seconds."""

    @abstractmethod
    def checking(self) -> AbstractContextManager:
        """A write transaction that is always rolled back: doctor's checks change nothing."""

    def imported(self, new_papers: int) -> None:
        """After an import added `new_papers`: upkeep a backend wants then (none by default)."""

    def safety_copy(self, label: str) -> Path | None:
        """A copy kept before doctor repairs (a file beside a SQLite catalog); None where the
        repairs' single transaction is the safety (a server)."""
        return None

    @abstractmethod
    def schema_revision(self) -> str | None: ...

    @abstractmethod
    def cache_dir(self) -> Path:
        """A folder of this catalog's own for derived files (discovery's vectors)."""

    # The backend's module of ranked lists of frequent words (its `refresh` and `behind`), by
    # name: imported when an import or doctor asks, never by a search that starts the program.
    TOP_LISTS_MODULE: str | None = None

    def refresh_top_lists(self, *, budget: float | None, rescored: bool | None = None) -> tuple[int, int]:
        """Rebuild the ranked lists of frequent words searches cannot read (`rescored`, the
        default with a budget; else also those following changes by rescoring) for at most
        `budget` seconds (None: all): (built, still stale)."""
        if self.TOP_LISTS_MODULE is None:
            return 0, 0
        with self._errors():
            return importlib.import_module(self.TOP_LISTS_MODULE).refresh(self, budget=budget, rescored=rescored)

    def top_lists_behind(self) -> bool:
        """Whether refresh_top_lists has work (cheap: what an import asks)."""
        if self.TOP_LISTS_MODULE is None:
            return False
        with self._errors():
            return importlib.import_module(self.TOP_LISTS_MODULE).behind(self)
