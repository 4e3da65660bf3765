"""The saved searches' keys on the catalog screen: g opens the picker, gg goes to the first
paper, 1-9 run a saved search by its place. The picker opens once GG seconds pass without a
second g, or at once with any other key (which goes to it); a g pressed in it means gg too.
With no saved searches there is no picker: a second g within GG seconds goes to the top, and
only a lone g says that there are none."""

from __future__ import annotations

from time import monotonic
from typing import Protocol

from textual.timer import Timer

from catalog.results import Facets, SavedQuery
from catalog.tui.editing import Editing
from catalog.tui.screens.pickers import DeleteSaved, GoToTop, SavedSearchScreen

GG = 0.5  # seconds within which a second g means "to the top" (gg)


class SavedKeysHost(Protocol):
    """What the saved searches' keys need of the catalog screen (a Textual Screen)."""

    editing: Editing

    @property
    def app(self): ...

    @property
    def facets(self) -> Facets | None: ...

    def go_to_top(self) -> None: ...

    def run_saved(self, saved: SavedQuery) -> None: ...

    def say(self, message: str, **kwargs) -> None: ...

    def set_timer(self, delay: float, callback) -> Timer: ...


class SavedSearchKeys:
    def __init__(self, screen: SavedKeysHost) -> None:
        self.screen = screen
        self._last_g = 0.0
        self._g_waiting: Timer | None = None  # a g's picker, opening unless g (gg) comes first

    def _saved(self) -> tuple[SavedQuery, ...]:
        facets = self.screen.facets
        return facets.saved if facets else ()

    def g(self) -> None:
        """g pressed on the screen."""
        if not self._saved():
            now = monotonic()
            if now - self._last_g < GG:
                self._last_g = 0.0
                self.screen.go_to_top()
            else:
                self._last_g = now
                self.screen.set_timer(GG, self._lone_g)
            return
        if self._g_waiting is None:
            self._g_waiting = self.screen.set_timer(GG, self.open_picker)

    def key_after_g(self, key: str) -> bool:
        """A key that came while a g's picker waits: g again is gg (the top, no picker flashing
        by; True: the key is used up); another key opens the picker at once, and goes to it
        (`g` `down` `d`: delete the second)."""
        if self._g_waiting is None:
            return False
        self._g_waiting.stop()
        self._g_waiting = None
        if key == "g":
            self.screen.go_to_top()
            return True
        self.open_picker()
        return False

    def open_picker(self) -> None:
        self._g_waiting = None
        screen = self.screen
        saved = self._saved()
        if not saved or screen.app.screen is not screen:
            return

        def picked(choice) -> None:
            if choice and isinstance(choice.value, GoToTop):
                screen.go_to_top()
            elif choice and isinstance(choice.value, DeleteSaved):
                screen.editing.confirm_delete_saved_search(choice.value.saved)
            elif choice:
                screen.run_saved(choice.value)

        screen.app.push_screen(SavedSearchScreen(saved), picked)

    def _lone_g(self) -> None:
        if self._last_g and monotonic() - self._last_g >= GG - 0.01:
            self._last_g = 0.0
            self.screen.say("No saved searches yet: S saves the current query (gg goes to the top)")

    def number(self, number: int) -> None:
        """1-9: the saved search in that place."""
        saved = self._saved()
        if 1 <= number <= len(saved):
            self.screen.run_saved(saved[number - 1])
