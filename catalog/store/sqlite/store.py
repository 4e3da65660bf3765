"""The SQLite backend: a catalog file, its connections and transactions, and the SQL that only
SQLite runs (FTS5 search, bulk loads, pragmas, doctor's checks)."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

from catalog.errors import CatalogError, StoreError
from catalog.paths import current_user, login_name
from catalog.store.base import Store
from catalog.store.discovery import DiscoveryQueries
from catalog.store.edits import EditQueries
from catalog.store.imports import ImportQueries
from catalog.store.papers import PaperReads
from catalog.store.ranked import RankedSearch
from catalog.store.sqlite import files, fts, migrations, readonly
from catalog.store.sqlite.connection import BUSY_TIMEOUT_MS, Connection, Pool, connect, stoppable, store_error
from catalog.store.sqlite.maintenance import Maintenance
from catalog.store.sqlite.topand import AndPages
from catalog.store.sqlite.topbuild import TopListUpkeep
from catalog.store.sqlite.topfew import FewFiltered
from catalog.store.sqlite.topk import TopLists
from catalog.store.sqlite.vocabulary import Vocabulary

# PRAGMA user_version of the default catalog once the bundled seeds are fully imported. Seeding
# imports several files; a process killed half-way leaves this unset and the next run finishes.
SEEDED = 1
# Page cache of a bulk import (KiB): the key and fingerprint indexes take random inserts,
# and the 2 MB default sends their pages to disk and back.
BULK_CACHE_KIB = 32 * 1024
_FETCH = 2000


class SqliteTx(TopLists, TopListUpkeep, AndPages, FewFiltered, RankedSearch, PaperReads, EditQueries, ImportQueries,
               DiscoveryQueries, Maintenance, Vocabulary):
    """One transaction on a catalog file: every query the program runs, by name. `user`: whose
    reading status and rating it reads and writes."""

    def __init__(self, conn: Connection, user: str):
        self.conn = conn
        self.user = user

    compiler = fts

    @contextmanager
    def stoppable(self, stop: Callable[[], bool] | None) -> Iterator[None]:
        """Statements inside stop (Interrupted) as soon as `stop()` is true."""
        with stoppable(self.conn.raw, stop):
            yield

    # --- bulk loads ------------------------------------------------------------------------------

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Within this write transaction, make many inserts into `paper` cheap.

        The per-row FTS insert trigger is dropped (the caller indexes new rows with
        `index_papers_from`) and created again from its own stored SQL before the caller
        commits; the page cache is larger meanwhile. Other connections never see the trigger
        missing: DDL is transactional, and a crash or a rollback restores it with everything else.
        """
        marks = ", ".join("?" * len(fts.INSERT_TRIGGERS))
        triggers = self.conn.execute(
            f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ({marks})",
            fts.INSERT_TRIGGERS).all()
        cache = self.conn.execute("PRAGMA cache_size").scalar()
        self.conn.execute(f"PRAGMA cache_size = {-BULK_CACHE_KIB}")
        for name, _ in triggers:
            self.conn.execute(f"DROP TRIGGER {name}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA cache_size = {int(cache)}")
        # Not in `finally`: after an error the caller rolls back, which restores the triggers.
        for _, sql in triggers:
            self.conn.execute(sql)

    def index_papers_from(self, first_id: int) -> None:
        """Index papers with id >= first_id in one statement (the bulk-import path)."""
        cols = ", ".join(fts.FTS_COLUMNS)
        for table in (fts.FTS_TABLE, fts.STEM_TABLE):
            self.conn.execute(
                f"INSERT INTO {table}(rowid, {cols}) SELECT id, {cols} FROM paper WHERE id >= ?",
                (first_id,))
        self.mark_new_papers(first_id)  # the ranked lists' dirty set (topk.py)

    # --- discovery ---------------------------------------------------------------------------------

    def text_version(self) -> tuple[int, int, str]:
        """(papers, max id, a stamp that changes when a known paper's text may have): imports
        add a source row, retitling sets user_title (a partial index holds those papers).
        Tags, ratings and statuses change none of these."""
        count, max_id = self.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM paper").one()
        sources = self.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM source").one()
        titled = self.conn.execute("SELECT count(*), coalesce(max(updated_at), '') FROM paper"
                                   " WHERE user_title IS NOT NULL").one()
        return count, max_id, f"sources {sources[0]}/{sources[1]}; titles {titled[0]}/{titled[1]}"

    def paper_texts(self, ids: Collection[int] | None = None, *, after_id: int = 0
                    ) -> Iterator[tuple[int, str, str]]:
        """(id, title, rendered abstract) in id order, streamed; the title is the user's or
        the real one (not the headline: made from the abstract, it would count words twice)."""
        wanted = None if ids is None else set(ids)
        cursor = self.conn.raw.execute(
            "SELECT id, coalesce(user_title, title, '') AS title, abstract_text FROM paper"
            " WHERE id > ? ORDER BY id", (after_id,))
        while batch := cursor.fetchmany(_FETCH):
            for row in batch:
                if wanted is None or row["id"] in wanted:
                    yield row["id"], row["title"], row["abstract_text"]


