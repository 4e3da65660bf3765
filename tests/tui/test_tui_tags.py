"""The tag dialog: # is not part of a name, a suggested child tag is what enter saves, and
tags added elsewhere since the list loaded are shown."""

from __future__ import annotations

from catalog.library import Catalog

SIZE = (120, 36)


async def _type(pilot, text: str) -> None:
    for ch in text:
        await pilot.press({" ": "space", "#": "number_sign", "/": "slash", "-": "minus"}.get(ch, ch))


async def test_a_leading_hash_is_not_part_of_the_tag(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = app.main.papers.current.key
        await pilot.press("t")
        await _type(pilot, "#hash ##two")
        await pilot.press("enter")
        await settle(pilot)
        assert seeded.get(key).summary.tags == ("hash", "two")
        await pilot.press("t")
        await _type(pilot, "-#hash")
        await pilot.press("enter")
        await settle(pilot)
        assert seeded.get(key).summary.tags == ("two",)


async def test_enter_after_a_slash_takes_the_suggested_child(app, seeded, settle):
    other = seeded.search("MCR2")[0].key
    seeded.tag([other], add=["project/thesis"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = app.main.papers.current.key
        assert key != other
        await pilot.press("t")
        await _type(pilot, "project/")
        await settle(pilot)  # the suggestion arrives
        assert app.screen.query_one("#tag-input")._suggestion == "project/thesis"
        await pilot.press("enter")
        await settle(pilot)
        assert seeded.get(key).summary.tags == ("project/thesis",)


async def test_the_dialog_shows_tags_added_elsewhere(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = app.main.papers.current.key
        shell = Catalog.open(seeded.path)
        shell.tag([key], add=["fromshell"])
        shell.close()
        await pilot.press("t")
        await settle(pilot)
        now = str(app.screen.query_one("#tags-now").content)
        assert "#fromshell" in now and "no tags yet" not in now
        await _type(pilot, "fro")
        await settle(pilot)
        assert app.screen.query_one("#tag-input")._suggestion == "fromshell"
        await pilot.press("escape")
        await settle(pilot)
        assert app.main.papers.current.tags == ("fromshell",)  # the list caught up too
