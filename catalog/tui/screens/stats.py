"""The statistics screen (i, or "Statistics" in the palette): the charts `catalog stats --plot`
prints (catalog/parts/charts.py), as wide as the screen and drawn again when it is resized, one under
the other (j k or the arrows scroll, g G or home end go to the first or last); t follows another tag over the years. Counting and
drawing run in a thread worker; the charts are plain text in the theme's own colours, so they
read in every theme."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from catalog.tui.display import first_line
from catalog.tui.screens.prompt import PromptScreen


class StatsScreen(Screen):
    BINDINGS = [
        Binding("escape,q,i", "app.pop_screen", "Back", key_display="escape", id="stats-back"),
        Binding("t", "follow_tag", "Tag over time", id="stats-tag"),
        Binding("j,down", "scroll(1)", "Scroll", show=False, id="stats-down"),
        Binding("k,up", "scroll(-1)", "Scroll", show=False, id="stats-up"),
        Binding("space,pagedown", "scroll(10)", "Page", show=False, id="stats-page"),
        Binding("pageup", "scroll(-10)", "Page up", show=False, id="stats-page-up"),
        Binding("end,G", "edge(True)", "Last chart", show=False, id="stats-end"),
        Binding("home,g", "edge(False)", "First chart", show=False, id="stats-home"),
    ]

    def __init__(self, catalog) -> None:
        super().__init__(id="stats-screen")
        self.catalog = catalog
        self.tag: str | None = None
        self.counts = None  # statistics.Charts, once read

    def compose(self) -> ComposeResult:
        yield Label(Text("Statistics  (counting…)"), id="stats-title")
        yield VerticalScroll(id="charts", can_focus=False)  # the screen's keys scroll it, at once
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.load()

    def on_resize(self) -> None:
        if self.counts is not None:
            self.load(recount=False)

    def _width(self) -> int:
        return max(40, self.app.size.width - 5)  # the padding and the scroll bar (the screen may not be laid out yet)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self, recount: bool = True) -> None:
        from catalog.parts import charts

        try:
            counts = self.catalog.statistics.charts(self.tag) if recount or self.counts is None else self.counts
            drawn = charts.draw(counts, self._width())
        except Exception as exc:  # an unknown tag, a locked database: one line, the last charts stay
            self.tag = self.counts.tag if self.counts is not None else None
            self.app.call_from_thread(self.notify, first_line(exc), severity="error", markup=False)
            return
        self.app.call_from_thread(self._show, counts, drawn)

    def _show(self, counts, drawn) -> None:
        if not self.is_mounted:
            return
        self.counts = counts
        self.query_one("#stats-title", Label).update(Text(
            f"Statistics  {counts.papers:,} papers  ·  t follows another tag  ·  escape goes back"))
        box = self.query_one("#charts", VerticalScroll)
        box.remove_children()
        box.mount_all([Static(Text.assemble((c.title, "bold"), "\n", c.text), classes="chart")
                       for c in drawn])

    def action_scroll(self, lines: int) -> None:
        self.query_one("#charts", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_edge(self, last: bool) -> None:
        # At once: a smooth scroll stopped part way on a busy machine (issue 31, by hand).
        box = self.query_one("#charts", VerticalScroll)
        box.scroll_to(y=box.max_scroll_y if last else 0, animate=False)

    def action_follow_tag(self) -> None:
        def chosen(tag: str | None) -> None:
            if tag and tag.strip():
                self.tag = tag.strip()
                self.load()

        shown = self.tag or (self.counts.tag if self.counts is not None else None)  # the most used, at first
        self.app.push_screen(PromptScreen("Follow which tag over the years?", shown or "",
                                          hint="enter draws it · escape cancels"), chosen)
