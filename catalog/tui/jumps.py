"""ctrl+o's way back. A jump replaces the query with another (a facet, a saved search, a
similar or added paper, "did you mean"); the query it replaced is remembered with the paper
the cursor was on, and ctrl+o goes back to both (`m` then enter left `key:…` in the search
bar with no way back). The catalog screen holds one Jumps and hands it these keys."""

from __future__ import annotations

from typing import Protocol

from catalog.tui.search import SearchController
from catalog.tui.widgets.paper_list import PaperList
from catalog.tui.widgets.search_bar import SearchBar

JUMPS = 50  # queries ctrl+o can go back through


class JumpHost(Protocol):
    """What jumping needs of the catalog screen."""

    searching: SearchController

    @property
    def papers(self) -> PaperList: ...

    @property
    def search_bar(self) -> SearchBar: ...

    def search(self, query: str, keep: str | None = None, counted: bool | None = None,
               refresh: bool = False, finished: bool = False, typing: bool = False) -> None: ...

    def say(self, message: str, **kwargs) -> None: ...

    def set_focus(self, widget) -> None: ...

    def refresh_bindings(self) -> None: ...


class Jumps:
    """The queries jumps replaced, newest last, each with the paper under the cursor then."""

    def __init__(self, screen: JumpHost, depth: int = JUMPS) -> None:
        self.screen = screen
        self.depth = depth
        self.back: list[tuple[str, str | None]] = []  # (query, paper key) before each jump

    def __bool__(self) -> bool:
        """Whether ctrl+o has somewhere to go."""
        return bool(self.back)

    def jump(self, query: str, say: str = "") -> None:
        """Search `query` instead, remembering the query it replaces and the paper."""
        screen = self.screen
        current = screen.papers.current
        self.back.append((screen.search_bar.value, current.key if current else None))
        del self.back[:-self.depth]
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

    def go_back(self) -> None:
        """ctrl+o: the query before the newest jump, the cursor on the paper it was on."""
        if not self.back:
            return
        screen = self.screen
        query, key = self.back.pop()
        screen.search_bar.set_query(query, run=False)
        screen.search(query, keep=key, finished=True)
        screen.set_focus(screen.papers)
        screen.refresh_bindings()
