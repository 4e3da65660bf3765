"""All of the program's SQL, behind one interface (base.Store and its transactions).

    base.py        the interface: Store (read/write transactions, whole-catalog operations)
    rows.py        rows to the dataclasses of catalog/results.py, by column name; IN-list chunks
    papers.py      reading papers: keys, summaries, details, export records, counts
    edits.py       what users write: tags, status/rating/title, notes, saved searches
    imports.py     sources, new papers, provenance, dedupe lookups, merges and splits
    discovery.py   stored topics; which papers a recommendation leaves out
    sqlite/        the SQLite backend: connections and pragmas, files, migrations, the FTS5
                   query compiler and search, doctor's checks, `catalog sql`

The shared modules are plain SQL that SQLite and PostgreSQL both run; a backend adds what only
it can do (full-text search, bulk loads, upkeep). Nothing outside this package writes SQL (a
test checks), holds a connection, or reads a row by position.
"""

from __future__ import annotations

from pathlib import Path

from catalog.errors import StoreError
from catalog.store.base import Store


def open_store(path: Path, *, notify=lambda message: None) -> Store:
    """The catalog at `path`: created when nothing is there, migrated when older, refused
    with one line (CatalogError) when it is not a catalog or cannot be opened."""
    from catalog.store.sqlite.store import SqliteStore

    return SqliteStore.open(Path(path), notify=notify)


def schema_history() -> list[tuple[str, str | None, str]]:
    """(revision, parent, message) of every migration, oldest first: one history for every
    backend."""
    from catalog.store.sqlite.migrations import history

    return history()


__all__ = ["Store", "StoreError", "open_store", "schema_history"]
