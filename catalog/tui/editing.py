"""Changing papers from the app: tags, status, rating, title, notes, saved searches, undo.

Each change opens a small screen; what it returns is written by a thread worker. Every write
returns an Edit saying exactly what it changed; `u` hands the newest one back to
Catalog.undo, which takes back that change only (never someone else's since), and `U` redoes
it. Writes run one at a time, in order.

Editing is a widget of the catalog screen that shows nothing: it holds the undo and redo
stacks, runs the writes in its workers and handles their answers; the screen's keys call it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from time import monotonic

from rich.text import Text
from textual import work
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker

from catalog.errors import CatalogError
from catalog.library import Catalog
from catalog.searching.query import QueryError, Sort
from catalog.searching.request import request
from catalog.results import Edit, NoteView, PaperDeleted, PaperSummary, SavedQuery
from catalog.tui.display import first_line, one_line, shorten, stars
from catalog.tui.host import CatalogHost
from catalog.tui.messages import ActionFailed, MarksChecked, PapersChanged, TagsLoaded
from catalog.tui.querytext import chunks, keys_query
from catalog.tui.screens.confirm import ConfirmScreen
from catalog.tui.screens.note_editor import NoteEditor
from catalog.tui.screens.pickers import (
    Choice, ChoiceScreen, note_choices, rating_choices, status_choices,
)
from catalog.tui.screens.prompt import PromptScreen
from catalog.tui.screens.tag_editor import TagEditor

Change = Callable[[Catalog], Edit]
UNDO_DEPTH = 100


def _count(papers: list) -> str:
    return f"{len(papers):,} papers" if len(papers) != 1 else shorten(papers[0].title)


_write_lock = threading.Lock()
# Marked papers past the pages loaded: from this many on, whether the results hold them is
# read from one search of the results, not one search per 400 keys.
ONE_SEARCH_FROM = 800
# A change still being written after this many seconds is shown under the search bar, with
# the seconds it has taken (tagging 16k papers takes 10 s or more; nothing said it ran).
SAY_AFTER = 1.0


def run_change(catalog: Catalog, label: str, change: Change, kind: str) -> PapersChanged | ActionFailed:
    """Run one write, one at a time across the app (call it from a thread worker): what it
    changed, or why it failed. `kind`: "do", "undo" or "redo"."""
    with _write_lock:
        try:
            edit = change(catalog)
        except (CatalogError, QueryError) as exc:
            return ActionFailed(str(exc))
        except Exception as exc:  # locked for longer than the busy timeout, say
            return ActionFailed(f"not saved: {first_line(exc)}")
    return PapersChanged(label, edit, kind)


class Editing(Widget):
    """The catalog screen's changes and their undo (shows nothing)."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__()
        self.catalog = catalog
        self.undo_stack: list[tuple[str, Edit]] = []
        self.redo_stack: list[tuple[str, Edit]] = []
        self.writing: dict[Worker, float] = {}  # writes not finished, and when each started
        self.queued: list[str] = []  # u and U pressed while writes ran: "undo", "redo", in turn
        self._ticking: Timer | None = None  # while some are: the line under the search bar counts

    @property
    def main(self) -> CatalogHost:
        return self.screen

    def say(self, message: str, **kwargs) -> None:
        self.notify(message, markup=False, **kwargs)

    # --- which papers -------------------------------------------------------------------

    def with_targets(self, then: Callable[[list[PaperSummary]], None]) -> None:
        """Call `then` with the papers an action applies to: the one under the cursor, or the
        marked ones. Marked papers the current results no longer show are not changed
        silently: a dialog says how many are hidden and asks whether to include them."""
        papers = self.main.papers
        if not papers.marked:
            if papers.current is not None:
                then([papers.current])
            return
        marked = list(papers.marked.values())
        shown = papers.loaded_keys()
        unknown = [p.key for p in marked if p.key not in shown]
        if not unknown:
            then(marked)
        else:  # not in the pages loaded so far: ask the catalog whether the results hold them
            self._check_marks(papers.query_text, papers.sort, papers.generation, unknown, then)

    @work(thread=True, exclusive=True, group="marks", exit_on_error=False)
    def _check_marks(self, query: str, sort: Sort, generation: int, keys: list[str],
                     then: Callable[[list[PaperSummary]], None]) -> None:
        # The same search the list shows, in its order: sorted by year it holds only papers
        # with every word, by relevance those with some of them too (a relevance check found
        # marked papers the sorted list did not show, and tagged them without asking).
        try:
            found: set[str] = set()
            checking = keys
            if len(keys) > ONE_SEARCH_FROM:
                # Many marks (every paper of a real library): the results' keys in one search.
                # A search per 400 keys took 44-58 s for 16,378 marks (load 11) before t or s
                # could ask anything; this takes 0.6-1.3 s. What it does not find is checked
                # key by key below while that is few; past that it counts as hidden (asked about).
                every = self.catalog.search(request(query, sort), limit=-1, snippets=False)
                found = {p.key for p in every}.intersection(keys)
                rest = [k for k in keys if k not in found]
                checking = rest if len(rest) <= ONE_SEARCH_FROM else []
            for chunk in chunks(checking):
                rows = self.catalog.search(request(keys_query(chunk, query), sort), limit=2 * len(chunk),
                                           snippets=False)
                found.update(p.key for p in rows)
        except Exception as exc:
            self.post_message(ActionFailed(f"cannot check the marked papers: {first_line(exc)}"))
            return
        self.post_message(MarksChecked(generation, [k for k in keys if k not in found], then))

    def on_marks_checked(self, message: MarksChecked) -> None:
        message.stop()
        if message.generation != self.main.papers.generation:  # other results meanwhile: again
            self.with_targets(message.then)
            return
        marked = list(self.main.papers.marked.values())
        hidden_keys = set(message.hidden)
        hidden = [p for p in marked if p.key in hidden_keys]
        if not hidden:
            message.then(marked)
            return
        shown = [p for p in marked if p.key not in hidden_keys]
        names = "; ".join(shorten(p.title, 30) for p in hidden[:3]) + ("; …" if len(hidden) > 3 else "")
        where = f"in these results ({names})."
        title = (f"{len(hidden):,} of the {len(marked):,} marked papers are not {where}" if shown
                 else f"None of the {len(marked):,} marked papers is {where}" if len(marked) > 1
                 else f"The marked paper is not {where}")
        choices = [Choice("a", Text(f"all {len(marked):,} marked papers, hidden ones too"
                                    if len(marked) > 1 else "the marked paper, hidden as it is"), marked)]
        if shown:
            choices.append(Choice("v", Text(f"only the {len(shown):,} in these results"), shown))
        # The keys offered, no more: "a or v" was said where only a was offered.
        keys = "a or v, or arrows and enter" if shown else "a or enter"
        self.app.push_screen(ChoiceScreen(title, choices, hint=f"{keys} · escape cancels"),
                             lambda choice: choice and message.then(choice.value))

    # --- the changes ----------------------------------------------------------------------

    def tag(self) -> None:
        self.with_targets(self._tag)

    def _tag(self, papers: list[PaperSummary]) -> None:
        facets = self.main.facets
        known = list(facets.tag_names) if facets else []

        def done(change: tuple[list[str], list[str]] | None) -> None:
            if change:
                add, remove = change
                what = " ".join([*("+" + t for t in add), *("-" + t for t in remove)])
                self.write(f"Tagged {_count(papers)}: {what}",
                           lambda c: c.tag([p.key for p in papers], add, remove), f"tagging {_count(papers)}")

        self.app.push_screen(TagEditor(papers, known), done)
        self._load_tags([p.key for p in papers])

    @work(thread=True, exclusive=True, group="tags", exit_on_error=False)
    def _load_tags(self, keys: list[str]) -> None:
        """The dialog opens at once with what the list knows; this brings it up to date."""
        try:
            known = [t.name for t in self.catalog.tags()]
            tags = self.catalog.tags_of(keys)  # (a paper deleted meanwhile keeps what is shown)
        except Exception:  # a locked database: keep what is shown
            return
        self.post_message(TagsLoaded(known, tags))

    def on_tags_loaded(self, message: TagsLoaded) -> None:
        message.stop()
        editor = next((s for s in self.app.screen_stack if isinstance(s, TagEditor)), None)
        if editor is not None:
            editor.update_tags(message.known, message.tags)
        papers = [p for p in self.main.papers.targets() if p.key in message.tags]
        stale = [replace(p, tags=message.tags[p.key]) for p in papers if p.tags != message.tags[p.key]]
        if stale:
            self.main.papers.replace(stale)

    def status(self) -> None:
        self.with_targets(self._status)

    def _status(self, papers: list[PaperSummary]) -> None:
        def done(choice: Choice | None) -> None:
            if choice is not None:
                self.write(f"{_count(papers)}: {choice.value}",
                           lambda c: c.set_status([p.key for p in papers], choice.value),
                           f"setting the status of {_count(papers)}")

        now = papers[0].status if len(papers) == 1 else None
        self.app.push_screen(ChoiceScreen(f"Status of {_count(papers)}", status_choices(now)), done)

    def rate(self) -> None:
        self.with_targets(self._rate)

    def _rate(self, papers: list[PaperSummary]) -> None:
        def done(choice: Choice | None) -> None:
            if choice is not None:
                rating = choice.value or None
                self.write(f"{_count(papers)}: {stars(rating) or 'no rating'}",
                           lambda c: c.set_rating([p.key for p in papers], rating), f"rating {_count(papers)}")

        now = papers[0].rating if len(papers) == 1 else None
        self.app.push_screen(ChoiceScreen(f"Rate {_count(papers)}", rating_choices(now)), done)

    def title(self) -> None:
        paper, detail = self.main.papers.current, self.main.detail
        if paper is None:
            return
        value = one_line(detail.user_title if detail and detail.user_title else paper.title)

        def done(title: str | None) -> None:
            if title is not None and title.strip() != value:
                label = f"Title: {shorten(title)}" if title.strip() else "Own title removed"
                self.write(label, lambda c: c.set_title(paper.key, title or None))

        self.app.push_screen(PromptScreen(
            "Your title for this paper", value,
            hint="enter saves · empty goes back to the derived headline · escape cancels"), done)

    def note(self) -> None:
        paper, detail = self.main.papers.current, self.main.detail
        if paper is None or detail is None or detail.summary.key != paper.key:
            return
        if not detail.notes:
            self._edit_note(paper, None)
            return
        self.app.push_screen(ChoiceScreen("Notes", note_choices(detail.notes)),
                         lambda choice: choice and self._edit_note(paper, choice.value))

    def _edit_note(self, paper: PaperSummary, note: NoteView | None) -> None:
        def done(text: str | None) -> None:
            if text is None:
                return
            if note is None and text.strip():
                self.write("Note added", lambda c: c.add_note(paper.key, text))
            elif note is not None and text.strip():
                self.write(f"Note {note.number} saved",
                           lambda c: c.edit_note(paper.key, note.number, text))
            elif note is not None:
                self.write(f"Note {note.number} deleted",
                           lambda c: c.delete_note(paper.key, note.number))

        heading = f"{'Note ' + str(note.number) if note else 'New note'} on {one_line(paper.title)}"
        self.app.push_screen(NoteEditor(heading, note.body if note else ""), done)

    def note_in_editor(self) -> None:
        """N: a note written in $EDITOR (the app suspended meanwhile); with notes, which one first."""
        paper, detail = self.main.papers.current, self.main.detail
        if paper is None or detail is None or detail.summary.key != paper.key:
            return
        if not detail.notes:
            self._note_externally(paper, None)
            return
        self.app.push_screen(ChoiceScreen("Edit in $EDITOR", note_choices(detail.notes)),
                             lambda choice: choice and self._note_externally(paper, choice.value))

    def _note_externally(self, paper: PaperSummary, note: NoteView | None) -> None:
        from catalog.tui.external_editor import edit_externally

        before = note.body if note else ""
        try:
            text = edit_externally(self.app, before)
        except CatalogError as exc:
            self.say(str(exc), severity="error")
            return
        if text.strip() == before.strip():
            self.say("Note unchanged" if note else "Note not saved: the editor left it empty")
        elif not text.strip():
            self.say(f"Note {note.number} not saved: the editor left it empty (n deletes a note)")
        elif note is None:
            self.write("Note added", lambda c: c.add_note(paper.key, text))
        else:
            self.write(f"Note {note.number} saved", lambda c: c.edit_note(paper.key, note.number, text))

    def fields(self) -> None:
        """E: the paper's own fields in a form; what differs is written (u undoes)."""
        from catalog.tui.screens.fields import FieldsScreen

        paper, detail = self.main.papers.current, self.main.detail
        if paper is None or detail is None or detail.summary.key != paper.key:
            return
        if self.main.papers.marked:
            self.say("E corrects the paper under the cursor only (not the marked ones)", timeout=3)

        def done(changed: dict[str, str] | None) -> None:
            if changed:
                what = ", ".join(changed)
                self.write(f"Corrected {what} of {shorten(paper.title, 40)}",
                           lambda c: c.corrections.edit(paper.key, changed))

        self.app.push_screen(FieldsScreen(detail), done)

    def delete(self) -> None:
        """D: delete the paper (or the marked ones, after asking); u brings them back."""
        self.with_targets(self._delete)

    def _delete(self, papers: list[PaperSummary]) -> None:
        def go() -> None:
            self.write(f"Deleted {_count(papers)}", lambda c: c.deleting.delete([p.key for p in papers]),
                       f"deleting {_count(papers)}")

        if len(papers) == 1:
            go()
            return
        self.app.push_screen(ConfirmScreen(
            f"Delete {len(papers):,} papers, with their tags, notes and marks?  u brings them back",
            yes="Delete", no="Keep"), lambda yes: yes and go())

    def undo(self) -> None:
        if self._queue("undo"):
            return
        if not self.undo_stack:
            self.say("Nothing to undo")
            return
        label, edit = self.undo_stack.pop()
        self._write(label, lambda c: c.undo(edit), "undo", f"undoing: {label}")

    def redo(self) -> None:
        if self._queue("redo"):
            return
        if not self.redo_stack:
            self.say("Nothing to redo")
            return
        label, edit = self.redo_stack.pop()
        self._write(label, lambda c: c.undo(edit), "redo", f"redoing: {label}")

    def _queue(self, kind: str) -> bool:
        """u (or U) while a change is still being written waits for it: it takes back that
        change, not the one before. Whether it waits."""
        # It popped the one before at once, then waited silently for the write's lock: after
        # the 10-20 s of tagging a real library's 16k papers it undid an earlier status and
        # kept the tags.
        if not self.writing:
            return False
        self.queued.append(kind)
        doing = max(self.writing.items(), key=lambda item: item[1])[0].name
        self.say(f"Still {doing}: {'undone' if kind == 'undo' else 'redone'} once it is written", timeout=4)
        return True

    def save_search(self) -> None:
        query = self.main.search_bar.value.strip()
        if not query:
            self.say("Type a search first; then S saves it as a smart list")
            return

        def done(name: str | None) -> None:
            name = " ".join((name or "").split())  # as the catalog stores it
            if not name:
                return
            facets = self.main.facets
            saved = facets.saved if facets else ()
            old = next((s for s in saved if s.name == name), None)
            if old is None or old.query == query:
                self._save_search(name, query)
                return
            self.app.push_screen(ConfirmScreen(
                f"Replace the saved search '{one_line(name)}'?\n  now:  {one_line(old.query)}\n"
                f"  with: {one_line(query)}", yes="Replace", no="Cancel"),
                lambda yes: yes and self._save_search(name, query, replaced=old.query))

        self.app.push_screen(PromptScreen("Save this search as", "", hint=f"query: {query}",
                                      placeholder="a name, like 'to read this week'"), done)

    def confirm_delete_saved_search(self, saved: SavedQuery) -> None:
        self.app.push_screen(ConfirmScreen(
            f"Delete the saved search '{one_line(saved.name)}' ({one_line(saved.query)})?  u undoes",
            yes="Delete", no="Keep"), lambda yes: yes and self.delete_saved_search(saved))

    # --- writing ------------------------------------------------------------------------

    def write(self, label: str, change: Change, doing: str = "saving") -> None:
        """`doing`: what the line under the search bar says while it runs ("tagging 16,468
        papers"): tagging all of a real library's papers is not instant."""
        self._write(label, change, "do", doing)

    def _write(self, label: str, change: Change, kind: str, doing: str = "saving") -> None:
        """Run `change` in a thread worker; `kind` says whether it is a new edit, an undo or a redo."""
        worker = self.run_worker(partial(self._run, label, change, kind), name=doing, group="write",
                                 thread=True, exit_on_error=False)
        self.writing[worker] = monotonic()
        self.main.refresh_bindings()  # u applies while it runs
        if self._ticking is None:
            self._ticking = self.set_interval(min(1.0, SAY_AFTER or 0.1), self.main.answers.show_position)

    def _run(self, label: str, change: Change, kind: str) -> None:
        self.post_message(run_change(self.catalog, label, change, kind))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker in self.writing and event.worker.is_finished:
            del self.writing[event.worker]
            if not self.writing and self._ticking is not None:
                self._ticking.stop()
                self._ticking = None
            self.main.answers.show_position()
            self.main.refresh_bindings()
            if not self.writing and self.queued:  # its answer (PapersChanged) came first
                (self.undo if self.queued.pop(0) == "undo" else self.redo)()

    def progress(self) -> str:
        """The write running longest, once it has taken a second: `tagging 16,468 papers… N s`
        (the list stays usable meanwhile); "" when none has."""
        now = monotonic()
        slow = [(started, worker.name) for worker, started in self.writing.items() if now - started >= SAY_AFTER]
        if not slow:
            return ""
        started, doing = min(slow)
        more = f" (and {len(self.writing) - 1:,} more)" if len(self.writing) > 1 else ""
        return f"{doing}… {int(now - started)} s{more}"

    def _save_search(self, name: str, query: str, replaced: str | None = None) -> None:
        label = f"Saved search '{one_line(name)}'"
        if replaced is not None:
            label = f"Replaced saved search '{one_line(name)}' (was: {shorten(replaced)})"
        self._write(label, lambda c: c.saved.save_search(name, query), "do", "saving the search")

    def delete_saved_search(self, saved: SavedQuery) -> None:
        self._write(f"Deleted saved search '{one_line(saved.name)}' ({one_line(saved.query)})",
                    lambda c: c.saved.delete_saved_search(saved.name), "do")

    def on_papers_changed(self, message: PapersChanged) -> None:
        message.stop()
        edit, label = message.edit, message.label
        if message.kind == "do":
            self.undo_stack.append((label, edit))
            self.redo_stack.clear()
        elif message.kind == "undo":
            self.redo_stack.append((label, edit))
        else:
            self.undo_stack.append((label, edit))
        del self.undo_stack[:-UNDO_DEPTH]
        self.main.show_edit(edit)
        deleted = [c for c in edit.changes if isinstance(c, PaperDeleted)]
        if deleted:  # papers gone or back: search again
            papers = self.main.papers
            unmarked = [c.key for c in deleted if c.deleted and papers.marked.pop(c.key, None)]
            if unmarked:  # a deleted paper is no longer marked (one message, not one per paper)
                papers.post_message(papers.MarksChanged(len(papers.marked)))
            back = [c.key for c in deleted if not c.deleted]
            # The cursor goes to the paper brought back (the first deleted, of several): it
            # stayed where it had moved since, the paper somewhere in the list.
            self.main.search_again(keep=back[-1] if back else None)
        self._announce(message.kind, label, edit)

    def _announce(self, kind: str, label: str, edit: Edit) -> None:
        if kind == "do":
            self.say(f"{label}  (u undoes)", timeout=3)
            return
        verb = "Undone" if kind == "undo" else "Redone"
        if not edit.changes and not edit.conflicts:
            self.say(f"{verb}: {label} (nothing to change: it was already so)", timeout=4)
        elif edit.conflicts:
            self.say(f"{verb}: {label}. Left alone, changed since: " + "; ".join(edit.conflicts),
                     severity="warning", timeout=8)
        else:
            self.say(f"{verb}: {label}  ({'U redoes' if kind == 'undo' else 'u undoes'})", timeout=3)

