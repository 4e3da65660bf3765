"""The SQLite backend: a catalog file, its connections and transactions, and the SQL that only
SQLite runs (FTS5 search, bulk loads, pragmas, doctor's checks)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from catalog.errors import CatalogError, StoreError
from catalog.paths import current_user, login_name
from catalog.store import schema
from catalog.store.base import Store, Transaction
from catalog.store.lists.memo import ListMemo
from catalog.store.lists.sqlite import SqliteListUpkeep, SqliteRankedLists
from catalog.store.merges import MergeQueries
from catalog.store.papers import PaperReads
from catalog.store.sqlite import files, migrations, readonly
from catalog.store.sqlite.connection import BUSY_TIMEOUT_MS, Connection, Pool, connect, stoppable, store_error
from catalog.store.sqlite.files import SEEDED
from catalog.store.sqlite.fts import FTS5
from catalog.store.sqlite.maintenance import Maintenance
from catalog.store.sqlite.roles import SqliteDiscovery, SqliteEdits, SqliteImports, SqliteSearch



class SqliteTx(Transaction):
    """One transaction on a catalog file, by role. `user`: whose reading status and rating it
    reads and writes. `conn` is the store's own (tests and the store's modules read it)."""

    def __init__(self, conn: Connection, user: str, memo: ListMemo, *, keeping: bool = False):
        self.conn = conn
        self.papers = PaperReads(conn, user)
        self.edits = SqliteEdits(conn, user)
        self.lists = SqliteRankedLists(conn, user, memo, keeping=keeping)
        self.imports = SqliteImports(conn, user, self.lists)
        self.merges = MergeQueries(conn, user)
        self.search = SqliteSearch(conn, user, FTS5, self.papers, self.lists)
        self.discovery = SqliteDiscovery(conn, user)
        self.upkeep = Maintenance(conn, user)

    @contextmanager
    def stoppable(self, stop: Callable[[], bool] | None) -> Iterator[None]:
        with stoppable(self.conn.raw, stop):
            yield


class SqliteStore(Store):
    """A catalog file."""

    def __init__(self, path: Path, pool: Pool, user: str, rederive=None):
        super().__init__(rederive)
        self.path = path
        self.location = str(path)
        self.pool = pool
        self.user = user
        # data_version's connection, which also writes the lists searches rank (write_at_once).
        self._watch: Connection | None = None
        self._watch_lock = threading.Lock()
        self.lists = SqliteListUpkeep(self)

    @classmethod
    def open(cls, path: Path, *, notify=lambda message: None, user: str | None = None,
             rederive=None) -> "SqliteStore":
        """The catalog at `path`, created when nothing is there and migrated when it is older.
        A file that is not a catalog, is damaged or cannot be opened is refused with one line
        before anything writes to it (no table, no migration, no journal-mode switch).
        `rederive`: the step that derives the text of abstracts edited by hand (the import
        pipeline's), run at open and at each write (None: never; doctor does it itself).
        `user`: who reads (None: $CATALOG_USER, else the catalog's owner, else the login name)."""
        state = files.inspect_file(path)
        problem = files.refusal(path, state)
        if problem:
            raise CatalogError(problem)
        schema.refuse_newer(path, state.revision)
        if state.kind == "new":
            files.prepare_new(path)
        pool = Pool(path)
        migrations.ensure_schema(pool, state.revision, notify=notify)
        store = cls(path, pool, user or current_user() or _owner(pool) or login_name(), rederive)
        store.catch_up()
        return store

    # --- transactions ------------------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[SqliteTx]:
        """A read transaction. Its searches may rank lists of several words for the caller to
        keep after it (tx.lists.to_keep(), store.lists.keep), unless the file refused one."""
        with self._errors(), self.pool.read() as conn:
            yield SqliteTx(conn, self.user, self.lists.memo, keeping=not self.lists.refused)

    @contextmanager
    def write_at_once(self) -> Iterator[SqliteTx]:
        """A short write transaction that never waits: StoreError ("database is locked") at
        once when another writer holds the file (an import, the refresher). On data_version's
        connection: a connection's own commits do not change its data_version, so the TUI,
        which polls it to see others' changes, does not take what its own search kept for a
        change (and search again)."""
        with self._watch_lock:
            conn = self._watcher()
            conn.raw.execute("PRAGMA busy_timeout = 0")
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield SqliteTx(conn, self.user, self.lists.memo)
                    conn.commit()
                finally:
                    conn.rollback()
            finally:
                conn.raw.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def _watcher(self) -> Connection:
        """data_version's connection (call with _watch_lock held)."""
        if self._watch is None:
            self._watch = connect(self.path)
        return self._watch

    @contextmanager
    def write(self, *, catch_up: bool = True) -> Iterator[SqliteTx]:
        with self._errors(), self.pool.write() as conn:
            tx = SqliteTx(conn, self.user, self.lists.memo)
            if catch_up:
                self._catch_up_in(tx)
            yield tx

    @contextmanager
    def checking(self) -> Iterator[SqliteTx]:
        """A write transaction that is always rolled back: doctor's checks change nothing."""
        with self._errors(), self.pool.checking() as conn:
            yield SqliteTx(conn, self.user, self.lists.memo)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's errors as the store's: a read-only file is the user's to fix (one line),
        anything else a StoreError with SQLite's message."""
        try:
            yield
        except (sqlite3.Error, StoreError) as exc:
            if "readonly" in str(exc):
                raise CatalogError(f"{self.path} is read-only: this command changes the catalog "
                                   "(make the file and its folder writable, or work on a copy)") from None
            if isinstance(exc, StoreError):
                raise
            raise store_error(exc) from exc

    def catch_up(self) -> None:
        """As Store.catch_up (edits in the sqlite3 shell); a read-only catalog is left as it is."""
        try:
            super().catch_up()
        except CatalogError:
            pass

    def close(self) -> None:
        self.pool.close()
        with self._watch_lock:
            if self._watch is not None:
                self._watch.close()
                self._watch = None

    # --- the catalog as a whole ----------------------------------------------------------------------

    def is_seeded(self) -> bool:
        with self.pool.connection() as conn:
            return conn.execute("PRAGMA user_version").scalar() == SEEDED

    def mark_seeded(self) -> None:
        with self.write() as tx:
            tx.conn.execute(f"PRAGMA user_version = {SEEDED}")

    def data_version(self) -> int:
        """SQLite's data_version, read on a connection of its own: it changes when any other
        connection (another process, or this one's writes through the pool) commits."""
        with self._watch_lock:
            return self._watcher().execute("PRAGMA data_version").scalar()

    def backup(self, target: Path) -> None:
        with self._errors():
            files.copy_database(self.path, target)

    def safety_copy(self, label: str) -> Path:
        return files.backup_copy(self.path, label)

    def run_sql(self, statement: str, *, stop: Callable[[], bool] | None = None,
                timeout: float | None = None) -> tuple[list[str], list[tuple]]:
        conn = readonly.read_only_connection(self.path)
        try:
            with stoppable(conn, stop):
                return readonly.run(conn, statement)
        finally:
            conn.close()

    def schema_revision(self) -> str | None:
        return migrations.current(self.path)

    def cache_dir(self) -> Path:
        import hashlib

        from platformdirs import user_cache_path

        key = hashlib.sha256(str(self.path.resolve()).encode("utf-8")).hexdigest()[:16]
        return user_cache_path("catalog", appauthor=False) / "discover" / key


def _owner(pool: Pool) -> str | None:
    """Whose catalog the file is (catalog_setting): the reader when CATALOG_USER is not set."""
    with pool.connection() as conn:
        return conn.execute("SELECT value FROM catalog_setting WHERE name = 'owner'").scalar()
