"""The engine's DiscoverStore over a catalog's store: what it reads, through named queries."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

from catalog.discover.results import CatalogVersion, PaperText, TopicRecord


class StoreSource:
    """DiscoverStore (protocol.py) for a catalog.store.Store."""

    def __init__(self, store, cache_dir: Path | None = None):
        self.store = store
        self._cache_dir = cache_dir

    def version(self) -> CatalogVersion:
        with self.store.read() as tx:
            found = tx.discovery.text_version()
        return CatalogVersion(found.papers, found.max_id, found.stamp)

    def paper_texts(self, ids: Collection[int] | None = None, *, after_id: int = 0
                    ) -> Iterator[PaperText]:
        with self.store.read() as tx:
            for paper in tx.discovery.paper_texts(ids, after_id=after_id):
                yield PaperText(paper.paper_id, f"{paper.title}\n{paper.abstract}")

    def acronyms(self) -> dict[str, str]:
        """Short form as written -> long form, of the acronyms the abstracts define (the long
        form most papers give it; none when texts use it as an ordinary word)."""
        from catalog.searching.acronyms import winners

        with self.store.read() as tx:
            rows = tx.discovery.acronyms()
        won = winners(rows)
        return {r.short: r.long for r in rows if won.get(r.short.lower(), ("",))[0] == r.long_key}

    def tagged(self, tag: str) -> list[int]:
        with self.store.read() as tx:
            return tx.discovery.tagged_papers(tag)

    def liked(self) -> list[int]:
        with self.store.read() as tx:
            return tx.discovery.liked_papers()

    def cache_dir(self) -> Path:
        return self._cache_dir or self.store.cache_dir()

    def save_topics(self, scope: str, records: Sequence[TopicRecord]) -> None:
        """Into the `topic` table (migration 0007), replacing the scope's rows."""
        with self.store.write() as tx:
            tx.discovery.save_topics(scope, records)


def engine(store):
    """The discovery engine of a catalog's store (its cache in the store's cache folder)."""
    from catalog.discover.engine import Discovery

    return Discovery(StoreSource(store))
