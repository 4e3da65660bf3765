"""The statistics screen (i): the charts, as wide as the screen (80x24 too), a tag followed
on asking, and back to the list."""

from __future__ import annotations

from textual.widgets import Static

from catalog.tui.screens.stats import StatsScreen


def _charts(app) -> list[str]:
    return [str(s.render()) for s in app.screen.query(".chart").results(Static)]


async def test_i_shows_the_charts_at_80x24_and_follows_a_tag(app, seeded, settle):
    keys = [p.key for p in seeded.search("attention", limit=4)]
    seeded.tag(keys[:3], add=["transformers"])
    seeded.tag(keys[:1], add=["zz"])
    seeded.set_status(keys[:2], "read")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        shown = _charts(app)
        assert [c.splitlines()[0] for c in shown] == [
            "Papers per year (90 papers)", "Top 2 venues", "Ratings (90 unrated)",
            "Papers read per week (2 in 12 weeks)", "Papers tagged transformers, by year"]
        assert shown[1].splitlines()[1].startswith("ICML") and shown[1].splitlines()[1].endswith(" 52")
        assert all(len(line) <= 80 - 2 for chart in shown for line in chart.splitlines())
        await pilot.press("t")
        for key in ("ctrl+u", "z", "z", "enter"):
            await pilot.press(key)
        await settle(pilot)
        assert _charts(app)[-1].splitlines()[0] == "Papers tagged zz, by year"
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, StatsScreen)


async def test_the_charts_are_drawn_again_for_a_narrower_screen(app, settle):
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        wide = max(len(line) for line in _charts(app)[0].splitlines())
        await pilot.resize_terminal(70, 24)
        await settle(pilot)
        narrow = max(len(line) for line in _charts(app)[0].splitlines())
        assert wide > 90 and narrow <= 68


async def test_the_tag_chart_starts_on_the_most_used_tag_not_the_first_by_name(app, seeded, settle):
    keys = [p.key for p in seeded.search("", limit=5, snippets=False)]
    seeded.tag(keys[:1], add=["aaa"])
    seeded.tag(keys[:4], add=["zzz"])
    seeded.tag(keys[1:3], add=["mmm/one"])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert _charts(app)[-1].splitlines()[0] == "Papers tagged zzz, by year"
        await pilot.press("t")
        await settle(pilot)
        assert app.screen.query_one("Input").value == "zzz"  # the prompt starts on the tag shown


async def test_end_and_G_reach_the_last_chart_home_and_g_the_first(app, seeded, settle):
    """At 80x24 on a real library `end` stopped part way (it scrolled smoothly, a frame at a
    time, on a busy machine) and `G`, `g`, `pageup` did nothing: the last chart, a tag over
    the years, was out of reach but by holding j."""
    seeded.tag([seeded.search("attention", limit=1)[0].key], add=["transformers"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        charts = app.screen.query_one("#charts")
        assert charts.max_scroll_y > 0
        for last, first in (("end", "home"), ("G", "g")):
            await pilot.press(last)
            await settle(pilot)
            assert charts.scroll_y == charts.max_scroll_y, last
            await pilot.press("pageup")
            await settle(pilot)
            assert 0 < charts.scroll_y < charts.max_scroll_y
            await pilot.press(first)
            await settle(pilot)
            assert charts.scroll_y == 0, first
