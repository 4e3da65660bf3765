"""The export dialog: which papers (the marked ones or all results), the format, the file
(or, for a vault, the folder). The format follows the file's suffix and the suffix follows
the format."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Select

from catalog.export import FOLDER_FORMATS, FORMATS, format_for
from catalog.tui.display import shorten

DEFAULT_NAME = "catalog-export"
HINT = "enter exports · the format follows the file's suffix · escape cancels"
FOLDER_HINT = ("enter exports into this folder, one Markdown file per paper (what you wrote "
               "below a file's marker line is kept) · escape cancels")


@dataclass(frozen=True)
class ExportRequest:
    format: str
    path: Path
    marked: bool  # the marked papers, else all the results


class ExportScreen(ModalScreen[ExportRequest | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel")]

    def __init__(self, marked: int, results: int, query: str, directory: Path) -> None:
        super().__init__(classes="dialog-screen")
        self.marked, self.results, self.query_text, self.directory = marked, results, query, directory
        self._shown_format = "bibtex"

    def compose(self) -> ComposeResult:
        query = f" of {shorten(self.query_text, 30)}" if self.query_text.strip() else ""
        with Vertical(classes="dialog", id="export"):
            yield Label(Text("Export"), classes="dialog-title")
            with RadioSet(id="export-what", compact=True):
                if self.marked:
                    yield RadioButton(f"the {self.marked:,} marked {_papers(self.marked)}",
                                      value=True, id="export-marked")
                yield RadioButton(f"all {self.results:,} {_papers(self.results)} of these "
                                  f"results{query}", value=not self.marked, id="export-results")
            with Horizontal(id="export-to"):
                yield Select([(name, name) for name in (*FORMATS, *FOLDER_FORMATS)], value="bibtex",
                             allow_blank=False, id="export-format", compact=True)
                yield Input(DEFAULT_NAME + FORMATS["bibtex"].suffix, id="export-path",
                            placeholder="file to write", select_on_focus=False, compact=True)
            with Horizontal(classes="buttons"):
                yield Button("Export", id="export-go", variant="primary")
                yield Button("Cancel", id="export-cancel")
            yield Label(Text(HINT), classes="dialog-hint", id="export-hint")

    def on_mount(self) -> None:
        path = self.query_one("#export-path", Input)
        path.focus()
        path.cursor_position = len(path.value)

    @property
    def format(self) -> str:
        return str(self.query_one("#export-format", Select).value)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        fmt, before = str(event.value), self._shown_format
        self._shown_format = fmt
        folder = fmt in FOLDER_FORMATS
        self.query_one("#export-hint", Label).update(Text(FOLDER_HINT if folder else HINT))
        path = self.query_one("#export-path", Input)
        path.placeholder = "folder to write" if folder else "file to write"
        text = path.value.rstrip("/" + os.sep)
        if folder:  # a folder: no file suffix
            value = str(Path(text).with_suffix("")) if format_for(Path(text)) else text or DEFAULT_NAME
        elif not text:
            value = DEFAULT_NAME + FORMATS[fmt].suffix
        elif before in FOLDER_FORMATS or format_for(Path(text)) not in (None, fmt):
            value = str(Path(text).with_suffix(FORMATS[fmt].suffix))
        else:
            value = path.value
        if value != path.value:
            with path.prevent(Input.Changed):
                path.value = value
                path.cursor_position = len(value)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        fmt = format_for(Path(event.value)) if event.value else None
        select = self.query_one("#export-format", Select)
        if fmt is not None and fmt != select.value:
            self._shown_format = fmt
            with select.prevent(Select.Changed):
                select.value = fmt
            folder = fmt in FOLDER_FORMATS
            self.query_one("#export-hint", Label).update(Text(FOLDER_HINT if folder else HINT))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._go()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export-go":
            self._go()
        else:
            self.dismiss(None)

    def _go(self) -> None:
        text = self.query_one("#export-path", Input).value.strip()
        if not text:
            self.notify("Name the file to write", severity="warning", markup=False)
            return
        path = Path(text).expanduser()
        if not path.is_absolute():
            path = self.directory / path
        if self.format not in FOLDER_FORMATS and path.is_dir():
            names = " or ".join(FOLDER_FORMATS)
            self.notify(f"{path} is a folder; give a file name (or choose {names})",
                        severity="warning", markup=False)
            return
        marked = bool(self.marked) and self.query_one("#export-what", RadioSet).pressed_index == 0
        self.dismiss(ExportRequest(self.format, path, marked))


def _papers(n: int) -> str:
    return "paper" if n == 1 else "papers"
