"""Search inside the reading pane (issue 31, want 8): / there finds words in the paper, every
hit marked and counted, n and N go from hit to hit scrolling each into view, escape ends it;
/ in the list still goes to the search bar, and n without a search still writes a note."""

from __future__ import annotations

import re

from textual.widgets import Input, Static

from catalog.tui.widgets.detail import DetailPane
from catalog.tui.widgets.pane_find import FindBar, PaneFind, line_starts

SIZE = (80, 24)


def _count(app) -> str:
    return str(app.query_one("#find-count", Static).render())


async def _read_longest(app, seeded, pilot, settle) -> DetailPane:
    longest = max(seeded.search("", limit=90, snippets=False), key=lambda p: len(seeded.get(p.key).abstract or ""))
    app.main.papers.move_to(next(i for i, p in enumerate(app.main.papers.pages[0]) if p.key == longest.key))
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    pane = app.query_one(DetailPane)
    assert app.focused is pane
    return pane


async def test_slash_in_the_pane_finds_marks_counts_and_n_walks_the_hits(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = await _read_longest(app, seeded, pilot, settle)
        total = len(re.findall("the", pane.text, re.IGNORECASE))
        assert total >= 4
        await pilot.press("slash", *"the")
        await settle(pilot)
        assert app.query_one(FindBar).display and isinstance(app.focused, Input)
        assert app.main.search_bar.value == ""  # not the search bar's /
        assert _count(app) == f"1/{total}"
        body = pane.query_one("#detail-body", Static).content
        assert sum(1 for span in body.spans if "reverse" in str(span.style)) == total
        await pilot.press("enter")  # back to the paper, the hits still marked
        await settle(pilot)
        assert app.focused is pane
        await pilot.press("n", "n")
        await settle(pilot)
        assert _count(app) == f"3/{total}"
        await pilot.press("N")
        await settle(pilot)
        assert _count(app) == f"2/{total}"
        await pilot.press("N", "N")  # round the start, to the last
        await settle(pilot)
        assert _count(app) == f"{total}/{total}"
        assert type(app.screen).__name__ == "CatalogScreen"  # n was no note here
        await pilot.press("escape")
        await settle(pilot)
        assert not app.query_one(FindBar).display and app.focused is pane
        assert not any("reverse" in str(s.style) for s in pane.query_one("#detail-body", Static).content.spans)
        await pilot.press("escape")  # escape again: the list
        await settle(pilot)
        assert app.focused is app.main.papers


async def test_a_hit_below_the_fold_is_scrolled_into_view(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = await _read_longest(app, seeded, pilot, settle)
        assert pane.max_scroll_y > 0 and pane.scroll_y == 0
        await pilot.press("slash", *"papers like this")  # a heading at the end of the pane
        await settle(pilot)
        assert _count(app) == "1/1"
        row = pane.finding.row(pane.query_one("#detail-body").content_region.width)
        assert pane.scroll_y <= row < pane.scroll_y + pane.scrollable_content_region.height
        assert pane.scroll_y > 0
        await pilot.press("ctrl+u", *"zzqqxx")
        await settle(pilot)
        assert _count(app) == "no match"


async def test_slash_in_the_list_still_searches_and_n_in_the_pane_still_writes_a_note(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        assert app.focused is app.main.search_bar.input
        await pilot.press("escape", "enter")  # the list, then the pane
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert type(app.screen).__name__ != "CatalogScreen"  # the note editor


def test_rows_follow_the_pane_s_wrapping():
    plain = "one two three four five six\nseven\n\neight nine"
    assert line_starts(plain, 10) == [0, 8, 19, 28, 34, 35]
    find = PaneFind()
    find.search(plain, "NINE")
    assert find.hits == [(plain.index("nine"), plain.index("nine") + 4)] and find.row(10) == 5
    find.search(plain, "e", after=plain.index("seven"))
    assert plain[find.hits[find.current][0]:].startswith("even")


async def test_the_hits_follow_to_the_next_paper(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter", "slash", *"the", "enter")
        await settle(pilot)
        pane = app.query_one(DetailPane)
        first = pane.detail.summary.key
        await pilot.press("right_square_bracket")  # the next paper, still finding
        await settle(pilot)
        assert pane.detail.summary.key != first
        assert _count(app) == f"1/{len(re.findall('the', pane.text, re.IGNORECASE))}"
