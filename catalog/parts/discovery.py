"""Discovery for a catalog: similar papers, recommendations and topics. Catalog (library.py)
makes one as `catalog.discovery`; the work is catalog/discover/'s (numpy, scikit-learn: the
[discover] extra), imported when first asked."""

from __future__ import annotations

from catalog import rules
from catalog.results import PaperSummary, RelatedPaper, StoredTopics, TopicGroup
from catalog.searching.lookup import resolve_key
from catalog.store import Store


class Discovering:
    """One catalog's discovery; each call reads (or refreshes) the discovery cache."""

    def __init__(self, store: Store):
        self.store = store

    def similar(self, key: str, limit: int = 10) -> list[RelatedPaper]:
        """The papers most like paper `key`, best first, each with the terms both share."""
        from catalog.discover import related

        with self.store.read() as tx:
            pid = resolve_key(tx, key)
        return related.similar(self.store, pid, limit)

    def recommend(self, tag: str | None = None, query: str = "", limit: int = 20) -> list[RelatedPaper]:
        """Papers `query` selects (all for ""), ranked by likeness to those tagged `tag` (or,
        without a tag, rated 4-5 or read); never one it learns from, nor one read or skipped.
        CatalogError when it cannot: TooFewPositives (catalog.errors) when fewer than 2 papers
        are there to learn from."""
        from catalog.discover import related

        return related.recommend(self.store, rules.tag_name(tag) if tag else None, query, limit)

    def topics(self, query: str = "") -> list[TopicGroup]:
        """The papers `query` selects (all for "") in labelled topics, largest first; stored in
        the `topic` table (docs/schema.md), replacing that list's earlier topics."""
        from catalog.discover import related

        return related.topics(self.store, query)

    def stored_topics(self) -> StoredTopics:
        """The whole catalog's stored topics, and whether papers came or went since (or there
        are none): then `topics()` makes them again."""
        from catalog.discover import related

        return StoredTopics(*related.stored_topics(self.store))

    def topic_papers(self, number: int) -> list[PaperSummary]:
        """The papers of the whole catalog's stored topic `number`, closest to its centre first."""
        from catalog.discover import related

        return related.topic_papers(self.store, number)

    def discovery_status(self):
        """The discovery cache (a CacheStatus: missing, stale or fresh), building nothing."""
        from catalog.discover import related

        return related.status(self.store)
