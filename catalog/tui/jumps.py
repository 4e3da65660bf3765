"""Back and forward through the places the user has been, as a browser's history.

A place is a query (its filters are in its text), the order it was sorted in, and the paper
under the cursor. Each jump (a similar paper's enter, a facet, a saved search, `A`'s paper,
"did you mean") and each typed search the user settles on (enter, or leaving the search bar)
makes a new place; the one it replaces goes on the back list. ctrl+o goes back, ctrl+i (or
alt+right) forward, each restoring the query, the order and the cursor's paper; a new place
after going back drops the places ahead, as a browser does. The lists are kept per catalog
with the session (state.py), the newest PLACES of each. The catalog screen holds one Jumps and
hands it these keys."""

from __future__ import annotations

from typing import Protocol

from catalog.searching.query import RELEVANCE, QueryError, Sort
from catalog.tui.search import SearchController
from catalog.tui.state import PLACES, Place, State
from catalog.tui.widgets.paper_list import PaperList
from catalog.tui.widgets.search_bar import SearchBar


class JumpHost(Protocol):
    """What jumping needs of the catalog screen."""

    searching: SearchController
    remembered: State

    @property
    def query_text(self) -> str: ...

    @property
    def papers(self) -> PaperList: ...

    @property
    def search_bar(self) -> SearchBar: ...

    def search(self, query: str, keep: str | None = None, counted: bool | None = None,
               refresh: bool = False, finished: bool = False, typing: bool = False) -> None: ...

    def say(self, message: str, **kwargs) -> None: ...

    def set_focus(self, widget) -> None: ...

    def refresh_bindings(self) -> None: ...


def _same(a: str, b: str) -> bool:
    return a.split() == b.split()


def _sort(text: str) -> Sort:
    try:
        return Sort.parse(text)
    except QueryError:  # a session file from another version: the default order
        return RELEVANCE


class Jumps:
    """The places behind (newest last) and ahead (the next one last) of the one shown."""

    def __init__(self, screen: JumpHost, depth: int = PLACES) -> None:
        self.screen = screen
        self.depth = depth
        remembered = screen.remembered
        # The session's lists themselves, so that what is saved on leaving is always current.
        self.back: list[Place] = remembered.back
        self.ahead: list[Place] = remembered.forward
        self.here = Place(remembered.query, remembered.sort, remembered.key)

    def can_walk(self, step: int) -> bool:
        """Whether ctrl+o (-1) or ctrl+i (1) has somewhere to go."""
        return bool(self.back if step < 0 else self.ahead)

    # --- keeping track of where the user is ---------------------------------------------

    def _now(self) -> Place:
        """The place on screen: the query shown, its order and the paper under the cursor."""
        screen = self.screen
        current = screen.papers.current
        return Place(screen.query_text, self._sort_text(), current.key if current else None)

    def _sort_text(self) -> str:
        sort = self.screen.searching.state.sort
        return "" if sort == RELEVANCE else str(sort)

    def moved(self, key: str | None) -> None:
        """The cursor is on `key`: the place shown keeps it, unless the list now shows a query
        being typed (its place is made once the user settles on it)."""
        if _same(self.screen.query_text, self.here.query):
            self.here = Place(self.here.query, self._sort_text(), key)

    def settled(self) -> None:
        """The search shown is one the user settled on (the search bar left, enter, a jump
        about to be made): a new place if its query differs from the place before."""
        now = self._now()
        if _same(now.query, self.here.query):  # the same place (its paper kept while the list loads)
            self.here = Place(now.query, now.sort, now.key or self.here.key)
            return
        self._leave(now)

    def _leave(self, new: Place) -> None:
        """Go to a new place: the one shown goes on the back list, the places ahead are gone."""
        self.back.append(self.here)
        del self.back[:-self.depth]
        self.ahead.clear()
        self.here = new

    # --- the keys -----------------------------------------------------------------------

    def jump(self, query: str, say: str = "") -> None:
        """Search `query` instead; ctrl+o comes back to the query, order and paper it replaces."""
        screen = self.screen
        self.settled()
        if not _same(query, self.here.query):
            self._leave(Place(query, self._sort_text(), None))
        screen.search_bar.set_query(query)
        screen.refresh_bindings()
        if say:
            screen.say(say)

    def accept_correction(self) -> None:
        """Y (or enter on an empty list): search what "did you mean" offers, rather than
        leaving the typing to the reader; ctrl+o goes back to what was typed."""
        screen = self.screen
        correction = screen.searching.state.correction
        if correction:
            self.jump(correction)
            screen.set_focus(screen.papers)

    def walk(self, step: int) -> None:
        """ctrl+o (-1): the place before, its query, order and the paper the cursor was on;
        ctrl+i (1): the place ctrl+o came back from."""
        source, other = (self.back, self.ahead) if step < 0 else (self.ahead, self.back)
        self.settled()
        if not source:
            return
        other.append(self.here)
        del other[:-self.depth]
        self.here = source.pop()
        self._show(self.here)

    def _show(self, place: Place) -> None:
        screen = self.screen
        sort = _sort(place.sort)
        screen.searching.sort_by(sort)
        screen.remembered.sort = "" if sort == RELEVANCE else str(sort)
        screen.search_bar.set_query(place.query, run=False)
        screen.search(place.query, keep=place.key, finished=True)
        screen.set_focus(screen.papers)
        screen.refresh_bindings()
