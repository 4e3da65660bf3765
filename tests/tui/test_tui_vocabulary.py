"""The tags screen (ctrl+t): rename, merge and delete a tag across the catalog, and u takes it
back, asserted on the database."""

from __future__ import annotations

SIZE = (100, 30)


async def _type(pilot, text: str) -> None:
    for ch in text:
        await pilot.press({"/": "slash", "-": "minus"}.get(ch, ch))


def _tags(seeded, key):
    return seeded.get(key).summary.tags


async def test_rename_a_tag_on_the_tags_screen_and_undo_it(app, seeded, settle):
    a, b = seeded.search("MCR2")[0].key, seeded.search("steering vector")[0].key
    seeded.tag([a], add=["draft"])
    seeded.tag([b], add=["draft/intro", "zz"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert "draft" in str(app.screen.query_one("#tag-list").get_option_at_index(0).prompt)
        await pilot.press("r")
        await pilot.press("ctrl+u")  # the field starts with the old name
        await _type(pilot, "paper")
        await pilot.press("enter")
        await settle(pilot)
        assert (_tags(seeded, a), _tags(seeded, b)) == (("paper",), ("paper/intro", "zz"))
        await pilot.press("u")
        await settle(pilot)
        assert (_tags(seeded, a), _tags(seeded, b)) == (("draft",), ("draft/intro", "zz"))


async def test_merge_and_delete_from_the_tags_screen(app, seeded, settle):
    a, b = seeded.search("MCR2")[0].key, seeded.search("steering vector")[0].key
    seeded.tag([a], add=["ml"])
    seeded.tag([b], add=["learning"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        await pilot.press("down")  # learning, ml: on ml
        await pilot.press("m")
        await _type(pilot, "learning")
        await pilot.press("enter")
        await settle(pilot)
        assert (_tags(seeded, a), _tags(seeded, b)) == (("learning",), ("learning",))
        await pilot.press("ctrl+t")
        await settle(pilot)
        await pilot.press("d")
        await pilot.press("y")
        await settle(pilot)
        assert (_tags(seeded, a), _tags(seeded, b)) == ((), ())
        assert seeded.tags() == []


async def test_a_parent_no_paper_carries_is_listed_and_renamed_with_its_children(app, seeded, settle):
    """Tags kept as a hierarchy (project/thesis, project/xai) and no paper tagged `project`
    itself: the screen listed only the children, so `project` could be renamed with them only
    on the command line (found by hand on a 16k-paper library)."""
    a, b = seeded.search("MCR2")[0].key, seeded.search("steering vector")[0].key
    seeded.tag([a], add=["project/thesis"])
    seeded.tag([a, b], add=["project/xai"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        shown = app.screen.query_one("#tag-list")
        first = str(shown.get_option_at_index(0).prompt)
        assert first.split()[0] == "project" and "2 papers below" in first, first
        await pilot.press("r", "ctrl+u")
        await _type(pilot, "proj")
        await pilot.press("enter")
        await settle(pilot)
        assert (_tags(seeded, a), _tags(seeded, b)) == (("proj/thesis", "proj/xai"), ("proj/xai",))
        await pilot.press("ctrl+t")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert "Take the tag proj (and the tags below it) off 2 papers?" in str(
            app.screen.query_one("Label").render())
