"""A page of a search, in a read transaction: the papers the query names first, then those
its words find (the store's tiers), the papers attached PDFs' pages found merged in as pages.py
ranks them, marked when they have files or notices; and snippets built in Python from the
page's rows (FTS5's snippet() would run the query again per row). Catalog (library.py) opens
the transaction and asks these."""

from __future__ import annotations

import dataclasses

from catalog.results import PaperSummary, SearchHit, gravest
from catalog.searching import highlight, pages
from catalog.searching.query import RELEVANCE, Query, Sort
from catalog.searching.request import SearchRequest


def _named_then_found(tx, parsed: Query, named: list[int], limit: int, offset: int, sort: Sort,
                      with_text: bool) -> list[SearchHit]:
    """A page of a search: the papers it names first (understood), then what its query finds."""
    first = named[offset:offset + limit] if limit >= 0 else named[offset:]
    hits = [SearchHit(pid, summary, None, None) for pid, summary in zip(first, tx.papers.summaries(first))]
    rest = limit - len(hits) if limit >= 0 else -1
    if rest:
        hits += tx.search.page(parsed, limit=rest, offset=max(0, offset - len(named)),
                               with_text=with_text and parsed.has_text, sort=sort)
    return hits


def page(tx, parsed: Query, named: list[int], limit: int, offset: int, sort: Sort,
         with_text: bool, within: str = "all") -> tuple[list[SearchHit], list | None]:
    """A page of a search with the papers attached PDFs' pages found merged in as
    catalog/searching/pages.py ranks them (a search by relevance; `within` "text": only
    those), and the pages found (None: not read, the page being full without them); papers
    with files and notices say so."""
    hits, found = _merged(tx, parsed, named, limit, offset, sort, with_text, within)
    ids = [hit.paper_id for hit in hits]
    filed = tx.papers.with_files(ids) if hits else set()
    flags = {pid: gravest(n.kind for n in ns) for pid, ns in tx.papers.notices_of(ids).items()} if hits else {}
    if filed or flags:
        hits = [dataclasses.replace(hit, summary=dataclasses.replace(
                    hit.summary, has_files=hit.paper_id in filed, notice=flags.get(hit.paper_id)))
                if hit.paper_id in filed or hit.paper_id in flags else hit for hit in hits]
    return hits, found


def _merged(tx, parsed: Query, named: list[int], limit: int, offset: int, sort: Sort,
            with_text: bool, within: str) -> tuple[list[SearchHit], list | None]:
    if within == "all" and not with_text and limit >= 0 and sort == RELEVANCE and parsed.has_text:
        # Rows without snippets (the TUI's): when papers whose own text holds every word fill
        # the page, those found only on pages come after it, and a frequent word's pages (it
        # is on most) are not ranked at every key.
        own = _named_then_found(tx, parsed, named, offset + limit, 0, sort, with_text)
        if sum(1 for hit in own if hit.summary.match != "some") >= offset + limit:
            return own[offset:], None  # None: the pages were not read
    found = tx.search.pages(parsed, pages.PAGES) if within != "abstracts" and parsed.has_text else []
    if found and sort == RELEVANCE:
        whole = _named_then_found(tx, parsed, named, -1 if limit < 0 else offset + limit, 0, sort, with_text)
        hits = pages.merged(tx, whole, parsed, pages.best_pages(found), text_only=within == "text")
        return (hits[offset:] if limit < 0 else hits[offset:offset + limit]), found
    if within == "text":
        best = pages.best_pages(found)
        ids = list(best)[offset:] if limit < 0 else list(best)[offset:offset + limit]
        return pages.merged(tx, [], parsed, {pid: best[pid] for pid in ids}, text_only=True), found
    return _named_then_found(tx, parsed, named, limit, offset, sort, with_text), found


def count_only_on_pages(tx, parsed: Query, asked: SearchRequest, partial: bool | None = None, *,
                   found: list | None = None) -> int:
    """How many papers a search lists only because a page of their PDF holds its words
    (`found`: the pages, when the caller read them already)."""
    if not parsed.has_text or asked.sort != RELEVANCE:
        return 0
    found = tx.search.pages(parsed, pages.PAGES) if found is None else found
    return pages.only_on_pages(tx, parsed, list(pages.best_pages(found)),
                               asked.partial if partial is None else partial) if found else 0


def with_page_snippets(summaries: list[PaperSummary], hits: list[SearchHit], found, query,
                        also: dict[str, list[str]]) -> list[PaperSummary]:
    """Summaries with the page number and a snippet of the best page holding the words, for
    papers an attached file's page was found in."""
    if not found:
        return summaries
    best = pages.best_pages(found)
    terms = highlight.terms_of(query, also)
    done = []
    for summary, hit in zip(summaries, hits):
        top = best.get(hit.paper_id)
        if top:
            text = " ".join(top[0].text.split())
            summary = dataclasses.replace(summary, page=top[0].page,
                                          page_snippet=highlight.snippet(text, terms) if terms else text[:160])
        done.append(summary)
    return done


def with_snippets(hits: list[SearchHit], query, also: dict[str, list[str]]) -> list[PaperSummary]:
    """Summaries with a snippet of each abstract around the words the query matched (and
    the forms its acronyms stand for, `also`)."""
    terms = highlight.terms_of(query, also)
    return [dataclasses.replace(hit.summary, snippet=highlight.snippet(hit.text, terms))
            if terms and hit.text else hit.summary for hit in hits]
