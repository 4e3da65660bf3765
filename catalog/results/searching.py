"""What searches and overviews answer: pages, counts, facets, suggestions, missing words,
acronyms users added, and triage's counts and order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from catalog.results.papers import PaperSummary


@dataclass(frozen=True)
class Suggestion:
    """A query word that finds (almost) nothing, and the index's closest words to it."""

    word: str  # as typed
    alternatives: tuple[str, ...]  # nearest first

    def as_json(self) -> dict:
        return {"word": self.word, "alternatives": list(self.alternatives)}


@dataclass(frozen=True)
class MissingWords:
    """A search's words that no paper holds, and those the papers it lists hold some of."""

    missing: tuple[str, ...]  # as typed
    held: tuple[str, ...]
    apart: tuple[str, ...] = ()  # of `missing`, compounds whose words papers hold apart

    def as_json(self) -> dict:
        return {"missing": list(self.missing), "held": list(self.held), "apart": list(self.apart)}


@dataclass(frozen=True)
class SearchHit:
    """One paper a search found: its summary, and what snippets and ranking need."""

    paper_id: int
    summary: PaperSummary
    text: str | None  # the rendered abstract, when asked for (snippets are made from it)
    score: float | None  # bm25, lower is better; None when listing without words


@dataclass(frozen=True)
class FirstPage:
    """A search's first rows (Catalog.first_page), and how many papers it finds when known."""

    rows: list[PaperSummary]
    total: int | None


@dataclass(frozen=True)
class TagCount:
    name: str
    count: int


class AuthorCount(NamedTuple):
    """A person and how many papers (of those asked about) they wrote. A NamedTuple: the TUI's
    facet reads one per person of a real library (24,000), built at a third of a dataclass's
    cost in the thread that shares the UI thread's interpreter."""

    name: str
    papers: int


class VenueCount(NamedTuple):
    """Papers of one venue in one year (a venue's papers without a year: year None)."""

    venue: str  # "?" for papers without one
    year: int | None
    papers: int


class StatusCount(NamedTuple):
    status: str
    papers: int


class RatingCount(NamedTuple):
    rating: int | None  # None: not rated
    papers: int


@dataclass(frozen=True)
class Stats:
    papers: int
    sources: int
    notes: int
    tags: int
    by_venue: tuple[VenueCount, ...]
    by_status: tuple[StatusCount, ...]
    by_rating: tuple[RatingCount, ...]


@dataclass(frozen=True)
class Facets:
    """Counts for the TUI sidebar, of the papers a query finds (the whole catalog for "").
    A tag's count includes its children's papers, as the tag: filter does."""

    venues: tuple[VenueCount, ...]
    tags: tuple[TagCount, ...]
    statuses: tuple[StatusCount, ...]
    ratings: tuple[RatingCount, ...]
    saved: tuple["SavedQuery", ...]
    total: int  # papers counted
    query: str = ""
    catalog_total: int = 0  # papers in the catalog
    tag_names: tuple[str, ...] = ()  # every tag in the catalog (for completion)
    authors: tuple[AuthorCount, ...] = ()  # most papers first
    with_pdf: int = 0  # papers with a PDF attached
    with_files: int = 0  # papers with any file attached


@dataclass(frozen=True)
class SavedQuery:
    name: str
    query: str


@dataclass(frozen=True)
class AddedAcronym:
    """An acronym a user added: searches for either form find the other."""

    short: str
    long: str

    def as_json(self) -> dict:
        return {"short": self.short, "long": self.long}


@dataclass(frozen=True)
class TriageCount:
    """How far the triage of a list has come: a paper is triaged once its status is no
    longer unread or it has a rating."""

    total: int
    triaged: int


@dataclass(frozen=True)
class TriageOrder:
    """Untriaged papers of a list, most promising first, and how many papers of the user's
    (rated 4-5, queued, reading, read or tagged) the ranking learnt from."""

    papers: tuple[PaperSummary, ...]
    learnt_from: int
