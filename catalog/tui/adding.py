"""Papers from the web in the app: `A` (and the palette) asks for a DOI, an arXiv id or a
link and adds the paper, which is then selected (ctrl+o goes back to the search before); `C`
lists the papers one cites or that cite it (screens/linked.py), and one chosen there is
added by its DOI or arXiv id, or gone to when the catalog holds it.

The fetch runs in a thread worker (arXiv asks for three seconds between requests; a service
may take long), never on the UI thread; offline it is one line, and nothing changes.
WebPapers is a widget of the catalog screen that shows nothing, like editing.py's Editing."""

from __future__ import annotations

from textual import work
from textual.widget import Widget

from catalog.errors import CatalogError
from catalog.library import Catalog
from catalog.results import Added, LinkedPaper, PaperSummary
from catalog.tui.display import first_line, shorten
from catalog.tui.host import CatalogHost
from catalog.tui.messages import LinkedLoaded, WebPapersAdded
from catalog.tui.screens.linked import LinkedScreen
from catalog.tui.screens.prompt import PromptScreen

ASK = "Add a paper by its DOI, arXiv id or link (several: separated by spaces)"
EXAMPLES = "10.1371/journal.pone.0033693 · arXiv:1706.03762 · https://openreview.net/forum?id=…"


class WebPapers(Widget):
    """`A` on the catalog screen (shows nothing)."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__()
        self.catalog = catalog

    @property
    def main(self) -> CatalogHost:
        return self.screen

    def ask(self) -> None:
        def done(text: str | None) -> None:
            if text and text.split():
                self.add(text.split())

        self.app.push_screen(PromptScreen(ASK, hint="enter fetches it · escape cancels",
                                          placeholder=EXAMPLES), done)

    def add(self, identifiers: list[str]) -> None:
        """Fetch and add these papers in a worker; the first one is then selected."""
        self.notify(f"Fetching {shorten(' '.join(identifiers), 60)}…", markup=False, timeout=3)
        self._fetch(identifiers)

    @work(thread=True, group="web-add", exit_on_error=False)
    def _fetch(self, identifiers: list[str]) -> None:
        try:
            self.post_message(WebPapersAdded(self.catalog.web.add_identifiers(identifiers)))
        except CatalogError as exc:  # offline, not an identifier, a service down
            self.post_message(WebPapersAdded([], str(exc)))
        except Exception as exc:  # the catalog locked for longer than the busy timeout, say
            self.post_message(WebPapersAdded([], f"nothing added: {first_line(exc)}"))

    def linked(self, paper: PaperSummary) -> None:
        """The dialog of the papers `paper` cites, found in a worker."""
        self.app.push_screen(LinkedScreen(paper.key, paper.title, False, self._ask_linked), self._chosen)

    def _ask_linked(self, key: str, citing: bool) -> None:
        self._find_linked(key, citing)

    @work(thread=True, exclusive=True, group="web-linked", exit_on_error=False)
    def _find_linked(self, key: str, citing: bool) -> None:
        try:
            self.post_message(LinkedLoaded(key, citing, self.catalog.web.linked(key, citing=citing)))
        except CatalogError as exc:  # offline, no identifier to ask by, the service does not know it
            self.post_message(LinkedLoaded(key, citing, None, str(exc)))
        except Exception as exc:
            self.post_message(LinkedLoaded(key, citing, None, first_line(exc)))

    def on_linked_loaded(self, message: LinkedLoaded) -> None:
        message.stop()
        top = self.app.screen if self.app.is_running else None
        if not isinstance(top, LinkedScreen) or (top.key, top.citing) != (message.key, message.citing):
            return  # closed, or the other list asked for since
        if message.linked is None:
            top.show_error(message.error or "cannot list them")
        else:
            top.show(message.linked)

    def _chosen(self, paper: LinkedPaper | None) -> None:
        if paper is None:
            return
        if paper.key:  # the catalog holds it already
            self.main.jump(f"key:{paper.key}", say="ctrl+o goes back to the search before")
            self.main.set_focus(self.main.papers)
        elif paper.doi or paper.arxiv_id:
            self.add([paper.doi or f"arXiv:{paper.arxiv_id}"])
        else:
            self.notify("It has no DOI or arXiv id to add it by.", severity="warning", markup=False)

    def on_web_papers_added(self, message: WebPapersAdded) -> None:
        message.stop()
        if not self.app.is_running:
            return
        if message.error:
            self.notify(message.error, severity="error", markup=False, timeout=8)
            return
        for failed in (a for a in message.added if a.outcome == "failed"):
            self.notify(f"{failed.identifier}: {failed.error}", severity="error", markup=False, timeout=8)
        found = [a for a in message.added if a.paper is not None]
        if found:
            self.main.jump(f"key:{found[0].paper.key}", say=_said(found) + " · ctrl+o goes back")
            self.main.set_focus(self.main.papers)


def _said(found: list[Added]) -> str:
    verbs = {"new": "Added", "updated": "Filled in", "unchanged": "Already here:"}
    first = found[0]
    line = f"{verbs.get(first.outcome, 'Added')} {first.paper.key}: {shorten(first.paper.title, 50)}"
    return line + (f" (and {len(found) - 1} more)" if len(found) > 1 else "")
