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
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from catalog.errors import CatalogError, StoreError
from catalog.paths import shown
from catalog.searching.query import Text
from catalog.store.base import ConnectionPool, Store
from catalog.store.discovery import DiscoveryQueries
from catalog.store.edits import EditQueries
from catalog.store.imports import FACT_COLUMNS, PAPER_COLUMNS, ImportQueries
from catalog.store.papers import PaperReads
from catalog.store.ranked import RankedSearch
from catalog.store.postgres import migrations, readonly, search
from catalog.store.postgres.checks import PostgresChecks
from catalog.store.postgres.connection import Connection, connect, stoppable, store_error
from catalog.store.postgres.sharing import Sharing, may_act_as, owner_of, shown_role
from catalog.store.postgres.topk import PostgresTopLists
from catalog.store.sqlite.maintenance import Maintenance

WRITE_LOCK = 7_311_500_002
CHANNEL = "catalog_changed"
_FETCH = 2000


class PostgresTx(PostgresTopLists, RankedSearch, PaperReads, EditQueries, ImportQueries, DiscoveryQueries,
                 PostgresChecks, Maintenance):
    """One transaction on a shared catalog; `user`: whose status and rating it reads and writes
    (the database role: row-level security lets it touch no one else's).
    Doctor's checks and the ranked lists are PostgreSQL's own (checks.py, topk.py); the text
    derived from abstracts is read and written with the same SQL as on SQLite (Maintenance)."""

    def __init__(self, conn: Connection, user: str):
        self.conn = conn
        self.user = user

    compiler = search

    # --- typo suggestions (catalog/searching/suggest.py): the words as written, from the exact vector ------

    def papers_with_word(self, word: str, at_most: int, *, prefix: bool = False) -> int:
        """How many papers hold this (folded) word, or with `prefix` a word starting with it,
        counted up to `at_most`."""
        phrase = search.tsquery_phrase(Text(word, prefix=prefix))
        if phrase is None:
            return 0
        return self.conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM paper WHERE search_vector @@ to_tsquery('{search.CONFIG}', ?)"
            " LIMIT ?) AS found", (phrase, at_most)).scalar()

    def venue_counts(self) -> tuple[tuple[str, int | None, int], ...]:
        """(venue, year, papers), newest year first (search.venue_counts_sql)."""
        return tuple((r["venue"], r["year"], r["papers"]) for r in self.conn.execute(search.venue_counts_sql()))

    def vocabulary(self) -> Iterator[tuple[str, int]]:
        """(word, papers holding it) of the words starting with a Latin letter, in word order,
        through ts_stat over every paper's vector (seconds at 100k papers: the caller caches
        it by `vocabulary_stamp`)."""
        cursor = self.conn.execute(
            "SELECT word, ndoc FROM ts_stat('SELECT search_vector FROM paper')"
            " WHERE word >= 'a' AND word < '{' ORDER BY word COLLATE \"C\"")._cursor
        while batch := cursor.fetchmany(5000):
            for row in batch:
                yield row["word"], row["ndoc"]

    def vocabulary_stamp(self) -> str:
        newest = self.conn.execute("SELECT coalesce(max(id), 0) FROM paper").scalar()
        sources = self.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM source").one()
        titled = self.conn.execute("SELECT count(*), coalesce(max(updated_at)::text, '') FROM paper"
                                   " WHERE user_title IS NOT NULL").one()
        return f"{newest}/{sources[0]}/{sources[1]}/{titled[0]}/{titled[1]}"

    @contextmanager
    def stoppable(self, stop: Callable[[], bool] | None) -> Iterator[None]:
        with stoppable(self.conn.raw, stop):
            yield

    # --- bulk loads: the search vectors are generated columns, so there is nothing to defer -------

    # Within an import's transaction only (SET LOCAL): GIN indexes collect new entries in a
    # pending list and merge it into the index when it outgrows gin_pending_list_limit (4 MB by
    # default: many small merges during a large import); the commit does not wait for its WAL
    # to reach the disk (a crash can lose the last imported file, never consistency).
    BULK_SETTINGS = (("gin_pending_list_limit", "64MB"), ("work_mem", "64MB"),
                     ("synchronous_commit", "off"))

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        for name, value in self.BULK_SETTINGS:
            self.conn.execute(f"SET LOCAL {name} = '{value}'")
        yield

    def index_papers_from(self, first_id: int) -> None:
        pass

    def insert_papers(self, papers, keys, stamp) -> list[int]:
        """New papers through COPY, ids max+1 onwards (this transaction holds the write lock),
        then the id sequence moved past them."""
        first = self.max_paper_id() + 1
        columns = ("id", "key", *PAPER_COLUMNS, "tags_text", "notes_text", "added_at", "updated_at")
        with self.conn.raw.cursor() as cursor:
            with cursor.copy(f"COPY paper ({', '.join(columns)}) FROM STDIN") as copy:
                for n, (key, paper) in enumerate(zip(keys, papers)):
                    copy.write_row((first + n, key, *paper, "", "", stamp, stamp))
            cursor.execute("SELECT setval(pg_get_serial_sequence('paper', 'id'), greatest(max(id), 1))"
                           " FROM paper")
        return list(range(first, first + len(papers)))

    # --- an import's lookups and provenance: one statement with arrays each --------------------
    # The shared SQL (store/imports.py) sends chunks of `IN (?, ?, ...)` and one INSERT per
    # record; psycopg parses each long placeholder list anew and pipelines 10,000 INSERTs
    # for 10,000 records (4 s of a 10,000-paper import under load). An array parameter is
    # one placeholder; unnest() inserts them all at once.

    def existing_keys(self, keys: Iterable[str]) -> set[str]:
        return set(self.conn.execute("SELECT key FROM paper WHERE key = ANY(?)", (list(keys),)).scalars())

    def papers_with_values(self, column: str, values: Iterable[str]) -> list[tuple[str, int]]:
        assert column in ("doi", "arxiv_id", "fingerprint")
        return [(r[column], r["id"]) for r in self.conn.execute(
            f"SELECT {column}, id FROM paper WHERE {column} = ANY(?)", (list(values),))]

    def paper_facts(self, ids: Iterable[int]) -> dict[int, object]:
        return {row["id"]: row for row in self.conn.execute(
            f"SELECT {FACT_COLUMNS} FROM paper WHERE id = ANY(?::int[])", (list(ids),))}

    def add_provenance(self, places: Iterable[tuple[int, int, int]]) -> None:
        columns = [list(column) for column in zip(*places)]
        if columns:
            self.conn.execute(
                "INSERT INTO provenance(paper_id, source_id, position)"
                " SELECT * FROM unnest(?::int[], ?::int[], ?::int[]) ON CONFLICT DO NOTHING", columns)

    def ids_copied(self) -> None:
        """After rows arrived with their ids (copying.py): each id sequence moves past them."""
        for table in ("source", "paper", "paper_merge", "tag", "note", "saved_search"):
            self.conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), greatest(max(id), 1))"
                              f" FROM {table}")

    # --- discovery ---------------------------------------------------------------------------------

    def text_version(self) -> tuple[int, int, str]:
        count, max_id = self.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM paper").one()
        sources = self.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM source").one()
        titled = self.conn.execute("SELECT count(*), coalesce(max(updated_at)::text, '') FROM paper"
                                   " WHERE user_title IS NOT NULL").one()
        return count, max_id, f"sources {sources[0]}/{sources[1]}; titles {titled[0]}/{titled[1]}"

    def paper_texts(self, ids: Collection[int] | None = None, *, after_id: int = 0
                    ) -> Iterator[tuple[int, str, str]]:
        wanted = None if ids is None else set(ids)
        cursor = self.conn.execute(
            "SELECT id, coalesce(user_title, title, '') AS title, abstract_text FROM paper"
            " WHERE id > ? ORDER BY id", (after_id,))._cursor
        while batch := cursor.fetchmany(_FETCH):
            for row in batch:
                if wanted is None or row["id"] in wanted:
                    yield row["id"], row["title"], row["abstract_text"]


