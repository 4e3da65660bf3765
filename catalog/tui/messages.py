"""App-wide messages. Workers post these instead of touching widgets; each result carries the
query (and search generation) or paper key it answers, so a late, stale answer is dropped."""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message

from catalog.searching.highlight import Terms
from catalog.results import (
    Edit, Facets, PaperDetail, PaperSummary, RelatedPaper, Suggestion, TopicCount, TriageCount,
    TriageOrder,
)
from catalog.text.tex import Styled


class QueryChanged(Message):
    """The search text settled (after the debounce, or at once for a facet click);
    `finished`: Enter was pressed (a short last word is searched, not left out)."""

    def __init__(self, query: str, finished: bool = False) -> None:
        super().__init__()
        self.query = query
        self.finished = finished


class FilterChosen(Message):
    """A facet or saved search was clicked: `text` is added to the query, or replaces it."""

    def __init__(self, text: str, replace: bool = False) -> None:
        super().__init__()
        self.text = text
        self.replace = replace


class SearchResults(Message):
    """The first page for `query`; `total` is None while the count is still running. `more`:
    the rows are only the first of that page (what the screen shows first); the whole page
    follows (SearchRest)."""

    def __init__(self, query: str, generation: int, rows: list[PaperSummary],
                 total: int | None, more: bool = False) -> None:
        super().__init__()
        self.query = query
        self.generation = generation
        self.rows = rows
        self.total = total
        self.more = more


class SearchRest(SearchResults):
    """The whole first page for `query`, after its first rows (SearchResults' `more`); `total`
    as SearchResults'. (Handled by on_search_rest only: Textual names a handler per class.)"""


class SearchCount(Message):
    def __init__(self, query: str, generation: int, total: int) -> None:
        super().__init__()
        self.query = query
        self.generation = generation
        self.total = total


class SearchSuggestions(Message):
    """Closest words for the words of `query` that (almost) no paper holds (catalog/searching/suggest.py)."""

    def __init__(self, query: str, generation: int, suggestions: list[Suggestion]) -> None:
        super().__init__()
        self.query = query
        self.generation = generation
        self.suggestions = suggestions


class SearchFailed(Message):
    """The query cannot run (a QueryError, usually while it is still being typed)."""

    def __init__(self, query: str, generation: int, message: str) -> None:
        super().__init__()
        self.query = query
        self.generation = generation
        self.message = message


class DetailLoaded(Message):
    """A paper, with its abstract rendered for display (catalog.text.tex.render_styled) and
    the terms to mark in it (Catalog.highlight_terms)."""

    def __init__(self, key: str, detail: PaperDetail | None, error: str | None = None,
                 styled: Styled | None = None, terms: Terms | None = None) -> None:
        super().__init__()
        self.key = key
        self.detail = detail
        self.error = error
        self.styled = styled
        self.terms = terms  # what to mark: the query's words, and what its acronyms stand for


class FacetsLoaded(Message):
    """Counts of the papers `facets.query` finds (`partial`: with those holding some of
    the words, as the list does by relevance)."""

    def __init__(self, facets: Facets, partial: bool = True) -> None:
        super().__init__()
        self.facets = facets
        self.partial = partial


class FacetsFailed(Message):
    """The counts for `query` could not be read, after trying again (`message`: why, one
    line); the sidebar still shows an earlier search's."""

    def __init__(self, query: str, partial: bool, message: str) -> None:
        super().__init__()
        self.query = query
        self.partial = partial
        self.message = message


class CatalogChanged(Message):
    """The catalog's version, polled: when it moved, someone (another `catalog` command,
    another person) committed a change. None: it could not be read this time."""

    def __init__(self, version: int | None) -> None:
        super().__init__()
        self.version = version


class PapersChanged(Message):
    """A write finished: `edit` says what it changed; `kind` is "do", "undo" or "redo"."""

    def __init__(self, label: str, edit: Edit, kind: str) -> None:
        super().__init__()
        self.label = label
        self.edit = edit
        self.kind = kind


class ActionFailed(Message):
    """A write or load failed with a message the user can act on."""

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message


class TagsLoaded(Message):
    """Fresh tag names (all, and those of `tags`' papers), read when the tag dialog opened."""

    def __init__(self, known: list[str], tags: dict[str, tuple[str, ...]]) -> None:
        super().__init__()
        self.known = known
        self.tags = tags


class MarksChecked(Message):
    """Which marked papers (of those asked about) the results of `generation` do not hold;
    `then` is the action waiting for the answer."""

    def __init__(self, generation: int, hidden: list[str], then: Callable) -> None:
        super().__init__()
        self.generation = generation
        self.hidden = hidden
        self.then = then


class LinkOpened(Message):
    """`link` went to the browser (`opened`), or the paper has none (None)."""

    def __init__(self, title: str, link: str | None, opened: bool) -> None:
        super().__init__()
        self.title = title
        self.link = link
        self.opened = opened


class Copied(Message):
    """Text for the clipboard, made from `papers` papers."""

    def __init__(self, text: str, label: str, papers: int) -> None:
        super().__init__()
        self.text = text
        self.label = label
        self.papers = papers


class Exported(Message):
    """`unchanged`, `skipped`: a vault's files already up to date, and those left alone."""

    def __init__(self, papers: int, format: str, path: str, unchanged: int = 0,
                 skipped: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.papers = papers
        self.format = format
        self.path = path
        self.unchanged = unchanged
        self.skipped = skipped


class TriageRows(Message):
    """Untriaged papers of the triage's list, in its own order; `full`: there may be more;
    `error`: the list cannot be read (a query that cannot run, a locked database)."""

    def __init__(self, generation: int, rows: list[PaperSummary], full: bool,
                 error: str | None = None) -> None:
        super().__init__()
        self.generation = generation
        self.rows = rows
        self.full = full
        self.error = error


class TriageCounted(Message):
    def __init__(self, count: TriageCount) -> None:
        super().__init__()
        self.count = count


class TriageRanked(Message):
    """The untriaged papers most promising first; None: nothing to learn from yet;
    `error`: the ranking failed (the list's own order stays)."""

    def __init__(self, generation: int, order: TriageOrder | None, error: str | None = None) -> None:
        super().__init__()
        self.generation = generation
        self.order = order
        self.error = error
class SimilarLoaded(Message):
    """The papers most like paper `key` (`m`), or why there are none (`error`)."""

    def __init__(self, key: str, papers: list[RelatedPaper] | None, error: str | None = None) -> None:
        super().__init__()
        self.key = key
        self.papers = papers
        self.error = error


class TopicsLoaded(Message):
    """The whole catalog's stored topics; `stale`: papers came or went since they were made
    (or there are none); `grouped`: sent by the worker that made them, which is done."""

    def __init__(self, topics: tuple[TopicCount, ...], stale: bool, grouped: bool = False) -> None:
        super().__init__()
        self.topics = topics
        self.stale = stale
        self.grouped = grouped


class FindTopics(Message):
    """The sidebar's "find topics" was chosen: group the whole catalog (again)."""


class TopicPapers(Message):
    """The papers of topic `number`, to mark (a topic chosen in the sidebar)."""

    def __init__(self, number: int, papers: list[PaperSummary]) -> None:
        super().__init__()
        self.number = number
        self.papers = papers
