"""The paper's own fields in one form (E): title, authors, venue, year, DOI, URL. ctrl+s (or
enter in the last field) gives back the fields that differ from what the paper says; escape
gives None. The catalog screen's Editing writes them (catalog.corrections), so u undoes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from catalog.results import PaperDetail
from catalog.tui.display import one_line

FIELDS = (("title", "Title"), ("authors", "Authors"), ("venue", "Venue"), ("year", "Year"),
          ("doi", "DOI"), ("url", "URL"))


def values_of(detail: PaperDetail) -> dict[str, str]:
    summary = detail.summary
    return {"title": detail.title or "", "authors": detail.authors or "", "venue": summary.venue or "",
            "year": str(summary.year or ""), "doi": detail.doi or "", "url": detail.url or ""}


class FieldsScreen(ModalScreen[dict[str, str] | None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="fields-save", priority=True),
        Binding("escape", "dismiss(None)", "Cancel", id="fields-cancel"),
    ]

    def __init__(self, detail: PaperDetail) -> None:
        super().__init__(classes="dialog-screen")
        self.detail = detail
        self.original = values_of(detail)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="fields"):
            yield Label(Text(f"Fields of {one_line(self.detail.summary.title)}", no_wrap=True,
                             overflow="ellipsis"), classes="dialog-title")
            for name, label in FIELDS:
                with Horizontal(classes="field-row"):
                    yield Label(Text(label), classes="field-label")
                    yield Input(one_line(self.original[name]), id=f"field-{name}", select_on_focus=False, compact=True,
                                placeholder="authors as First Last, First Last" if name == "authors" else "")
            yield Label(Text("ctrl+s saves · empty clears a field · tab moves · escape cancels · u undoes"),
                        classes="dialog-hint")

    def action_save(self) -> None:
        typed = {name: self.query_one(f"#field-{name}", Input).value.strip() for name, _ in FIELDS}
        self.dismiss({n: v for n, v in typed.items() if v != one_line(self.original[n]).strip()})

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == f"field-{FIELDS[-1][0]}":
            self.action_save()
        else:
            self.focus_next()
