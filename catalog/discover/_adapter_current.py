"""TEMPORARY: DiscoverStore over today's schema, reading the SQLite file directly.

For the engine's tests and benchmarks until the storage refactor (issue 11); then
`catalog/store/` implements DiscoverStore and this file is deleted. Nothing but tests and
benchmarks may import it. It is the only place under catalog/discover/ that holds SQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

from catalog.discover.results import CatalogVersion, PaperText, TopicRecord

_FETCH = 2000


class CurrentSchemaStore:
    def __init__(self, db_path: Path, cache_dir: Path | None = None):
        self.db_path = Path(db_path)
        self._cache_dir = cache_dir
        self.saved_topics: dict[str, list[TopicRecord]] = {}  # no table yet: kept here

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
        return conn

    def version(self) -> CatalogVersion:
        conn = self._connect()
        try:
            conn.execute("BEGIN")
            count, max_id = conn.execute("SELECT count(*), coalesce(max(id), 0) FROM paper").fetchone()
            # Texts of known papers change through imports (a merge fills in a title or an
            # abstract; every import adds a source row) and retitling (user_title, a partial
            # index holds those papers). Tags, ratings and statuses change none of these.
            sources = conn.execute("SELECT count(*), coalesce(max(id), 0) FROM source").fetchone()
            titled = conn.execute("SELECT count(*), coalesce(max(updated_at), '') FROM paper"
                                  " WHERE user_title IS NOT NULL").fetchone()
            conn.execute("COMMIT")
        finally:
            conn.close()
        return CatalogVersion(count, max_id, f"sources {sources[0]}/{sources[1]}; titles {titled[0]}/{titled[1]}")

    def paper_texts(self, ids: Collection[int] | None = None, *, after_id: int = 0
                    ) -> Iterator[PaperText]:
        # The title when there is one, not the headline: a headline is made from the
        # abstract's first sentence and would only count those words twice.
        wanted = None if ids is None else set(ids)
        conn = self._connect()
        try:
            conn.execute("BEGIN")
            cursor = conn.execute(
                "SELECT id, coalesce(user_title, title, ''), abstract_text FROM paper"
                " WHERE id > ? ORDER BY id", (after_id,))
            while rows := cursor.fetchmany(_FETCH):
                for pid, title, abstract in rows:
                    if wanted is None or pid in wanted:
                        yield PaperText(pid, f"{title}\n{abstract}")
            conn.execute("COMMIT")
        finally:
            conn.close()

    def tagged(self, tag: str) -> list[int]:
        conn = self._connect()
        try:
            return [r[0] for r in conn.execute(
                "SELECT DISTINCT pt.paper_id FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id"
                " WHERE t.name = ? OR t.name LIKE ? ESCAPE '\\' ORDER BY pt.paper_id",
                (tag, tag.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"))]
        finally:
            conn.close()

    def liked(self) -> list[int]:
        conn = self._connect()
        try:
            return [r[0] for r in conn.execute(
                "SELECT id FROM paper WHERE rating >= 4 OR status = 'read' ORDER BY id")]
        finally:
            conn.close()

    def cache_dir(self) -> Path:
        if self._cache_dir is not None:
            return self._cache_dir
        import hashlib

        from platformdirs import user_cache_path

        key = hashlib.sha256(str(self.db_path.resolve()).encode("utf-8")).hexdigest()[:16]
        return user_cache_path("catalog", appauthor=False) / "discover" / key

    def save_topics(self, scope: str, records: Sequence[TopicRecord]) -> None:
        self.saved_topics[scope] = list(records)
