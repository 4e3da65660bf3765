"""Every key, generated from the bindings themselves so the list cannot fall behind them."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from catalog.tui import keys
from catalog.tui.keymap import keys_of
from catalog.tui.widgets.detail import DetailPane
from catalog.tui.widgets.paper_list import PaperList
from catalog.tui.widgets.search_bar import SearchBar
from catalog.tui.widgets.sidebar import Sidebar

QUERY_HELP = [
    ("words", "all the words, in any form (neuron: neurons); then ≈ papers with some"),
    ("=word", "this form only"),
    ('"a phrase"', "the phrase"),
    ("a OR b", "either word"),
    ("-word  NOT word", "without the word"),
    ("prefix*", "words beginning with prefix"),
    ("venue:ICML  year:2024..2026", "venue, year or a year range"),
    ("tag:project", "tagged project or project/anything"),
    ("status:read  rating:>=4", "reading status, rating"),
    ("has:notes", "with notes (also tags, rating, title, abstract, authors)"),
    ("notice:retracted  has:notice", "flagged retracted (withdrawn, corrected, grave...); any notice"),
]
EXTRA_KEYS = [
    ("g g", "The first paper (the second g within half a second, or in the saved-search list)"),
    ("ctrl+p", "Command palette: every action by name"),
    ("tab / shift+tab", "Move between search, sidebar, list and detail"),
    ("mouse", "Click a row to read it, a facet to filter, a saved search to run it"),
]


def _section(title: str, rows: list[tuple[str, ...]]) -> list:
    """A heading, then rows in columns; the last column wraps under itself, not under the key."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    for _ in rows[0][1:-1]:
        grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, style="dim" if len(rows[0]) > 2 else "")
    for row in rows:
        grid.add_row(*row)
    return [Text(""), Text(title, style="bold underline"), grid]


def key_rows(app, bindings: list[Binding]) -> list[tuple[str, Binding]]:
    """(keys as shown, binding) for each binding: the nine saved searches and the five
    ratings as one row each."""
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
        names = [app.get_key_display(b.with_key(k)) for k in keys_of(b, getattr(app, "user_keys", {})).split(",")]
        out.append((" ".join(names), b))
    return out


def every_key(app) -> list[tuple[str, list[tuple[str, Binding]]]]:
    """The catalog screen's keys, and those of its widgets, triage mode and the note editor."""
    return [("Everywhere", key_rows(app, keys.BINDINGS)),
            ("Paper list", key_rows(app, PaperList.BINDINGS)),
            ("Reading pane (enter from the list)", key_rows(app, DetailPane.BINDINGS)),
            ("Search bar", key_rows(app, SearchBar.BINDINGS)),
            ("Facets (f)", key_rows(app, Sidebar.BINDINGS)),
            ("Triage mode (T)", key_rows(app, keys.TRIAGE_BINDINGS)),
            ("Note editor", [("ctrl+s", Binding("ctrl+s", "", "Save the note")),
                             ("escape", Binding("escape", "", "Cancel (asks if text would be lost)"))])]


def help_content(groups: list[tuple[str, list[tuple[str, Binding]]]]) -> Group:
    parts: list = []
    for title, bindings in groups:
        # Each binding's name (its id) is what keys.toml rebinds (keymap.py).
        parts += _section(title, [(key, b.description, Text.assemble(b.tooltip or "", (f"  ({b.id})" if b.id else "", "italic")))
                                  for key, b in bindings])
    parts += _section("Anywhere", EXTRA_KEYS)
    parts += _section("Search language", QUERY_HELP)
    return Group(*parts[1:])


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss(None)", "Close", id="close")]

    def __init__(self, groups: list[tuple[str, list[tuple[str, Binding]]]]) -> None:
        super().__init__(classes="dialog-screen")
        self.groups = groups

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="help"):
            yield Static(Content.styled("Keys  (escape closes)", "bold"), classes="dialog-title")
            yield Static(help_content(self.groups))
