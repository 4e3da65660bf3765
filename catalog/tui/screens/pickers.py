"""A small dialog to pick one of a few choices: by its key, arrows and enter, or a click.
Used for status, rating, saved searches and which note to edit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from catalog.rules import STATUSES
from catalog.results import NoteView, SavedQuery
from catalog.tui.display import one_line, shorten, stars


@dataclass(frozen=True)
class Choice:
    key: str  # the key that picks it at once
    label: Text
    value: Any


class ChoiceScreen(ModalScreen[Choice | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel")]

    def __init__(self, title: str, choices: list[Choice], hint: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.title_text, self.choices, self.hint = title, choices, hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="choice"):
            yield Label(Text(self.title_text), classes="dialog-title")
            yield OptionList(*(Option(Text.assemble((c.key or " ", "bold"), "  ", c.label))
                               for c in self.choices))
            yield Label(Text(self.hint or "Press a key, or arrows and enter · escape cancels"),
                        classes="dialog-hint")

    def on_key(self, event: events.Key) -> None:
        for choice in self.choices:
            if choice.key and event.character == choice.key:
                event.stop()
                self.dismiss(choice)
                return

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index])


def status_choices(current: str | None) -> list[Choice]:
    return [Choice(str(i), Text(s + ("  (now)" if s == current else "")), s)
            for i, s in enumerate(STATUSES, 1)]


def rating_choices(current: int | None) -> list[Choice]:
    out = [Choice(str(r), Text(stars(r) + ("  (now)" if r == current else "")), r)
           for r in range(5, 0, -1)]
    return out + [Choice("0", Text("no rating"), 0)]


@dataclass(frozen=True)
class DeleteSaved:
    """What the saved-search picker returns when `d` was pressed on a search."""

    saved: SavedQuery


@dataclass(frozen=True)
class GoToTop:
    """What the saved-search picker returns for a second g (gg: the first paper)."""


class SavedSearchScreen(ChoiceScreen):
    """The saved-search picker: a search runs when picked, `d` deletes the highlighted one,
    and `g` (the second of gg) closes it and goes to the first paper."""

    BINDINGS = [*ChoiceScreen.BINDINGS,
                Binding("d,delete", "delete_highlighted", "Delete", id="delete-saved"),
                Binding("g", "top", "First paper", id="top")]

    def __init__(self, saved: tuple[SavedQuery, ...]) -> None:
        super().__init__("Saved searches", saved_choices(saved),
                         hint="enter runs · d deletes · g again: the first paper · escape cancels")

    def action_top(self) -> None:
        self.dismiss(Choice("g", Text(""), GoToTop()))

    def action_delete_highlighted(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is not None:
            choice = self.choices[index]
            self.dismiss(Choice(choice.key, choice.label, DeleteSaved(choice.value)))


def saved_choices(saved: tuple[SavedQuery, ...]) -> list[Choice]:
    return [Choice(str(i) if i <= 9 else "", Text.assemble(one_line(s.name), ("  " + one_line(s.query), "dim")), s)
            for i, s in enumerate(saved, 1)]


def note_choices(notes: tuple[NoteView, ...]) -> list[Choice]:
    out = [Choice("n", Text("a new note"), None)]
    for note in notes:
        first = shorten(note.body, 60)
        out.append(Choice(str(note.number) if note.number <= 9 else "", Text(f"edit note {note.number}: {first}"), note))
    return out
