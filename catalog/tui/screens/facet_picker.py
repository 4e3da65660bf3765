"""The whole of a wide facet (every venue of a real library), filtered by typing: what the
sidebar's "N more…" opens. At most PICKED matches are listed at once, so typing stays quick
with thousands of entries; enter (or a click) gives the entry chosen, escape None."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from catalog.tui.display import one_line
from catalog.tui.facetlist import Entry, matching


class FacetPickerScreen(ModalScreen[Entry | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel")]

    def __init__(self, title: str, entries: tuple[Entry, ...]) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text, self.entries = title, entries
        self.shown: list[Entry] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="facet-picker"):
            yield Label(Text(self.title_text), classes="dialog-title")
            yield Input(placeholder="type to filter", id="facet-filter")
            yield OptionList()
            yield Label(Text(""), classes="dialog-hint", id="facet-hint")

    def on_mount(self) -> None:
        self._show("")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._show(event.value)

    def _show(self, text: str) -> None:
        self.shown, found = matching(self.entries, text)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(Text.assemble(one_line(e.name), (f" {e.count:,}", "dim")))
                             for e in self.shown])
        if self.shown:
            options.highlighted = 0
        more = f"{found - len(self.shown):,} more match: type to narrow · " if found > len(self.shown) else ""
        none = "nothing matches · " if not found else ""
        self.query_one("#facet-hint", Label).update(
            Text(f"{none}{more}up/down and enter choose · escape cancels"))

    def on_key(self, event: events.Key) -> None:
        # The filter keeps the focus: up, down and page keys move in the list.
        if event.key in ("up", "down", "pageup", "pagedown"):
            event.stop()
            options = self.query_one(OptionList)
            {"up": options.action_cursor_up, "down": options.action_cursor_down,
             "pageup": options.action_page_up, "pagedown": options.action_page_down}[event.key]()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        index = self.query_one(OptionList).highlighted
        if index is not None and index < len(self.shown):
            self.dismiss(self.shown[index])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.shown[event.option_index])
