"""A search as the catalog runs it: the text parsed once, what it names, and its order.

`request(text)` is the one place a search's text becomes a query. Catalog's search, count,
facets, highlighting and suggestions take the request it makes (or make one from text), so a
search typed in the TUI is parsed once per key however many pages, counts and facets follow.
"""

from __future__ import annotations

from dataclasses import dataclass

from catalog.searching.identifiers import Identifier, identify
from catalog.searching.query import FILTERS, RELEVANCE, Query, QueryError, Sort, parse


@dataclass(frozen=True)
class SearchRequest:
    text: str  # as it runs (in the TUI the word being typed ends in *)
    query: Query  # parsed; for a DOI or arXiv id, the id as a phrase (abstracts that cite it)
    named: Identifier | None = None  # the key, DOI or arXiv id the whole text names
    sort: Sort = RELEVANCE
    # The last word is a prefix only because it is still being typed (the TUI's `interp` runs
    # as `interp*`): suggestions still check it as a word.
    completing: bool = False

    @property
    def is_empty(self) -> bool:
        """Nothing to search for: no word, phrase, filter or identifier."""
        return self.named is None and self.query.is_empty

    @property
    def partial(self) -> bool:
        """Whether the list holds papers with only some of the words too (after those with
        all of them): by relevance it does; sorted otherwise it holds those with every word,
        and counts and facets count those."""
        return self.sort == RELEVANCE


def request(text: str, sort: Sort | str = RELEVANCE, *, completing: bool = False) -> SearchRequest:
    """`text` as a search: parsed (QueryError for a filter that cannot mean anything) in
    `sort`'s order (a Sort, or its text: "year", "-year")."""
    sort = Sort.parse(sort) if isinstance(sort, str) else sort
    named = identify(text)
    if named is not None and named.kind not in ("key", "citekey"):
        query = parse('"' + named.value.replace('"', "") + '"')
    else:
        try:
            query = parse(text)
        except QueryError:
            if named is None or named.kind != "citekey" or text.strip().partition(":")[0].lower() in FILTERS:
                raise
            query = parse('"' + text + '"')  # DBLP:conf/iclr/KingmaB14 is a key, not a filter
    return SearchRequest(text, query, named, sort, completing)


def as_request(query: SearchRequest | str, sort: Sort | str | None = None) -> SearchRequest:
    """A request as given, or made from text (parsed here, once) in `sort`'s order (None:
    by relevance). A request carries its own sort: TypeError when given another."""
    if isinstance(query, SearchRequest):
        if sort is not None:
            raise TypeError("a SearchRequest carries its own sort")
        return query
    return request(query, RELEVANCE if sort is None else sort)
