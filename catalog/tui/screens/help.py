"""Every key, generated from the bindings themselves so the list cannot fall behind them."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

QUERY_HELP = [
    ("words", "papers with all the words"),
    ('"a phrase"', "the exact phrase"),
    ("a OR b", "either word"),
    ("-word  NOT word", "without the word"),
    ("prefix*", "words beginning with prefix"),
    ("venue:ICML  year:2024..2026", "venue, year or a year range"),
    ("tag:project", "tagged project or project/anything"),
    ("status:read  rating:>=4", "reading status, rating"),
    ("has:notes", "with notes (also tags, rating, title, abstract, authors)"),
]
EXTRA_KEYS = [
    ("ctrl+p", "Command palette: every action by name"),
    ("tab / shift+tab", "Move between search, sidebar, list and detail"),
    ("mouse", "Click a row to read it, a facet to filter, a saved search to run it"),
]
KEY_WIDTH, NAME_WIDTH = 12, 16


def _line(key: str, text: str, detail: str = "") -> Content:
    key_cell = Content.styled(key, "bold $text-accent").pad_right(max(1, KEY_WIDTH - len(key)))
    if not detail:
        return Content.assemble(key_cell, text)
    name = Content(text).pad_right(max(1, NAME_WIDTH - len(text)))
    return Content.assemble(key_cell, name, (detail, "$text-muted"))


def help_content(groups: list[tuple[str, list[tuple[str, Binding]]]]) -> Content:
    lines: list[Content] = []
    for title, bindings in groups:
        lines += [Content(""), Content.styled(title, "bold underline")]
        for key, binding in bindings:
            lines.append(_line(key, binding.description, binding.tooltip))
    lines += [Content(""), Content.styled("Anywhere", "bold underline")]
    lines += [_line(k, t) for k, t in EXTRA_KEYS]
    lines += [Content(""), Content.styled("Search language", "bold underline")]
    lines += [Content.assemble(Content.styled(q, "bold").pad_right(max(1, 30 - len(q))), t)
              for q, t in QUERY_HELP]
    return Content("\n").join(lines[1:])


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss(None)", "Close", id="close")]

    def __init__(self, groups: list[tuple[str, list[tuple[str, Binding]]]]) -> None:
        super().__init__(classes="dialog-screen")
        self.groups = groups

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="help"):
            yield Static(Content.styled("Keys  (escape closes)", "bold"), classes="dialog-title")
            yield Static(help_content(self.groups))
