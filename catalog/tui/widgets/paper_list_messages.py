"""The paper list's messages (widgets/paper_list.py, which hands them on as PaperList.Highlighted
and so on). Each is a dataclass, in the list's namespace, so its handler keeps the name
`on_paper_list_...`; one that a newer one of its kind makes moot says so in `can_replace` (as in
catalog/tui/messages.py): the cursor held on j, marks changing."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from catalog.results import PaperSummary


@dataclass
class Highlighted(Message, namespace="paper_list"):
    """The cursor is on `paper` (None when the list is empty)."""

    paper: PaperSummary | None

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Highlighted)  # the cursor moved on since


@dataclass
class Opened(Message, namespace="paper_list"):
    """Enter or a double click: the user wants to read the paper."""


@dataclass
class OpenedNothing(Message, namespace="paper_list"):
    """Enter on an empty list (the screen may run the correction it offers)."""


@dataclass
class MarksChanged(Message, namespace="paper_list"):
    """`count` papers are marked now."""

    count: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, MarksChanged)


@dataclass
class SortChosen(Message, namespace="paper_list"):
    """A column header was clicked: sort by `field` (again: the other way round)."""

    field: str


@dataclass
class RestWanted(Message, namespace="paper_list"):
    """A row past the first ones of a first page that came in two parts is wanted before
    the rest came (show_results' `more`): the search should fetch the rest now."""

    generation: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RestWanted) and message.generation >= self.generation


@dataclass
class RowsForMarks(Message, namespace="paper_list"):
    """Rows `offset`.. of the results of `generation`, fetched for marking (`how`:
    "all", "invert" or "range")."""

    generation: int
    how: str
    rows: list[PaperSummary]
    asked: bool = False  # marking them was asked (and answered yes) before they were read


@dataclass
class PageLoaded(Message, namespace="paper_list"):
    """Page `page` of the results of `generation`, fetched as the list scrolled to it."""

    generation: int
    page: int
    rows: list[PaperSummary]

    def can_replace(self, message: Message) -> bool:
        # Pages are fetched for the results shown: one of newer results means these are gone.
        return isinstance(message, PageLoaded) and message.generation > self.generation
