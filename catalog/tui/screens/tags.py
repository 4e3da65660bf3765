"""The catalog's tags as a vocabulary (ctrl+t, or "Tags" in the palette): every tag with its
papers; r renames the one under the cursor, m merges it into another, d deletes it (its
children, project/thesis under project, go along). The screen only asks: what it returns is
written by the catalog screen's Editing, so `u` takes it back like any other change."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from catalog.results import TagCount
from catalog.tui.display import one_line
from catalog.tui.querytext import filter_token
from catalog.tui.widgets.sidebar import tag_parents
from catalog.tui.screens.confirm import ConfirmScreen
from catalog.tui.screens.prompt import PromptScreen


@dataclass(frozen=True)
class TagChange:
    """What the user asked: "rename" (into `to`), "merge" (into `to`) or "delete" `tag`."""

    kind: str
    tag: str
    to: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "rename":
            return f"Renamed tag {self.tag} to {self.to}"
        if self.kind == "merge":
            return f"Merged tag {self.tag} into {self.to}"
        return f"Deleted tag {self.tag}"

    def run(self, catalog):
        vocabulary = catalog.vocabulary
        if self.kind == "rename":
            return vocabulary.rename(self.tag, self.to)
        if self.kind == "merge":
            return vocabulary.merge([self.tag], self.to)
        return vocabulary.delete(self.tag)


class TagsScreen(ModalScreen[TagChange | None]):
    BINDINGS = [
        Binding("r", "rename", "Rename", id="tags-rename"),
        Binding("m", "merge", "Merge into", id="tags-merge"),
        Binding("d,delete", "delete", "Delete", key_display="d", id="tags-delete"),
        Binding("escape,q", "dismiss(None)", "Close", key_display="escape", id="tags-close"),
    ]

    def __init__(self, catalog) -> None:
        super().__init__(classes="dialog-screen")
        self.catalog = catalog
        self.tags: list[TagCount] = []
        self.parents: set[str] = set()  # listed for the tags below them (casefolded)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="tags"):
            yield Label(Text("Tags"), classes="dialog-title")
            yield OptionList(id="tag-list")
            yield Label(Text("r rename · m merge into another · d delete (with its children) · "
                             "escape closes · u undoes afterwards"), classes="dialog-hint")

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        try:
            found = self.catalog.tags()
            # A parent no paper carries itself (project, above project/thesis and project/xai)
            # is a row too, with the papers below it, so it can be renamed with its children.
            named = {t.name.casefold() for t in found}
            parents = {p for t in found for p in tag_parents(t.name) if p.casefold() not in named}
            below = [TagCount(p, self.catalog.count(filter_token("tag", p))) for p in parents]
            found = sorted([*found, *below], key=lambda t: t.name.casefold())
        except Exception as exc:  # a locked or vanished database: say so, keep the dialog
            self.app.call_from_thread(self.notify, f"cannot read the tags: {one_line(str(exc))}",
                                      severity="error", markup=False)
            return
        self.app.call_from_thread(self._show, found, {p.casefold() for p in parents})

    def _show(self, found: list[TagCount], parents: set[str]) -> None:
        self.tags, self.parents = found, parents
        shown = self.query_one("#tag-list", OptionList)
        shown.clear_options()
        if not found:
            shown.add_option(Option(Text("No tags yet: t tags a paper"), disabled=True))
            return
        width = max(len(t.name) for t in found)
        shown.add_options([Option(Text.assemble(
            (one_line(t.name).ljust(width), "bold"),
            (f"  {t.count:,} papers below", "dim") if t.name.casefold() in self.parents else f"  {t.count:,}"))
            for t in found])
        shown.highlighted = 0
        shown.focus()

    @property
    def current(self) -> TagCount | None:
        index = self.query_one("#tag-list", OptionList).highlighted
        return self.tags[index] if self.tags and index is not None and index < len(self.tags) else None

    def action_rename(self) -> None:
        self._ask("rename", f"Rename tag {one_line(self.current.name)} to" if self.current else "")

    def action_merge(self) -> None:
        self._ask("merge", f"Merge tag {one_line(self.current.name)} into" if self.current else "")

    def _ask(self, kind: str, title: str) -> None:
        tag = self.current
        if tag is None:
            return
        hint = "enter does it (its children go along) · → takes the suggested tag · escape cancels"
        from textual.suggester import SuggestFromList

        others = SuggestFromList([t.name for t in self.tags if t.name != tag.name], case_sensitive=False)
        self.app.push_screen(PromptScreen(title, tag.name if kind == "rename" else "", hint=hint, suggester=others),
                             lambda to: to and to.strip() and self.dismiss(TagChange(kind, tag.name, to.strip())))

    def action_delete(self) -> None:
        tag = self.current
        if tag is None:
            return
        self.app.push_screen(
            ConfirmScreen(f"Take the tag {one_line(tag.name)} (and the tags below it) off "
                          f"{tag.count:,} {'paper' if tag.count == 1 else 'papers'}?  u undoes",
                          yes="Delete", no="Keep"),
            lambda yes: yes and self.dismiss(TagChange("delete", tag.name)))
