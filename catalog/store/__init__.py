"""All of the program's SQL, behind declared role interfaces (base/: Store, Transaction and
its roles).

    base/          the seam: Store, Transaction, its roles (papers, edits, imports, search,
                   discovery, upkeep, lists: a module each) and the store's lists across
                   transactions
    rows.py        rows to the dataclasses of catalog/results/ and the store's named results,
                   by column name; the summary columns; IN-list chunks
    pool.py        what both backends' connections share: rows, a pool of connections
    compiler.py    the query compiler's interface and its CompiledQuery (one per backend)
    tierplan.py    the search tiers a query's words make, planned once for both compilers
    fts5.py        SQLite's full-text index: tables, columns and weights, a word quoted
    tsvector.py    PostgreSQL's full-text index: its vectors and ts_rank's weights
    schema.py      the schema's revision and history (Alembic), one for every backend
    papers.py      Papers: keys, summaries, details, export records, counts
    edits.py       Edits: tags, status/rating/title, notes, saved searches, annotations
    imports.py     Imports: sources, new papers, provenance, dedupe lookups, merges, acronyms,
                   the text derived from abstracts
    discovery.py   Discovery: stored topics, which papers it learns from or leaves out
    ranked.py      Search: the tiers walked, counts, facets, acronyms
    filters.py     the query language's filters as SQL conditions (both backends)
    lists/         the ranked lists of frequent words: scoring, reading, building, upkeep
    copying.py     a whole catalog from one store into another (`catalog copy`, backups)
    sqlite/        the SQLite backend: connections and pragmas, files and their checks,
                   migrations, the FTS5 compiler, its own roles, doctor's checks, `catalog sql`
    postgres/      the PostgreSQL backend (a shared catalog): the same roles through a
                   connection that takes `?` placeholders, a tsvector compiler, COPY for bulk
                   loads, LISTEN/NOTIFY for data_version, its doctor checks

The shared modules are plain SQL that SQLite and PostgreSQL both run; a backend adds what only
it can do (full-text search, bulk loads, upkeep). postgres/ never imports sqlite/. Nothing
outside this package writes SQL (a test checks), holds a connection, or reads a row by position.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from catalog.errors import StoreError
from catalog.store.base import Store, Transaction
from catalog.store.rows import Revision


def open_store(location: Path | str, *, notify=lambda message: None, user: str | None = None,
               rederive: Callable[[Transaction, list[int]], object] | None = None) -> Store:
    """The catalog at `location` (a file path, or a postgresql:// URL): created when nothing
    is there, migrated when older, refused with one line (CatalogError) when it is not a
    catalog or cannot be opened. `user`: whose reading status and rating a file's catalog reads
    and writes (None: $CATALOG_USER's default); on a server the reader is always the database
    role the URL connects as. `rederive`: the step that derives the text of abstracts edited
    by hand, run at open and before each write (None: never). psycopg is imported only for a
    server."""
    from catalog.paths import is_server_url

    if is_server_url(location):
        from catalog.extras import require

        require("postgres")
        from catalog.store.postgres.store import PostgresStore

        if user is not None:
            raise ValueError("on a server the reader is the database role; give it in the URL")
        return PostgresStore.open(str(location), notify=notify, rederive=rederive)
    from catalog.store.sqlite.store import SqliteStore

    return SqliteStore.open(Path(location), notify=notify, user=user, rederive=rederive)


def first_use(location: Path | str, *, seed: bool = False, notify=lambda message: None):
    """A context held while the caller opens the catalog at `location` and, with `seed`, seeds
    it: of several processes preparing a new or older file at once, one creates, migrates and
    seeds it while the others wait (sqlite/preparing.py). A server catalog is prepared under
    its own transaction, and never seeded: nothing to hold."""
    from contextlib import nullcontext

    from catalog.paths import is_server_url

    if is_server_url(location):
        return nullcontext()
    from catalog.store.sqlite.preparing import preparing

    return preparing(Path(location), seed=seed, notify=notify)


def check_file(path: Path):
    """What `catalog doctor` can learn of (and do to) a catalog file before it is opened,
    including files no other command opens: a FileCheck (sqlite/checkup.py)."""
    from catalog.store.sqlite.checkup import FileCheck

    return FileCheck(Path(path))


def copy_catalog(source: Store, target: Store) -> dict[str, int]:
    """Everything in store `source` copied into store `target`, which holds no papers; rows
    per table (copying.py)."""
    from catalog.store.copying import copy_catalog as copy

    return copy(source, target)


def script_engine(location: Path | str):
    """A SQLAlchemy engine on the catalog at `location` for scripts (catalog.models.engine):
    on a file, with the pragmas a script's connection needs; on a server, through psycopg."""
    from sqlalchemy import create_engine, event

    from catalog.paths import is_server_url

    if is_server_url(str(location)):
        from catalog.extras import require

        require("postgres")
        from catalog.store.postgres.migrations import sqlalchemy_url

        return create_engine(sqlalchemy_url(str(location)))
    from catalog.store.sqlite.connection import script_pragmas

    made = create_engine(f"sqlite:///{Path(location).expanduser()}")
    event.listen(made, "connect", lambda dbapi_connection, _record: script_pragmas(dbapi_connection))
    return made


def schema_history() -> list[Revision]:
    """Every migration, oldest first: one history for every backend."""
    from catalog.store.schema import history

    return history()


__all__ = ["Store", "StoreError", "Transaction", "check_file", "copy_catalog", "open_store", "schema_history",
           "script_engine"]
