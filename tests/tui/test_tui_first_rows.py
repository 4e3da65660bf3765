"""Issue 16: a search shows the rows the screen holds first, then the rest of its first page.

At a million papers a ranked list proves a page of 50 in a few ms where a page of 200 ranks
every match (`venue:ICML gra*`: 300-480 ms a key). The list takes the first rows, shows the
rows past them as loading, and takes the whole first page when it comes; a newer search
cancels that. Pages are made small here (the seeds are 90 papers): PAGE 60, FIRST 25.
"""

from __future__ import annotations

import threading
from time import monotonic

import pytest

from catalog.searching.query import Sort
from catalog.tui.app import CatalogApp
from tests.tui.conftest import screen_text, until

SIZE = (80, 24)  # the list is about 20 rows high: its first rows are FIRST
PAGE, FIRST = 60, 25


@pytest.fixture
def small_pages(monkeypatch):
    from catalog.tui import search
    from catalog.tui.widgets import paper_list

    monkeypatch.setattr(paper_list, "PAGE", PAGE)
    monkeypatch.setattr(search, "PAGE", PAGE)
    monkeypatch.setattr(search, "FIRST", FIRST)
    monkeypatch.setattr(search, "SETTLE", 0)  # counts and facets at once: the tests wait less


class HeldRest:
    """Holds the search of `query`'s whole first page until `release` (the other searches
    pass), and notes whether its search was cancelled by then."""

    def __init__(self, catalog, query: str) -> None:
        self.query, self.gate, self.cancelled = query, threading.Event(), []
        original = type(catalog).search

        def search(cat, asked, **kwargs):
            text = getattr(asked, "text", asked)  # the TUI's request, or the test's own text
            if text == self.query and kwargs.get("limit") == PAGE and not kwargs.get("offset"):
                self.gate.wait(30)  # released by the test; the timeout only ends a hang
                stop = kwargs.get("cancelled")
                self.cancelled.append(bool(stop and stop()))
            return original(cat, asked, **kwargs)

        catalog.search = search.__get__(catalog)

    def release(self) -> None:
        self.gate.set()


async def shown(pilot, query: str, timeout: float = 30) -> None:
    """Until the list shows `query`'s results (the rest of its page may still be held); the
    timeout only ends a hang (5 s was within reach of a loaded machine)."""
    deadline = monotonic() + timeout
    while pilot.app.main.papers.query_text != query and monotonic() < deadline:
        await pilot.pause(0.02)
    assert pilot.app.main.papers.query_text == query, "its first rows never came"


async def type_model_holding_its_rest(app, pilot) -> HeldRest:
    """`model` typed (searched as `model*`) and its first rows shown, the rest of its first
    page held until the returned HeldRest is released."""
    held = HeldRest(app.catalog, "model*")
    app.main.search_bar.input.value = "model"  # typed: `model*`
    await shown(pilot, "model*")
    return held


def keys(rows) -> list[str]:
    return [p.key for p in rows]


async def test_the_first_rows_come_at_once_and_the_rest_of_the_page_after(seeded, settle, small_pages):
    app = CatalogApp(seeded, cursor_blink=False)
    whole = keys(seeded.search("model*", limit=PAGE, snippets=False))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        held = await type_model_holding_its_rest(app, pilot)
        try:
            papers = app.main.papers
            assert keys(papers.pages[0]) == whole[:FIRST]
            assert "row 1 / 25+" in screen_text(app)
            # Past the first rows before the rest came: they show as loading, not as no rows.
            app.main.set_focus(papers)
            await pilot.press("end")
            assert papers.cursor == PAGE - 1 and papers.current is None
            assert screen_text(app, papers).splitlines()[-1].strip() == "…"
        finally:
            held.release()
        await settle(pilot)
        assert keys(papers.pages[0]) == whole  # rows 26-60, in order
        assert papers.current.key == whole[-1] and app.main.detail.summary.key == whole[-1]
        assert papers.total == seeded.count("model*") == 74
        assert f"row {PAGE} / 74" in screen_text(app)
        await pilot.press("end")  # on to the count's last row, on a page of its own
        await settle(pilot)
        assert papers.current.key == keys(seeded.search("model*", limit=1, offset=73, snippets=False))[0]


async def test_a_key_typed_before_the_rest_comes_cancels_it(seeded, settle, small_pages):
    app = CatalogApp(seeded, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        held = await type_model_holding_its_rest(app, pilot)
        try:
            app.main.search_bar.input.value = "models"  # the next key
            await shown(pilot, "models*")
        finally:
            held.release()
        await settle(pilot)
        papers = app.main.papers
        assert held.cancelled == [True]  # the older rest was not wanted any more
        assert keys(papers.pages[0]) == keys(seeded.search("models*", limit=PAGE, snippets=False))
        assert papers.total == seeded.count("models*")


async def test_a_refresh_keeps_the_cursor_on_its_paper_past_the_first_rows(seeded, settle, change_shown,
                                                                          small_pages, monkeypatch):
    """A change elsewhere moves every row up by one: the cursor stays on its paper, row 45
    (a refresh asks for the whole first page at once)."""
    from catalog.library import Catalog
    from catalog.tui import watching

    monkeypatch.setattr(watching, "POLL", 0.05)
    other = Catalog.open(seeded.path)  # another shell
    app = CatalogApp(seeded, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.sort_by(Sort.parse("title"))
        await settle(pilot)
        papers = app.main.papers
        papers.move_to(45)
        await settle(pilot)
        key = papers.current.key
        seen = app.main.query_one(watching.ChangeWatch).version
        other.set_title(papers.pages[0][0].key, "Zz the last title")
        await change_shown(pilot, seen)
        assert papers.cursor == 44 and papers.current.key == key
    other.close()


async def test_while_typing_the_rest_waits_unless_the_list_needs_it(seeded, settle, small_pages, monkeypatch):
    """Typed, the rest of the first page waits SETTLE as the count does (at 1M it costs as
    much as a page: the next key cancels it unstarted), unless the list needs its rows first."""
    from catalog.tui import search, waiting

    monkeypatch.setattr(search, "SETTLE", 0.5)
    clock = [0.0]  # SETTLE's clock stands still until the test moves it
    monkeypatch.setattr(waiting, "monotonic", lambda: clock[0])
    app = CatalogApp(seeded, cursor_blink=False)
    whole = keys(seeded.search("model*", limit=PAGE, snippets=False))
    asked = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        original = type(app.catalog).search

        def spy(cat, request, **kwargs):
            asked.append((request.text, kwargs.get("limit")))
            return original(cat, request, **kwargs)

        app.catalog.search = spy.__get__(app.catalog)
        app.main.search_bar.input.value = "model"  # typed: `model*`
        await shown(pilot, "model*")
        await pilot.pause(0.2)
        papers = app.main.papers
        assert keys(papers.pages[0]) == whole[:FIRST] and ("model*", PAGE) not in asked
        app.main.set_focus(papers)
        await pilot.press("end")  # row 60: the rest is fetched now, the count still waits
        await until(pilot, lambda: not papers.partial_first)
        assert keys(papers.pages[0]) == whole and papers.current.key == whole[-1]
        assert f"row {PAGE} / {PAGE}+" in screen_text(app)
        clock[0] += search.SETTLE
        await settle(pilot)
        assert papers.total == 74 and f"row {PAGE} / 74" in screen_text(app)
