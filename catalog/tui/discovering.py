"""Discovery in the app: `m`, the papers like the one under the cursor. (The Topics facet is
the sidebar's: widgets/sidebar.py.)

Model work (building the discovery cache) runs in a thread worker that posts a message, never
on the UI thread; the first `m` on a large catalog takes seconds, said on screen (in the
dialog and the reading pane) while it runs. SimilarPapers is a widget of the catalog screen
that shows nothing: it keeps what was found this session and hands it to the dialog and the
reading pane."""

from __future__ import annotations


from textual import work
from textual.widget import Widget

from catalog.library import Catalog
from catalog.results import PaperSummary, RelatedPaper
from catalog.tui.display import first_line
from catalog.tui.host import CatalogHost
from catalog.tui.messages import SimilarLoaded
from catalog.tui.screens.similar import SimilarScreen
from catalog.tui.widgets.detail import Similar

SIMILAR = 20  # papers `m` lists
IN_PANE = 5  # of them, shown in the reading pane
KEPT = 200  # papers whose similar papers are kept for the session


class SimilarPapers(Widget):
    """`m` on the catalog screen (shows nothing)."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__()
        self.catalog = catalog
        self.found: dict[str, list[RelatedPaper]] = {}  # key -> its similar papers, this session
        self.finding: set[str] = set()  # keys whose similar papers are being found

    @property
    def main(self) -> CatalogHost:
        return self.screen

    def forget(self) -> None:
        """Papers may have come since (R): find them again when asked."""
        self.found.clear()

    def show(self, paper: PaperSummary) -> None:
        """The dialog of the papers like `paper`, found in a worker the first time."""
        screen = SimilarScreen(paper.key, paper.title)
        self.app.push_screen(screen, self._chosen)
        found = self.found.get(paper.key)
        if found is not None:
            self.call_after_refresh(screen.show, found)
        elif paper.key not in self.finding:
            self.finding.add(paper.key)
            self._in_pane(paper.key)
            self._find(paper.key)

    @work(thread=True, group="similar", exit_on_error=False)
    def _find(self, key: str) -> None:
        try:
            self.post_message(SimilarLoaded(key, self.catalog.similar(key, SIMILAR)))
        except Exception as exc:  # an unknown key (deleted meanwhile), an unwritable cache
            self.post_message(SimilarLoaded(key, None, first_line(exc)))

    def on_similar_loaded(self, message: SimilarLoaded) -> None:
        message.stop()
        self.finding.discard(message.key)
        if message.papers is not None:
            if len(self.found) >= KEPT:
                self.found.clear()
            self.found[message.key] = message.papers
        top = self.app.screen
        if isinstance(top, SimilarScreen) and top.key == message.key:
            if message.papers is None:
                top.show_error(message.error or "cannot find similar papers")
            else:
                top.show(message.papers)
        elif message.error:
            self.notify(f"Cannot find papers like {message.key}: {message.error}",
                        severity="warning", markup=False)
        self._in_pane(message.key)

    def for_pane(self, key: str) -> Similar:
        """What the reading pane says under paper `key`: its similar papers once found, a line
        while they are being found, else (None) the hint that m finds them."""
        if key in self.finding:
            return "finding similar papers…"
        found = self.found.get(key)
        return found[:IN_PANE] if found is not None else None

    def _in_pane(self, key: str) -> None:
        """The reading pane's "Papers like this one" entry again, when it shows paper `key`."""
        pane = self.main.pane
        if pane.detail is not None and pane.detail.summary.key == key:
            pane.redraw()

    def _chosen(self, paper: RelatedPaper | None) -> None:
        if paper is not None:
            self.main.jump(f"key:{paper.key}", say="ctrl+o goes back to the search before")
            self.main.set_focus(self.main.papers)
