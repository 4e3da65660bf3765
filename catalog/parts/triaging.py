"""Triage, one paper at a time (the TUI's triage mode): how many of a search's papers are
triaged, those that are not, and the order to see them in. Catalog (library.py) makes one as
`catalog.triage`; the ranking is the discovery engine's (catalog/discover/related.py)."""

from __future__ import annotations

from catalog.results import PaperSummary, TriageCount, TriageOrder
from catalog.searching.query import Clause, Filter, Query, parse
from catalog.store import Store


class Triage:
    """One catalog's triage: it reads, and never writes the catalog."""

    def __init__(self, store: Store):
        self.store = store

    def triage_count(self, query: str) -> TriageCount:
        """How many papers `query` finds, and how many of them are triaged (status no longer
        unread, or rated)."""
        parsed = parse(query)
        with self.store.read() as tx:
            total = tx.search.count(parsed)
            left = tx.search.count(_untriaged(parsed)) if total else 0
        return TriageCount(total, total - left)

    def untriaged(self, query: str, *, limit: int = 500) -> list[PaperSummary]:
        """The first `limit` papers of `query` not triaged yet, in the search's own order."""
        with self.store.read() as tx:
            return [hit.summary for hit in tx.search.page(_untriaged(parse(query)), limit=limit)]

    def triage_order(self, query: str, *, limit: int = 500) -> TriageOrder | None:
        """The untriaged papers of `query`, most promising first: ranked by the discovery
        engine's recommender against the papers the user rated 4-5, queued, is reading, read
        or tagged. None when there are none of those to learn from. Loads scikit-learn and
        may build the discovery cache: call it from a worker."""
        from catalog.discover import related

        parsed = parse(query)
        return related.triage_order(self.store, _untriaged(parsed), limit, whole_catalog=parsed.is_empty)


def _untriaged(query: Query) -> Query:
    """`query` narrowed to the papers not triaged yet: status unread and no rating."""
    return Query([*query.clauses, Clause((Filter("status", "=", "unread"),)),
                  Clause((Filter("has", "=", "rating"),), negated=True)], query.source)
