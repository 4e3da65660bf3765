"""The full text of attached PDFs in a search: a lower-weight part of the ranking.

A search's words are also looked for on the pages of attached files (the store's page index,
tx.search.pages). The papers are then listed as:

  1. those whose title, abstract, tags or notes hold every word (the search as before), a
     page's snippet added when a page holds them too;
  2. those only a page holds every word of (match "text"), best page first: below every
     paper whose own text holds the words, above those holding only some of them;
  3. those holding some of the words (match "some").

`within` narrows a search: "abstracts" (titles, abstracts, tags, notes: no pages), "text"
(only the pages of attached files), "all" (both, the default).
"""

from __future__ import annotations

import dataclasses

from catalog.results import SearchHit
from catalog.searching.query import Clause, Filter, Query, Text

WITHIN = ("all", "abstracts", "text")
# Pages read for one search: enough for the best pages of a long first page of papers.
PAGES = 400
# Best pages kept per paper (the TUI's reading pane shows them).
PAGES_PER_PAPER = 3


def check_within(within: str) -> str:
    if within not in WITHIN:
        from catalog.errors import CatalogError

        raise CatalogError(f"search within {within!r}? It takes {', '.join(WITHIN)}")
    return within


def best_pages(hits) -> dict[int, list]:
    """paper id -> its best PageHits (at most PAGES_PER_PAPER), papers in order of their best page."""
    found: dict[int, list] = {}
    for hit in hits:
        kept = found.setdefault(hit.paper_id, [])
        if len(kept) < PAGES_PER_PAPER:
            kept.append(hit)
    return found


def filters_only(query: Query) -> list[Clause]:
    """What a paper found by its pages must also satisfy: the query's filters (venue:, year:,
    tag: ...) and the words it must not hold (-survey)."""
    return [c for c in query.clauses if c.negated or not any(isinstance(o, Text) for o in c.options)]


def merged(tx, hits: list[SearchHit], query: Query, pages: dict[int, list], *, text_only: bool) -> list[SearchHit]:
    """The hits of a search with the papers its pages found merged in (the module's order)."""
    if text_only:
        hits = []
    whole = [h for h in hits if h.summary.match != "some"]
    some = [h for h in hits if h.summary.match == "some"]
    listed = {h.paper_id for h in whole}
    extra = _allowed(tx, query, [pid for pid in pages if pid not in listed])
    summaries = dict(zip(extra, tx.papers.summaries(extra)))
    found = [dataclasses.replace(h, summary=dataclasses.replace(h.summary, match="text")) for h in
             (SearchHit(pid, summaries[pid], None, None) for pid in extra)]
    taken = listed | set(extra)
    return whole + found + [h for h in some if h.paper_id not in taken]


def only_on_pages(tx, query: Query, ids: list[int], partial: bool) -> int:
    """Of the papers `ids` whose pages hold the query's words, how many its filters let
    through that the search would not list anyway (their own text holding the words: all of
    them, or with `partial` some)."""
    allowed = _allowed(tx, query, ids)
    if not allowed:
        return 0
    keys = tx.papers.keys_of(allowed)
    listed = Query([*query.clauses, Clause(tuple(Filter("key", "=", keys[pid]) for pid in allowed if pid in keys))])
    return len(allowed) - len({hit.paper_id for hit in tx.search.page(listed, limit=-1, partial=partial)})


def _allowed(tx, query: Query, ids: list[int]) -> list[int]:
    """Of `ids`, in their order, those the query's filters let through."""
    clauses = filters_only(query)
    if not ids or not clauses:
        return ids
    keys = tx.papers.keys_of(ids)
    narrowed = Query([*clauses, Clause(tuple(Filter("key", "=", keys[pid]) for pid in ids if pid in keys))])
    allowed = {hit.paper_id for hit in tx.search.page(narrowed, limit=-1)}
    return [pid for pid in ids if pid in allowed]
