"""All of the program's SQL, behind one interface (base.Store and its transactions).

    base.py        the interface: Store (read/write transactions, whole-catalog operations)
    rows.py        rows to the dataclasses of catalog/results.py, by column name; IN-list chunks
    papers.py      reading papers: keys, summaries, details, export records, counts
    edits.py       what users write: tags, status/rating/title, notes, saved searches
    imports.py     sources, new papers, provenance, dedupe lookups, merges and splits
    discovery.py   stored topics; which papers a recommendation leaves out
    filters.py     the query language's filters as SQL conditions (both backends)
    sqlite/        the SQLite backend: connections and pragmas, files, migrations, the FTS5
                   query compiler and search, doctor's checks, `catalog sql`, ranked lists of
                   frequent words and prefixes (read and rescored: topk.py; chosen, built and
                   refreshed: topbuild.py), the pages of their ANDs and phrases (topand.py)
                   and of one of them under filters few papers pass (topfew.py)
    copying.py     a whole catalog from one store into another (`catalog copy`, backups)
    postgres/      the PostgreSQL backend (a shared catalog): the same transactions through a
                   connection that takes `?` placeholders, a tsvector query compiler, COPY for
                   bulk loads, LISTEN/NOTIFY for data_version, its doctor checks, ranked lists
                   of frequent words (topk.py)

The shared modules are plain SQL that SQLite and PostgreSQL both run; a backend adds what only
it can do (full-text search, bulk loads, upkeep). Nothing outside this package writes SQL (a
test checks), holds a connection, or reads a row by position.
"""

from __future__ import annotations

from pathlib import Path

from catalog.errors import StoreError
from catalog.store.base import Store


def open_store(location: Path | str, *, notify=lambda message: None, user: str | None = None,
               catch_up: bool = True) -> Store:
    """The catalog at `location` (a file path, or a postgresql:// URL): created when nothing
    is there, migrated when older, refused with one line (CatalogError) when it is not a
    catalog or cannot be opened. `user`: whose reading status and rating a file's catalog reads
    and writes (None: $CATALOG_USER's default); on a server the reader is always the database
    role the URL connects as. psycopg is imported only for a server."""
    from catalog.paths import is_server_url

    if is_server_url(location):
        from catalog.store.postgres.store import PostgresStore

        if user is not None:
            raise ValueError("on a server the reader is the database role; give it in the URL")
        return PostgresStore.open(str(location), notify=notify, catch_up=catch_up)
    from catalog.store.sqlite.store import SqliteStore

    return SqliteStore.open(Path(location), notify=notify, user=user, catch_up=catch_up)


def schema_history() -> list[tuple[str, str | None, str]]:
    """(revision, parent, message) of every migration, oldest first: one history for every
    backend."""
    from catalog.store.sqlite.migrations import history

    return history()


__all__ = ["Store", "StoreError", "open_store", "schema_history"]
