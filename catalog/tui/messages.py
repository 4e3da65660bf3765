"""App-wide messages. Workers post these instead of touching widgets; each result carries the
search generation, request or paper key it answers, so a late, stale answer is dropped.

A message that a newer one of its kind makes moot says so in `can_replace`: Textual then
handles only the newer when both wait in the same queue (a steady typist's counts and
facets, the first rows of a search already typed over)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message

from catalog.results import (
    Edit, Facets, Linked, MissingWords, PageSnippet, PaperDetail, PaperSummary, RelatedPaper, Suggestion,
    TopicCount, TriageCount, TriageOrder,
)
from catalog.searching.highlight import Terms
from catalog.searching.request import SearchRequest
from catalog.text.tex import Styled
from catalog.tui.facetlist import Entry


@dataclass
class QueryChanged(Message):
    """The search text settled (after the debounce, or at once for a facet click);
    `finished`: Enter was pressed (a short last word is searched, not left out)."""

    query: str
    finished: bool = False


@dataclass
class FilterChosen(Message):
    """A facet or saved search was clicked: `text` is added to the query, or replaces it."""

    text: str
    replace: bool = False


# --- a search's answers (catalog/tui/search.py's worker) ----------------------------------

@dataclass
class SearchAnswer(Message):
    """Something search number `generation` found. Once a newer search's answer is queued
    behind it, it is moot: the screen would drop it."""

    generation: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SearchAnswer) and message.generation > self.generation


@dataclass
class SearchResults(SearchAnswer):
    """The first page of `request`; `total` is None while the count is still running. `more`:
    the rows are only the first of that page (what the screen shows first); the whole page
    follows (SearchRest)."""

    request: SearchRequest
    rows: list[PaperSummary]
    total: int | None
    more: bool = False


@dataclass
class SearchRest(SearchAnswer):
    """The whole first page, after its first rows (SearchResults' `more`); `total` as
    SearchResults'."""

    rows: list[PaperSummary]
    total: int | None


@dataclass
class SearchCount(SearchAnswer):
    total: int


@dataclass
class KeptAt(SearchAnswer):
    """The paper the search keeps the cursor on is row `index` of its results, past the
    first page (sorting put it there)."""

    index: int


@dataclass
class SearchSuggestions(SearchAnswer):
    """Closest words for the words of the search that (almost) no paper holds
    (catalog/searching/suggest.py), and the words no paper holds when papers with the
    others are listed."""

    suggestions: list[Suggestion]
    missing: MissingWords | None = None


@dataclass
class SearchFailed(SearchAnswer):
    """The search cannot run (a QueryError, usually while it is still being typed, or a busy
    database); `message` says why in one line."""

    message: str


# --- what the sidebar and the reading pane read for themselves ----------------------------

@dataclass
class DetailLoaded(Message):
    """A paper, with its abstract rendered for display (catalog.text.tex.render_styled) and
    the terms to mark in it (Catalog.highlight_terms for `request`)."""

    key: str
    detail: PaperDetail | None
    error: str | None = None
    styled: Styled | None = None
    terms: Terms | None = None
    request: SearchRequest | None = None  # whose terms these are
    pages: tuple[PageSnippet, ...] = ()  # its PDFs' best pages for `request`

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, DetailLoaded) and message.key == self.key  # read again since


@dataclass
class FacetsLoaded(Message):
    """Counts of the papers `request` finds (by relevance with those holding only some of
    the words, as the list holds them)."""

    request: SearchRequest
    facets: Facets
    venues: tuple[Entry, ...] | None = None  # facets.venues grouped, most first (by the worker)
    authors: tuple[Entry, ...] | None = None  # facets.authors sorted, most first (by the worker)

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FacetsLoaded) and message.request == self.request  # fresher


@dataclass
class FacetsFailed(Message):
    """The counts for `request` could not be read, after trying again (`message`: why, one
    line); the sidebar still shows an earlier search's."""

    request: SearchRequest
    message: str


@dataclass
class TopicsLoaded(Message):
    """The whole catalog's stored topics; `stale`: papers came or went since they were made
    (or there are none); `grouped`: sent by the worker that made them, which is done."""

    topics: tuple[TopicCount, ...]
    stale: bool
    grouped: bool = False


@dataclass
class TopicPapers(Message):
    """The papers of topic `number` (`label`), to mark (a topic chosen in the sidebar)."""

    number: int
    label: str
    papers: list[PaperSummary]


# --- the catalog elsewhere, and changes made here -----------------------------------------

@dataclass
class CatalogChanged(Message):
    """The catalog's version, polled: when it moved, someone (another `catalog` command,
    another person) committed a change. None: it could not be read this time."""

    version: int | None


@dataclass
class PapersChanged(Message):
    """A write finished: `edit` says what it changed; `kind` is "do", "undo" or "redo"."""

    label: str
    edit: Edit
    kind: str


@dataclass
class FileAttached(Message):
    """A file was attached to paper `key` (`new`: not attached before); `text`: what reading
    its text gave ('text', 'no text', 'encrypted', 'unreadable'; None: not a PDF)."""

    key: str
    name: str
    new: bool
    text: str | None


@dataclass
class ActionFailed(Message):
    """A write or load failed with a message the user can act on."""

    message: str


@dataclass
class TagsLoaded(Message):
    """Fresh tag names (all, and those of `tags`' papers), read when the tag dialog opened."""

    known: list[str]
    tags: dict[str, tuple[str, ...]]


@dataclass
class MarksChecked(Message):
    """Which marked papers (of those asked about) the results of `generation` do not hold;
    `then` is the action waiting for the answer."""

    generation: int
    hidden: list[str]
    then: Callable


@dataclass
class LinkOpened(Message):
    """`link` went to the browser (`opened`), or the paper has none (None); with `file`, `link`
    is an attached file's path that went to the opener."""

    title: str
    link: str | None
    opened: bool
    file: bool = False


@dataclass
class Copied(Message):
    """Text for the clipboard, made from `papers` papers."""

    text: str
    label: str
    papers: int


@dataclass
class Exported(Message):
    """`unchanged`, `skipped`: a vault's files already up to date, and those left alone."""

    papers: int
    format: str
    path: str
    unchanged: int = 0
    skipped: tuple[str, ...] = ()


@dataclass
class SimilarLoaded(Message):
    """The papers most like paper `key` (`m`), or why there are none (`error`)."""

    key: str
    papers: list[RelatedPaper] | None
    error: str | None = None


# --- triage mode (screens/triage.py) -------------------------------------------------------

@dataclass
class TriageRows(Message):
    """Untriaged papers of the triage's list, in its own order; `full`: there may be more;
    `error`: the list cannot be read (a query that cannot run, a locked database)."""

    generation: int
    rows: list[PaperSummary]
    full: bool
    error: str | None = None


@dataclass
class TriageCounted(Message):
    count: TriageCount


@dataclass
class TriageRanked(Message):
    """The untriaged papers most promising first; None: nothing to learn from yet;
    `error`: the ranking failed (the list's own order stays)."""

    generation: int
    order: TriageOrder | None
    error: str | None = None


# --- papers from the web (adding.py) -------------------------------------------------------

@dataclass
class WebPapersAdded(Message):
    """What `A` (or a reference's `a`) fetched and added, one Added per identifier, or the
    one line saying why nothing was (`error`: offline, not an identifier)."""

    added: list
    error: str | None = None


@dataclass
class LinkedLoaded(Message):
    """The papers paper `key` cites (or, `citing`, those citing it), or why not (`error`)."""

    key: str
    citing: bool
    linked: Linked | None
    error: str | None = None
