"""The sidebar: facets with counts as one tree. Choosing a leaf posts FilterChosen with the
filter text to add to the query (or, for a saved search or a topic, the query to replace it
with). The Topics section shows the whole catalog's stored topics; its "find topics" leaf
posts FindTopics (grouping runs in a worker, and says so meanwhile).

The counts are those of the current results (a tag's including its children's papers, as
the tag: filter finds them); the facets in use are marked ● and bold."""

from __future__ import annotations

from collections import defaultdict

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from catalog.rules import STATUSES
from catalog.results import Facets, TopicCount
from catalog.tui.display import one_line, shorten, stars
from catalog.tui.messages import FilterChosen, FindTopics
from catalog.tui.querytext import filter_token, is_active, tokens

Data = tuple[str, bool] | None  # (query text, replaces the query?)
FIND_TOPICS: Data = ("", True)  # the "find topics" leaf (no query is empty and replacing)
ACTIVE = "● "  # before a facet the query uses
TREE_INDENT = 4  # cells the tree's guides take before a leaf of a section ("├ ", scrollbar)
TOPIC_WIDTH = 29  # the sidebar's width (app.tcss) before it is laid out


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

    def __init__(self, **kwargs) -> None:
        super().__init__(Text("Facets"), **kwargs)
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 2
        self._open: dict[str, bool] = {}  # folds the user changed, by path
        self._facets: Facets | None = None
        self.topics: tuple[TopicCount, ...] = ()
        self.topics_stale = False
        self._finding_topics = False
        self._query = ""  # the query the counts are for: its facets are marked

    def show_facets(self, facets: Facets) -> None:
        """Rebuild from fresh counts, keeping which sections the user folded."""
        self._facets = facets
        self._remember_folds(self.root)
        self._query = facets.query
        line = self.cursor_line
        self.clear()
        self._saved(facets)
        self._section("Status", [(label(s, n, "dim" if not n else ""), (f"status:{s}", False))
                                 for s, n in self._statuses(facets)])
        self._ratings(facets)
        self._tags(facets)
        self._topics(facets)
        self._venues(facets)
        self.cursor_line = line

    def on_resize(self) -> None:
        # Topic and venue labels are shortened to the width (shown, hidden or narrow at launch).
        if self._facets is not None:
            self.show_facets(self._facets)

    def show_topics(self, topics: tuple[TopicCount, ...], stale: bool, finding: bool = False) -> None:
        self.topics, self.topics_stale, self._finding_topics = topics, stale, finding
        if self._facets is not None:
            self.show_facets(self._facets)

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

    def _fitted(self, name: str, count: int, expandable: bool = False) -> Text:
        """A facet's label with its name shortened so the count stays in view: a long venue
        ("Monthly Notices of the Royal Astronomical Society 2005") hid its count."""
        room = ((self.size.width or TOPIC_WIDTH) - TREE_INDENT - len(f" {count:,}")
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
        if data is None or data == FIND_TOPICS:
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

    def _tags(self, facets: Facets) -> None:
        if not facets.tags:
            return
        section = self._add(self.root, Text("Tags", style="bold"), None, leaf=False)
        counts = {t.name: t.count for t in facets.tags}
        children: dict[str, list[str]] = defaultdict(list)
        for name in sorted({p for t in counts for p in _parents(t)} | counts.keys()):
            children[name.rpartition("/")[0]].append(name)

        def grow(parent: TreeNode[Data], prefix: str) -> None:
            for name in children.get(prefix, ()):
                text = label(one_line(name.rpartition("/")[2]), counts.get(name))
                data = (filter_token("tag", name), False)
                node = self._add(parent, text, data, leaf=name not in children, open=True)
                grow(node, name)

        grow(section, "")

    def _venues(self, facets: Facets) -> None:
        if not facets.venues:
            return
        by_venue: dict[str, list[tuple[int | None, int]]] = defaultdict(list)
        for venue, year, n in facets.venues:
            by_venue[venue].append((year, n))
        section = self._add(self.root, Text("Venues", style="bold"), None, leaf=False)
        for venue in sorted(by_venue, key=str.casefold):
            years = by_venue[venue]
            known = venue != "?"  # the facet's name for papers without a venue
            token = filter_token("venue", venue) if known else ""
            name = one_line(venue) if len(years) > 1 else f"{one_line(venue)} {years[0][0] or ''}"
            node = self._add(section, self._fitted(name.strip(), sum(n for _, n in years),
                                                   expandable=len(years) > 1),
                             (token, False) if known else None, leaf=len(years) < 2)
            for year, n in years if len(years) > 1 else ():
                if year is not None:
                    self._add(node, label(str(year), n), (f"{token} year:{year}".strip(), False), leaf=True)

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

    def on_tree_node_selected(self, event: Tree.NodeSelected[Data]) -> None:
        event.stop()
        if event.node.data is None:
            event.node.toggle()
        elif event.node.data == FIND_TOPICS:
            self.post_message(FindTopics())
        else:
            self.post_message(FilterChosen(*event.node.data))


def _parents(tag: str) -> list[str]:
    parts = tag.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]
