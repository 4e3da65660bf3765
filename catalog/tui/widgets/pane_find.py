"""Search inside the reading pane: `/` there opens a line under the paper;
what is typed is found in everything the pane shows (title, abstract, notes, the PDF's
snippets), every hit marked, the current one scrolled into view and counted ("3/7"); enter
goes back to the paper, where n and N go to the next and previous hit; escape ends it.

The finding is pure (PaneFind: the hits in the pane's plain text, and where the current one
is once wrapped); FindBar is the line that asks for the words."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rich._wrap import divide_line  # what Content.wrap divides lines with (Textual pinned)
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

HIT = "reverse"  # a hit drawn as the text it is, its colours swapped: readable in every theme
CURRENT = "reverse bold underline"


@dataclass
class PaneFind:
    """What is searched for in the pane, its hits (start, end) in the pane's plain text, and
    which one is current."""

    needle: str = ""
    hits: list[tuple[int, int]] = field(default_factory=list)
    current: int = 0
    plain: str = ""  # the text the hits are in

    def search(self, plain: str, needle: str, after: int = 0) -> None:
        """Find `needle` (case-insensitive, spaces as any run of spaces) in `plain`; the current
        hit is the first at or after offset `after`."""
        self.needle, self.plain = needle, plain
        words = needle.split()
        pattern = r"\s+".join(re.escape(w) for w in words)
        self.hits = [m.span() for m in re.finditer(pattern, plain, re.IGNORECASE)] if words else []
        self.current = next((i for i, (start, _) in enumerate(self.hits) if start >= after), 0)

    def step(self, delta: int) -> None:
        """n (1) and N (-1): the next or previous hit, round the end."""
        if self.hits:
            self.current = (self.current + delta) % len(self.hits)

    @property
    def counter(self) -> str:
        if not self.needle.strip():
            return ""
        return f"{self.current + 1}/{len(self.hits)}" if self.hits else "no match"

    def marked(self, content: Content) -> Content:
        for number, (start, end) in enumerate(self.hits):
            content = content.stylize(CURRENT if number == self.current else HIT, start, end)
        return content

    def row(self, width: int) -> int | None:
        """The line the current hit starts on, once the text is wrapped to `width` cells."""
        if not self.hits:
            return None
        start = self.hits[self.current][0]
        return sum(1 for offset in line_starts(self.plain, width) if offset <= start) - 1


def line_starts(plain: str, width: int) -> list[int]:
    """Where each line of `plain` starts once wrapped to `width` cells as the pane wraps it
    (Content.wrap: each line of the text divided where rich divides it)."""
    starts, offset = [], 0
    for line in plain.split("\n"):
        starts += [offset + cut for cut in (0, *divide_line(line, max(1, width), fold=True))]
        offset += len(line) + 1
    return starts


class FindBar(Horizontal):
    """The line under the paper while finding: the words, and "3/7"."""

    BINDINGS = [
        Binding("escape", "end", "End", show=False, tooltip="Stop finding (the marks go)",
                id="find-end"),
    ]

    class Changed(Message):
        def __init__(self, needle: str) -> None:
            super().__init__()
            self.needle = needle

    class Done(Message):
        """enter: back to the paper, the hits still marked (n, N)."""

    class Ended(Message):
        """escape: no more finding."""

    def compose(self) -> ComposeResult:
        yield Static("Find:", id="find-label")
        yield Input(id="find-input", compact=True, select_on_focus=True)
        yield Static(id="find-count", markup=False)

    @property
    def input(self) -> Input:
        return self.query_one("#find-input", Input)

    def count(self, text: str) -> None:
        self.query_one("#find-count", Static).update(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Done())

    def action_end(self) -> None:
        self.post_message(self.Ended())
