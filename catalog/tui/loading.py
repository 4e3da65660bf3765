"""Reading the catalog for the app: search, facets, one paper. Each read runs in a thread
worker that posts a message; the handlers, on the UI thread, decide whether the answer is
still wanted and put it on screen."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.content import Content
from textual.worker import get_current_worker

from catalog.errors import Interrupted
from catalog.library import Catalog
from catalog.query import QueryError
from catalog.results import Facets, PaperDetail, Suggestion
from catalog.suggest import corrected
from catalog.text.tex import render_styled
from catalog.tui.display import first_line
from catalog.tui.messages import (
    DetailLoaded, FacetsLoaded, QueryChanged, SearchCount, SearchFailed, SearchResults,
    SearchSuggestions,
)
from catalog.tui.state import State
from catalog.tui.querytext import PREFIX_FROM, highlight_terms, tokens, typed_query, unfinished_word
from catalog.tui.widgets.detail import DetailPane
from catalog.tui.widgets.paper_list import PAGE, PaperList
from catalog.tui.widgets.search_bar import SearchBar


class Loading:
    """Mixed into CatalogScreen, which sets the state below in its __init__. (Handlers here
    use on_* names: @on only works on Textual classes.)"""

    catalog: Catalog
    generation: int
    query_text: str
    keep_key: str | None
    counted: bool  # whether the list's total is the full count yet
    holding_all: int | None = None  # papers with every word, when partial matches follow
    remembered: State  # for next time (state.py)
    facets: Facets | None
    detail: PaperDetail | None

    @property
    def papers(self) -> PaperList:
        return self.query_one("#papers", PaperList)

    @property
    def search_bar(self) -> SearchBar:
        return self.query_one(SearchBar)

    # --- search -------------------------------------------------------------------------

    def search(self, query: str, keep: str | None = None, counted: bool | None = None) -> None:
        """Run `query`; `keep` leaves the cursor on that paper if it is still found.

        `counted`: count before showing the first page (by default when keeping a paper, whose
        place may be deep in the list); without, the count follows the first page."""
        self.generation += 1
        self.query_text, self.keep_key = query, keep
        self.remembered.query = query
        self._search(self.catalog, typed_query(query), self.generation,
                     keep is not None if counted is None else counted, query)

    def on_query_changed(self, message: QueryChanged) -> None:
        self.search(message.query)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search(self, catalog: Catalog, query: str, generation: int, counted: bool, typed: str) -> None:
        """`query`: what runs (the word being typed as a prefix); `typed`: as typed, whose
        words are checked for typos when nothing matches."""
        worker = get_current_worker()
        stop = lambda: worker.is_cancelled  # noqa: E731  (a newer search cancels this worker)
        try:
            rows = catalog.search(query, limit=PAGE, snippets=False, cancelled=stop)
            if worker.is_cancelled:
                return
            total = len(rows) if len(rows) < PAGE else catalog.count(query, cancelled=stop) if counted else None
            self.post_message(SearchResults(query, generation, rows, total))
            if not rows:
                self._suggest(catalog, typed, query, generation, stop)
            if total is None:
                total = catalog.count(query, cancelled=stop)
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
        self.papers.show_results(message.query, message.generation, message.rows,
                                 message.total, self._empty_message(self.query_text), self.keep_key)
        self.counted = message.total is not None
        # Partial matches follow the papers holding every word only when those are few: all
        # of them are on this first page.
        self.holding_all = (sum(p.match == "all" for p in message.rows)
                            if any(p.match == "some" for p in message.rows) else None)
        self.show_position()

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

    def show_position(self) -> None:
        """`row 51,203 / 100,000` under the search bar (`/ 200+` while the count runs), and
        how many papers are marked."""
        papers = self.papers
        total = papers.total
        if not total:
            parts: list = ["0 papers"]
        else:
            of = f"{total:,}" if self.counted else f"{PAGE}+"
            parts = [f"row {papers.cursor + 1:,} / {of}"]
            if self.holding_all is not None:
                parts.append(f"  ·  {self.holding_all:,} with every word, then ≈ some")
        if papers.marked:
            parts.append((f"  ·  {len(papers.marked)} marked (escape unmarks)", "$text-accent"))
        self.search_bar.hint(Content.assemble(*parts))

    def _empty_message(self, query: str, suggestions: list[Suggestion] = ()) -> list[Text]:
        if not query.strip() or (self.facets is not None and not self.facets.total):
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
            out.append(Text.assemble("Still typing? Words are searched as you type from ",
                                     f"{PREFIX_FROM} letters on."))
        out.append(Text("Loosen the search: drop a word, put OR between words, or end one with *."))
        if filters:
            out.append(Text("Or remove a filter: " + "  ".join(filters)))
        return out

    # --- facets and the paper under the cursor -----------------------------------------

    @work(thread=True, exclusive=True, group="facets", exit_on_error=False)
    def load_facets(self) -> None:
        try:
            self.post_message(FacetsLoaded(self.catalog.facets()))
        except Exception:  # counts are a convenience; the next refresh tries again
            pass

    def on_facets_loaded(self, message: FacetsLoaded) -> None:
        self.facets = message.facets
        self.query_one("#sidebar").show_facets(message.facets)
        widest = max((cell_len(v) for v, _, _ in message.facets.venues), default=5)
        self.papers.venue_width = max(5, min(12, widest))
        self.papers.refresh()

    def on_paper_list_highlighted(self, message: PaperList.Highlighted) -> None:
        self.refresh_bindings()
        self.show_position()
        self.remembered.key = message.paper.key if message.paper else None
        if message.paper is None:
            self.detail = None
            self.query_one(DetailPane).show_message("")
        else:
            self.load_detail(message.paper.key)

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False)
    def load_detail(self, key: str) -> None:
        try:
            detail = self.catalog.get(key)
        except Exception as exc:  # deleted meanwhile by another process, say
            self.post_message(DetailLoaded(key, None, first_line(exc)))
            return
        try:  # emphasis and scripts the stored plain text has lost; TeX takes a few ms
            styled = render_styled(detail.abstract) if detail.abstract else None
        except Exception:  # imported text is arbitrary: the plain text will do
            styled = None
        self.post_message(DetailLoaded(key, detail, styled=styled))

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        current = self.papers.current
        if current is None or current.key != message.key:
            return
        pane = self.query_one(DetailPane)
        self.detail = message.detail
        if message.detail is None:
            pane.show_message(f"Cannot show {message.key}: {message.error}")
        else:
            pane.show(message.detail, highlight_terms(typed_query(self.query_text)), message.styled)
