"""The search input and the hint line under it.

Typing is debounced: the first key after a pause searches at once, keys typed in quick
succession wait until 100 ms after the last one, so a fast typist runs one search, not ten."""

from __future__ import annotations

from time import monotonic

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Input, Static

from catalog.tui.messages import QueryChanged

DEBOUNCE = 0.1
PLACEHOLDER = 'Search: words "a phrase" -not prefix* venue:ICML year:2025 tag:x status:read rating:>=4'


class SearchBar(Vertical):
    BINDINGS = [Binding("down", "screen.focus_list", "To the list", show=False)]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._timer: Timer | None = None
        self._last_key = 0.0

    def compose(self) -> ComposeResult:
        yield Input(placeholder=PLACEHOLDER, id="search", select_on_focus=False)
        yield Static(id="search-hint", markup=False)

    @property
    def input(self) -> Input:
        return self.query_one("#search", Input)

    @property
    def value(self) -> str:
        return self.input.value

    def set_query(self, text: str) -> None:
        """Replace the query (a facet click, a saved search) and search at once."""
        with self.input.prevent(Input.Changed):
            self.input.value = text
        self.input.cursor_position = len(text)
        self._fire()

    def hint(self, content: Content | str, error: bool = False) -> None:
        hint = self.query_one("#search-hint", Static)
        hint.update(Content(content) if isinstance(content, str) else content)
        hint.set_class(error, "-error")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        now = monotonic()
        if self._timer is None and now - self._last_key > DEBOUNCE:
            self._fire()
        else:
            if self._timer is not None:
                self._timer.stop()
            self._timer = self.set_timer(DEBOUNCE, self._fire)
        self._last_key = now

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._fire()  # and the event goes on up: the app moves to the list

    def _fire(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.post_message(QueryChanged(self.value))
