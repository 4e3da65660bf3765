"""The PostgreSQL backend: a catalog shared on a server. The same transactions as SQLite's
(the shared query mixins run here unchanged), with PostgreSQL's own search (tsvector), bulk
loads (COPY), change detection (LISTEN/NOTIFY) and `catalog sql` (one query in a READ ONLY
transaction with a statement timeout: readonly.py).

Who reads is the database role (`current_user`): its status and ratings are the ones read and
written, its name signs its notes, and row-level security keeps everyone else's marks from it
(migration 0014; members: sharing.py). CATALOG_USER names a reader on a catalog file only.

Writers take one advisory lock for their whole transaction, as SQLite's BEGIN IMMEDIATE
takes the write lock: read-modify-write edits (tags, undo, imports) never interleave, so no
update is lost; readers never wait. Reads see one snapshot (REPEATABLE READ).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from catalog.errors import CatalogError
from catalog.paths import shown
from catalog.store import schema
from catalog.store.base import Store, Transaction
from catalog.store.lists.postgres import PostgresRankedLists
from catalog.store.lists.postgres_build import PostgresListBuilder
from catalog.store.lists.postgres_upkeep import PostgresListUpkeep
from catalog.store.merges import MergeQueries
from catalog.store.pool import ConnectionPool
from catalog.store.postgres import migrations, readonly
from catalog.store.postgres.checks import PostgresChecks
from catalog.store.postgres.connection import Connection, connect, stoppable, store_error
from catalog.store.postgres.roles import PostgresDiscovery, PostgresEdits, PostgresImports, PostgresPapers, PostgresSearch
from catalog.store.postgres.search import TS
from catalog.store.postgres.sharing import Sharing, may_act_as, owner_of, shown_role

WRITE_LOCK = 7_311_500_002
CHANNEL = "catalog_changed"


class PostgresTx(Transaction):
    """One transaction on a shared catalog, by role; `user`: whose status and rating it reads
    and writes (the database role: row-level security lets it touch no one else's). `conn` is
    the store's own (tests and the store's modules read it)."""

    def __init__(self, conn: Connection, user: str, *, keeping: bool = False):
        self.conn = conn
        self.papers = PostgresPapers(conn, user)
        self.edits = PostgresEdits(conn, user)
        self.imports = PostgresImports(conn, user)
        self.merges = MergeQueries(conn, user)
        self.lists = PostgresRankedLists(conn, user, TS, PostgresListBuilder(conn), keeping=keeping)
        self.search = PostgresSearch(conn, user, TS, self.papers, self.lists)
        self.discovery = PostgresDiscovery(conn, user)
        self.upkeep = PostgresChecks(conn, user)

    @contextmanager
    def stoppable(self, stop: Callable[[], bool] | None) -> Iterator[None]:
        with stoppable(self.conn.raw, stop):
            yield


class Pool(ConnectionPool):
    """Connections to one database (store/pool.py's ConnectionPool)."""

    def __init__(self, url: str):
        super().__init__()
        self.url = url

    def _connect(self) -> Connection:
        return connect(self.url)

    def adopt(self, conn: Connection) -> None:
        """Lend out `conn` (opened by the caller, idle) as if the pool had opened it."""
        with self._lock:
            self._idle.append(conn)

    def _spent(self, conn: Connection) -> bool:
        return conn.in_transaction or conn.raw.closed


class PostgresStore(Store):
    """A catalog in a PostgreSQL database."""

    path = None

    def __init__(self, url: str, pool: Pool, user: str, rederive=None):
        super().__init__(rederive)
        self.url = url
        self.location = shown(url)
        self.pool = pool
        self.user = user
        self.sharing = Sharing(self)
        self._listener: psycopg.Connection | None = None
        self._changes = 0
        self._listen_lock = threading.Lock()
        self.lists = PostgresListUpkeep(self)

    @classmethod
    def open(cls, url: str, *, notify=lambda message: None, rederive=None) -> "PostgresStore":
        """The catalog in the database at `url`, read as the role the URL connects as: created
        when the database is empty, migrated when older (by its owner); a database that holds
        other tables, is newer, cannot be reached or is not shared with this role is refused
        with one line. `rederive`: as SqliteStore.open's."""
        # The connection that reads the schema's revision is the pool's first: the start-up
        # check and catch_up below, then the first search, run on one connection (one server
        # process started, its caches warmed once).
        first = _reach(url)
        try:
            revision = _revision_on(first.raw, url)
        except BaseException:
            first.close()
            raise
        if revision != schema.SCHEMA_REVISION:
            try:
                schema.refuse_newer(shown(url), revision)
                _refuse_upgrade_by_member(first, url, revision)
            finally:
                first.close()
            first = None
            if revision is not None:
                notify(f"Upgrading {shown(url)} (schema {revision})")
            try:
                migrations.upgrade(url)
            except Exception as exc:
                reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
                raise CatalogError(f"cannot prepare {shown(url)}: {reason}") from None
        pool = Pool(url)
        if first is not None:
            pool.adopt(first)
        with pool.connection() as conn:
            who = conn.execute("SELECT current_user::text").scalar()
        store = cls(url, pool, who, rederive)
        store.catch_up()
        return store

    # --- transactions ------------------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[PostgresTx]:
        """A read transaction (one snapshot). Its searches may rank lists of several words for
        the caller to keep after it (tx.lists.to_keep(), store.lists.keep), unless the server
        refused one."""
        with self._errors(), self.pool.connection() as conn:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield PostgresTx(conn, self.user, keeping=not self.lists.refused)
            finally:
                conn.rollback()

    @contextmanager
    def write_at_once(self) -> Iterator[PostgresTx | None]:
        """A short write transaction that never waits for another writer: None when one holds
        the catalog (an import). The server's errors come as they are (StoreError)."""
        with self.pool.connection() as conn:
            conn.execute("BEGIN")
            try:
                if conn.execute(f"SELECT pg_try_advisory_xact_lock({WRITE_LOCK})").scalar():
                    yield PostgresTx(conn, self.user)
                    conn.commit()
                else:
                    yield None
            finally:
                conn.rollback()

    @contextmanager
    def write(self, *, catch_up: bool = True) -> Iterator[PostgresTx]:
        with self._errors(), self.pool.connection() as conn:
            conn.execute("BEGIN")
            conn.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
            try:
                tx = PostgresTx(conn, self.user)
                if catch_up:
                    self._catch_up_in(tx)
                yield tx
            except BaseException:
                conn.rollback()
                raise
            conn.commit()

    @contextmanager
    def checking(self) -> Iterator[PostgresTx]:
        with self._errors(), self.pool.connection() as conn:
            conn.execute("BEGIN")
            try:
                yield PostgresTx(conn, self.user)
            finally:
                conn.rollback()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except psycopg.OperationalError as exc:
            raise CatalogError(f"lost the connection to {self.location}: {_first_line(exc)}") from None
        except psycopg.Error as exc:
            raise store_error(exc) from exc

    def close(self) -> None:
        self.pool.close()
        with self._listen_lock:
            if self._listener is not None:
                self._listener.close()
                self._listener = None

    # --- the catalog as a whole ----------------------------------------------------------------------

    def is_seeded(self) -> bool:
        with self.read() as tx:
            return tx.conn.execute("SELECT 1 FROM catalog_setting WHERE name = 'seeded'").first() is not None

    def mark_seeded(self) -> None:
        with self.write() as tx:
            tx.conn.execute("INSERT INTO catalog_setting(name, value) VALUES ('seeded', '1') ON CONFLICT DO NOTHING")

    # After this many new papers an import vacuums `paper` (autovacuum would, later): the
    # visibility map lets listings read ids from the listing index alone, without the wide
    # rows (a filtered listing at 100k: 0.9 s before, 0.05 s after), and the planner gets
    # fresh statistics.
    VACUUM_AFTER = 1000

    def imported(self, new_papers: int) -> None:
        if new_papers < self.VACUUM_AFTER:
            return
        with self._errors(), psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("VACUUM (ANALYZE) paper")

    def data_version(self) -> int:
        """Counts the changes other sessions (and this one) committed since the first call:
        triggers NOTIFY `catalog_changed` at each commit that changes a table; this LISTENs."""
        with self._listen_lock:
            if self._listener is None:
                self._listener = psycopg.connect(self.url, autocommit=True)
                self._listener.execute(f"LISTEN {CHANNEL}")
            self._changes += sum(1 for _ in self._listener.notifies(timeout=0))
            return self._changes

    def backup(self, target: Path) -> None:
        """The whole catalog as a SQLite file at `target`, written beside it and renamed into
        place (one read snapshot: consistent while others work)."""
        import os
        import tempfile

        from catalog.store.copying import copy_catalog, new_file_store

        folder = Path(target).resolve().parent
        handle, partial = tempfile.mkstemp(prefix=f".{Path(target).name}.", suffix=".partial", dir=folder)
        os.close(handle)
        os.unlink(partial)
        try:
            copy = new_file_store(Path(partial), user=self.user)
            try:
                copy_catalog(self, copy)
            finally:
                copy.close()
            os.replace(partial, target)
        finally:
            for leftover in (partial, partial + "-wal", partial + "-shm"):
                if os.path.exists(leftover):
                    os.unlink(leftover)

    def run_sql(self, statement: str, *, stop: Callable[[], bool] | None = None,
                timeout: float | None = None) -> tuple[list[str], list[tuple]]:
        """One query on a connection of its own (readonly.py says what keeps it read-only)."""
        settings = {"default_transaction_read_only": "on"}
        if timeout:
            settings["statement_timeout"] = str(max(1, round(timeout * 1000)))
        try:
            conn = connect(self.url, **settings)
        except psycopg.Error as exc:
            raise CatalogError(f"cannot reach {self.location}: {_first_line(exc)}") from None
        try:
            readonly.refuse_privileged(conn)
            with stoppable(conn.raw, stop):
                return readonly.run(conn, statement)
        finally:
            conn.close()

    def schema_revision(self) -> str | None:
        return _revision(self.url)

    def cache_dir(self) -> Path:
        from platformdirs import user_cache_path

        key = hashlib.sha256(self.location.encode("utf-8")).hexdigest()[:16]
        return user_cache_path("catalog", appauthor=False) / "discover" / key


def _refuse_upgrade_by_member(conn: Connection, url: str, revision: str | None) -> None:
    """An older catalog is upgraded by its owner only (a member may not change the schema):
    a member is told so in one line, before a migration fails half-way on the server."""
    if revision is None:
        return
    owner = owner_of(conn)
    if may_act_as(conn, owner):
        return
    raise CatalogError(f"{shown(url)} has schema {revision}, older than this program's "
                       f"({schema.SCHEMA_REVISION}); only its owner ({owner}) can upgrade it: "
                       "`catalog db upgrade` as that role")


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _reach(url: str) -> Connection:
    """A connection to the catalog's database; a server that cannot be reached is one line."""
    try:
        return connect(url, connect_timeout=10)
    except psycopg.Error as exc:
        raise CatalogError(f"cannot open {shown(url)}: {_first_line(exc)}") from None


def _revision(url: str) -> str | None:
    """The database's schema revision; None for an empty database. Refuses (one line) a
    server it cannot reach and a database holding other tables."""
    conn = _reach(url)
    try:
        return _revision_on(conn.raw, url)
    finally:
        conn.close()


def _revision_on(conn: psycopg.Connection, url: str) -> str | None:
    """_revision, on an open connection (autocommit). A role the catalog is not shared with is
    told whom to ask."""
    if conn.execute("SELECT to_regclass('alembic_version')").fetchone()[0] is not None:
        try:
            row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        except psycopg.errors.InsufficientPrivilege:
            me, owner = conn.execute("SELECT current_user::text, tableowner::text FROM pg_tables"
                                     " WHERE schemaname = current_schema() AND tablename = 'alembic_version'").fetchone()
            raise CatalogError(f"{shown(url)} is not shared with {me}: its owner ({owner}) can run "
                               f"`catalog share add-member {shown_role(me)}` (docs/sharing.md)") from None
        if row is None:
            raise CatalogError(f"{shown(url)} has a catalog without its schema version")
        return row[0]
    tables = [r[0] for r in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")]
    if tables:
        raise CatalogError(f"{shown(url)} is not a catalog database (it has tables "
                           f"{', '.join(tables[:5])}); use a new database")
    return None
