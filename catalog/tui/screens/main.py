"""The catalog screen: the search bar, the facets, the paper list and the paper, composed with
the parts that show nothing (editing, sharing, similar papers, web papers) and the objects
that hold the rest of its work: answers.py shows a search's answers, routing.py says where a
key goes and which keys apply, saved_keys.py handles g, gg and 1-9, jumps.py ctrl+o and ctrl+i.

The search's state and its transitions are catalog/tui/search.py's (one SearchState, one
controller); the sidebar and the reading pane read their own data. The layout lives on this
Screen, not on the App, so that a message arriving while the app closes finds its handler's
widgets still there or is never handled: a closing screen handles what is already queued
before its widgets go, then drops anything posted later."""

from __future__ import annotations

from functools import partial

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Container, Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input

from catalog.library import Catalog
from catalog.results import Edit, Facets, PaperDetail, SavedQuery
from catalog.searching.query import RELEVANCE, QueryError, Sort
from catalog.tui import keys
from catalog.tui.adding import WebPapers
from catalog.tui.answers import SearchAnswers
from catalog.tui.discovering import SimilarPapers
from catalog.tui.display import shorten
from catalog.tui.editing import Editing
from catalog.tui.jumps import Jumps
from catalog.tui.messages import (
    ActionFailed, FilterChosen, KeptAt, QueryChanged, SearchCount, SearchFailed,
    SearchRest, SearchResults, SearchSuggestions, TopicPapers,
)
from catalog.tui.querytext import KEY_CHUNK, keys_query, toggle_filter
from catalog.tui.screens.help import HelpScreen, every_key
from catalog.tui.routing import KeyRouting
from catalog.tui.saved_keys import SavedSearchKeys
from catalog.tui.search import SearchController, fetch
from catalog.tui.sharing import Sharing
from catalog.tui.state import MARKS, State, StateStore
from catalog.tui.watching import ChangeWatch
from catalog.tui.widgets.detail import DetailPane
from catalog.tui.widgets.paper_list import PaperList
from catalog.tui.widgets.search_bar import SearchBar
from catalog.tui.widgets.sidebar import Sidebar


def _sort(text: str) -> Sort:
    try:
        return Sort.parse(text)
    except QueryError:  # a state file from another version: the default order
        return RELEVANCE


def _triage_label(query: str) -> str:
    query = " ".join(query.split())
    return f"'{query}'" if query else "all papers"


