"""`catalog tui`: browse, search, read, tag, rate and annotate.

The app is small: it opens one CatalogScreen (screens/main.py), which holds the layout and
its handlers. Nothing here holds a database session: the screen and its widgets call Catalog
methods in thread workers (search.py runs a search; the sidebar, the reading pane and the
list read their own data; editing.py writes) and show the dataclasses they return."""

from __future__ import annotations

from textual.app import App
from textual.filter import LineFilter

from catalog.library import Catalog
from catalog.tui.colors import ReadableDim, readable_variables, rounds_to_256
from catalog.tui.commands import CatalogCommands
from catalog.tui.keymap import Keymap
from catalog.tui.screens.main import CatalogScreen
from catalog.tui.state import State, StateStore, catalog_identity



class CatalogApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "catalog"
    COMMANDS = App.COMMANDS | {CatalogCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-normal"), (170, "-wide")]

    def __init__(self, catalog: Catalog, *, cursor_blink: bool = True,
                 state: StateStore | None = None, query: str | None = None,
                 triage: bool = False, keymap: Keymap | None = None) -> None:
        """`state`: where the last session is read from and written to on exit (the CLI
        passes StateStore.default()); None remembers nothing (tests, benchmarks).
        `query`: open on this search instead of the last one; `triage`: in triage mode.
        `keymap`: the user's own keys (keymap.py; the CLI reads keys.toml)."""
        super().__init__()
        self.readable_dim = ReadableDim(rounds_to_256(self))
        self.keymap_file = keymap or Keymap()
        self.user_keys = self.keymap_file.keys  # what the help screen shows
        if self.user_keys:
            self.set_keymap(self.user_keys)
        self.start_query, self.start_triage = query, triage
        self.catalog = catalog
        self.cursor_blink = cursor_blink
        # The places remembered are this catalog's (not the last catalog opened's).
        self.state_store = state.for_catalog(catalog_identity(catalog.location)) if state else None
        self.remembered = self.state_store.load() if self.state_store else State()
        if self.remembered.theme in self.available_themes:
            self.theme = self.remembered.theme  # before the first styling pass, not after

    def get_css_variables(self) -> dict[str, str]:
        """The theme's variables, its text colours made readable on its backgrounds."""
        variables = readable_variables(super().get_css_variables(), rounds_to_256(self))
        self.theme_variables = variables
        return variables

    def get_line_filters(self) -> list[LineFilter]:
        # Before Textual's own filters, which would dim further.
        return [self.readable_dim, *super().get_line_filters()]

    def get_default_screen(self) -> CatalogScreen:
        return CatalogScreen(self.catalog, cursor_blink=self.cursor_blink,
                             state=self.remembered, store=self.state_store,
                             query=self.start_query, triage=self.start_triage)

    @property
    def main(self) -> CatalogScreen:
        """The catalog screen, under any dialog open on top of it."""
        return self.screen_stack[0]
