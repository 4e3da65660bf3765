"""A catalog as a whole (`Store`) and the transactions it hands out (`Transaction`), made of
the roles."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from catalog.store.base.discovery import Discovery
from catalog.store.base.edits import Edits
from catalog.store.base.imports import Imports
from catalog.store.base.lists import RankedListUpkeep, RankedLists
from catalog.store.base.merges import Merges
from catalog.store.base.papers import Papers
from catalog.store.base.search import Search
from catalog.store.base.upkeep import Upkeep


class Transaction(ABC):
    """One transaction: its roles, and a way to stop its statements."""

    papers: Papers
    edits: Edits
    imports: Imports
    merges: Merges
    search: Search
    discovery: Discovery
    upkeep: Upkeep
    lists: RankedLists

    @abstractmethod
    def stoppable(self, stop: Callable[[], bool] | None) -> AbstractContextManager:
        """Statements inside stop (Interrupted) as soon as `stop()` is true."""



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
    #: The ranked lists of frequent words, across transactions.
    lists: RankedListUpkeep

    def __init__(self, rederive: Callable[[Transaction, list[int]], object] | None = None):
        # The step that derives the text of abstracts edited by hand (the import pipeline's):
        # given by the caller, run at the start of each write that asks for it.
        self._rederive = rederive

    @abstractmethod
    def read(self) -> AbstractContextManager[Transaction]:
        """A read transaction: `with store.read() as tx: tx.papers.detail(paper_id)`."""

    @abstractmethod
    def write(self, *, catch_up: bool = True) -> AbstractContextManager[Transaction]:
        """A write transaction; all of it commits, or none. `catch_up`: first derive the text
        of papers whose abstract was edited by hand since (when the store was given a
        `rederive` step; doctor does that itself)."""

    def _catch_up_in(self, tx: Transaction) -> None:
        """The start of a write that catches up: the papers edited by hand derived again."""
        if self._rederive is not None and (edited := tx.imports.papers_to_rederive()):
            self._rederive(tx, edited)

    def catch_up(self) -> None:
        """Derive the text of papers whose abstract was edited by hand since; one small read
        when there are none."""
        if self._rederive is None:
            return
        with self.read() as tx:
            if not tx.imports.papers_to_rederive():
                return
        with self.write():
            pass  # write() does it

    @abstractmethod
    def checking(self) -> AbstractContextManager[Transaction]:
        """A write transaction that is always rolled back: doctor's checks change nothing."""

    @abstractmethod
    def close(self) -> None: ...

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
