"""What the catalog screen offers the parts composed into it that show nothing (editing.py,
sharing.py, discovering.py): they depend on this Protocol, not on screens/main.py, which
imports them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from catalog.results import Edit, Facets, PaperDetail, PaperSummary
from catalog.tui.widgets.detail import DetailPane
from catalog.tui.widgets.paper_list import PaperList
from catalog.tui.widgets.search_bar import SearchBar


class CatalogHost(Protocol):
    @property
    def papers(self) -> PaperList: ...

    @property
    def search_bar(self) -> SearchBar: ...

    @property
    def pane(self) -> DetailPane: ...

    @property
    def facets(self) -> Facets | None:
        """The counts the sidebar shows (their saved searches and tag names too)."""

    @property
    def detail(self) -> PaperDetail | None:
        """The paper the reading pane shows."""

    def with_targets(self, then: Callable[[list[PaperSummary]], None]) -> None:
        """`then` with the papers an action applies to (editing.py asks about hidden marks)."""

    def show_edit(self, edit: Edit) -> None:
        """A change made here: its papers shown anew, the paper and the counts read again."""

    def jump(self, query: str, say: str = "") -> None:
        """Replace the query; ctrl+o goes back to the one it replaced."""

    def set_focus(self, widget) -> None: ...
