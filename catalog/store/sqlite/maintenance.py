"""What `catalog doctor` checks and repairs in a SQLite catalog, as transaction methods:
integrity, missing schema objects, rows pointing nowhere, imported files without papers, the
search copies of tags and notes, text derived from abstracts, and the FTS index. catalog/doctor.py
decides what to run and reports; this module only reads and writes."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from catalog.errors import StoreError
from catalog.store.rows import chunks
from catalog.store.sqlite.connection import plain_connection
from catalog.store.sqlite.fts import (
    FTS_TABLE, NOTES_TEXT_OF, REDERIVE_TABLE, STEM_TABLE, TAGS_TEXT_OF,
)

_COPIES = {"tags_text": TAGS_TEXT_OF, "notes_text": NOTES_TEXT_OF}
_ORDER = {"table": 0, "index": 1, "view": 2, "trigger": 3}
_EMPTY_SOURCES = "FROM source WHERE id NOT IN (SELECT source_id FROM provenance)"
# What derived text is checked against (prepare.derived_text and dedupe.fingerprint).
DERIVED_COLUMNS = ("id", "abstract", "title", "authors", "doi", "arxiv_id", "fingerprint",
                   "abstract_text", "headline", "search_extra")


def reference_schema(revision: str = "head") -> dict[str, tuple[str, str]]:
    """name -> (type, sql) of a fresh catalog at `revision` (default: this program's schema),
    without the FTS index's shadow tables (they come with the index) and alembic_version."""
    from catalog.store.sqlite.migrations import upgrade

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "reference.db"
        upgrade(path, revision)
        conn = plain_connection(path)
        try:
            rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
        finally:
            conn.close()
    return {name: (kind, sql) for kind, name, sql in rows
            if not (kind == "table" and name.startswith(FTS_TABLE + "_")) and name != "alembic_version"}


class Maintenance:
    """Mixed into the SQLite transaction, which provides `self.conn`."""

    # --- integrity ----------------------------------------------------------------------------

    def integrity_problems(self) -> list[str]:
        return [r for r in self.conn.execute("PRAGMA integrity_check").scalars() if r != "ok"]

    def reindex(self) -> None:
        self.conn.execute("REINDEX")

    # --- schema objects -------------------------------------------------------------------------

    def missing_objects(self) -> list[tuple[str, str, str]]:
        """(type, name, sql) of what this program's schema has and the file lacks."""
        present = set(self.conn.execute("SELECT name FROM sqlite_master").scalars())
        missing = [(kind, name, sql) for name, (kind, sql) in reference_schema().items()
                   if name not in present]
        return sorted(missing, key=lambda m: (_ORDER.get(m[0], 9), m[1]))

    def create_objects(self, objects: Iterable[tuple[str, str, str]]) -> None:
        for _, _, sql in objects:
            self.conn.execute(sql)

    # --- rows pointing nowhere -------------------------------------------------------------------

    def dangling_rows(self) -> list[tuple[str, int | None, str]]:
        """(table, rowid, parent table) of rows whose foreign key points nowhere."""
        return [(r[0], r[1], r[2]) for r in self.conn.execute("PRAGMA foreign_key_check")]

    def delete_dangling(self) -> Counter:
        rows = {(table, rowid) for table, rowid, _ in self.dangling_rows() if rowid is not None}
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

    # --- text derived from abstracts -------------------------------------------------------------------

    def papers_to_rederive(self) -> list[int]:
        """Ids of papers whose abstract was edited by hand since their text was derived (a
        trigger notes them)."""
        try:
            return self.conn.execute(f"SELECT paper_id FROM {REDERIVE_TABLE}").scalars()
        except StoreError as exc:  # a file not migrated yet
            if "no such table" in str(exc):
                return []
            raise

    def rederived(self, ids: Iterable[int]) -> None:
        self.conn.executemany(f"DELETE FROM {REDERIVE_TABLE} WHERE paper_id = ?", [(i,) for i in ids])

    def derived_rows(self, ids: Iterable[int] | None = None) -> list:
        """Rows of DERIVED_COLUMNS: of these papers, or of all."""
        select = f"SELECT {', '.join(DERIVED_COLUMNS)} FROM paper"
        if ids is None:
            return self.conn.execute(select).all()
        out = []
        for part, marks in chunks(list(ids)):
            out.extend(self.conn.execute(f"{select} WHERE id IN ({marks})", part).all())
        return out

    def set_derived(self, paper_id: int, *, abstract_text: str, headline: str, search_extra: str,
                    fingerprint: str) -> None:
        self.conn.execute(
            "UPDATE paper SET abstract_text = ?, headline = ?, search_extra = ?, fingerprint = ?"
            " WHERE id = ?", (abstract_text, headline, search_extra, fingerprint, paper_id))

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


