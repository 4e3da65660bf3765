"""D deletes the paper under the cursor at once, the marked papers after asking; u brings
them back. Asserted on the database."""

from __future__ import annotations

SIZE = (100, 30)


async def test_D_deletes_one_paper_and_u_brings_it_back(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = app.main.papers.current.key
        await pilot.press("D")
        await settle(pilot)
        assert seeded.stats().papers == 89 and app.main.papers.current.key != key
        await pilot.press("u")
        await settle(pilot)
        assert seeded.stats().papers == 90 and seeded.get(key).summary.key == key


async def test_D_on_marked_papers_asks_first(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space")  # mark two (space moves down)
        await settle(pilot)
        marked = set(app.main.papers.marked)
        assert len(marked) == 2
        await pilot.press("D")
        await settle(pilot)
        await pilot.press("n")  # keep them
        await settle(pilot)
        assert seeded.stats().papers == 90
        await pilot.press("D")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert seeded.stats().papers == 88 and not app.main.papers.marked
        assert not {p.key for p in seeded.search("", limit=100)} & marked


async def test_D_on_the_last_paper_leaves_the_cursor_on_the_one_above(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("G")
        await settle(pilot)
        papers = app.main.papers
        last, above = papers.current.key, papers.paper_at(papers.cursor - 1).key
        await pilot.press("D")
        await settle(pilot)
        assert seeded.stats().papers == 89 and papers.current.key == above
        assert last not in papers.loaded_keys()


async def test_u_after_D_puts_the_cursor_on_the_paper_brought_back(app, seeded, settle):
    """The cursor stayed where it had moved since (the next paper, or further), and the paper
    brought back was somewhere in the list, to be looked for."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down")
        key = app.main.papers.current.key
        await pilot.press("D")
        await settle(pilot)
        assert app.main.papers.current.key != key
        await pilot.press("down", "down", "down", "down")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert seeded.stats().papers == 90
        assert app.main.papers.current.key == key
        assert app.main.pane.detail.summary.key == key  # and the reading pane shows it
