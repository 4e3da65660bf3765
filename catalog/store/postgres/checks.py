"""`catalog doctor` on a server: the checks of catalog/parts/doctor.py, as transaction methods."""

from __future__ import annotations

from collections import Counter

from catalog.store.base import Upkeep


class PostgresChecks(Upkeep):
    """What `catalog doctor` checks on a server (catalog/parts/doctor.py runs the same checks as on
    SQLite). PostgreSQL keeps its own pages, keys and the generated search vector right, so
    integrity, rows pointing nowhere and the search index have nothing to find; the copies of
    tags and notes on the paper rows and the text derived from abstracts can be edited wrong
    by hand (psql) and are checked and recomputed."""

    _COPIES = {"tags_text": "catalog_tags_text(paper.id)", "notes_text": "catalog_notes_text(paper.id)"}
    _EMPTY_SOURCES = "FROM source WHERE id NOT IN (SELECT source_id FROM provenance)"

    def integrity_problems(self) -> list[str]:
        return []

    def reindex(self) -> None:
        pass

    def missing_objects(self) -> list:
        return []

    def create_objects(self, objects) -> None:
        pass

    def dangling_rows(self) -> list:
        return []

    def delete_dangling(self):
        return Counter()

    def empty_sources(self) -> int:
        return self.conn.execute(f"SELECT count(*) {self._EMPTY_SOURCES}").scalar()

    def delete_empty_sources(self) -> int:
        return self.conn.execute(f"DELETE {self._EMPTY_SOURCES}").rowcount

    def stale_copies(self) -> dict[str, int]:
        return {column: self.conn.execute(
            f"SELECT count(*) FROM paper WHERE {column} IS DISTINCT FROM {expected}").scalar()
            for column, expected in self._COPIES.items()}

    def recompute_copies(self) -> dict[str, int]:
        return {column: self.conn.execute(
            f"UPDATE paper SET {column} = {expected} WHERE {column} IS DISTINCT FROM {expected}").rowcount
            for column, expected in self._COPIES.items()}

    def search_index_problem(self) -> str | None:
        return None

    def rebuild_search_index(self) -> None:
        pass
