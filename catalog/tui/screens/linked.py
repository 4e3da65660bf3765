"""`C`: the papers one cites (or, `c` again, those citing it), as catalog refs and cited-by
list them. It opens at once saying "asking …" while a worker of catalog/tui/adding.py asks
the service; a paper the catalog holds is marked with its key. Enter or `a` on one goes to
it when the catalog holds it, else adds it by its DOI or arXiv id; escape closes."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from catalog.results import Linked, LinkedPaper
from catalog.tui.display import one_line, shorten

HINT = "enter or a: go to it, or add it with its identifiers · c: {other} · escape closes"


class LinkedScreen(ModalScreen[LinkedPaper | None]):
    BINDINGS = [
        Binding("escape,C", "dismiss(None)", "Close", id="close-linked"),
        Binding("c", "other", "Cited by / references", id="linked-other"),
        Binding("a", "take", "Add", id="linked-add"),
    ]

    def __init__(self, key: str, title: str, citing: bool, ask: Callable[[str, bool], None]) -> None:
        super().__init__(classes="dialog-screen")
        self.key, self.paper_title, self.citing, self.ask = key, title, citing, ask
        self.papers: list[LinkedPaper] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="linked"):
            yield Label(self._title(), classes="dialog-title", id="linked-title")
            yield OptionList(id="linked-list")
            yield Label(Text(""), classes="dialog-hint", id="linked-hint")

    def on_mount(self) -> None:
        self._asking()

    def _title(self) -> Text:
        what = "Papers citing" if self.citing else "References of"
        return Text(f"{what} {self.key}: {shorten(self.paper_title, 60)}")

    def _asking(self) -> None:
        self.query_one(OptionList).clear_options()
        self.papers = []
        self.query_one("#linked-title", Label).update(self._title())
        self._hint("asking Semantic Scholar…" if self.citing else "asking Semantic Scholar or Crossref…")
        self.ask(self.key, self.citing)

    def show(self, linked: Linked) -> None:
        if linked.key != self.key or linked.citing != self.citing:
            return  # the other list was asked for meanwhile
        self.papers = list(linked.papers)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(_line(p)) for p in self.papers])
        held = sum(1 for p in self.papers if p.key)
        if self.papers:
            options.highlighted = 0
            options.focus()
        other = "the references" if self.citing else "the papers citing it"
        said = (f"{len(self.papers)} from {linked.service}, {held} in the catalog · " if self.papers
                else "none listed · ")
        self._hint(said + HINT.format(other=other))

    def show_error(self, message: str) -> None:
        self._hint(f"⚠ {message}")

    def _hint(self, text: str) -> None:
        self.query_one("#linked-hint", Label).update(Text(text))

    def action_other(self) -> None:
        self.citing = not self.citing
        self._asking()

    def action_take(self) -> None:
        at = self.query_one(OptionList).highlighted
        if at is not None and at < len(self.papers):
            self.dismiss(self.papers[at])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.papers[event.option_index])


def _line(p: LinkedPaper) -> Text:
    ident = f"DOI {p.doi}" if p.doi else f"arXiv {p.arxiv_id}" if p.arxiv_id else "no identifier"
    meta = " ".join(x for x in (str(p.year or ""), one_line(ident)) if x)
    return Text.assemble((f"{p.key or '-':8} ", "bold" if p.key else "dim"),
                         shorten(one_line(p.title or "(untitled)"), 70), (f"  {meta}", "dim"))
