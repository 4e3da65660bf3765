"""E: the paper's fields in a form; what the user changed is written (the database says so),
a bad year is one line and nothing is written, u undoes."""

from __future__ import annotations

SIZE = (80, 24)  # the form fits the smallest terminal


async def _type(pilot, text: str) -> None:
    for ch in text:
        await pilot.press({" ": "space", "/": "slash", ".": "full_stop", ":": "colon", "-": "minus"}.get(ch, ch))


async def test_E_corrects_venue_and_year_and_u_undoes_it(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = app.main.papers.current.key
        before = seeded.get(key).summary
        await pilot.press("E")
        await settle(pilot)
        for _ in range(2):
            await pilot.press("tab")  # title, authors, then venue
        await pilot.press("ctrl+u")
        await _type(pilot, "NeurIPS")
        await pilot.press("tab")
        await pilot.press("ctrl+u")
        await _type(pilot, "2019")
        await pilot.press("ctrl+s")
        await settle(pilot)
        after = seeded.get(key).summary
        assert (after.venue, after.year) == ("NeurIPS", 2019)
        await pilot.press("u")
        await settle(pilot)
        again = seeded.get(key).summary
        assert (again.venue, again.year) == (before.venue, before.year)


async def test_a_bad_year_is_one_line_and_nothing_is_written(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = app.main.papers.current.key
        before = seeded.get(key).summary
        await pilot.press("E")
        await settle(pilot)
        for _ in range(3):
            await pilot.press("tab")
        await pilot.press("ctrl+u")
        await _type(pilot, "soon")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert seeded.get(key).summary == before
        assert any("'soon' is not a year" in t for t in app.posted_toasts)
