"""The search input and the hint line under it.

Typing is debounced: the first key after a pause searches at once, keys typed in quick
succession wait until DEBOUNCE after the last one, so a fast typist runs one search, not ten.
The first two letters of a word are left out of the search while typed (querytext.py) unless
typing pauses on them: `RL` and `GP` are words too."""

from __future__ import annotations

from time import monotonic

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Input, Static

from catalog.tui.messages import QueryChanged
from catalog.tui.querytext import PREFIX_FROM, unfinished_word
from catalog.tui.state import remember
from catalog.tui.waiting import Typing

DEBOUNCE = 0.1
SHORT_WORD_WAIT = 0.6  # a pause this long on a 1-2 letter word searches it as a word
PLACEHOLDER = 'Search: words "a phrase" -not prefix* venue:ICML year:2025 tag:x status:read rating:>=4'


class SearchBar(Vertical):
    """Up and down walk the earlier queries (the session's history, kept across runs); down
    past the newest, or with no walk under way, goes to the list. A query joins the history
    when enter is pressed or the search bar is left, not at every key."""

    BINDINGS = [
        Binding("up", "history(-1)", "Earlier query", show=False,
                tooltip="In the search bar: the query before (kept across sessions)", id="history-back"),
        Binding("down", "history(1)", "Later query / list", show=False,
                tooltip="In the search bar: the next query; past the newest, to the list",
                id="history-forward"),
    ]

    def __init__(self, history: list[str] | None = None, typing: Typing | None = None, **kwargs) -> None:
        """`typing`: told of each key typed (the workers put their deferred work off)."""
        super().__init__(**kwargs)
        self.typing = typing
        self._timer: Timer | None = None
        self._pause: Timer | None = None  # searches a short word typing stopped on
        self._last_key = 0.0
        self.history = history if history is not None else []
        self._walk: int | None = None  # position in the history while walking it
        self._draft = ""  # what was typed before walking began

    def compose(self) -> ComposeResult:
        yield Input(placeholder=PLACEHOLDER, id="search", select_on_focus=False)
        yield Static(id="search-hint", markup=False)

    @property
    def input(self) -> Input:
        return self.query_one("#search", Input)

    @property
    def value(self) -> str:
        return self.input.value

    def set_query(self, text: str, run: bool = True) -> None:
        """Replace the query (a facet click, a saved search) and search at once (`run`)."""
        with self.input.prevent(Input.Changed):
            self.input.value = text
        self.input.cursor_position = len(text)
        self._stop_pause()
        if run:
            self._fire()

    def action_history(self, step: int) -> None:
        history = self.history
        if self._walk is None:
            if step > 0 or not history:
                self.screen.action_focus_list()
                return
            self._draft, self._walk = self.value, len(history)
            if history[-1] == " ".join(self.value.split()):  # already showing the newest
                self._walk -= 1
        position = self._walk + step
        if position < 0:
            return  # the oldest: stay
        if position >= len(history):
            self._walk = None
            self.set_query(self._draft)
            if step > 0 and position > len(history):
                self.screen.action_focus_list()
            return
        self._walk = position
        self.set_query(history[position])

    def remember(self) -> None:
        remember(self.history, self.value)
        self._walk = None

    def on_descendant_blur(self) -> None:
        self.remember()

    @property
    def hint_width(self) -> int:
        """The cells the line under the bar has (0 before the first layout)."""
        return self.query_one("#search-hint", Static).content_region.width

    def hint(self, content: Content | str, error: bool = False) -> None:
        hint = self.query_one("#search-hint", Static)
        # One line whatever it says (app.tcss): no layout of the whole screen again, which at
        # every result, count and cursor move cost the UI thread more than painting the list.
        hint.update(Content(content) if isinstance(content, str) else content, layout=False)
        hint.set_class(error, "-error")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._walk = None  # typing ends a walk through the history
        self._stop_pause()
        if self.typing is not None:
            self.typing.typed()
        now = monotonic()
        if self._timer is None and now - self._last_key > DEBOUNCE:
            self._fire()
        else:
            if self._timer is not None:
                self._timer.stop()
            self._timer = self.set_timer(DEBOUNCE, self._fire)
        self._last_key = now
        word = unfinished_word(self.value)
        if word and len(word) < PREFIX_FROM:
            self._pause = self.set_timer(SHORT_WORD_WAIT, self._paused)

    def _paused(self) -> None:
        self._pause = None
        word = unfinished_word(self.value)
        if word and len(word) < PREFIX_FROM:
            self._fire(finished=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.remember()
        self._stop_pause()
        self._fire(finished=True)  # and the event goes on up: the app moves to the list

    def _fire(self, finished: bool = False) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.post_message(QueryChanged(self.value, finished))

    def _stop_pause(self) -> None:
        if self._pause is not None:
            self._pause.stop()
            self._pause = None
