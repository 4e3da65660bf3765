"""The papers marked in the paper list (space, V for a range, ctrl+a for all, * to invert,
escape to unmark), which t, s, r, y and x then apply to. Marks outlive a search: they are
kept by key across searches, and the session's come back when the catalog opens again.

A range or all of a search's results may hold papers not loaded yet: their rows are fetched
in a thread worker of the list (the same search, in its order), and marking more papers than
the screen shows is asked first."""

from __future__ import annotations

from functools import partial
from typing import Protocol

from catalog.library import Catalog
from catalog.results import PaperSummary
from catalog.searching.request import SearchRequest
from catalog.tui.querytext import chunks, keys_query
from catalog.tui.screens.confirm import ConfirmScreen
from catalog.tui.widgets.paper_list_messages import MarksChanged, RowsForMarks


class MarkedList(Protocol):
    """What marking needs of the paper list (a Textual widget)."""

    catalog: Catalog
    request: SearchRequest | None
    generation: int
    total: int
    counted: bool
    cursor: int

    @property
    def current(self) -> PaperSummary | None: ...

    @property
    def app(self): ...

    @property
    def rows_on_screen(self) -> int: ...

    def paper_at(self, index: int) -> PaperSummary | None: ...

    def move_to(self, index: int) -> None: ...

    def post_message(self, message) -> bool: ...

    def refresh(self) -> None: ...

    def notify(self, message: str, **kwargs) -> None: ...

    def run_worker(self, work, **kwargs): ...


