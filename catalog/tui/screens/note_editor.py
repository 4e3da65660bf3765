"""Write or edit one note in a text area. ctrl+s saves, escape cancels (asking first when
that would throw away changes)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from catalog.tui.screens.confirm import ConfirmScreen


class NoteEditor(ModalScreen[str | None]):
    """Dismisses with the text to save, or None when cancelled."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", tooltip="Save the note", id="save", priority=True),
        Binding("escape", "cancel", "Cancel", tooltip="Close without saving", id="cancel"),
    ]

    def __init__(self, title: str, body: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.title_text, self.original = title, body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="note-editor"):
            yield Label(Text(self.title_text, no_wrap=True, overflow="ellipsis"), classes="dialog-title")
            yield TextArea(self.original, soft_wrap=True, show_line_numbers=False, id="note-text")
            yield Label(Text("ctrl+s saves · escape cancels · an emptied note is deleted"),
                        classes="dialog-hint")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def action_save(self) -> None:
        self.dismiss(self.text)

    def action_cancel(self) -> None:
        if self.text.strip() == self.original.strip():
            self.dismiss(None)
            return

        def closed(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Discard the changes to this note?"), closed)
