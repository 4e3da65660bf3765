"""`m`: the papers most like one, as a list to move through. It opens at once saying
"finding similar papers…" while the screen's worker asks Catalog.similar (the first call on a
large catalog builds the discovery cache); enter goes to a paper, escape closes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from catalog.results import RelatedPaper
from catalog.tui.display import one_line, shorten

FINDING = "finding similar papers…"
HINT = "arrows and enter go to a paper · escape closes"


class SimilarScreen(ModalScreen[RelatedPaper | None]):
    BINDINGS = [Binding("escape,m", "dismiss(None)", "Close", id="close-similar")]

    def __init__(self, key: str, title: str) -> None:
        super().__init__(classes="dialog-screen")
        self.key, self.paper_title = key, title
        self.papers: list[RelatedPaper] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="similar"):
            yield Label(Text(f"Papers like {self.key}: {shorten(self.paper_title, 60)}"),
                        classes="dialog-title")
            yield OptionList(id="similar-list")
            yield Label(Text(FINDING), classes="dialog-hint", id="similar-hint")

    def show(self, papers: list[RelatedPaper]) -> None:
        self.papers = papers
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(_line(p)) for p in papers])
        if papers:
            options.highlighted = 0
            options.focus()
        self._hint(HINT if papers else "No paper shares a distinctive term with this one.")

    def show_error(self, message: str) -> None:
        self._hint(f"⚠ {message}")

    def _hint(self, text: str) -> None:
        self.query_one("#similar-hint", Label).update(Text(text))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.papers[event.option_index])


def _line(p: RelatedPaper) -> Text:
    meta = " ".join(x for x in (one_line(p.venue), str(p.year or "")) if x)
    flag = f"{p.summary.notice.upper()} " if p.summary.notice else ""  # a retraction first
    line = Text.assemble((f"{p.score:.2f}  ", "dim"), (flag, "bold"), shorten(p.title, 76 - len(flag)),
                         (f"  {meta}", "dim"))
    if p.why:
        line.append(f"\n      shares: {', '.join(one_line(w) for w in p.why)}", style="dim")
    return line
