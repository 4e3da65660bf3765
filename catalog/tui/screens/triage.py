"""Triage mode: the papers of a list one at a time, each with its abstract, and one key per
decision (queue, reading, read, skip, rate 1-5, tag), after which the next paper comes by
itself.

What "triaged" means: a paper whose status is no longer `unread`, or that has a rating (the
catalog's own data, so progress is the same in every session and in `catalog search`:
`status:unread -has:rating` lists what is left). Tagging alone does not triage a paper.

The order: the list's own order until the recommender has ranked the untriaged papers by
likeness to the ones the user rated 4-5, queued, reads, read or tagged (catalog.triage.triage_order,
in a worker); then the papers still to come follow that ranking, never the one on screen. It
is ranked again every REORDER_EVERY decisions.

Decisions are ordinary edits: they go on the catalog screen's undo stack, so `u` here (or in
the list afterwards) takes them back, and here it also shows that paper again. Where the
triage stopped (the paper on screen and the papers passed over) is kept per query in the
session file (state.py): it is one person's place in a list, like the cursor, while the
decisions themselves are in the catalog.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from catalog.errors import CatalogError
from catalog.library import Catalog
from catalog.results import Edit, TriageCount
from catalog.searching.query import QueryError
from catalog.searching.request import request
from catalog.tui import keys
from catalog.tui.display import first_line, shorten, stars
from catalog.tui.editing import UNDO_DEPTH, run_change
from catalog.tui.messages import (
    ActionFailed, PapersChanged, TriageCounted, TriageRanked, TriageRows,
)
from catalog.tui.screens.help import HelpScreen, key_rows
from catalog.tui.screens.tag_editor import TagEditor
from catalog.tui.triage import TriageQueue
from catalog.tui.widgets.detail import DetailPane

WINDOW = 500  # untriaged papers fetched (and ranked) at a time
LOW = 25  # fetch the next window when fewer papers than this are left to come
REORDER_EVERY = 5  # decisions between two rankings

STATUS_WORDS = {"queued": "Queued", "reading": "Reading", "read": "Read", "skipped": "Skipped"}


class TriageScreen(Screen):
    BINDINGS = keys.TRIAGE_BINDINGS

    def __init__(self, main, query: str, label: str) -> None:
        """`main`: the catalog screen (its undo stack, its list, what it remembers);
        `query`: the list to triage; `label`: how to name it."""
        super().__init__()
        self.main = main
        self.catalog: Catalog = main.catalog
        self.query_text = query
        try:  # what the reading pane marks
            self.request = request(query)
        except QueryError:  # (the list says why it cannot be read)
            self.request = None
        self.label = label
        key, passed = main.remembered.triage_place(query)
        self.queue = TriageQueue(key, passed)
        self.count: TriageCount | None = None
        self.generation = 0  # of the windows asked for
        self.rank_generation = 0
        self.fetching = True
        self.more = False  # the last window was full: there may be more untriaged papers
        self.ranked_by: int | None = None  # papers the ranking learnt from; None: list order
        self.ranking = False
        self.asked_rank = False
        self.rank_note = ""
        self.decisions = 0  # since the last ranking was asked for
        self.last = ""  # what the last decision did
        self.error: str | None = None  # why the list cannot be read

    def compose(self) -> ComposeResult:
        with Vertical(id="triage"):
            yield Static(id="triage-progress")
            yield Static(id="triage-paper-state")
            yield DetailPane(self.catalog, id="triage-paper")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.pane.focus()
        self.show_current()
        self._load(self.generation, self._window())
        self._count()

    @property
    def pane(self) -> DetailPane:
        return self.query_one("#triage-paper", DetailPane)

    def say(self, message: str, **kwargs) -> None:
        self.notify(message, markup=False, **kwargs)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in keys.TRIAGE_DECISIONS or action == "browse":
            return True if self.queue.current is not None else None
        if action == "undo":
            return True if self.main.editing.undo_stack else None
        if action == "previous":
            return True if self.queue.history else None
        return True

    # --- reading the list -------------------------------------------------------------------

    def _window(self) -> int:
        return WINDOW + len(self.queue.passed) + len(self.queue.history)

    @work(thread=True, exclusive=True, group="triage-load", exit_on_error=False)
    def _load(self, generation: int, limit: int) -> None:
        try:
            rows = self.catalog.triage.untriaged(self.query_text, limit=limit)
        except (CatalogError, QueryError) as exc:
            self.post_message(TriageRows(generation, [], False, f"cannot triage this list: {exc}"))
            return
        except Exception as exc:  # a locked database, say
            self.post_message(TriageRows(generation, [], False,
                                         f"cannot read the list: {first_line(exc)}"))
            return
        self.post_message(TriageRows(generation, rows, len(rows) >= limit))

    def on_triage_rows(self, message: TriageRows) -> None:
        if message.generation != self.generation:
            return
        self.fetching = False
        if message.error:
            self.error = message.error
            self.say(message.error, severity="error", timeout=6)
            self.show_current()
            return
        first = not self.asked_rank
        self.asked_rank = True
        self.more = message.full
        self.queue.fill(message.rows)
        self.show_current()
        if first:
            self.rank()

    @work(thread=True, exclusive=True, group="triage-count", exit_on_error=False)
    def _count(self) -> None:
        try:
            self.post_message(TriageCounted(self.catalog.triage.triage_count(self.query_text)))
        except Exception:  # the progress line keeps its last figures
            pass

    def on_triage_counted(self, message: TriageCounted) -> None:
        self.count = message.count
        self.show_progress()

    def rank(self) -> None:
        self.rank_generation += 1
        self.decisions = 0
        self.ranking = True
        self.show_progress()
        self._rank(self.rank_generation)

    @work(thread=True, exclusive=True, group="triage-rank", exit_on_error=False)
    def _rank(self, generation: int) -> None:
        try:
            order = self.catalog.triage.triage_order(self.query_text, limit=WINDOW)
        except Exception as exc:  # no cache folder, a library missing: the list's order stays
            self.post_message(TriageRanked(generation, None, first_line(exc)))
            return
        self.post_message(TriageRanked(generation, order))

    def on_triage_ranked(self, message: TriageRanked) -> None:
        if message.generation != self.rank_generation:
            return
        self.ranking = False
        self.rank_note = f"ranking failed: {message.error}" if message.error else ""
        if message.order is not None:
            self.ranked_by = message.order.learnt_from
            self.queue.reorder(list(message.order.papers))
            if self.queue.current is None:
                self.queue.advance()
                self.show_current()
        self.show_progress()

    # --- what is on screen ------------------------------------------------------------------

    def show_current(self) -> None:
        paper = self.queue.current
        self.main.remembered.remember_triage(self.query_text, paper.key if paper else None,
                                             self.queue.passed)
        if len(self.queue.upcoming) < LOW and self.more and not self.fetching:
            self.fetching = True
            self.generation += 1
            self._load(self.generation, self._window())
        self.show_progress()
        self.show_state()
        self.refresh_bindings()
        if paper is None:
            self.pane.clear(self._done_message())
        elif paper.key != self.pane.asked:
            self.pane.show_message(Content.styled(paper.title, "bold"))
            self.pane.load(paper.key, self.request)

    def _done_message(self) -> Content:
        if self.error:
            return Content.assemble((self.error, "$text-error"), "\n\nescape goes back to the list.")
        if self.fetching:
            return Content("Loading the papers …")
        count = self.count
        if count is not None and count.total == 0:
            return Content.assemble(("Nothing to triage: ", "bold"), f"no papers match {self.label}.",
                                    "\n\nescape goes back to the list.")
        done = f" ({count.triaged:,} / {count.total:,} triaged)" if count else ""
        return Content.assemble((f"Nothing left to triage in {self.label}{done}.", "bold"),
                                "\n\nu takes back the last decision; escape goes back to the list.")

    def on_detail_pane_shown(self, message: DetailPane.Shown) -> None:
        self.queue.update([message.detail.summary])
        self.show_state()

    def show_progress(self) -> None:
        count = self.count
        parts: list = [("Triage", "bold"), f" · {self.label} · "]
        if count is None:
            parts.append("counting …")
        else:
            parts.append((f"{count.triaged:,} / {count.total:,} triaged", "bold $text-primary"))
        if self.queue.passed:
            parts.append(f" · {len(self.queue.passed)} for later")
        parts += ["\n", (self._order_text(), "$text-muted")]
        self.query_one("#triage-progress", Static).update(Content.assemble(*parts))

    def _order_text(self) -> str:
        if self.rank_note:
            return f"order: as listed ({self.rank_note})"
        if self.ranked_by:
            text = f"order: most promising first (learnt from {self.ranked_by:,} of your papers)"
            return text + (", updating …" if self.ranking else "")
        if self.ranking:
            return "order: as listed, ranking …"
        return "order: as listed (rate, queue or tag papers: the likeliest come first)"

    def show_state(self) -> None:
        paper = self.queue.current
        parts: list = []
        if paper is not None:
            triaged = paper.status != "unread" or paper.rating
            if triaged:
                parts += [("✓ triaged", "bold $text-success"), f": {paper.status}"]
                if paper.rating:
                    parts += ["  ", (stars(paper.rating), "$text-warning")]
            else:
                parts.append(("not triaged yet", "$text-warning"))
            if paper.key in self.queue.passed:
                parts.append(" · passed over before")
        if self.last:
            parts += [("   last: " if parts else "last: ", "$text-muted"), (self.last, "$text-muted")]
        self.query_one("#triage-paper-state", Static).update(Content.assemble(*parts))

    # --- decisions --------------------------------------------------------------------------

    def decide(self, label: str, change: Callable[[Catalog], Edit]) -> None:
        """Write `change` for the paper on screen, and show the next paper at once."""
        if self.queue.current is None:
            return
        self.queue.advance()
        self.show_current()
        self._write(label, change, "do")

    def action_decide(self, status: str) -> None:
        paper = self.queue.current
        if paper is not None:
            self.decide(f"{STATUS_WORDS[status]}: {shorten(paper.title)}",
                        lambda c: c.set_status([paper.key], status))

    def action_rate_now(self, rating: int) -> None:
        paper = self.queue.current
        if paper is not None:
            self.decide(f"{stars(rating)}: {shorten(paper.title)}",
                        lambda c: c.set_rating([paper.key], rating))

    def action_tag_now(self) -> None:
        paper = self.queue.current
        if paper is None:
            return
        known = [t.name for t in self.main.facets.tags] if self.main.facets else []

        def done(change) -> None:
            if change and self.queue.current is not None and self.queue.current.key == paper.key:
                add, remove = change
                what = " ".join([*("+" + t for t in add), *("-" + t for t in remove)])
                self.decide(f"Tagged {shorten(paper.title)}: {what}",
                            lambda c: c.tag([paper.key], add, remove))

        self.app.push_screen(TagEditor([paper], known), done)

    def action_later(self) -> None:
        if self.queue.current is not None:
            self.queue.pass_over()
            self.show_current()

    def action_previous(self) -> None:
        if self.queue.back() is not None:
            self.show_current()

    def on_detail_pane_step(self, message: DetailPane.Step) -> None:
        """] and [ in the text: later, and the paper before."""
        message.stop()
        self.action_later() if message.delta > 0 else self.action_previous()

    def action_undo(self) -> None:
        stack = self.main.editing.undo_stack
        if not stack:
            self.say("Nothing to undo")
            return
        label, edit = stack.pop()
        touched = {p.key for p in edit.papers}
        seen = next((p for p in reversed(self.queue.history) if p.key in touched), None)
        if seen is not None:
            self.queue.go_to(seen)
        self.show_current()
        self._write(label, lambda c: c.undo(edit), "undo")

    def action_browse(self) -> None:
        if self.queue.current is not None:
            self.main.sharing.browse(self.queue.current.key)

    def action_leave(self) -> None:
        main = self.main
        if main.store is not None:  # where it stopped survives a crash from here on
            main.store.save(main.remembered)
        self.dismiss(None)

    def action_help(self) -> None:
        app = self.app
        app.push_screen(HelpScreen([
            ("Triage (a paper is triaged once its status is not unread, or it is rated)",
             key_rows(app, keys.TRIAGE_BINDINGS)),
            ("Reading the paper", key_rows(app, DetailPane.BINDINGS))]))

    def palette_commands(self) -> list[tuple[str, str, object]]:
        """The command palette's entries here: triage's own actions (the list's act on the
        list's paper, not this one)."""
        out = []
        for binding in keys.TRIAGE_BINDINGS:
            help_text = f"{binding.tooltip or binding.description}  ({self.app.get_key_display(binding)})"
            name = binding.description if binding.description != "Rate" else "Rate 1"
            out.append((f"Triage: {name}", help_text,
                        partial(self.call_after_refresh, self.run_action, binding.action)))
        return out

    # --- writing ----------------------------------------------------------------------------

    @work(thread=True, group="write", exit_on_error=False)
    def _write(self, label: str, change: Callable[[Catalog], Edit], kind: str) -> None:
        self.post_message(run_change(self.catalog, label, change, kind))  # in order with the list's

    def on_papers_changed(self, message: PapersChanged) -> None:
        editing, edit = self.main.editing, message.edit
        if message.kind == "do":
            editing.undo_stack.append((message.label, edit))
            editing.redo_stack.clear()
            self.last = f"{message.label}  (u undoes)"
            self.decisions += 1
        else:
            editing.redo_stack.append((message.label, edit))
            self.last = f"undone: {message.label}"
            if edit.conflicts:
                self.say("Left alone, changed since: " + "; ".join(edit.conflicts),
                         severity="warning", timeout=8)
        del editing.undo_stack[:-UNDO_DEPTH]
        self.main.papers.replace(list(edit.papers))
        self.queue.update(edit.papers)
        current = self.queue.current
        if current is not None and current.key == self.pane.asked and any(
                p.key == current.key for p in edit.papers):
            self.pane.load(current.key, self.request)  # its status line, after an undo landed
        self.show_state()
        self.refresh_bindings()
        self._count()
        if self.decisions >= REORDER_EVERY and not self.ranking:
            self.rank()

    def on_action_failed(self, message: ActionFailed) -> None:
        self.say(message.message, severity="error", timeout=6)
