"""Reading the catalog for the app: search, facets, one paper. Each read runs in a thread
worker that posts a message; the handlers, on the UI thread, decide whether the answer is
still wanted and put it on screen."""

from __future__ import annotations

from threading import Event
from time import monotonic, sleep

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.content import Content
from textual.worker import get_current_worker

from catalog.errors import Interrupted
from catalog.library import Catalog
from catalog.searching.query import RELEVANCE, QueryError, Sort
from catalog.results import Facets, PaperDetail, Suggestion
from catalog.searching.suggest import corrected
from catalog.text.tex import render_styled
from catalog.tui.display import first_line
from catalog.tui.messages import (
    CatalogChanged, DetailLoaded, FacetsFailed, FacetsLoaded, QueryChanged, SearchCount, SearchFailed,
    SearchRest, SearchResults, SearchSuggestions,
)
from catalog.tui.state import State
from catalog.tui.querytext import PREFIX_FROM, highlight_terms, tokens, typed_query, unfinished_word
from catalog.tui.widgets.detail import DetailPane
from catalog.tui.widgets.paper_list import PAGE, PaperList
from catalog.tui.widgets.search_bar import SearchBar


# While a word is typed, a key's count and facets start this long after its page is shown: the
# next key (a steady typist's come 100-200 ms apart) cancels them before they cost anything. At
# a million papers they take longer than the page itself, on the same two cores, and made the
# next keys wait (docs/benchmarks.md, issue 16). Until its count comes the list says `200+`
# (`50+` while only its first rows are shown: FIRST below).
SETTLE = 0.5
# A search asks first for the rows the screen shows (FIRST, or the list's height when it is
# taller), shows them, then fetches the whole first page (PAGE) in the same worker, before its
# count: a newer search cancels both. At a million papers a ranked list proves a page of 50
# where a page of 200 needed every match ranked (`venue:ICML gra*`, issue 16). While a word is
# typed the rest waits SETTLE too, unless the list needs a row past the first ones sooner
# (those show as loading until it comes). A search that keeps a paper (a refresh) asks for the
# whole page at once: the paper may be past row FIRST.
FIRST = 50
# Facets that fail (a busy database: another process writing past the busy timeout) are tried
# again after this long, then twice as long; a failure that lasts is said, and the sidebar
# stays dimmed, its counts an earlier search's, until R or the next search.
FACETS_RETRY = 0.5
FACETS_TRIES = 3


def settled(worker, until: float, hurry: Event | None = None) -> bool:
    """Wait until `until` (monotonic()) unless the worker is cancelled first, or `hurry` is
    set; whether it is still wanted."""
    while (left := until - monotonic()) > 0:
        if worker.is_cancelled:
            return False
        if hurry is not None and hurry.is_set():
            break
        sleep(min(left, 0.02))
    return not worker.is_cancelled


def read_paper(catalog: Catalog, key: str, query: str = "") -> DetailLoaded:
    """A paper for the reading pane, its abstract rendered, with what to mark in it for
    `query` (call it from a thread worker)."""
    try:
        detail = catalog.get(key)
    except Exception as exc:  # deleted meanwhile by another process, say
        return DetailLoaded(key, None, first_line(exc))
    try:  # emphasis and scripts the stored plain text has lost; TeX takes a few ms
        styled = render_styled(detail.abstract) if detail.abstract else None
    except Exception:  # imported text is arbitrary: the plain text will do
        styled = None
    try:  # the query's words, and the forms its acronyms stand for
        terms = catalog.highlight_terms(query)
    except Exception:  # a busy database: the words as typed will do
        terms = highlight_terms(query)
    return DetailLoaded(key, detail, styled=styled, terms=terms)


