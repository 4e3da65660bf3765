"""The catalog screen: the search bar, the facets, the paper list and the paper, and every
handler that ties them together.

The layout lives on this Screen, not on the App, so that a message arriving while the app
closes finds its handler's widgets still there or is never handled: a closing screen handles
what is already queued before its widgets go, then drops anything posted later."""

from __future__ import annotations

from time import monotonic

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input

from catalog.library import Catalog
from catalog.searching.query import RELEVANCE, QueryError, Sort
from catalog.results import Edit, Facets, PaperDetail, SavedQuery
from catalog.tui import keys
from catalog.tui.discovering import Discovering
from catalog.tui.editing import Editing
from catalog.tui.loading import Loading
from catalog.tui.messages import FilterChosen
from catalog.tui.querytext import KEY_CHUNK, keys_query, toggle_filter
from catalog.tui.screens.help import HelpScreen
from catalog.tui.screens.pickers import DeleteSaved, GoToTop, SavedSearchScreen
from catalog.tui.state import State, StateStore
from catalog.tui.sharing import Sharing
from catalog.tui.widgets.detail import DetailPane
from catalog.tui.widgets.paper_list import PaperList
from catalog.tui.widgets.sidebar import Sidebar
from catalog.tui.widgets.search_bar import SearchBar


GG = 0.5  # seconds within which a second g means "to the top" (gg)
POLL = 1.0  # seconds between looks at whether the catalog changed elsewhere


def _sort(text: str) -> Sort:
    try:
        return Sort.parse(text)
    except QueryError:  # a state file from another version: the default order
        return RELEVANCE


def _triage_label(query: str) -> str:
    query = " ".join(query.split())
    return f"'{query}'" if query else "all papers"


