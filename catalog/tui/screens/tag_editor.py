"""Add and remove tags on one paper or on all marked papers, completing existing tag names.

Type `name` to add, `-name` to remove, several at once separated by spaces; tab (or right
arrow) takes the grey completion; enter applies."""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Label

from catalog.errors import CatalogError
from catalog.rules import tag_name
from catalog.results import PaperSummary
from catalog.tui.display import one_line

TagChange = tuple[list[str], list[str]]  # (add, remove)


class TagSuggester(Suggester):
    """Completes the word being typed: existing tags, or for `-word` the tags on the papers."""

    def __init__(self, known: list[str], present: list[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.known, self.present = known, present

    def matches(self, value: str) -> list[str]:
        word = value.rpartition(" ")[2]
        stem = _stem(word)
        if not word:
            return []
        pool = self.present if word.startswith("-") else self.known
        return [t for t in pool if t.casefold().startswith(stem.casefold()) and t != stem]

    async def get_suggestion(self, value: str) -> str | None:
        found = self.matches(value)
        if not found:
            return None
        stem = _stem(value.rpartition(" ")[2])
        return value + found[0][len(stem):]


def _stem(word: str) -> str:
    """The tag name in a typed word: `-#todo` -> `todo` (tags are shown as #name, so people
    type the # too; it is not part of the name)."""
    return word.lstrip("+-").lstrip("#")


class TagInput(Input):
    BINDINGS = [Binding("tab", "complete", "Complete", show=False)]

    def action_complete(self) -> None:
        """The grey completion, then a space to start the next tag; but a tag with children
        (`project`, with `project/thesis` known) gets no space: `/thesis` may follow."""
        if self.cursor_at_end and self._suggestion:
            self.action_cursor_right()
            if not self._has_children(_stem(self.value.rpartition(" ")[2])):
                self.insert_text_at_cursor(" ")

    def insert_text_at_cursor(self, text: str) -> None:
        # `/` right after a completed tag's space goes on that tag (`project /thesis` was
        # two tags, `project` and `/thesis`).
        if (text.startswith("/") and self.cursor_at_end and self.value.endswith(" ")
                and self.value.strip()):
            self.value = self.value.rstrip(" ")
            self.cursor_position = len(self.value)
        super().insert_text_at_cursor(text)

    def _has_children(self, tag: str) -> bool:
        suggester = self.suggester
        pool = suggester.known + suggester.present if isinstance(suggester, TagSuggester) else []
        return bool(tag) and any(t.startswith(tag + "/") for t in pool)

    async def action_submit(self) -> None:
        # `project/` is not a tag yet: with `project/thesis` suggested, enter means that one.
        if (self.cursor_at_end and self.value.endswith("/") and self._suggestion
                and self._suggestion.startswith(self.value)):
            self.value = self._suggestion
        await super().action_submit()


def parse_change(text: str) -> TagChange:
    """`a -b +c #d` -> (["a", "c", "d"], ["b"]); raises CatalogError for a tag that cannot be."""
    add, remove = [], []
    for word in text.split():
        (remove if word.startswith("-") else add).append(tag_name(_stem(word) or word))
    return add, remove


class TagEditor(ModalScreen[TagChange | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="cancel")]

    def __init__(self, papers: list[PaperSummary], known: list[str]) -> None:
        super().__init__(classes="dialog-screen")
        self.papers = papers
        self.counts = Counter(t for p in papers for t in p.tags)
        self.suggester = TagSuggester(known, sorted(self.counts))

    def compose(self) -> ComposeResult:
        if len(self.papers) == 1:
            title = f"Tags of {one_line(self.papers[0].title)}"
        else:
            title = f"Tags of {len(self.papers):,} marked papers"
        with Vertical(classes="dialog", id="tag-editor"):
            yield Label(Text(title, no_wrap=True, overflow="ellipsis"), classes="dialog-title")
            yield Label(self._current(), id="tags-now")
            yield TagInput(placeholder="tag to add, -tag to remove", suggester=self.suggester,
                           id="tag-input")
            yield Label(Text(""), id="tags-matching")
            yield Label(Text("tab completes · enter applies · escape cancels"), classes="dialog-hint")

    def update_tags(self, known: list[str], tags: dict[str, tuple[str, ...]]) -> None:
        """Fresh tags from the database (another shell may have tagged since the list loaded)."""
        self.counts = Counter(t for p in self.papers for t in tags.get(p.key, p.tags))
        self.suggester.known, self.suggester.present = known, sorted(self.counts)
        self.query_one("#tags-now", Label).update(self._current())

    def _current(self) -> Text:
        if not self.counts:
            return Text("no tags yet", style="dim")
        out = Text("now: ", style="dim")
        n = len(self.papers)
        for tag, count in sorted(self.counts.items()):
            out.append("#" + one_line(tag), style="bold")
            out.append(f" ({count:,}/{n:,})  " if n > 1 and count < n else "  ", style="dim")
        return out

    def on_input_changed(self, event: Input.Changed) -> None:
        found = self.suggester.matches(event.value)
        matching = self.query_one("#tags-matching", Label)
        matching.update(Text(" ".join("#" + one_line(t) for t in found[:8])))
        matching.remove_class("-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            add, remove = parse_change(event.value)
        except CatalogError as exc:
            matching = self.query_one("#tags-matching", Label)
            matching.update(Text(str(exc)))
            matching.add_class("-error")
            return
        self.dismiss((add, remove) if add or remove else None)