class Pool(ConnectionPool):
    """Connections to one database (store/base.py's ConnectionPool)."""

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
    TOP_LISTS_MODULE = "catalog.store.postgres.topk"

    def __init__(self, url: str, pool: Pool, user: str):
        self.url = url
        self.location = shown(url)
        self.pool = pool
        self.user = user
        self.sharing = Sharing(self)
        self._listener: psycopg.Connection | None = None
        self._changes = 0
        self._listen_lock = threading.Lock()
        self._lists_refused = False  # the server refused to keep a ranked list (a read-only role)

    @classmethod
    def open(cls, url: str, *, notify=lambda message: None, catch_up: bool = True) -> "PostgresStore":
        """The catalog in the database at `url`, read as the role the URL connects as: created
        when the database is empty, migrated when older (by its owner); a database that holds
        other tables, is newer, cannot be reached or is not shared with this role is refused
        with one line."""
        # The connection that reads the schema's revision is the pool's first: the start-up
        # check and catch_up below, then the first search, run on one connection (one server
        # process started, its caches warmed once).
        first = _reach(url)
        try:
            revision = _revision_on(first.raw, url)
        except BaseException:
            first.close()
            raise
        if revision != migrations.SCHEMA_REVISION:
            try:
                migrations.refuse_newer(shown(url), revision)
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
        store = cls(url, pool, who)
        if catch_up:
            store.catch_up()
        return store

    # --- transactions ------------------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[PostgresTx]:
        with self._errors(), self.pool.connection() as conn:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                tx = PostgresTx(conn, self.user)
                tx.rank_list = self._rank_list
                yield tx
            finally:
                conn.rollback()

    def _rank_list(self, index: str, expression: str):
        """Rank the list of an AND or phrase of frequent words a search found missing
        (postgres/topk.py), on another connection, committed: (its state, its papers), or None
        when another writer holds the catalog (an import: the search ranks every match, and the
        next one tries again) or the database refuses writes (a read-only role, a standby: not
        tried again by this process, so the server's log gets one refusal, not one a search)."""
        if self._lists_refused:
            return None
        try:
            with self.pool.connection() as conn:
                conn.execute("BEGIN")
                try:
                    made = None
                    if conn.execute(f"SELECT pg_try_advisory_xact_lock({WRITE_LOCK})").scalar():
                        made = PostgresTx(conn, self.user).rank_list_now(index, expression)
                        conn.commit()
                    return made
                finally:
                    conn.rollback()
        except (StoreError, psycopg.Error) as error:
            refused = (psycopg.errors.InsufficientPrivilege, psycopg.errors.ReadOnlySqlTransaction)
            self._lists_refused = isinstance(error.__cause__ or error, refused)
            return None

    @contextmanager
    def write(self, *, catch_up: bool = True) -> Iterator[PostgresTx]:
        with self._errors(), self.pool.connection() as conn:
            conn.execute("BEGIN")
            conn.execute(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
            try:
                tx = PostgresTx(conn, self.user)
                if catch_up and (edited := tx.papers_to_rederive()):
                    from catalog.importing.derived import refresh

                    refresh(tx, edited)
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

    def catch_up(self) -> None:
        with self.read() as tx:
            if not tx.papers_to_rederive():
                return
        with self.write():
            pass

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

        from catalog.store.copying import copy_catalog
        from catalog.store.sqlite.store import SqliteStore

        folder = Path(target).resolve().parent
        handle, partial = tempfile.mkstemp(prefix=f".{Path(target).name}.", suffix=".partial", dir=folder)
        os.close(handle)
        os.unlink(partial)
        try:
            copy = SqliteStore.open(Path(partial), user=self.user, catch_up=False)
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
                       f"({migrations.SCHEMA_REVISION}); only its owner ({owner}) can upgrade it: "
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
