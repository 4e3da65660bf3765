"""Discovery for Catalog: papers like one, recommendations, topics of a list, the cache.

The engine (catalog/discover/) answers with paper ids and keeps its derived files in a cache
it checks on every call; this module chooses what to ask it (which papers a recommendation
learns from and which it may suggest, which list to group), turns its answers into the
results.py dataclasses, stores topics, and turns what users can cause into one-line errors.
numpy and scikit-learn load inside the engine, only when a call needs them.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

from catalog.errors import CatalogError, TooFewPositives
from catalog.extras import installed, require
from catalog.searching.query import Query, parse
from catalog.discover.source import engine
from catalog.results import PaperSummary, RelatedPaper, TopicCount, TopicGroup, TriageOrder

MIN_POSITIVES = 2  # one paper is a `similar`, not something to learn a taste from
NOT_SUGGESTED = ("read", "skipped")  # statuses recommend never suggests
WHOLE_CATALOG = ""  # the scope of the whole catalog's stored topics


@contextmanager
def _cache_errors(discovery):
    try:
        yield
    except OSError as exc:
        raise CatalogError(f"cannot build the discovery cache in {discovery.cache_dir}: "
                           f"{exc.strerror or exc}") from None


def similar(store, paper_id: int, limit: int) -> list[RelatedPaper]:
    require("discover")
    discovery = engine(store)
    with _cache_errors(discovery):
        found = discovery.similar(paper_id, limit)
    return _related(store, found)


def recommend(store, tag: str | None, query: str, limit: int) -> list[RelatedPaper]:
    require("discover")
    parsed = parse(query)
    with store.read() as tx:
        positives = tx.discovery.tagged_papers(tag) if tag else tx.discovery.liked_papers()
        # The whole catalog: no search and no list of every id (a scan of the paper table):
        # every paper but those left out, which an index finds.
        pool = None if parsed.is_empty else tx.search.ids(parsed)
        left_out = tx.discovery.ids_with_status(NOT_SUGGESTED)
        total = tx.papers.paper_count()
    learned_from = f"tagged {tag!r}" if tag else "rated 4-5 or marked read"
    if not positives:
        hint = ("`catalog tags` lists the tags" if tag else
                "rate papers you liked (`catalog rate KEY 5`) or name a tag: catalog recommend TAG")
        raise TooFewPositives(f"no paper is {learned_from}, so there is nothing to learn from; {hint}")
    if len(positives) < MIN_POSITIVES:
        raise TooFewPositives(
            f"only 1 paper is {learned_from}: recommend learns from {MIN_POSITIVES} or more; "
            "`catalog similar KEY` finds papers like one")
    if pool is not None and not pool:
        raise CatalogError(f"no papers match {query!r}, so there is nothing to recommend from")
    excluded = left_out | set(positives)
    candidates = None if pool is None else [pid for pid in pool if pid not in excluded]
    if (total - len(excluded) if candidates is None else len(candidates)) <= 0:
        where = f" matching {query!r}" if query.strip() else ""
        raise CatalogError(f"nothing to recommend: every paper{where} is {learned_from}, "
                           "read or skipped")
    discovery = engine(store)
    with _cache_errors(discovery):
        found = discovery.recommend(positives, candidates, limit, exclude_ids=left_out)
    return _related(store, found)


def triage_order(store, untriaged: Query, limit: int, *, whole_catalog: bool) -> TriageOrder | None:
    """The papers `untriaged` finds (narrowed from the whole catalog, or from a list), most
    promising first, learnt from the papers the user rated 4-5, queued, is reading, read or
    tagged; None when there are none of those."""
    require("discover")
    with store.read() as tx:
        positives = tx.discovery.promising_papers()
        if not positives:
            return None
        # The whole catalog: rank every paper and drop the triaged ones afterwards, which
        # costs a count and a few summaries instead of reading every id in search order.
        if whole_catalog:
            candidates = None
            wanted = limit + len(positives) + tx.papers.paper_count() - tx.search.count(untriaged)
        else:
            candidates, wanted = tx.search.ids(untriaged), limit
    if candidates is not None and not candidates:
        return TriageOrder((), len(positives))
    discovery = engine(store)
    with _cache_errors(discovery):
        ranked = discovery.recommend(positives, candidates, wanted)
    with store.read() as tx:
        papers = tx.papers.summaries([r.paper_id for r in ranked])
    untriaged_papers = [p for p in papers if p.status == "unread" and p.rating is None]
    return TriageOrder(tuple(untriaged_papers[:limit]), len(positives))


def topics(store, query: str) -> list[TopicGroup]:
    """The list `query` selects (everything for "") in topics, stored under its scope. Topics
    whose papers mostly stayed together keep the numbers they had (discover.topics.renumber)."""
    from catalog.discover import topic_records
    require("discover")
    from catalog.discover.topics import renumber

    parsed = parse(query)
    scope = " ".join(query.split())
    ids = None
    if not parsed.is_empty:
        with store.read() as tx:
            ids = tx.search.ids(parsed)
        if not ids:
            raise CatalogError(f"no papers match {query!r}, so there are no topics to find")
    discovery = engine(store)
    with _cache_errors(discovery):
        found = discovery.topics(ids)
    if not found:
        raise CatalogError("the catalog has no papers yet: `catalog import PATH` adds some")
    with store.read() as tx:
        found = renumber(found, tx.discovery.topic_numbers(scope))
    with store.write() as tx:  # short: the rows only (100,000 at most a second)
        tx.discovery.save_topics(scope, topic_records(scope, found))
    with store.read() as tx:
        summaries = {s.key: s for s in tx.papers.summaries([pid for t in found for pid in t.paper_ids])}
        keys = tx.papers.keys_of([pid for t in found for pid in t.paper_ids])
    return [TopicGroup(t.number, t.label, t.terms,
                       tuple(summaries[keys[pid]] for pid in t.paper_ids if pid in keys))
            for t in found]


def stored_topics(store) -> tuple[tuple[TopicCount, ...], bool]:
    """The whole catalog's stored topics, and whether they are out of date (papers were
    added or removed since they were made, or there are none)."""
    with store.read() as tx:
        counts = tuple(TopicCount(n, label, size) for n, label, size in tx.discovery.topic_counts(WHOLE_CATALOG))
        total = tx.papers.paper_count()
    return counts, sum(c.count for c in counts) != total


def topic_papers(store, number: int) -> list[PaperSummary]:
    with store.read() as tx:
        return tx.papers.summaries(tx.discovery.topic_paper_ids(WHOLE_CATALOG, number))


def refresh_after_import(store, *, background: bool = False) -> None:
    """After an import that added papers. `background` (what `catalog import` asks): start
    catalog/discover/refresher.py, which brings the cache up to date, or builds it when there is none,
    in a detached process, so the import exits at once and the next discovery command finds
    the cache ready. Otherwise (and with CATALOG_DISCOVER_REFRESH=inline) bring an existing
    cache up to date here (the engine updates it incrementally where it can); a catalog that
    never used discovery builds nothing. Derived data: a failure costs a rebuild on the next
    use, never the import. Without the discover extra there is no cache to keep."""
    if not installed("discover"):
        return
    from catalog.discover import refresher

    discovery = engine(store)
    how = refresher.mode() if background else "inline"
    try:
        state = discovery.status().state
        if how == "background" and state != "fresh":
            # A file by its path, a server catalog by its URL (the process opens it as the
            # CLI does).
            refresher.start(store.path if store.path is not None else store.url, discovery.cache_dir)
        elif how != "off" and state == "stale":
            discovery.refresh()
    except OSError:
        pass


def status(store):
    """The discovery cache's CacheStatus (missing, stale or fresh), building nothing."""
    return engine(store).status()


def refreshing(store) -> bool:
    """Whether a process an import started (catalog/discover/refresher.py) is building or updating the
    cache now."""
    from catalog.discover import refresher

    return refresher.running(engine(store).cache_dir)


def _related(store, found: Sequence) -> list[RelatedPaper]:
    with store.read() as tx:
        summaries = tx.papers.summaries([f.paper_id for f in found])
        keys = tx.papers.keys_of([f.paper_id for f in found])
    by_key = {s.key: s for s in summaries}
    result = []
    for f in found:
        summary = by_key.get(keys.get(f.paper_id))
        if summary is not None:  # deleted since the cache was read
            result.append(RelatedPaper(summary.key, summary.title, summary.venue, summary.year,
                                       f.score, tuple(f.why), summary))
    return result