class Loading:
    """Mixed into CatalogScreen, which sets the state below in its __init__. (Handlers here
    use on_* names: @on only works on Textual classes.)"""

    catalog: Catalog
    generation: int
    query_text: str
    searched: tuple[str, Sort] | None = None  # what the last search ran (typed_query), in which order
    keep_key: str | None
    counted: bool  # whether the list's total is the full count yet
    refreshing: bool  # the search under way shows the same results again (a change elsewhere)
    sort: Sort  # the order of the results
    holding_all: int | None = None  # papers with every word, when partial matches follow
    settling = False  # the search shown was typed: its count and facets wait SETTLE first
    rest_wanted: Event | None = None  # set: the search under way fetches its rest at once
    bindings_with_paper: bool | None = None  # the footer's keys were last chosen with a paper current
    remembered: State  # for next time (state.py)
    facets: Facets | None
    detail: PaperDetail | None
    detail_asked: str | None  # the paper read for the pane as the results came

    @property
    def papers(self) -> PaperList:
        return self.query_one("#papers", PaperList)

    @property
    def search_bar(self) -> SearchBar:
        return self.query_one(SearchBar)

    # --- search -------------------------------------------------------------------------

    def search(self, query: str, keep: str | None = None, counted: bool | None = None,
               refresh: bool = False, finished: bool = False, typing: bool = False) -> None:
        """Run `query`; `keep` leaves the cursor on that paper if it is still found.

        `counted`: count before showing the first page (by default when keeping a paper, whose
        place may be deep in the list); without, the count follows the first page. `refresh`:
        the same results again, the cursor staying on whatever paper it is on when they come.
        `finished`: Enter was pressed (typed_query). `typing`: the search bar's text changed; a
        key that leaves the search as it was (the first letters of a word: typed_query leaves
        them out) runs nothing again."""
        run = typed_query(query, finished)
        if typing and not finished and keep is None and (run, self.sort) == self.searched:
            self.query_text = self.remembered.query = query
            return  # the results on screen are this search's (or on their way)
        self.searched = (run, self.sort)
        self.settling = typing and not finished
        self.generation += 1
        # The counts of the results this search replaces are not wanted any more: stop them
        # (at a million papers they take longer than a search, on the same cores).
        self.workers.cancel_group(self, "facets")
        self.query_text, self.keep_key, self.refreshing = query, keep, refresh
        self.remembered.query = query
        counted = keep is not None if counted is None else counted
        first = PAGE if keep is not None or counted else min(PAGE, max(FIRST, self.papers.size.height))
        self.rest_wanted = Event()
        self._search(self.catalog, run, self.sort, self.generation, counted, query,
                     SETTLE if self.settling else 0.0, first, self.rest_wanted)

    def on_query_changed(self, message: QueryChanged) -> None:
        self.search(message.query, finished=message.finished, typing=True)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search(self, catalog: Catalog, query: str, sort: Sort, generation: int, counted: bool,
                typed: str, settle: float = 0.0, first: int = PAGE, hurry: Event | None = None) -> None:
        """`query`: what runs (the word being typed as a prefix); `typed`: as typed, whose
        words are checked for typos when nothing matches. `first`: the rows asked for first
        (FIRST); the rest of the first page follows. The rest and the count wait `settle`
        seconds after the first rows (a key typed meanwhile cancels them unstarted); the rest
        no longer once `hurry` is set (the list needs its rows)."""
        worker = get_current_worker()
        stop = lambda: worker.is_cancelled  # noqa: E731  (a newer search cancels this worker)
        try:
            rows = catalog.search(query, limit=first, snippets=False, sort=sort, cancelled=stop)
            if worker.is_cancelled:
                return
            # Sorted otherwise than by relevance, the list holds only papers with every word.
            partial = sort == RELEVANCE
            more = len(rows) == first < PAGE  # the first page may hold more than these
            total = (len(rows) if len(rows) < first
                     else catalog.count(query, cancelled=stop, partial=partial) if counted else None)
            self.post_message(SearchResults(query, generation, rows, total, more))
            if not rows:
                self._suggest(catalog, typed, query, generation, stop)
            until = monotonic() + settle
            if more:  # the whole first page: the same search, the list's page machinery's size
                if not settled(worker, until, hurry):
                    return
                rows = catalog.search(query, limit=PAGE, snippets=False, sort=sort, cancelled=stop)
                if worker.is_cancelled:
                    return
                if total is None and len(rows) < PAGE:
                    total = len(rows)
                self.post_message(SearchRest(query, generation, rows, total))
            if total is None and settled(worker, until):
                total = catalog.count(query, cancelled=stop, partial=partial)
                if not worker.is_cancelled:
                    self.post_message(SearchCount(query, generation, total))
        except Interrupted:
            return  # superseded: SQLite stopped as soon as it was told
        except QueryError as exc:
            self.post_message(SearchFailed(query, generation, str(exc)))
        except Exception as exc:  # a locked or busy database: say so, keep the old results
            self.post_message(SearchFailed(query, generation, f"search failed: {first_line(exc)}"))

    def _suggest(self, catalog: Catalog, typed: str, query: str, generation: int, stop) -> None:
        try:
            suggestions = catalog.suggest(typed)
        except Exception:  # suggestions are a convenience: the empty list says enough
            return
        if suggestions and not stop():
            self.post_message(SearchSuggestions(query, generation, suggestions))

    def on_search_results(self, message: SearchResults) -> None:
        if message.generation != self.generation:
            return
        keep = self.keep_key
        if self.refreshing and self.papers.current is not None:  # where the cursor went meanwhile
            keep = self.papers.current.key
        self.papers.show_results(message.query, message.generation, message.rows,
                                 message.total, self._empty_message(self.query_text), keep, self.sort,
                                 more=message.more)
        self.counted = message.total is not None
        self._held_all(message.rows)
        self.show_position()
        # The paper under the cursor is read at once, not when the list's Highlighted comes:
        # that message passes through each widget's queue, and on a busy machine it came
        # after the list had been laid out and drawn and the facets shown, the reading pane
        # empty for seconds after the list appeared.
        current = self.papers.current
        self.detail_asked = current.key if current is not None else None
        if current is not None:
            self.load_detail(current.key)
        self.query_one("#sidebar").set_class(True, "-pending")
        self.load_facets(message.query, SETTLE if self.settling else 0.0)

    def on_search_rest(self, message: SearchRest) -> None:
        if message.generation != self.generation:
            return
        self.papers.fill(message.rows, message.total)
        self.counted = message.total is not None
        self._held_all(message.rows)
        self.show_position()

    def on_paper_list_rest_wanted(self, message: PaperList.RestWanted) -> None:
        if message.generation == self.generation and self.rest_wanted is not None:
            self.rest_wanted.set()  # the search's worker fetches the rest now

    def _held_all(self, rows) -> None:
        # Partial matches follow the papers holding every word only when those are few: all
        # of them are on the first page (once it is whole: its first rows may hold none).
        self.holding_all = (sum(p.match == "all" for p in rows)
                            if any(p.match == "some" for p in rows) else None)

    def on_search_count(self, message: SearchCount) -> None:
        if message.generation == self.generation:
            self.papers.set_total(message.total)
            self.counted = True
            self.show_position()

    def on_search_suggestions(self, message: SearchSuggestions) -> None:
        if message.generation == self.generation and not self.papers.total:
            self.papers.set_message(self._empty_message(self.query_text, message.suggestions))

    def on_search_failed(self, message: SearchFailed) -> None:
        if message.generation == self.generation:
            self.search_bar.hint(f"⚠ {message.message}", error=True)
            self.papers.fetch_rest()  # the rest of the first page failed: the list asks again

    def show_position(self) -> None:
        """`row 51,203 / 100,000` under the search bar (`/ 200+` while the count runs), and
        how many papers are marked."""
        papers = self.papers
        total = papers.total
        if not total:
            parts: list = ["0 papers"]
        else:
            of = f"{total:,}" if self.counted else f"{papers.at_least:,}+"
            parts = [f"row {papers.cursor + 1:,} / {of}"]
            if self.holding_all is not None:
                parts.append(f"  ·  {self.holding_all:,} with every word, then ≈ some")
        if self.sort != RELEVANCE:
            parts.append(f"  ·  by {self.sort.name}")
        if papers.marked:
            parts.append((f"  ·  {len(papers.marked)} marked (escape unmarks)", "$text-accent"))
        self.search_bar.hint(Content.assemble(*parts))

    def _empty_message(self, query: str, suggestions: list[Suggestion] = ()) -> list[Text]:
        if not query.strip() or (self.facets is not None and not self.facets.catalog_total):
            return [Text("Your catalog is empty.", style="bold"), Text(""),
                    Text("Import paper lists (text files, one abstract per paragraph) in a terminal:"),
                    Text("    catalog import PATH", style="bold"),
                    Text("then press R here to see them.")]
        filters = [t for t in tokens(query) if ":" in t]
        out = [Text.assemble("No papers match ", (query, "bold"), "."), Text("")]
        if suggestions:
            out.append(Text.assemble("Did you mean ", (corrected(query, suggestions), "bold"), "?"))
            out += [Text(f"  {s.word}: {', '.join(s.alternatives)}") for s in suggestions
                    if len(s.alternatives) > 1]
            out.append(Text(""))
        word = unfinished_word(query)
        if word and len(word) < PREFIX_FROM:
            out.append(Text.assemble("Still typing? A word is searched from its ",
                                     f"{PREFIX_FROM}rd letter on, or after a space, Enter or a pause."))
        out.append(Text("Loosen the search: drop a word, put OR between words, or end one with *."))
        if filters:
            out.append(Text("Or remove a filter: " + "  ".join(filters)))
        return out

    # --- changes made elsewhere ----------------------------------------------------------

    version: int | None  # the catalog's version the screen shows (None: not read yet)
    polling: bool  # a look is under way

    def poll_version(self) -> None:
        """Every POLL seconds (a timer): has the catalog changed? One PRAGMA, off the UI
        thread; a look still under way (a busy disk) is not doubled."""
        if not self.polling:
            self.polling = True
            self._poll(self.catalog)

    @work(thread=True, group="poll", exit_on_error=False)
    def _poll(self, catalog: Catalog) -> None:
        try:
            version = catalog.version()
        except Exception:  # a busy or vanished file: ask again next time
            version = None
        self.post_message(CatalogChanged(version))

    def on_catalog_changed(self, message: CatalogChanged) -> None:
        """Show the change: the same query again, the cursor on the same paper (or the same
        row), marks kept; the facets and the paper under the cursor are read again after."""
        self.polling = False
        if message.version is None or message.version == self.version:
            return
        first = self.version is None
        self.version = message.version
        if first:
            return
        current = self.papers.current
        self.search(self.query_text, keep=current.key if current else None, counted=True, refresh=True)

    # --- facets and the paper under the cursor -----------------------------------------

    def load_facets(self, query: str | None = None, settle: float = 0.0) -> None:
        """Counts for the results of `query` (by default those shown: the query as it ran,
        the word being typed as a prefix), off the UI thread; a newer call cancels this one,
        and SQLite stops at once. They count the papers the list holds: by relevance, those
        holding only some of the words too when the list shows them. `settle`: they wait
        that long first (SETTLE, while typing)."""
        self._load_facets(self.papers.query_text if query is None else query,
                          self.papers.sort == RELEVANCE, settle)

    @work(thread=True, exclusive=True, group="facets", exit_on_error=False)
    def _load_facets(self, query: str, partial: bool, settle: float = 0.0) -> None:
        worker = get_current_worker()
        if not settled(worker, monotonic() + settle):
            return
        for attempt in range(FACETS_TRIES):
            try:
                facets = self.catalog.facets(query, cancelled=lambda: worker.is_cancelled,
                                             partial=partial)
                break
            except (Interrupted, QueryError):  # superseded, or a bad query the search reports
                return
            except Exception as exc:  # a busy database, say: once more in a moment
                failure = first_line(exc)
                if (attempt + 1 < FACETS_TRIES
                        and not settled(worker, monotonic() + FACETS_RETRY * 2 ** attempt)):
                    return
        else:
            if not worker.is_cancelled:
                self.post_message(FacetsFailed(query, partial, failure))
            return
        if not worker.is_cancelled:
            self.post_message(FacetsLoaded(facets, partial))

    def on_facets_failed(self, message: FacetsFailed) -> None:
        if message.query == self.papers.query_text and message.partial == (self.papers.sort == RELEVANCE):
            self.say(f"The sidebar's counts are an earlier search's: {message.message} "
                     "(R counts again)", severity="warning")

    def on_facets_loaded(self, message: FacetsLoaded) -> None:
        if (message.facets.query != self.papers.query_text
                or message.partial != (self.papers.sort == RELEVANCE)):
            return  # the results have changed since
        self.load_topics()  # the Topics facet (discovering.py)
        self.facets = message.facets
        sidebar = self.query_one("#sidebar")
        sidebar.show_facets(message.facets)
        sidebar.set_class(False, "-pending")
        # The venue column fits the venues: it widens, but never narrows while searching.
        widest = max((cell_len(v) for v, _, _ in message.facets.venues), default=5)
        width = max(5, min(12, widest))
        if message.facets.query.strip():
            width = max(width, self.papers.venue_width)
        if width != self.papers.venue_width:
            self.papers.venue_width = width
            self.papers.refresh()

    def on_paper_list_highlighted(self, message: PaperList.Highlighted) -> None:
        # The footer's keys depend on whether a paper is under the cursor, not on which one:
        # refreshing them rebuilds the footer and lays the screen out again, which at every
        # key typed cost the UI thread more than the list's page.
        if (message.paper is not None) != self.bindings_with_paper:
            self.bindings_with_paper = message.paper is not None
            self.refresh_bindings()
        self.show_position()
        self.remembered.key = message.paper.key if message.paper else None
        asked, self.detail_asked = self.detail_asked, None
        if message.paper is None:
            self.detail = None
            self.query_one(DetailPane).show_message("")
        elif message.paper.key != asked:  # else on its way since the results came
            self.load_detail(message.paper.key)

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False)
    def load_detail(self, key: str) -> None:
        self.post_message(read_paper(self.catalog, key, self._searched_text()))

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        current = self.papers.current
        if current is None or current.key != message.key:
            return
        pane = self.query_one(DetailPane)
        # The same paper read again (changed here or elsewhere): the reader keeps their place.
        same = self.detail is not None and self.detail.summary.key == message.key
        self.detail, self.detail_styled = message.detail, message.styled
        self.detail_terms = message.terms
        if message.detail is None:
            pane.show_message(f"Cannot show {message.key}: {message.error}")
        else:
            pane.show(message.detail, self._terms(), message.styled,
                      self.similar_for_pane(message.key), keep_scroll=same)

    def _searched_text(self) -> str:
        return typed_query(self.query_text) if self.searched is None else self.searched[0]

    def _terms(self):
        """What the reading pane marks: as the paper was loaded, else the words typed."""
        return self.detail_terms if self.detail_terms is not None else highlight_terms(self._searched_text())

    def refresh_detail(self) -> None:
        """Show the paper in the reading pane again (its similar papers came), in place."""
        if self.detail is not None:
            self.query_one(DetailPane).show(
                self.detail, self._terms(), self.detail_styled,
                self.similar_for_pane(self.detail.summary.key), keep_scroll=True)
