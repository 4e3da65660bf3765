"""The search role (`tx.search`): the query language's answers: pages, counts, facets, the
index's words."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator

from catalog.store.base.role import Role
from catalog.results import Facets, SearchHit
from catalog.store.rows import PageHit, PaperFacts, WordCount, WordPapers


class Search(Role):
    """The query language's answers (catalog/searching/query.py's Query in, results out)."""

    @abstractmethod
    def page(self, query, *, limit: int = 50, offset: int = 0, with_text: bool = False,
             partial: bool = True, sort=None) -> list[SearchHit]:
        """The SearchHits of the page of papers `query` finds, best first (or in `sort`'s
        order); limit -1: all."""

    @abstractmethod
    def ids(self, query) -> list[int]:
        """The ids of every paper holding all of `query`'s words, in search order."""

    @abstractmethod
    def count(self, query, *, partial: bool = False) -> int: ...

    @abstractmethod
    def facets(self, query, *, partial: bool = False) -> Facets:
        """Facets of the papers `query` finds (its saved searches left to the caller)."""

    @abstractmethod
    def acronyms_for(self, query) -> dict[str, list[str]]: ...

    @abstractmethod
    def word_papers(self, query) -> list[WordPapers]:
        """Each word of a query of several words, as typed, and how many papers hold it in
        any form (counted up to a bound; WordPapers, rows.py); [] for one word."""

    @abstractmethod
    def titled(self, title: str, limit: int = 20) -> list[PaperFacts]:
        """The facts of papers whose real title holds `title`."""

    @abstractmethod
    def papers_with_word(self, word: str, at_most: int, *, prefix: bool = False) -> int: ...

    @abstractmethod
    def pages(self, query, limit: int, paper_id: int | None = None) -> list[PageHit]:
        """The PageHits (rows.py) of attached files' pages holding `query`'s words (its
        filters are the caller's), best first, of one paper's files with `paper_id`; [] for a
        query without words."""

    @abstractmethod
    def vocabulary(self) -> Iterator[WordCount]: ...

    @abstractmethod
    def vocabulary_stamp(self) -> str: ...