class Marks:
    def __init__(self, papers: MarkedList, page: int) -> None:
        self.papers = papers
        self.page = page  # a range shorter than a page is marked from the rows loaded
        self.marked: dict[str, PaperSummary] = {}
        self.anchor: int | None = None  # where a range (V) starts: V again marks to the cursor
        self.in_results: set[str] = set()  # keys fetched for marking: in these results too

    def _changed(self) -> None:
        self.papers.post_message(MarksChanged(len(self.marked)))
        self.papers.refresh()

    def new_results(self) -> None:
        self.anchor = None
        self.in_results = set()

    def in_range(self, index: int) -> bool:
        cursor = self.papers.cursor
        return self.anchor is not None and min(self.anchor, cursor) <= index <= max(self.anchor, cursor)

    def toggle(self) -> None:
        """space: the paper under the cursor marked, or unmarked; the cursor moves on."""
        papers = self.papers
        paper = papers.current
        if paper is None:
            return
        if self.marked.pop(paper.key, None) is None:
            self.marked[paper.key] = paper
        self._changed()
        papers.move_to(papers.cursor + 1)

    def add(self, papers: list[PaperSummary]) -> None:
        """Mark these papers too (a whole topic, chosen in the sidebar)."""
        self.marked.update((p.key, p) for p in papers)
        self._changed()

    def replace(self, fresh: dict[str, PaperSummary]) -> None:
        """New versions of papers (after an edit), marked ones among them."""
        for key in self.marked.keys() & fresh.keys():
            self.marked[key] = fresh[key]

    def range(self) -> None:
        """V: a range starts here; V again marks every paper from there to the cursor (rows
        not loaded yet are fetched: the range may span thousands)."""
        papers = self.papers
        if not papers.total:
            return
        if self.anchor is None:
            self.anchor = papers.cursor
            self._changed()
            return
        low, high = sorted((self.anchor, papers.cursor))
        self.anchor = None
        papers.refresh()
        rows = [papers.paper_at(i) for i in range(low, high + 1)] if high - low < self.page else [None]
        if None in rows:
            self.fetch_rows("range", low, high - low + 1)
        else:
            self.take("range", rows)

    def every(self, how: str) -> None:
        """ctrl+a ("all") and * ("invert"): every paper of the results, asked first when they
        are more than the screen shows. With the count known the question comes before the
        rows are read: reading a real library's 16k rows first kept it seconds away, and a
        `y` typed meanwhile opened the copy menu."""
        papers = self.papers
        total, shown = papers.total, papers.rows_on_screen
        if not total:
            return
        if not papers.counted or total <= shown:  # (not counted yet: asked once the rows come)
            self.fetch_rows(how)
            return
        generation = papers.generation

        def answered(yes: bool | None) -> None:
            if yes and generation == papers.generation:
                self.fetch_rows(how, asked=True)
            elif yes:
                papers.notify("The results changed meanwhile: nothing marked", severity="warning")

        papers.app.push_screen(ConfirmScreen(self._question(how, total, shown), yes=self._verb(how).split()[0],
                                             no="Cancel"), answered)

    @staticmethod
    def _verb(how: str) -> str:
        return "Mark" if how == "all" else "Invert the marks of"

    def _question(self, how: str, total: int, shown: int) -> str:
        return (f"{self._verb(how)} all {total:,} papers of these results? Only {min(shown, total)} "
                "are on screen.")

    def fetch_rows(self, how: str, offset: int = 0, limit: int = -1, asked: bool = False) -> None:
        """Rows of the results shown, for marking (`how`: "all", "invert" or "range";
        `asked`: the user said yes to marking them all already)."""
        papers = self.papers
        if papers.total:
            papers.run_worker(partial(self._rows, papers.catalog, papers.request, papers.generation, how,
                                      offset, limit, asked), group="marking", thread=True, exclusive=True,
                              exit_on_error=False)

    def _rows(self, catalog: Catalog, request: SearchRequest, generation: int, how: str,
              offset: int, limit: int, asked: bool = False) -> None:
        # The same search the list shows, in its order: the rows are the list's.
        try:
            rows = catalog.search(request, limit=limit, offset=offset, snippets=False)
        except Exception as exc:
            self.papers.notify(f"Cannot mark: {exc}", severity="error", markup=False)
            return
        self.papers.post_message(RowsForMarks(generation, how, rows, asked))

    def rows_came(self, message: RowsForMarks) -> None:
        papers = self.papers
        if message.how == "restore":  # not these results' papers, maybe
            self.marked.update((p.key, p) for p in message.rows if p.key not in self.marked)
            self._changed()
            return
        if message.generation != papers.generation:
            papers.notify("The results changed meanwhile: nothing marked", severity="warning")
            return
        rows, shown = message.rows, papers.rows_on_screen
        if message.how == "range" or message.asked or len(rows) <= shown:
            self.take(message.how, rows)
            return

        def answered(yes: bool | None) -> None:
            if yes and message.generation == papers.generation:
                self.take(message.how, rows)

        papers.app.push_screen(ConfirmScreen(self._question(message.how, len(rows), shown),
                                             yes=self._verb(message.how).split()[0], no="Cancel"), answered)

    def restore(self, keys: list[str]) -> None:
        """Mark these papers again (the session's marks); papers gone since are left out."""
        self.papers.run_worker(partial(self._restore, keys), group="marks-restore", thread=True,
                               exclusive=True, exit_on_error=False)

    def _restore(self, keys: list[str]) -> None:
        found: list[PaperSummary] = []
        try:
            for chunk in chunks(keys):
                found += self.papers.catalog.search(keys_query(chunk), limit=2 * len(chunk), snippets=False)
        except Exception:  # a convenience, like the rest of the session
            return
        if found:
            self.papers.post_message(RowsForMarks(-1, "restore", found))

    def take(self, how: str, rows: list[PaperSummary]) -> None:
        self.in_results.update(p.key for p in rows)  # acting on them asks nothing more
        if how == "invert":
            for p in rows:
                if self.marked.pop(p.key, None) is None:
                    self.marked[p.key] = p
        else:
            self.marked.update((p.key, p) for p in rows)
        self._changed()

    def unmark_all(self) -> None:
        """Asked first: marks gathered over several searches were lost to one habitual escape,
        and `u` undid an earlier change instead of bringing them back. An open range (V) is
        dropped first."""
        if self.anchor is not None:
            self.anchor = None
            self._changed()
            return
        if not self.marked:
            return
        count = len(self.marked)

        def answered(yes: bool | None) -> None:
            if yes and len(self.marked) == count:
                self.marked.clear()
                self._changed()

        papers = "the marked paper" if count == 1 else f"all {count:,} marked papers"
        self.papers.app.push_screen(ConfirmScreen(f"Unmark {papers}?", yes="Unmark", no="Keep the marks"),
                                    answered)
