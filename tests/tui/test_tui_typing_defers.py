"""Keys typed into the search bar keep the cores for their own searches (issue 31): a key that
searches nothing (the first letters of a word) puts off the counts of the results shown and
stops them if they already run, and a change made elsewhere is not refreshed while keys come.
On a real library the whole catalog's facets, started while `the` was typed after clearing
the query, doubled that key's search; during a PDF import the refresh each second made most
of the slow keys."""

from __future__ import annotations

import threading

import pytest

from catalog.errors import Interrupted
from tests.tui.conftest import until

SIZE = (120, 36)


@pytest.fixture
def clock(monkeypatch):
    """The clock the workers' waits and the search bar's keys are timed by, standing still
    until the test moves it (however slowly a loaded machine runs the keys)."""
    from catalog.tui import waiting
    from catalog.tui.widgets import search_bar

    now = [1000.0]
    monkeypatch.setattr(waiting, "monotonic", lambda: now[0])
    # A pause on a short word searches it as a word (a key that would search): not these tests'.
    monkeypatch.setattr(search_bar, "SHORT_WORD_WAIT", 60.0)
    return now


async def _cleared(pilot, clock) -> None:
    """The search bar focused, the query cleared, its results shown, its counts read."""
    from catalog.tui import search

    app = pilot.app
    await pilot.press("slash", "ctrl+u")
    await until(pilot, lambda: app.main.papers.request is not None and app.main.papers.query_text == "")
    clock[0] += search.SETTLE + 0.01
    await until(pilot, lambda: not app.main.sidebar.has_class("-pending"))


async def test_a_key_that_searches_nothing_puts_off_the_counts_of_the_results_shown(app, clock):
    from catalog.tui import search

    faceted = []
    facets = app.catalog.facets

    def spy(asked="", **kwargs):
        faceted.append(getattr(asked, "text", asked))
        return facets(asked, **kwargs)

    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.main.facets is not None)
        await _cleared(pilot, clock)
        await pilot.press("x", "space")  # `x ` searched, its counts waiting SETTLE
        await until(pilot, lambda: app.main.papers.query_text == "x ")
        app.catalog.facets = spy
        await pilot.press("ctrl+u")  # the whole catalog again, its counts SETTLE from now
        await until(pilot, lambda: app.main.papers.query_text == "")
        await pilot.pause(0.1)  # (the counts' worker takes the time it waits from)
        clock[0] += search.SETTLE * 0.8
        await pilot.press("t")  # the first letter of a word: nothing searched
        clock[0] += search.SETTLE * 0.4  # SETTLE since the results, not since the key
        await pilot.pause(0.3)
        assert faceted == [], "the counts ran while a word was being typed"
        assert app.main.sidebar.has_class("-pending")
        clock[0] += search.SETTLE  # typing paused: they come
        await until(pilot, lambda: not app.main.sidebar.has_class("-pending"))
        assert faceted == [""] and app.main.facets.query == ""


async def test_a_key_stops_the_counts_already_running_and_they_run_again_after(app, clock):
    """The counts of the results shown had started when the key came: they stop at once
    (SQLite is interrupted), and run again once typing pauses."""
    from catalog.tui import search

    started, calls = threading.Event(), []
    facets = app.catalog.facets

    def slow(asked="", *, cancelled=None, **kwargs):
        calls.append(getattr(asked, "text", asked))
        if len(calls) == 1:  # the first: as long as a wide catalog's, until stopped
            started.set()
            for _ in range(500):
                if cancelled is not None and cancelled():
                    raise Interrupted("stopped")
                threading.Event().wait(0.01)
        return facets(asked, cancelled=cancelled, **kwargs)

    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.main.facets is not None)
        await _cleared(pilot, clock)
        await pilot.press("x", "space")
        await until(pilot, lambda: app.main.papers.query_text == "x ")
        app.catalog.facets = slow
        await pilot.press("ctrl+u")
        await until(pilot, lambda: app.main.papers.query_text == "")
        clock[0] += search.SETTLE + 0.01
        await until(pilot, started.is_set)
        await pilot.press("t")
        await pilot.pause(0.3)
        assert app.main.sidebar.has_class("-pending")
        assert calls == [""], "the counts were not stopped, or ran again while typing"
        clock[0] += search.SETTLE + 0.01
        await until(pilot, lambda: not app.main.sidebar.has_class("-pending"))
        assert calls == ["", ""] and app.main.facets.query == ""


async def test_a_change_made_elsewhere_waits_until_the_keys_pause(app, seeded, clock, monkeypatch):
    from catalog.library import Catalog
    from catalog.tui import search, watching

    monkeypatch.setattr(watching, "POLL", 0.05)
    other = Catalog.open(seeded.path)  # another shell: its own connections
    async with app.run_test(size=SIZE) as pilot:
        watch = app.main.query_one(watching.ChangeWatch)
        await until(pilot, lambda: app.main.facets is not None and watch.version is not None)
        await _cleared(pilot, clock)
        key = app.main.papers.current.key
        seen = watch.version
        await pilot.press("t")  # typing
        other.tag([key], add=["elsewhere"])
        await pilot.pause(0.4)  # several looks at the catalog meanwhile
        assert watch.version == seen, "refreshed while keys came"
        clock[0] += search.SETTLE + 0.01  # a pause the counts would wait for: not long enough
        await pilot.pause(0.3)
        assert watch.version == seen, "refreshed between two keys of a steady typist"
        clock[0] += watching.QUIET  # the keys paused
        await until(pilot, lambda: watch.version != seen)
        await until(pilot, lambda: app.main.papers.current.tags == ("elsewhere",))
    other.close()


async def test_a_change_made_elsewhere_does_not_replace_a_search_on_its_way(app, seeded, clock, monkeypatch):
    """At a million papers a typed search takes seconds: a refresh for a change made
    meanwhile cancelled it and searched again (counted, slower), and the key's results came
    many seconds late. The change is shown once the search's results came."""
    from catalog.library import Catalog
    from catalog.tui import watching

    monkeypatch.setattr(watching, "POLL", 0.05)
    release, searched = threading.Event(), []
    first_page = app.catalog.first_page

    def slow(asked, **kwargs):
        searched.append(getattr(asked, "text", asked))
        if searched[-1] == "diffusion ":
            release.wait(30)  # released by the test; the timeout only ends a hang
        return first_page(asked, **kwargs)

    other = Catalog.open(seeded.path)
    async with app.run_test(size=SIZE) as pilot:
        watch = app.main.query_one(watching.ChangeWatch)
        await until(pilot, lambda: app.main.facets is not None and watch.version is not None)
        app.catalog.first_page = slow
        await pilot.press("slash", *"diffusion", "space")
        await until(pilot, lambda: "diffusion " in searched)
        seen = watch.version
        clock[0] += watching.QUIET + 1  # the keys paused: only the search is on its way
        other.tag([seeded.search("diffusion", limit=1, snippets=False)[0].key], add=["elsewhere"])
        await pilot.pause(0.4)  # several looks at the catalog meanwhile
        assert watch.version == seen, "a refresh replaced the search on its way"
        release.set()
        await until(pilot, lambda: app.main.papers.query_text == "diffusion ")
        await until(pilot, lambda: watch.version != seen)
        await until(pilot, lambda: app.main.papers.current.tags == ("elsewhere",))
        # The search typed, then the refresh. The released search may already have read the tag
        # (it ran after the change), so the tag shown does not mean the refresh came: wait for it.
        await until(pilot, lambda: searched.count("diffusion ") >= 2)
        await pilot.pause(0.2)
        assert searched.count("diffusion ") == 2
    other.close()
