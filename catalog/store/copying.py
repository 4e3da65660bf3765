"""A whole catalog from one store into another (`catalog copy`, `catalog backup` from a server):
every table's rows with their ids, so keys, tags, notes, everyone's marks (on a server, those
the role may read), saved searches and merge records all arrive as they were. Plain SQL both
backends run; the target's triggers build its search index and the copies of tags and notes as
the rows arrive."""

from __future__ import annotations

from catalog.errors import CatalogError
from catalog.store.schema import TABLES

BATCH = 2000
# Booleans SQLite keeps as 0/1, which PostgreSQL takes only as true/false.
BOOLEANS = {"acronym": ("ordinary",), "citekey": ("generated",)}


# Whose marks and notes a row holds: the copier's in the source are the copier's in the target.
PERSON = {"paper_reader": "reader", "note": "author"}


def copy_catalog(source, target) -> dict[str, int]:
    """Copy everything in store `source` into store `target`, which must hold no papers (a new
    file or an empty database); rows per table. One write transaction on the target.

    Whoever copies stays themselves: the status, ratings and notes of the source's reader
    become the target's reader's (a login name in a file, a database role on a server), unless
    that name already has marks of its own in the source; everyone else's keep their names."""
    counts: dict[str, int] = {}
    with source.read() as reader, target.write(catch_up=False) as writer:
        if writer.conn.execute("SELECT 1 FROM paper LIMIT 1").first() is not None:
            raise CatalogError(f"{target.location} already holds papers: copy into a new file or an "
                               "empty database (`catalog import` merges paper lists into a catalog)")
        taken = reader.conn.execute("SELECT 1 FROM paper_reader WHERE reader = ? LIMIT 1", (target.user,)).first()
        renamed = {} if taken is not None else {source.user: target.user}
        for table, columns in TABLES:
            marks = ", ".join("?" * len(columns.split(",")))
            insert = f"INSERT INTO {table}({columns}) VALUES ({marks})"
            cursor = reader.conn.execute(f"SELECT {columns} FROM {table} ORDER BY 1")
            rows = [tuple(r) for r in cursor.all()]
            if table in PERSON and renamed:
                at = [c.strip() for c in columns.split(",")].index(PERSON[table])
                rows = [(*r[:at], renamed.get(r[at], r[at]), *r[at + 1:]) for r in rows]
            if table in BOOLEANS:
                at = [[c.strip() for c in columns.split(",")].index(c) for c in BOOLEANS[table]]
                rows = [tuple(bool(v) if i in at and v is not None else v for i, v in enumerate(r))
                        for r in rows]
            for start in range(0, len(rows), BATCH):
                writer.conn.executemany(insert, rows[start:start + BATCH])
            counts[table] = len(rows)
        writer.imports.ids_copied()
    return counts


def new_file_store(path, *, user: str):
    """A new, empty catalog file at `path` (a server's backup is one)."""
    from catalog.store.sqlite.store import SqliteStore

    return SqliteStore.open(path, user=user)