class CatalogScreen(Loading, Editing, Sharing, Discovering, Screen):
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
        self.start_query = query
        self.start_triage = triage
        self._last_g = 0.0
        # What the screen shows and has done; loading.py and editing.py read and set these.
        self.generation = 0  # of the newest search: older answers are dropped
        self.query_text = ""  # what the last search ran
        self.keep_key: str | None = None  # the paper the cursor stays on after a refresh
        self.counted = False  # whether the list's total is the full count yet
        self.version: int | None = None  # of the catalog, as last shown (loading.py polls it)
        self.polling = False
        self.refreshing = False
        self.sort = _sort(self.remembered.sort)
        self.facets: Facets | None = None
        self.detail: PaperDetail | None = None
        self.detail_styled = None  # its abstract as render_styled gave it
        self.detail_terms = None  # what to mark in it (the query's words, its acronyms' forms)
        self.detail_asked: str | None = None  # read for the pane as results came (loading.py)
        self.similar_found: dict[str, list] = {}  # key -> its similar papers (m), this session
        self.finding_similar: set[str] = set()  # keys whose similar papers are being found
        self.grouping_topics = False  # the Topics facet's worker is running
        self.undo_stack: list[tuple[str, Edit]] = []
        self.redo_stack: list[tuple[str, Edit]] = []

    def compose(self) -> ComposeResult:
        yield SearchBar(history=self.remembered.history)
        with Horizontal(id="main"):
            yield Sidebar(id="sidebar")
            with Container(id="reading"):
                yield PaperList(self.catalog, id="papers")
                yield DetailPane(id="detail")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        remembered = self.remembered  # (its theme is set by the app, before styling)
        if remembered.sidebar is not None:
            self._show_sidebar(remembered.sidebar)
        query, key = remembered.query, remembered.key
        if self.start_query is not None:
            query, key = self.start_query, None
        if query:
            self.search_bar.set_query(query, run=False)
        # The remembered paper, when the first page holds it (finding its place deeper in the
        # results needs a query of its own; see the report on issue 14).
        self.search(query, keep=key, counted=False)
        self.set_focus(self.papers)
        if self.start_triage:
            self.triage(query, _triage_label(query))
        self.poll_version()  # the version the first results show
        self.set_interval(POLL, self.poll_version)

    def on_unmount(self) -> None:
        if self.store is None:
            return
        try:
            self.remembered.theme = self.app.theme
        except Exception:  # the app is going away: keep the theme last seen
            pass
        self.store.save(self.remembered)

    def say(self, message: str, **kwargs) -> None:
        """A notification whose text is never read as markup (it may hold titles and tags)."""
        self.notify(message, markup=False, **kwargs)

    # --- which keys apply now -----------------------------------------------------------

    @property
    def typing(self) -> bool:
        return isinstance(self.focused, Input) and self.focused.id == "search"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.typing and action in keys.NOT_WHILE_TYPING:
            return False
        if action in keys.PAPER_ACTIONS and not self.targets():
            return None
        if action == "similar" and self.papers.current is None:
            return None
        if action == "undo" and not self.undo_stack:
            return None
        if action == "redo" and not self.redo_stack:
            return None
        return True

    def on_descendant_focus(self, event) -> None:
        if not self.cursor_blink and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False
        self.refresh_bindings()

    # --- actions ------------------------------------------------------------------------

    def action_focus_search(self) -> None:
        self.set_focus(self.search_bar.input)

    def action_back(self) -> None:
        self.set_class(False, "-zoomed")
        self.set_focus(self.papers)

    def action_toggle_sidebar(self) -> None:
        sidebar = self.query_one(Sidebar)
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
        sidebar = self.query_one(Sidebar)
        self.set_class(False, "-zoomed")
        if not sidebar.display:
            self._show_sidebar(True)
        self.set_focus(sidebar)

    def action_zoom(self) -> None:
        zoomed = not self.has_class("-zoomed")
        self.set_class(zoomed, "-zoomed")
        if zoomed:
            self.set_focus(self.query_one(DetailPane))
        else:
            self.set_focus(self.papers)

    def action_refresh(self) -> None:
        self.similar_found.clear()  # papers may have come since
        current = self.papers.current
        self.search(self.query_text, keep=current.key if current else None)

    def action_cycle_sort(self) -> None:
        self.sort_by(self.sort.next())

    @on(PaperList.SortChosen)
    def _sort_chosen(self, message: PaperList.SortChosen) -> None:
        self.sort_by(self.sort.toggled(message.field))

    def sort_by(self, sort: Sort) -> None:
        """Show the results in this order, from the top."""
        self.sort = sort
        self.remembered.sort = "" if sort == RELEVANCE else str(sort)
        self.search(self.query_text)

    def action_triage(self) -> None:
        """T: triage the marked papers, or else the results of the current query."""
        marked = list(self.papers.marked)
        if not marked:
            self.triage(self.query_text, _triage_label(self.query_text))
        elif len(marked) > KEY_CHUNK:
            self.say(f"Triage takes at most {KEY_CHUNK} marked papers; unmark some, or triage "
                     "a search's results", severity="warning")
        else:
            label = f"{len(marked)} marked papers" if len(marked) > 1 else "1 marked paper"
            self.triage(keys_query(sorted(marked)), label)

    def triage(self, query: str, label: str) -> None:
        from catalog.tui.screens.triage import TriageScreen

        def back(_) -> None:
            self.action_refresh()  # decided papers may have left the results

        self.set_class(False, "-zoomed")
        self.app.push_screen(TriageScreen(self, query, label), back)

    async def on_key(self, event: events.Key) -> None:
        """A key typed right after one that opens a dialog (`r` `5` in quick succession) came
        here before the app had run the first key's binding, and reached the bindings only
        once the dialog was on top, where nothing took it: the rating dialog never saw the 5
        and stayed open. So the bindings run here, as each key comes, and a key that comes
        while a dialog is on top goes to the dialog, as if typed there: to what the dialog
        focuses once it is shown (`t` `foo`: the tag editor's input had no focus yet, and
        letters sent to the dialog itself were lost), so it waits its turn in the dialog's
        queue, behind the dialog's own start. Likewise a letter that was on its way to the
        list when `/` moved the focus to the search bar goes to the search bar."""
        if not self.is_attached or not self.app.is_running:
            return
        if self.app.screen is not self:
            if self in self.app.screen_stack:
                event.stop()
                event.prevent_default()
                top, key = self.app.screen, events.Key(event.key, event.character)
                top.call_later(lambda: (top.focused or top)._forward_event(key))
            return
        if event.is_printable and isinstance(self.focused, Input):
            # A typed letter that reaches the screen with a text field focused was sent to
            # another widget before the focus moved (the field itself takes every letter).
            event.stop()
            event.prevent_default()
            self.focused._forward_event(events.Key(event.key, event.character))
            return
        if await self.app._check_bindings(event.key):  # what the app would do next
            event.stop()
            event.prevent_default()

    async def action_quit(self) -> None:
        """`q`: the screen's binding needs a quit action of its own (the app's ctrl+q is
        the app's); the session is saved as the screen unmounts."""
        await self.app.action_quit()

    def action_help(self) -> None:
        groups = [("Everywhere", self._keys(keys.BINDINGS)), ("Paper list", self._keys(PaperList.BINDINGS)),
                  ("Reading pane (enter from the list)", self._keys(DetailPane.BINDINGS)),
                  ("Search bar", self._keys(SearchBar.BINDINGS)),
                  ("Facets (f)", self._keys(Sidebar.BINDINGS)),
                  ("Triage mode (T)", self._keys(keys.TRIAGE_BINDINGS)),
                  ("Note editor", [("ctrl+s", Binding("ctrl+s", "", "Save the note")),
                                   ("escape", Binding("escape", "", "Cancel (asks if text would be lost)"))])]
        self.app.push_screen(HelpScreen(groups))

    def _keys(self, bindings: list[Binding]) -> list[tuple[str, Binding]]:
        out = []
        for b in bindings:
            if b.action.startswith("saved("):
                if b.action == "saved(1)":
                    out.append(("1 … 9", Binding("1", "", "Saved search", tooltip=b.tooltip)))
                continue
            if b.action.startswith("rate_now("):
                if b.action == "rate_now(1)":
                    out.append(("1 … 5", Binding("1", "", "Rate", tooltip=b.tooltip)))
                continue
            names = [self.app.get_key_display(b.with_key(k)) for k in b.key.split(",")]
            out.append((" ".join(names), b))
        return out

    def action_saved_searches(self) -> None:
        """g: the saved-search picker; gg: the first paper. The picker opens at once (no
        waiting to see whether a second g follows) and a g pressed in it means gg. With no
        saved searches there is no picker: a second g within GG seconds goes to the top, and
        only a lone g says that there are none."""
        saved = self.facets.saved if self.facets else ()
        if not saved:
            now = monotonic()
            if now - self._last_g < GG:
                self._last_g = 0.0
                self.go_to_top()
            else:
                self._last_g = now
                self.set_timer(GG, self._lone_g)
            return

        def picked(choice) -> None:
            if choice and isinstance(choice.value, GoToTop):
                self.go_to_top()
            elif choice and isinstance(choice.value, DeleteSaved):
                self.confirm_delete_saved_search(choice.value.saved)
            elif choice:
                self.run_saved(choice.value)

        self.app.push_screen(SavedSearchScreen(saved), picked)

    def _lone_g(self) -> None:
        if self._last_g and monotonic() - self._last_g >= GG - 0.01:
            self._last_g = 0.0
            self.say("No saved searches yet: S saves the current query (gg goes to the top)")

    def go_to_top(self) -> None:
        self.set_class(False, "-zoomed")
        self.set_focus(self.papers)
        self.papers.action_jump(0)

    def action_saved(self, number: int) -> None:
        saved = self.facets.saved if self.facets else ()
        if 1 <= number <= len(saved):
            self.run_saved(saved[number - 1])

    def action_focus_list(self) -> None:
        self.set_focus(self.papers)

    def run_saved(self, saved: SavedQuery) -> None:
        self.search_bar.set_query(saved.query)
        self.set_focus(self.papers)

    def palette_action(self, action: str, on_list: bool = False) -> None:
        """Run an action chosen in the command palette, as if its key had been pressed."""
        if self.typing and (on_list or action in keys.NOT_WHILE_TYPING):
            self.set_focus(self.papers)
        self.call_after_refresh(self.app.run_action, action, self.papers if on_list else self)

    # --- messages from the widgets ------------------------------------------------------

    @on(FilterChosen)
    def _filter_chosen(self, message: FilterChosen) -> None:
        bar = self.search_bar
        bar.set_query(message.text if message.replace else toggle_filter(bar.value, message.text))

    @on(PaperList.Opened)
    def _opened(self) -> None:
        self.set_focus(self.query_one(DetailPane))

    @on(DetailPane.Step)
    def _step(self, message: DetailPane.Step) -> None:
        """[ and ] in the reading pane: the previous or next paper, staying in the pane."""
        papers = self.papers
        papers.move_to(papers.cursor + message.delta)

    @on(PaperList.MarksChanged)
    def _marks_changed(self) -> None:
        self.show_position()
        self.refresh_bindings()

    @on(Input.Submitted, "#search")
    def _search_submitted(self) -> None:
        self.set_focus(self.papers)