class CatalogScreen(Screen):
    BINDINGS = keys.BINDINGS

    def __init__(self, catalog: Catalog, *, cursor_blink: bool = True,
                 state: State | None = None, store: StateStore | None = None,
                 query: str | None = None, triage: bool = False) -> None:
        """`query`: search this instead of the remembered query; `triage`: start in triage
        mode on it (catalog tui --triage QUERY)."""
        super().__init__()
        self.catalog = catalog
        self.cursor_blink = cursor_blink
        # What is remembered for next time (state.py): kept current as things change, and
        # written by on_unmount, which needs no widget for it.
        self.remembered = state or State()
        self.store = store
        self.start_query, self.start_triage = query, triage
        self.searching = SearchController(_sort(self.remembered.sort))
        self.editing = Editing(catalog)
        self.sharing = Sharing(catalog)
        self.similar = SimilarPapers(catalog)
        self.web_papers = WebPapers(catalog)
        self.jumps = Jumps(self)  # what ctrl+o goes back to, ctrl+i forward to
        self.answers = SearchAnswers(self)  # a search's answers shown (answers.py)
        self.saved_keys = SavedSearchKeys(self)  # g, gg, 1-9 (saved_keys.py)
        self.routing = KeyRouting(self)  # where a key goes, which keys apply (routing.py)
        self.said_marks_kept = False  # that the session keeps only the newest MARKS marks

    def compose(self) -> ComposeResult:
        typed = self.searching.typing  # each key puts off the counts and facets (waiting.py)
        yield SearchBar(history=self.remembered.history, typing=typed)
        with Horizontal(id="main"):
            yield Sidebar(self.catalog, typing=typed, id="sidebar")
            with Container(id="reading"):
                yield PaperList(self.catalog, id="papers")
                yield DetailPane(self.catalog, id="detail")
        yield Footer(compact=True)
        yield self.editing
        yield self.sharing
        yield self.similar
        yield self.web_papers
        yield ChangeWatch(self.catalog, typed, busy=lambda: self.searching.searching)

    def on_mount(self) -> None:
        self.pane.similar_for = self.similar.for_pane
        remembered = self.remembered  # (its theme is set by the app, before styling)
        if remembered.sidebar is not None:
            self._show_sidebar(remembered.sidebar)
        query, key = remembered.query, remembered.key
        if self.start_query is not None:
            query, key = self.start_query, None
        if query:
            self.search_bar.set_query(query, run=False)
        if remembered.marks:
            self.papers.restore_marks(remembered.marks)
        # The remembered paper, when the first page holds it (finding its place deeper in the
        # results needs a query of its own).
        self.search(query, keep=key, counted=False)
        self.set_focus(self.papers)
        keymap = getattr(self.app, "keymap_file", None)  # keys.toml's problems: one line each, the app runs
        for problem in keymap.problems if keymap else ():
            self.say(problem, severity="warning", timeout=10)
        if self.start_triage:
            self.triage(query, _triage_label(query))

    def on_resize(self) -> None:
        self.call_after_refresh(self.answers.show_position)  # the line under the bar, fitted again

    def on_unmount(self) -> None:
        if self.store is None:
            return
        try:
            self.remembered.theme = self.app.theme
        except Exception:  # the app is going away: keep the theme last seen
            pass
        self.store.save(self.remembered)

    # --- the parts ------------------------------------------------------------------------

    @property
    def papers(self) -> PaperList:
        return self.query_one("#papers", PaperList)

    @property
    def search_bar(self) -> SearchBar:
        return self.query_one(SearchBar)

    @property
    def sidebar(self) -> Sidebar:
        return self.query_one("#sidebar", Sidebar)

    @property
    def pane(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    @property
    def facets(self) -> Facets | None:
        """The counts the sidebar shows (their saved searches and tag names too)."""
        return self.sidebar.facets

    @property
    def detail(self) -> PaperDetail | None:
        """The paper the reading pane shows."""
        return self.pane.detail

    @property
    def query_text(self) -> str:
        """The search as typed (what R searches again)."""
        return self.searching.state.text

    def say(self, message: str, **kwargs) -> None:
        """A notification whose text is never read as markup (it may hold titles and tags)."""
        self.notify(message, markup=False, **kwargs)

    # --- searching ------------------------------------------------------------------------

    def search(self, query: str, keep: str | None = None, counted: bool | None = None,
               refresh: bool = False, finished: bool = False, typing: bool = False) -> None:
        """Run `query` (SearchController.start says what each argument does)."""
        self.remembered.query = query
        search = self.searching.start(query, shown=self.papers.size.height, keep=keep,
                                      counted=counted, refresh=refresh, finished=finished,
                                      typing=typing)
        if search is None:
            return
        # The counts of the results this search replaces are not wanted any more: stop them
        # (at a million papers they take longer than a search, on the same cores).
        self.sidebar.stop_loading()
        if search.request is None:  # its text cannot run: say why, keep the results shown
            self.workers.cancel_group(self, "search")
            self.post_message(SearchFailed(search.generation, search.error))
            return
        self.run_worker(partial(fetch, self.catalog, search, self.post_message), name="search",
                        group="search", thread=True, exclusive=True, exit_on_error=False)

    def on_query_changed(self, message: QueryChanged) -> None:
        self.search(message.query, finished=message.finished, typing=True)

    # The search worker's answers and the list's own, shown by answers.py.

    def on_search_results(self, message: SearchResults) -> None:
        self.answers.results(message)

    def on_search_rest(self, message: SearchRest) -> None:
        self.answers.rest(message)

    def on_search_count(self, message: SearchCount) -> None:
        self.answers.count(message)

    def on_kept_at(self, message: KeptAt) -> None:
        self.answers.kept_at(message)

    def on_search_suggestions(self, message: SearchSuggestions) -> None:
        self.answers.suggestions(message)

    def on_search_failed(self, message: SearchFailed) -> None:
        self.answers.failed(message)

    def on_paper_list_rest_wanted(self, message: PaperList.RestWanted) -> None:
        self.searching.want_rest(message.generation)

    def on_paper_list_highlighted(self, message: PaperList.Highlighted) -> None:
        self.answers.highlighted(message)

    def on_sidebar_counted(self, message: Sidebar.Counted) -> None:
        self.answers.counted(message)

    def with_targets(self, then) -> None:
        self.editing.with_targets(then)

    def writing(self) -> str:
        return self.editing.progress()

    def show_edit(self, edit: Edit) -> None:
        self.answers.edited(edit)

    def on_change_watch_changed(self) -> None:
        self.answers.changed_elsewhere()

    # --- which keys apply now -----------------------------------------------------------

    @property
    def typing(self) -> bool:
        return isinstance(self.focused, Input) and self.focused.id == "search"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.routing.allowed(action, parameters)

    def on_descendant_focus(self, event) -> None:
        if not self.cursor_blink and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False
        if not self.typing:  # the search bar left: the search shown is a place (ctrl+o)
            self.jumps.settled()
        self.refresh_bindings()

    async def on_key(self, event: events.Key) -> None:
        await self.routing.route(event)

    # --- actions: moving around ---------------------------------------------------------

    def action_focus_search(self) -> None:
        self.set_focus(self.search_bar.input)

    def action_focus_list(self) -> None:
        self.set_focus(self.papers)

    def action_back(self) -> None:
        self.set_class(False, "-zoomed")
        self.set_focus(self.papers)

    def action_toggle_sidebar(self) -> None:
        sidebar = self.sidebar
        self._show_sidebar(not sidebar.display)
        if not sidebar.display and self.focused is sidebar:
            self.set_focus(self.papers)

    def _show_sidebar(self, shown: bool) -> None:
        """Classes, not sidebar.display: an inline style would beat the stylesheet's rules for
        narrow terminals and the zoomed reading pane."""
        self.set_class(shown, "-show-sidebar")
        self.set_class(not shown, "-hide-sidebar")
        self.remembered.sidebar = shown

    def action_focus_sidebar(self) -> None:
        self.set_class(False, "-zoomed")
        if not self.sidebar.display:
            self._show_sidebar(True)
        self.set_focus(self.sidebar)

    def action_zoom(self) -> None:
        zoomed = not self.has_class("-zoomed")
        self.set_class(zoomed, "-zoomed")
        self.set_focus(self.pane if zoomed else self.papers)

    def go_to_top(self) -> None:
        self.set_class(False, "-zoomed")
        self.set_focus(self.papers)
        self.papers.action_jump(0)

    # --- actions: the results -------------------------------------------------------------

    def action_refresh(self) -> None:
        self.search_again()

    def search_again(self, keep: str | None = None) -> None:
        """The same search again, the cursor on paper `keep`, else on the paper it is on."""
        self.similar.forget()  # papers may have come since
        self.sidebar.catalog_changed()
        current = self.papers.current
        self.search(self.query_text, keep=keep or (current.key if current else None))

    def action_cycle_sort(self) -> None:
        self.sort_by(self.searching.state.sort.next())

    @on(PaperList.SortChosen)
    def _sort_chosen(self, message: PaperList.SortChosen) -> None:
        self.sort_by(self.searching.state.sort.toggled(message.field))

    def sort_by(self, sort: Sort) -> None:
        """Show the results in this order, the cursor staying on its paper wherever the
        order puts it (it went back to the top, and the paper was lost)."""
        self.searching.sort_by(sort)
        self.remembered.sort = "" if sort == RELEVANCE else str(sort)
        current = self.papers.current
        self.search(self.query_text, keep=current.key if current else None)

    def action_triage(self) -> None:
        """T: triage the marked papers, or else the results of the current query."""
        marked = list(self.papers.marked)
        if not marked:
            self.triage(self.query_text, _triage_label(self.query_text))
        elif len(marked) > KEY_CHUNK:
            self.say(f"Triage takes at most {KEY_CHUNK} marked papers; unmark some, or triage "
                     "a search's results", severity="warning")
        else:
            label = f"{len(marked):,} marked papers" if len(marked) > 1 else "1 marked paper"
            self.triage(keys_query(sorted(marked)), label)

    def triage(self, query: str, label: str) -> None:
        from catalog.tui.screens.triage import TriageScreen

        def back(_) -> None:
            self.action_refresh()  # decided papers may have left the results

        self.set_class(False, "-zoomed")
        self.app.push_screen(TriageScreen(self, query, label), back)

    # --- actions: saved searches --------------------------------------------------------

    def action_saved_searches(self) -> None:
        self.saved_keys.g()

    def action_saved(self, number: int) -> None:
        self.saved_keys.number(number)

    def run_saved(self, saved: SavedQuery) -> None:
        self.jump(saved.query)
        self.set_focus(self.papers)

    # --- jumps: another query, ctrl+o back, ctrl+i forward (catalog/tui/jumps.py) -------

    def jump(self, query: str, say: str = "") -> None:
        """Replace the query (a facet, a saved search, a similar paper chosen); ctrl+o goes back."""
        self.jumps.jump(query, say)

    def action_accept_correction(self) -> None:
        self.jumps.accept_correction()

    def action_walk(self, step: int) -> None:
        self.jumps.walk(step)

    # --- actions handed to the parts: editing, sharing, similar papers ------------------

    def action_tag(self) -> None:
        self.editing.tag()

    def action_status(self) -> None:
        self.editing.status()

    def action_rate(self) -> None:
        self.editing.rate()

    def action_title(self) -> None:
        self.editing.title()

    def action_note(self) -> None:
        self.editing.note()

    def action_tags(self) -> None:
        from catalog.tui.screens.tags import TagsScreen

        self.app.push_screen(TagsScreen(self.catalog),
                             lambda change: change and self.editing.write(change.label, change.run))

    def action_stats(self) -> None:
        from catalog.tui.screens.stats import StatsScreen

        self.app.push_screen(StatsScreen(self.catalog))

    def action_note_in_editor(self) -> None:
        self.editing.note_in_editor()

    def action_fields(self) -> None:
        self.editing.fields()

    def action_delete(self) -> None:
        self.editing.delete()

    def action_undo(self) -> None:
        self.editing.undo()

    def action_redo(self) -> None:
        self.editing.redo()

    def action_save_search(self) -> None:
        self.editing.save_search()

    def action_browse(self) -> None:
        if self.papers.current is not None:
            self.sharing.browse(self.papers.current.key)

    def action_browse_link(self) -> None:
        if self.papers.current is not None:
            self.sharing.browse(self.papers.current.key, link=True)

    def action_attach(self) -> None:
        if self.papers.current is not None:
            self.sharing.ask_file(self.papers.current.key)

    def action_copy(self) -> None:
        self.sharing.copy_menu()

    def action_export(self) -> None:
        self.sharing.export()

    def action_similar(self) -> None:
        if self.papers.current is not None:
            self.similar.show(self.papers.current)

    def action_add_paper(self) -> None:
        self.web_papers.ask()

    def action_references(self) -> None:
        if self.papers.current is not None:
            self.web_papers.linked(self.papers.current)

    # --- the app's own ------------------------------------------------------------------

    async def action_quit(self) -> None:
        """`q`: the screen's binding needs a quit action of its own (the app's ctrl+q is
        the app's); the session is saved as the screen unmounts."""
        await self.app.action_quit()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(every_key(self.app)))

    def palette_action(self, action: str, on_list: bool = False) -> None:
        """Run an action chosen in the command palette, as if its key had been pressed."""
        if self.typing and (on_list or action in keys.NOT_WHILE_TYPING):
            self.set_focus(self.papers)
        self.call_after_refresh(self.app.run_action, action, self.papers if on_list else self)

    # --- messages from the widgets and the parts ----------------------------------------

    @on(FilterChosen)
    def _filter_chosen(self, message: FilterChosen) -> None:
        bar = self.search_bar
        self.jump(message.text if message.replace else toggle_filter(bar.value, message.text))

    def on_topic_papers(self, message: TopicPapers) -> None:
        """A topic chosen in the sidebar: its papers are marked, for the bulk actions."""
        self.papers.mark_all(message.papers)
        self.say(f"Marked the {len(message.papers):,} papers of topic {message.number} "
                 f"({shorten(message.label, 50)}): t tags them, s sets their status; escape unmarks")

    def on_action_failed(self, message: ActionFailed) -> None:
        self.say(message.message, severity="error", timeout=6)

    @on(PaperList.Opened)
    def _opened(self) -> None:
        self.set_focus(self.pane)

    @on(PaperList.OpenedNothing)
    def _opened_nothing(self) -> None:
        self.action_accept_correction()

    @on(DetailPane.Step)
    def _step(self, message: DetailPane.Step) -> None:
        """[ and ] in the reading pane: the previous or next paper, staying in the pane."""
        self.papers.move_to(self.papers.cursor + message.delta)

    @on(PaperList.MarksChanged)
    def _marks_changed(self) -> None:
        marked = self.papers.marked
        self.remembered.marks = list(marked)[-MARKS:]
        # The session keeps the newest MARKS: past them, said once (they were dropped unsaid).
        if len(marked) > MARKS and not self.said_marks_kept:
            self.say(f"{len(marked):,} papers marked: the next session brings back the newest "
                     f"{MARKS:,} marks only", severity="warning", timeout=8)
        self.said_marks_kept = len(marked) > MARKS
        self.answers.show_position()
        self.refresh_bindings()

    @on(Input.Submitted, "#search")
    def _search_submitted(self) -> None:
        self.set_focus(self.papers)
