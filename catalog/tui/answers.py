"""A search's answers shown: what the catalog screen does with each message its search worker
posts (the first rows, the rest of the page, the count, the paper it kept, suggestions, a
failure), with the list's own (the cursor moved, the venues counted), and with a change made
here (an edit) or elsewhere (another process wrote to the catalog).

The screen receives the messages (a newer one replaces an older one in its queue) and hands
each here; the search's state is SearchState's (search.py), the widgets load their own data."""

from __future__ import annotations

from typing import Protocol

from rich.text import Text

from catalog.results import Edit, Facets, Suggestion
from catalog.searching.suggest import corrected
from catalog.tui.facetlist import column_width
from catalog.tui.jumps import Jumps
from catalog.tui.messages import KeptAt, SearchCount, SearchFailed, SearchRest, SearchResults, SearchSuggestions
from catalog.tui.search import SearchController, empty_message, partial_note, position
from catalog.tui.state import State
from catalog.tui.widgets.detail import DetailPane
from catalog.tui.widgets.paper_list import PaperList
from catalog.tui.widgets.search_bar import SearchBar
from catalog.tui.widgets.sidebar import Sidebar

# The venue column's widest: a wide screen shows this much of a venue (rows.Columns.fit).
VENUE_MOST = 30


class AnswersHost(Protocol):
    """What showing answers needs of the catalog screen."""

    searching: SearchController
    remembered: State
    jumps: Jumps

    @property
    def papers(self) -> PaperList: ...

    @property
    def pane(self) -> DetailPane: ...

    @property
    def sidebar(self) -> Sidebar: ...

    @property
    def search_bar(self) -> SearchBar: ...

    @property
    def facets(self) -> Facets | None: ...

    @property
    def query_text(self) -> str: ...

    def refresh_bindings(self) -> None: ...

    def writing(self) -> str:
        """A change being written, once it has taken a second ("tagging 16,468 papers… N s", N the seconds)."""

    def search(self, query: str, keep: str | None = None, counted: bool | None = None,
               refresh: bool = False, finished: bool = False, typing: bool = False) -> None: ...


class SearchAnswers:
    def __init__(self, screen: AnswersHost) -> None:
        self.screen = screen
        self.bindings_with_paper: bool | None = None  # the footer's keys were chosen with a paper

    def results(self, message: SearchResults) -> None:
        screen = self.screen
        searching, papers = screen.searching, screen.papers
        if not searching.current(message.generation):
            return
        keep = searching.state.keep
        if searching.state.refreshing and papers.current is not None:  # where the cursor went meanwhile
            keep = papers.current.key
        papers.show_results(message.request, message.generation, message.rows, message.total,
                            self.empty_message(), keep, more=message.more)
        searching.took(message.rows, message.total)
        self.show_position()
        # The paper under the cursor is read at once, not when the list's Highlighted comes:
        # that message passes through each widget's queue, and on a busy machine it came
        # after the list had been laid out and drawn and the facets shown, the reading pane
        # empty for seconds after the list appeared.
        if papers.current is not None:
            screen.pane.load(papers.current.key, message.request)
        screen.sidebar.load(message.request, searching.facets_settle)

    def rest(self, message: SearchRest) -> None:
        if self.screen.searching.current(message.generation):
            self.screen.papers.fill(message.rows, message.total)
            self.screen.searching.took(message.rows, message.total)
            self.show_position()

    def count(self, message: SearchCount) -> None:
        if self.screen.searching.current(message.generation):
            self.screen.papers.set_count(message.total)
            self.screen.searching.count_came()
            self.show_position()

    def kept_at(self, message: KeptAt) -> None:
        if self.screen.searching.current(message.generation):
            self.screen.papers.move_to(message.index)

    def suggestions(self, message: SearchSuggestions) -> None:
        screen = self.screen
        if not screen.searching.current(message.generation):
            return
        if message.suggestions:
            screen.searching.state.correction = corrected(screen.query_text, message.suggestions)
            screen.refresh_bindings()
        if not screen.papers.total:
            screen.papers.set_message(self.empty_message(message.suggestions))
        else:  # papers with some of the words are listed: the line under the search bar says
            screen.searching.state.note = partial_note(screen.query_text, message.suggestions, message.missing)
            self.show_position()

    def failed(self, message: SearchFailed) -> None:
        if self.screen.searching.current(message.generation):
            self.screen.searching.failed()
            self.screen.search_bar.hint(f"⚠ {message.message}", error=True)
            self.screen.papers.fetch_rest()  # the rest of the first page failed: the list asks again

    def show_position(self) -> None:
        bar = self.screen.search_bar
        bar.hint(position(self.screen.papers, self.screen.searching.state, bar.hint_width, self.screen.writing()))

    def empty_message(self, suggestions: list[Suggestion] = ()) -> list[Text]:
        facets = self.screen.facets
        return empty_message(self.screen.query_text, facets is not None and not facets.catalog_total,
                             suggestions)

    def highlighted(self, message: PaperList.Highlighted) -> None:
        screen = self.screen
        # The footer's keys depend on whether a paper is under the cursor, not on which one:
        # refreshing them rebuilds the footer and lays the screen out again, which at every
        # key typed cost the UI thread more than the list's page.
        if (message.paper is not None) != self.bindings_with_paper:
            self.bindings_with_paper = message.paper is not None
            screen.refresh_bindings()
        self.show_position()
        screen.remembered.key = message.paper.key if message.paper else None
        screen.jumps.moved(screen.remembered.key)
        if message.paper is None:
            screen.pane.clear()
        elif message.paper.key != screen.pane.asked:  # else on its way since the results came
            screen.pane.load(message.paper.key, screen.searching.state.request)

    def edited(self, edit: Edit) -> None:
        """A change made here: its papers shown anew, the paper under the cursor and the
        counts read again."""
        screen, papers = self.screen, self.screen.papers
        papers.replace(list(edit.papers))
        if papers.current is not None:
            screen.pane.load(papers.current.key, screen.searching.state.request)
        if papers.request is not None:
            screen.sidebar.load(papers.request)
        screen.refresh_bindings()

    def changed_elsewhere(self) -> None:
        """A change made elsewhere: the same query again, the cursor on the same paper (or
        the same row), marks kept; the facets and the paper under the cursor read again."""
        screen = self.screen
        current = screen.papers.current
        screen.sidebar.catalog_changed()
        screen.search(screen.query_text, keep=current.key if current else None, counted=True,
                      refresh=True)

    def counted(self, message: Sidebar.Counted) -> None:
        # The venue column fits the venues: it widens, but never narrows while searching.
        papers = self.screen.papers
        width = column_width((v for v, _, _ in message.facets.venues), 5, VENUE_MOST)
        if message.facets.query.strip():
            width = max(width, papers.venue_width)
        if width != papers.venue_width:
            papers.venue_width = width
            papers.refresh()