class SqliteStore(Store):
    """A catalog file."""

    TOP_LISTS_MODULE = "catalog.store.sqlite.topbuild"

    def __init__(self, path: Path, pool: Pool, user: str):
        self.path = path
        self.location = str(path)
        self.pool = pool
        self.user = user
        # data_version's connection, which also writes the lists searches rank (_keep_lists).
        self._watch: Connection | None = None
        self._watch_lock = threading.Lock()
        self._lists_refused = False  # the file refused to keep a ranked list (read-only)

    @classmethod
    def open(cls, path: Path, *, notify=lambda message: None, catch_up: bool = True,
             user: str | None = None) -> "SqliteStore":
        """The catalog at `path`, created when nothing is there and migrated when it is older.
        A file that is not a catalog, is damaged or cannot be opened is refused with one line
        before anything writes to it (no table, no migration, no journal-mode switch).
        `catch_up`: derive the text of abstracts edited by hand since (doctor does it itself).
        `user`: who reads (None: $CATALOG_USER, else the catalog's owner, else the login name)."""
        state = files.inspect_file(path)
        problem = files.refusal(path, state)
        if problem:
            raise CatalogError(problem)
        migrations.refuse_newer(path, state.revision)
        if state.kind == "new":
            files.prepare_new(path)
        pool = Pool(path)
        migrations.ensure_schema(pool, state.revision, notify=notify)
        store = cls(path, pool, user or current_user() or _owner(pool) or login_name())
        if catch_up:
            store.catch_up()
        return store

    # --- transactions ------------------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[SqliteTx]:
        """A read transaction. The lists of ANDs and phrases its searches ranked (topand.py)
        are kept after it, in a short write of their own (_keep_lists)."""
        with self._errors(), self.pool.read() as conn:
            tx = SqliteTx(conn, self.user)
            if not self._lists_refused:
                tx.lists_to_keep = []
            yield tx
        if tx.__dict__.get("lists_to_keep"):
            self._keep_lists(tx.lists_to_keep)

    def _keep_lists(self, ranked: list[dict]) -> None:
        """Write the lists a search ranked, unless the index changed since (store_top_list) or
        another process holds the write lock (an import: the search must not wait for it; the
        next search of those words ranks again). A read-only file refuses: not tried again by
        this process. On data_version's connection: a connection's own commits do not change
        its data_version, so the TUI, which polls it to see others' changes, does not reload
        because its own search kept a list (and then search again)."""
        with self._watch_lock:
            try:
                conn = self._watcher()
                conn.raw.execute("PRAGMA busy_timeout = 0")
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    try:
                        tx = SqliteTx(conn, self.user)
                        for one in ranked:
                            tx.store_top_list(one)
                        conn.commit()
                    finally:
                        conn.rollback()
                finally:
                    conn.raw.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            except (StoreError, sqlite3.Error) as exc:  # busy ("database is locked"), or read-only
                if "readonly" in str(exc):
                    self._lists_refused = True

    def _watcher(self) -> Connection:
        """data_version's connection (call with _watch_lock held)."""
        if self._watch is None:
            self._watch = connect(self.path)
        return self._watch

    @contextmanager
    def write(self, *, catch_up: bool = True) -> Iterator[SqliteTx]:
        with self._errors(), self.pool.write() as conn:
            tx = SqliteTx(conn, self.user)
            if catch_up and (edited := tx.papers_to_rederive()):
                from catalog.importing.derived import refresh

                refresh(tx, edited)
            yield tx

    @contextmanager
    def checking(self) -> Iterator[SqliteTx]:
        """A write transaction that is always rolled back: doctor's checks change nothing."""
        with self._errors(), self.pool.checking() as conn:
            yield SqliteTx(conn, self.user)

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
        """Derive the text of papers whose abstract was edited by hand (in the sqlite3 shell)
        since; one small read when there are none. A read-only catalog is left as it is."""
        with self.read() as tx:
            if not tx.papers_to_rederive():
                return
        try:
            with self.write():
                pass  # write() does it
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
        from platformdirs import user_cache_path

        key = hashlib.sha256(str(self.path.resolve()).encode("utf-8")).hexdigest()[:16]
        return user_cache_path("catalog", appauthor=False) / "discover" / key


def _owner(pool: Pool) -> str | None:
    """Whose catalog the file is (catalog_setting): the reader when CATALOG_USER is not set."""
    with pool.connection() as conn:
        return conn.execute("SELECT value FROM catalog_setting WHERE name = 'owner'").scalar()
