"""Answers that a newer one makes moot are not handled when both wait in a queue (Textual's
Message.can_replace): a steady typist's older counts and first rows, facets read twice, a
paper read twice, the cursor held down. Answers that still matter are all handled."""

from __future__ import annotations

from catalog.searching.request import request
from catalog.tui.messages import DetailLoaded, FacetsLoaded, SearchCount, SearchResults
from catalog.tui.screens.main import CatalogScreen
from catalog.tui.widgets.detail import DetailPane
from catalog.tui.widgets.paper_list import PaperList
from catalog.tui.widgets.sidebar import Sidebar

SIZE = (120, 36)


def handled(monkeypatch, cls, name: str) -> list:
    """The messages `cls.name` is called with from now on (it still runs)."""
    seen, original = [], getattr(cls, name)

    def spy(self, message):
        seen.append(message)
        return original(self, message)

    monkeypatch.setattr(cls, name, spy)
    return seen


async def test_a_newer_search_answer_replaces_queued_older_ones(app, seeded, settle, monkeypatch):
    counts = handled(monkeypatch, CatalogScreen, "on_search_count")
    results = handled(monkeypatch, CatalogScreen, "on_search_results")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen, asked = app.main, request("graph")
        rows = seeded.search(asked, limit=3, snippets=False)
        counts.clear()
        results.clear()
        newest = screen.searching.state.generation
        for generation in (newest - 2, newest - 1, newest):  # queued together, as typed
            screen.post_message(SearchCount(generation, 7))
        await pilot.pause()
        assert [m.generation for m in counts] == [newest]
        assert screen.papers.total == 7
        # First rows, then a newer search's count: only the count is still wanted.
        screen.post_message(SearchResults(newest - 1, asked, rows, 3))
        screen.post_message(SearchCount(newest, 9))
        await pilot.pause()
        assert results == [] and [m.total for m in counts[1:]] == [9]
        # The same search's rows and count both matter.
        screen.post_message(SearchResults(newest, asked, rows, None))
        screen.post_message(SearchCount(newest, 3))
        await pilot.pause()
        assert len(results) == 1 and counts[-1].total == 3 and screen.papers.total == 3


async def test_facets_and_a_paper_read_twice_are_shown_once(app, seeded, settle, monkeypatch):
    facets_shown = handled(monkeypatch, Sidebar, "on_facets_loaded")
    papers_shown = handled(monkeypatch, DetailPane, "on_detail_loaded")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sidebar, pane = app.main.sidebar, app.main.pane
        asked, other = request("graph"), request("attention")
        facets = seeded.facets(asked)
        sidebar.asked = asked
        facets_shown.clear()
        for answer in (FacetsLoaded(other, seeded.facets(other)), FacetsLoaded(asked, facets),
                       FacetsLoaded(asked, facets)):
            sidebar.post_message(answer)
        await pilot.pause()
        # Another search's counts are not replaced by these (the sidebar drops them itself).
        assert [m.request for m in facets_shown] == [other, asked]
        assert sidebar.facets == facets

        first, second = (p.key for p in seeded.search(asked, limit=2, snippets=False))
        pane.asked = second
        papers_shown.clear()
        for key in (first, second, second):
            pane.post_message(DetailLoaded(key, seeded.get(key)))
        await pilot.pause()
        assert [m.key for m in papers_shown] == [first, second]
        assert pane.detail.summary.key == second


async def test_the_cursor_held_down_reads_only_the_paper_it_stops_on(app, seeded, settle, monkeypatch):
    highlighted = handled(monkeypatch, CatalogScreen, "on_paper_list_highlighted")
    rest = handled(monkeypatch, CatalogScreen, "on_paper_list_rest_wanted")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.main
        papers = seeded.search(request("graph"), limit=3, snippets=False)
        highlighted.clear()
        for paper in papers:  # j held: the list moved three times before the screen looked
            screen.post_message(PaperList.Highlighted(paper))
        await pilot.pause()
        assert [m.paper.key for m in highlighted] == [papers[-1].key]
        assert screen.pane.asked == papers[-1].key
        # The rest of one search wanted twice is fetched once; an older search's want is moot.
        newest = screen.searching.state.generation
        for generation in (newest - 1, newest, newest):
            screen.post_message(PaperList.RestWanted(generation))
        await pilot.pause()
        assert [m.generation for m in rest] == [newest]
