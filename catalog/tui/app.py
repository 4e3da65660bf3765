"""`catalog tui`: browse, search, read, tag, rate and annotate.

The app is small: it opens one CatalogScreen (screens/main.py), which holds the layout and
its handlers. Nothing here holds a database session: the screen and its widgets call Catalog
methods in thread workers (search.py runs a search; the sidebar, the reading pane and the
list read their own data; editing.py writes) and show the dataclasses they return."""

from __future__ import annotations

from textual.app import App

from catalog.library import Catalog
from catalog.tui.commands import CatalogCommands
from catalog.tui.screens.main import CatalogScreen
from catalog.tui.state import State, StateStore


class CatalogApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "catalog"
    COMMANDS = App.COMMANDS | {CatalogCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-normal"), (170, "-wide")]

    def __init__(self, catalog: Catalog, *, cursor_blink: bool = True,
                 state: StateStore | None = None, query: str | None = None,
                 triage: bool = False) -> None:
        """`state`: where the last session is read from and written to on exit (the CLI
        passes StateStore.default()); None remembers nothing (tests, benchmarks).
        `query`: open on this search instead of the last one; `triage`: in triage mode."""
        super().__init__()
        self.start_query, self.start_triage = query, triage
        self.catalog = catalog
        self.cursor_blink = cursor_blink
        self.state_store = state
        self.remembered = state.load() if state else State()
        if self.remembered.theme in self.available_themes:
            self.theme = self.remembered.theme  # before the first styling pass, not after

    def get_default_screen(self) -> CatalogScreen:
        return CatalogScreen(self.catalog, cursor_blink=self.cursor_blink,
                             state=self.remembered, store=self.state_store,
                             query=self.start_query, triage=self.start_triage)

    @property
    def main(self) -> CatalogScreen:
        """The catalog screen, under any dialog open on top of it."""
        return self.screen_stack[0]
