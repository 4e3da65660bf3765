"""Where a key typed on the catalog screen goes, and which of the screen's keys apply now.

A key typed right after one that opens a dialog (`r` `5` in quick succession) came to the
screen before the app had run the first key's binding, and reached the bindings only once the
dialog was on top, where nothing took it: the rating dialog never saw the 5 and stayed open.
So the bindings run here, as each key comes, and a key that comes while a dialog is on top
goes to the dialog, as if typed there: to what the dialog focuses once it is shown (`t` `foo`:
the tag editor's input had no focus yet, and letters sent to the dialog itself were lost), so
it waits its turn in the dialog's queue, behind the dialog's own start. Likewise a letter that
was on its way to the list when `/` moved the focus to the search bar goes to the search bar."""

from __future__ import annotations

from typing import Protocol

from textual import events
from textual.widgets import Input

from catalog.tui import keys
from catalog.tui.editing import Editing
from catalog.tui.jumps import Jumps
from catalog.tui.saved_keys import SavedSearchKeys
from catalog.tui.search import SearchController
from catalog.tui.widgets.paper_list import PaperList


class RoutingHost(Protocol):
    """What routing keys needs of the catalog screen (a Textual Screen)."""

    searching: SearchController
    editing: Editing
    jumps: Jumps
    saved_keys: SavedSearchKeys

    @property
    def app(self): ...

    @property
    def focused(self): ...

    @property
    def is_attached(self) -> bool: ...

    @property
    def papers(self) -> PaperList: ...

    @property
    def typing(self) -> bool: ...

    @property
    def query_text(self) -> str: ...

    def say(self, message: str, **kwargs) -> None: ...


class KeyRouting:
    def __init__(self, screen: RoutingHost) -> None:
        self.screen = screen

    async def route(self, event: events.Key) -> None:
        screen = self.screen
        app = screen.app
        if not screen.is_attached or not app.is_running:
            return
        if app.screen is screen and screen.saved_keys.key_after_g(event.key):
            event.stop()
            event.prevent_default()
            return
        if app.screen is not screen:
            if screen in app.screen_stack:
                event.stop()
                event.prevent_default()
                top, key = app.screen, events.Key(event.key, event.character)
                top.call_later(lambda: (top.focused or top)._forward_event(key))
            return
        focused = screen.focused
        if event.is_printable and isinstance(focused, Input):
            # A typed letter that reaches the screen with a text field focused was sent to
            # another widget before the focus moved (the field itself takes every letter).
            event.stop()
            event.prevent_default()
            focused._forward_event(events.Key(event.key, event.character))
            return
        if await app._check_bindings(event.key):  # what the app would do next
            event.stop()
            event.prevent_default()
        elif (why := self._why_not(event.key)) is not None:
            event.stop()
            screen.say(why)

    def _why_not(self, key: str) -> str | None:
        """Why a paper's key does nothing on an empty list (it said nothing at all)."""
        screen = self.screen
        if screen.typing or screen.papers.current is not None or screen.papers.marked:
            return None
        return keys.why_not(key, screen.query_text)

    def allowed(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The screen's check_action: False hides a key while typing, None greys it out."""
        screen = self.screen
        papers = screen.papers
        if screen.typing and action in keys.NOT_WHILE_TYPING:
            return False
        if action in keys.PAPER_ACTIONS and not papers.targets():
            return None
        if action in ("similar", "triage", "references") and papers.current is None and not papers.marked:
            return None
        if action == "walk" and not screen.jumps.can_walk(*parameters):
            return None
        if action == "accept_correction" and not screen.searching.state.correction:
            return None
        # While a change is being written u and U wait for it (editing.py): never greyed out.
        if action == "undo" and not screen.editing.undo_stack and not screen.editing.writing:
            return None
        if action == "redo" and not screen.editing.redo_stack and not screen.editing.writing:
            return None
        return True
