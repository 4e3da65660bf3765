"""Discovery in the app: `m` (papers like the one under the cursor) and the Topics facet.

Model work (building the discovery cache, grouping topics) runs in thread workers that post
messages, never on the UI thread; the first `m` or "find topics" on a large catalog takes
seconds, said on screen while it runs. Choosing a topic in the sidebar shows it (`topic:N`)
and marks its papers, so t, s, r and x act on the whole topic; escape unmarks."""

from __future__ import annotations

import re

from textual import work

from catalog.library import Catalog
from catalog.results import PaperDetail, RelatedPaper
from catalog.tui.display import first_line, shorten
from catalog.tui.messages import (
    ActionFailed, FilterChosen, SimilarLoaded, TopicPapers, TopicsLoaded,
)
from catalog.tui.screens.similar import SimilarScreen

SIMILAR = 20  # papers `m` lists
IN_PANE = 5  # of them, shown in the reading pane
KEPT = 200  # papers whose similar papers are kept for the session
TOPIC_FILTER = re.compile(r"^topic:(\d+)$")


class Discovering:
    """Mixed into CatalogScreen, which sets `similar_found`, `finding_similar` and
    `grouping_topics` in its __init__. (Handlers use on_* names: @on only works on Textual classes.)"""

    catalog: Catalog
    detail: PaperDetail | None
    similar_found: dict[str, list[RelatedPaper]]
    finding_similar: set[str]
    grouping_topics: bool  # the topics worker is running

    # --- m: papers like this one ---------------------------------------------------------------

    def action_similar(self) -> None:
        paper = self.papers.current
        if paper is None:
            return
        screen = SimilarScreen(paper.key, paper.title)
        self.app.push_screen(screen, self._similar_chosen)
        found = self.similar_found.get(paper.key)
        if found is not None:
            self.call_after_refresh(screen.show, found)
        elif paper.key not in self.finding_similar:
            self.finding_similar.add(paper.key)
            self._show_similar_in_pane(paper.key)
            self._find_similar(self.catalog, paper.key)

    @work(thread=True, group="similar", exit_on_error=False)
    def _find_similar(self, catalog: Catalog, key: str) -> None:
        try:
            self.post_message(SimilarLoaded(key, catalog.similar(key, SIMILAR)))
        except Exception as exc:  # an unknown key (deleted meanwhile), an unwritable cache
            self.post_message(SimilarLoaded(key, None, first_line(exc)))

    def on_similar_loaded(self, message: SimilarLoaded) -> None:
        self.finding_similar.discard(message.key)
        if message.papers is not None:
            if len(self.similar_found) >= KEPT:
                self.similar_found.clear()
            self.similar_found[message.key] = message.papers
        top = self.app.screen
        if isinstance(top, SimilarScreen) and top.key == message.key:
            if message.papers is None:
                top.show_error(message.error or "cannot find similar papers")
            else:
                top.show(message.papers)
        elif message.error:
            self.say(f"Cannot find papers like {message.key}: {message.error}", severity="warning")
        self._show_similar_in_pane(message.key)

    def _show_similar_in_pane(self, key: str) -> None:
        """The reading pane's "Papers like this one" entry, when it shows paper `key`."""
        current = self.papers.current
        if current is not None and current.key == key and self.detail is not None:
            self.refresh_detail()

    def similar_for_pane(self, key: str) -> list[RelatedPaper] | str | None:
        """What the reading pane says under a paper: its similar papers once found, a line
        while they are being found, else (None) the hint that m finds them."""
        if key in self.finding_similar:
            return "finding similar papers…"
        found = self.similar_found.get(key)
        return found[:IN_PANE] if found is not None else None

    def _similar_chosen(self, paper: RelatedPaper | None) -> None:
        if paper is not None:
            self.search_bar.set_query(f"key:{paper.key}")
            self.set_focus(self.papers)

    # --- the Topics facet ------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="topics-read", exit_on_error=False)
    def load_topics(self) -> None:
        try:
            self.post_message(TopicsLoaded(*self.catalog.stored_topics()))
        except Exception:  # a convenience, like the other counts: the next refresh tries again
            pass

    def on_topics_loaded(self, message: TopicsLoaded) -> None:
        if message.grouped:
            self.grouping_topics = False
        self.query_one("#sidebar").show_topics(message.topics, message.stale,
                                               finding=self.grouping_topics)

    def on_find_topics(self) -> None:
        if self.grouping_topics:
            return
        self.grouping_topics = True
        sidebar = self.query_one("#sidebar")
        sidebar.show_topics(sidebar.topics, sidebar.topics_stale, finding=True)
        self._find_topics(self.catalog)

    @work(thread=True, exclusive=True, group="topics", exit_on_error=False)
    def _find_topics(self, catalog: Catalog) -> None:
        try:
            catalog.topics()
        except Exception as exc:
            self.post_message(ActionFailed(f"Cannot find topics: {first_line(exc)}"))
        try:
            self.post_message(TopicsLoaded(*catalog.stored_topics(), grouped=True))
        except Exception:
            self.post_message(TopicsLoaded((), True, grouped=True))

    def on_filter_chosen(self, message: FilterChosen) -> None:
        """A topic in the sidebar: (after the search bar shows `topic:N`) mark its papers."""
        found = TOPIC_FILTER.match(message.text)
        if found:
            self._mark_topic(self.catalog, int(found.group(1)))

    @work(thread=True, exclusive=True, group="topic-marks", exit_on_error=False)
    def _mark_topic(self, catalog: Catalog, number: int) -> None:
        try:
            self.post_message(TopicPapers(number, catalog.topic_papers(number)))
        except Exception:
            pass

    def on_topic_papers(self, message: TopicPapers) -> None:
        if not message.papers:
            return
        self.papers.mark_all(message.papers)
        label = next((t.label for t in self.query_one("#sidebar").topics
                      if t.number == message.number), "")
        self.say(f"Marked the {len(message.papers)} papers of topic {message.number} "
                 f"({shorten(label, 50)}): t tags them, s sets their status; escape unmarks")
