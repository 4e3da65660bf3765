"""A one-line question: a paper's title, a saved search's name, a file to attach; and the
completion of a file's path as it is typed."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Label


class PromptScreen(ModalScreen[str | None]):
    """Enter gives the text (possibly empty); escape gives None."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel")]

    def __init__(self, title: str, value: str = "", hint: str = "", placeholder: str = "",
                 suggester=None) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text, self.value, self.hint, self.placeholder = title, value, hint, placeholder
        self.suggester = suggester  # completion as you type (→ takes it): a path's, say

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text), classes="dialog-title")
            yield Input(self.value, placeholder=self.placeholder, select_on_focus=False, suggester=self.suggester)
            yield Label(Text(self.hint or "enter saves · escape cancels"), classes="dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)


class PathSuggester(Suggester):
    """The rest of a file's path: the first entry of its folder that starts with what is typed
    (a folder with a `/`), PDFs before other files; `~` is the home folder."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        import os

        folder, _, start = value.rpartition("/")
        where = os.path.expanduser(folder or ".") if folder or not value.startswith("/") else "/"
        try:
            names = sorted(os.listdir(where or "/"), key=lambda n: (not n.lower().endswith(".pdf"), n))
        except OSError:
            return None
        for name in names:
            if name.startswith(start) and name != start and not (name.startswith(".") and not start.startswith(".")):
                slash = "/" if os.path.isdir(os.path.join(where or "/", name)) else ""
                return f"{folder}/{name}{slash}" if folder or value.startswith("/") else name + slash
        return None
