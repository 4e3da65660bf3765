"""What `catalog doctor` checks and repairs in a SQLite catalog (the Upkeep role): integrity,
missing schema objects, rows pointing nowhere, imported files without papers, the search
copies of tags and notes, and the FTS index. catalog/parts/doctor.py decides what to run and
reports; this module only reads and writes."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from catalog.errors import StoreError
from catalog.store import schema
from catalog.store.base import Upkeep
from catalog.store.rows import DanglingRow, SchemaObject
from catalog.store.sqlite.connection import plain_connection
from catalog.store.sqlite.fts import FTS_TABLE, NOTES_TEXT_OF, STEM_TABLE, TAGS_TEXT_OF

_COPIES = {"tags_text": TAGS_TEXT_OF, "notes_text": NOTES_TEXT_OF}
_ORDER = {"table": 0, "index": 1, "view": 2, "trigger": 3}
_EMPTY_SOURCES = "FROM source WHERE id NOT IN (SELECT source_id FROM provenance)"


def reference_schema(revision: str = "head") -> dict[str, tuple[str, str]]:
    """name -> (type, sql) of a fresh catalog at `revision` (default: this program's schema),
    without the FTS index's shadow tables (they come with the index) and alembic_version."""
    return dict(_fresh_schema(str(schema.migrations_dir()), revision))


@functools.cache
def _fresh_schema(migrations: str, revision: str) -> tuple[tuple[str, tuple[str, str]], ...]:
    """Made once per process and migrations folder: running every migration in a new file is
    slow, and a process running doctor on several catalogs (the test suite) need not pay it
    again for the same answer."""
    import tempfile  # here: doctor's alone (it brings shutil and the compressors)

    from catalog.store.sqlite.migrations import upgrade

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "reference.db"
        upgrade(path, revision)
        conn = plain_connection(path)
        try:
            rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
        finally:
            conn.close()
    return tuple((name, (kind, sql)) for kind, name, sql in rows
                 if not (kind == "table" and name.startswith(FTS_TABLE + "_")) and name != "alembic_version")


class Maintenance(Upkeep):
    """doctor's checks and repairs on a catalog file."""

    # --- integrity ----------------------------------------------------------------------------

    def integrity_problems(self) -> list[str]:
        return [r for r in self.conn.execute("PRAGMA integrity_check").scalars() if r != "ok"]

    def reindex(self) -> None:
        self.conn.execute("REINDEX")

    # --- schema objects -------------------------------------------------------------------------

    def missing_objects(self) -> list[SchemaObject]:
        """What this program's schema has and the file lacks, tables first."""
        present = set(self.conn.execute("SELECT name FROM sqlite_master").scalars())
        missing = [SchemaObject(kind, name, sql) for name, (kind, sql) in reference_schema().items()
                   if name not in present]
        return sorted(missing, key=lambda m: (_ORDER.get(m.kind, 9), m.name))

    def create_objects(self, objects: Iterable[SchemaObject]) -> None:
        for missing in objects:
            self.conn.execute(missing.sql)

    # --- rows pointing nowhere -------------------------------------------------------------------

    def dangling_rows(self) -> list[DanglingRow]:
        """Rows whose foreign key points nowhere."""
        return [DanglingRow(r["table"], r["rowid"], r["parent"])
                for r in self.conn.execute("PRAGMA foreign_key_check")]

    def delete_dangling(self) -> Counter:
        rows = {(row.table, row.rowid) for row in self.dangling_rows() if row.rowid is not None}
        for table, rowid in sorted(rows):
            self.conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))
        return Counter(table for table, _ in rows)

    # --- imported files without papers -------------------------------------------------------------

    def empty_sources(self) -> int:
        return self.conn.execute(f"SELECT count(*) {_EMPTY_SOURCES}").scalar()

    def delete_empty_sources(self) -> int:
        return self.conn.execute(f"DELETE {_EMPTY_SOURCES}").rowcount

    # --- paper.tags_text / paper.notes_text -----------------------------------------------------------

    def stale_copies(self) -> dict[str, int]:
        """Papers whose tags_text or notes_text differ from their tags or notes, by column."""
        out = {}
        for column, expected in _COPIES.items():
            out[column] = self.conn.execute(
                f"SELECT count(*) FROM paper WHERE {column} IS NOT {expected.format(pid='paper.id')}").scalar()
        return out

    def recompute_copies(self) -> dict[str, int]:
        out = {}
        for column, expected in _COPIES.items():
            value = expected.format(pid="paper.id")
            out[column] = self.conn.execute(
                f"UPDATE paper SET {column} = {value} WHERE {column} IS NOT {value}").rowcount
        return out

    # --- the FTS index ------------------------------------------------------------------------------

    def search_index_problem(self) -> str | None:
        """None when the FTS index matches the paper table, else SQLite's complaint."""
        for table in (FTS_TABLE, STEM_TABLE):
            try:
                self.conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
            except StoreError as exc:  # SQLite reports an index out of step as an error
                return str(exc)
        return None

    def rebuild_search_index(self) -> None:
        for table in (FTS_TABLE, STEM_TABLE):
            self.conn.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")


