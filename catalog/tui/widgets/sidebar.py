"""The sidebar: facets with counts as one tree. Choosing a leaf posts FilterChosen with the
filter text to add to the query (or, for a saved search or a topic, the query to replace it
with). The Topics section shows the whole catalog's stored topics; its "find topics" leaf
groups the catalog (in a worker, saying so meanwhile), and choosing a topic posts its papers
(TopicPapers) for the screen to mark.

The counts are those of the current results (a tag's including its children's papers, as
the tag: filter finds them); the facets in use are marked ● and bold. The sidebar reads its
counts and topics itself, in thread workers: `load` asks for a search's counts."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode
from textual.worker import get_current_worker

from catalog.errors import Interrupted
from catalog.library import Catalog
from catalog.results import Facets, TopicCount
from catalog.rules import STATUSES
from catalog.searching.query import QueryError
from catalog.searching.request import SearchRequest
from catalog.tui.display import first_line, one_line, shorten, stars
from catalog.tui.facetlist import Entry, author_entries, top, top_authors, venue_entries
from catalog.tui.messages import (
    ActionFailed, FacetsFailed, FacetsLoaded, FilterChosen, TopicPapers, TopicsLoaded,
)
from catalog.tui.querytext import filter_token, filter_values, is_active, tokens
from catalog.tui.screens.facet_picker import FacetPickerScreen
from catalog.tui.waiting import Typing, after, settled, when_quiet

Data = tuple[str, bool] | None  # (query text, replaces the query?)
FIND_TOPICS: Data = ("", True)  # the "find topics" leaf (no query is empty and replacing)
MORE_VENUES: Data = ("venue:", True)  # the "N more…" venues leaf (no query is just that)
MORE_AUTHORS: Data = ("author:", True)  # the "N more…" authors leaf
ACTIVE = "● "  # before a facet the query uses
TREE_INDENT = 4  # cells the tree's guides take before a leaf of a section ("├ ", scrollbar)
TOPIC_WIDTH = 29  # the sidebar's width (app.tcss) before it is laid out
TOPIC_FILTER = re.compile(r"^topic:(\d+)$")
# Facets that fail (a busy database: another process writing past the busy timeout) are tried
# again after this long, then twice as long; a failure that lasts is said, and the sidebar
# stays dimmed, its counts an earlier search's, until R or the next search.
FACETS_RETRY = 0.5
FACETS_TRIES = 3


def label(name: str, count: int | None = None, style: str = "") -> Text:
    out = Text(name, style=style, no_wrap=True, end="")
    if count is not None:
        out.append(f" {count:,}", style="dim")
    return out


class Sidebar(Tree[Data]):
    BINDINGS = [
        Binding("left", "fold", "Collapse", show=False, id="sidebar-fold",
                tooltip="In the facets: fold the section or tag, or go to its parent"),
        Binding("right", "unfold", "Expand", show=False, id="sidebar-unfold",
                tooltip="In the facets: unfold the section or tag, or go into it"),
    ]

    @dataclass
    class Counted(Message):
        """The sidebar shows the counts of the search it was last asked about."""

        facets: Facets

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, Sidebar.Counted)  # it shows newer counts since

    def __init__(self, catalog: Catalog, typing: Typing | None = None, **kwargs) -> None:
        """`typing`: the search bar's keys; one typed while the counts are read puts them off
        until typing pauses."""
        super().__init__(Text("Facets"), **kwargs)
        self.catalog = catalog
        self.typing = typing
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 2
        self._open: dict[str, bool] = {}  # folds the user changed, by path
        self.facets: Facets | None = None  # the counts shown
        self.asked: SearchRequest | None = None  # the search whose counts are wanted
        self.topics: tuple[TopicCount, ...] = ()
        self.topics_stale = False
        self._topics_wanted = True  # read the stored topics with the next counts
        self._finding_topics = False  # the topics are being grouped (find topics)
        self._query = ""  # the query the counts are for: its facets are marked
        self.venues: tuple[Entry, ...] = ()  # the counts' venues, most papers first
        self.authors: tuple[Entry, ...] = ()  # the counts' people shown, most papers first
        # A venue's years, added when it is unfolded: most stay folded, and each node added
        # costs the UI thread about 0.3 ms (ten venues' years were most of a rebuild's 40 ms).
        # By node id, which the tree numbers anew at each rebuild: the node is kept to tell.
        self._years: dict[int, tuple[TreeNode[Data], str, tuple[tuple[int | None, int], ...]]] = {}

    # --- reading the counts and topics ----------------------------------------------------

    def load(self, asked: SearchRequest, settle: float = 0.0) -> None:
        """Counts of the papers `asked` finds (as the list holds them), read off the UI
        thread after `settle` seconds (SETTLE, while typing); a newer call cancels this one,
        and SQLite stops at once; a key typed into the search bar puts them off (stopping them
        if they run) until typing pauses. Meanwhile the counts shown, an earlier search's, are
        dimmed."""
        self.asked = asked
        self.set_class(True, "-pending")
        self._read_facets(asked, settle, self.typing.keys if self.typing else 0)

    def catalog_changed(self) -> None:
        """Papers may have come or gone (R, a change elsewhere): the stored topics, the whole
        catalog's and the same for every search, are read again with the next counts."""
        self._topics_wanted = True

    def stop_loading(self) -> None:
        """The counts asked for are not wanted any more (a newer search is on its way)."""
        self.workers.cancel_group(self, "facets")

    @work(thread=True, exclusive=True, group="facets", exit_on_error=False)
    def _read_facets(self, asked: SearchRequest, settle: float, seen: int) -> None:
        worker = get_current_worker()
        until = after(settle)
        for attempt in range(FACETS_TRIES):
            try:
                wanted, facets = when_quiet(worker, until, self.typing, seen, lambda stopped: self.catalog.facets(
                    asked, cancelled=stopped))
                if not wanted:
                    return
                break
            except (Interrupted, QueryError):  # superseded, or a bad query the search reports
                return
            except Exception as exc:  # a busy database, say: once more in a moment
                failure = first_line(exc)
                if (attempt + 1 < FACETS_TRIES
                        and not settled(worker, after(FACETS_RETRY * 2 ** attempt))):
                    return
        else:
            if not worker.is_cancelled:
                self.post_message(FacetsFailed(asked, failure))
            return
        # Grouped and picked here: the UI thread builds only the few nodes shown.
        venues = venue_entries(facets)
        authors = top_authors(facets, filter_values(facets.query, "author"))
        if not worker.is_cancelled:
            self.post_message(FacetsLoaded(asked, facets, venues, authors))

    def on_facets_loaded(self, message: FacetsLoaded) -> None:
        message.stop()
        if message.request != self.asked:
            return  # another search's since
        facets = message.facets
        self.show_facets(facets, venue_entries(facets) if message.venues is None else message.venues,
                         top_authors(facets, set()) if message.authors is None else message.authors)
        self.set_class(False, "-pending")
        if self._topics_wanted:
            self._topics_wanted = False
            self.load_topics()
        self.post_message(self.Counted(message.facets))

    def on_facets_failed(self, message: FacetsFailed) -> None:
        message.stop()
        if message.request == self.asked:
            self.notify(f"The sidebar's counts are an earlier search's: {message.message} "
                        "(R counts again)", severity="warning", markup=False)

    @work(thread=True, exclusive=True, group="topics-read", exit_on_error=False)
    def load_topics(self) -> None:
        try:
            self.post_message(TopicsLoaded(*self.catalog.discovery.stored_topics()))
        except Exception:  # a convenience, like the other counts: the next refresh tries again
            pass

    def on_topics_loaded(self, message: TopicsLoaded) -> None:
        message.stop()
        finding = self._finding_topics and not message.grouped
        self.show_topics(message.topics, message.stale, finding=finding)

    def find_topics(self) -> None:
        """Group the whole catalog into topics (again), saying so meanwhile."""
        if self._finding_topics:
            return
        self.show_topics(self.topics, self.topics_stale, finding=True)
        self._group_topics()

    @work(thread=True, exclusive=True, group="topics", exit_on_error=False)
    def _group_topics(self) -> None:
        catalog = self.catalog
        try:
            catalog.discovery.topics()
        except Exception as exc:
            self.post_message(ActionFailed(f"Cannot find topics: {first_line(exc)}"))
        try:
            self.post_message(TopicsLoaded(*catalog.discovery.stored_topics(), grouped=True))
        except Exception:
            self.post_message(TopicsLoaded((), True, grouped=True))

    @work(thread=True, exclusive=True, group="topic-marks", exit_on_error=False)
    def _topic_papers(self, number: int, label: str) -> None:
        try:
            papers = self.catalog.discovery.topic_papers(number)
        except Exception:
            return
        if papers:
            self.post_message(TopicPapers(number, label, papers))

    # --- showing ----------------------------------------------------------------------------

    def show_facets(self, facets: Facets, venues: tuple[Entry, ...] | None = None,
                    authors: tuple[Entry, ...] | None = None) -> None:
        """Rebuild from fresh counts, keeping which sections the user folded; `venues` and
        `authors`, the counts' venues grouped and the people shown (off the UI thread), when
        they are new."""
        if venues is not None:
            self.venues = venues
        if authors is not None:
            self.authors = authors
        self.facets = facets
        self._remember_folds(self.root)
        self._query = facets.query
        line = self.cursor_line
        self.clear()
        self._years.clear()
        self._saved(facets)
        self._section("Status", [(label(s, n, "dim" if not n else ""), (f"status:{s}", False))
                                 for s, n in self._statuses(facets)])
        self._ratings(facets)
        self._files(facets)
        self._tags(facets)
        self._topics(facets)
        self._authors()
        self._venues(facets)
        self.cursor_line = line

    def on_resize(self) -> None:
        # Topic and venue labels are shortened to the width (shown, hidden or narrow at launch).
        if self.facets is not None:
            self.show_facets(self.facets)

    def show_topics(self, topics: tuple[TopicCount, ...], stale: bool, finding: bool = False) -> None:
        self.topics, self.topics_stale, self._finding_topics = topics, stale, finding
        if self.facets is not None:
            self.show_facets(self.facets)

    def _topics(self, facets: Facets) -> None:
        if not facets.total:
            return
        items: list[tuple[Text, Data]] = [(self._topic_label(t), (f"topic:{t.number}", True))
                                          for t in self.topics]
        if self._finding_topics:
            items.append((label("finding topics…", style="italic"), None))
        elif self.topics_stale:
            items.append((label("group again (papers changed)" if self.topics else "find topics",
                                style="dim"), FIND_TOPICS))
        self._section("Topics", items)

    def _topic_label(self, topic: TopicCount) -> Text:
        """"3. sparse autoencoders, sae… 14": the number `topic:N` and `catalog topics` use,
        the words shortened so the count stays in view."""
        number, count = f"{topic.number}. ", f" {topic.count:,}"
        room = (self.size.width or TOPIC_WIDTH) - TREE_INDENT - len(number) - len(count)
        return Text.assemble(number, shorten(topic.label, max(room, 8)), (count, "dim"),
                             no_wrap=True, end="")

    def _fitted(self, name: str, count: int | None, expandable: bool = False, depth: int = 0) -> Text:
        """A facet's label with its name shortened so the count stays in view: a long venue
        ("Monthly Notices of the Royal Astronomical Society 2005") or tag hid its count.
        `depth`: levels below a section's entries (a nested tag), each a guide wide."""
        room = ((self.size.width or TOPIC_WIDTH) - TREE_INDENT - depth * self.guide_depth
                - (len(f" {count:,}") if count is not None else 0)
                - (2 if expandable else 0))  # "▶ "
        return label(shorten(name, max(room, 8)), count)

    def _remember_folds(self, node: TreeNode[Data]) -> None:
        for child in node.children:
            path = self._path(child)
            if child.allow_expand:
                self._open[path] = child.is_expanded
            self._remember_folds(child)

    @staticmethod
    def _path(node: TreeNode[Data]) -> str:
        parts = []
        while node.parent is not None:
            parts.append(node.label.plain.removeprefix(ACTIVE).rsplit(" ", 1)[0])
            node = node.parent
        return "/".join(reversed(parts))

    def _active(self, data: Data) -> bool:
        if data is None or data in (FIND_TOPICS, MORE_VENUES, MORE_AUTHORS):
            return False
        text, replaces = data
        if replaces:  # a saved search: in use when the query is exactly it
            return tokens(text) == tokens(self._query)
        return is_active(self._query, text)

    def _add(self, parent: TreeNode[Data], text: Text, data: Data, leaf: bool,
             open: bool = False) -> TreeNode[Data]:
        if self._active(data):
            text = Text(ACTIVE, style="bold", end="") + text
            text.stylize("bold")
        node = parent.add_leaf(text, data) if leaf else parent.add(text, data)
        # Sections and tag trees start open, a venue's years folded, unless the user chose.
        if not leaf and self._open.get(self._path(node), open or parent is self.root):
            node.expand()
        return node

    def _section(self, name: str, items: list[tuple[Text, Data]]) -> None:
        section = self._add(self.root, Text(name, style="bold"), None, leaf=False)
        for text, data in items:
            self._add(section, text, data, leaf=True)

    @staticmethod
    def _statuses(facets: Facets) -> list[tuple[str, int]]:
        counts = dict(facets.statuses)
        return [(s, counts.get(s, 0)) for s in STATUSES]

    def _saved(self, facets: Facets) -> None:
        if facets.saved:
            self._section("Saved searches", [
                (label(f"{i} " if i <= 9 else "  ") + label(one_line(s.name)), (s.query, True))
                for i, s in enumerate(facets.saved, 1)])

    def _ratings(self, facets: Facets) -> None:
        counts = dict(facets.ratings)
        items, running = [], 0
        for r in range(5, 0, -1):
            running += counts.get(r, 0)
            name = stars(r) + (" & up" if r < 5 else "")
            items.append((label(name, running, "" if running else "dim"), (f"rating:>={r}", False)))
        unrated = facets.total - sum(counts.values())
        items.append((label("unrated", unrated, "dim"), ("-has:rating", False)))
        self._section("Rating", items)

    def _files(self, facets: Facets) -> None:
        """Papers with a PDF, with any file, with none (has:pdf, has:files, -has:files); not
        shown until some paper of the catalog has a file."""
        if not facets.with_files and not self._query_has_files():
            return
        none = facets.total - facets.with_files
        self._section("Files", [
            (label("with PDF", facets.with_pdf, "" if facets.with_pdf else "dim"), ("has:pdf", False)),
            (label("with files", facets.with_files, "" if facets.with_files else "dim"), ("has:files", False)),
            (label("none", none, "dim"), ("-has:files", False))])

    def _query_has_files(self) -> bool:
        return any(is_active(self._query, t) for t in ("has:pdf", "has:files", "-has:files"))

    def _tags(self, facets: Facets) -> None:
        if not facets.tags:
            return
        section = self._add(self.root, Text("Tags", style="bold"), None, leaf=False)
        counts = {t.name: t.count for t in facets.tags}
        children: dict[str, list[str]] = defaultdict(list)
        for name in sorted({p for t in counts for p in tag_parents(t)} | counts.keys()):
            children[name.rpartition("/")[0]].append(name)

        def grow(parent: TreeNode[Data], prefix: str) -> None:
            for name in children.get(prefix, ()):
                leaf = name not in children
                text = self._fitted(one_line(name.rpartition("/")[2]), counts.get(name),
                                    expandable=not leaf, depth=name.count("/"))
                data = (filter_token("tag", name), False)
                node = self._add(parent, text, data, leaf=leaf, open=True)
                grow(node, name)

        grow(section, "")

    def _venues(self, facets: Facets) -> None:
        """The venues with most papers, those in the query, and "N more…" for the rest (a
        picker that filters as you type): a real library has thousands."""
        if not self.venues:
            return
        section = self._add(self.root, Text("Venues", style="bold"), None, leaf=False)
        shown, rest = top(self.venues, filter_values(self._query, "venue"))
        for entry in shown:
            if not entry.known:  # no filter selects them, nor their years (`year:` took every venue's)
                self._add(section, self._fitted("no venue", entry.count), None, leaf=True)
                continue
            years = entry.years
            token = filter_token("venue", entry.name)
            name = one_line(entry.name) if len(years) > 1 else f"{one_line(entry.name)} {years[0][0] or ''}"
            node = self._add(section, self._fitted(name.strip(), entry.count, expandable=len(years) > 1),
                             (token, False), leaf=len(years) < 2)
            if len(years) > 1:  # its years come when it is unfolded (NodeExpanded, handled after)
                self._years[node.id] = (node, token, years)
        if rest:
            self._add(section, label(f"{rest:,} more…", style="italic"), MORE_VENUES, leaf=True)

    def _authors(self) -> None:
        """The people with most papers, those in the query, and "N more…" for the rest."""
        if not self.authors:
            return
        section = self._add(self.root, Text("Authors", style="bold"), None, leaf=False)
        for entry in self.authors:
            self._add(section, self._fitted(one_line(entry.name), entry.count),
                      (filter_token("author", entry.name), False), leaf=True)
        rest = len(self.facets.authors) - len(self.authors) if self.facets else 0
        if rest > 0:
            self._add(section, label(f"{rest:,} more…", style="italic"), MORE_AUTHORS, leaf=True)

    def pick_venue(self) -> None:
        """Every venue of the counts, filtered by typing; the one chosen filters the list."""
        self._pick("venue", "Venues", self.venues)

    @work(thread=True, exclusive=True, group="author-picker", exit_on_error=False)
    def pick_author(self) -> None:
        """Every person of the counts, filtered by typing; the one chosen filters the list.
        Their entries are made here, off the UI thread, only when asked for."""
        if self.facets is None:
            return
        entries = author_entries(self.facets)
        try:
            self.app.call_from_thread(self._pick, "author", "Authors", entries)
        except RuntimeError:  # the app closed meanwhile
            pass

    def _pick(self, field: str, title: str, entries: tuple[Entry, ...]) -> None:
        def chosen(entry: Entry | None) -> None:
            if entry is not None and entry.known:
                self.post_message(FilterChosen(filter_token(field, entry.name)))

        self.app.push_screen(FacetPickerScreen(f"{title} ({len(entries):,})", entries), chosen)

    def action_fold(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and node.is_expanded:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:
            self.move_cursor(node.parent)

    def action_unfold(self) -> None:
        node = self.cursor_node
        if node is None or not node.allow_expand:
            return
        if not node.is_expanded:
            node.expand()
        elif node.children:
            self.move_cursor(node.children[0])

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[Data]) -> None:
        """A venue unfolded: its years, newest first."""
        node, token, years = self._years.get(event.node.id, (None, "", ()))
        if node is not event.node:
            return  # a section or tag, or a node of a tree rebuilt since
        del self._years[event.node.id]
        for year, n in sorted(years, key=lambda y: y[0] or 0, reverse=True):
            if year is not None:
                self._add(event.node, label(str(year), n), (f"{token} year:{year}".strip(), False), leaf=True)

    def on_tree_node_selected(self, event: Tree.NodeSelected[Data]) -> None:
        event.stop()
        if event.node.data is None:
            event.node.toggle()
        elif event.node.data == FIND_TOPICS:
            self.find_topics()
        elif event.node.data == MORE_VENUES:
            self.pick_venue()
        elif event.node.data == MORE_AUTHORS:
            self.pick_author()
        else:
            self.post_message(FilterChosen(*event.node.data))
            # A topic (after the search bar shows `topic:N`): its papers are marked.
            if found := TOPIC_FILTER.match(event.node.data[0]):
                number = int(found.group(1))
                label = next((t.label for t in self.topics if t.number == number), "")
                self._topic_papers(number, label)


def tag_parents(tag: str) -> list[str]:
    """project/a/b: project, project/a."""
    parts = tag.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]
