"""Keys of daily use (issue 31): gg goes to the top without the saved-search picker flashing
by, and g and G in the reading pane move within the paper."""

from __future__ import annotations

from catalog.tui.screens import main as main_module
from catalog.tui.screens.pickers import SavedSearchScreen
from catalog.tui.widgets.detail import DetailPane
from tests.tui.conftest import toasts

SIZE = (120, 36)


async def test_gg_goes_to_the_top_without_opening_the_picker(app, seeded, settle, monkeypatch):
    seeded.save_search("one", "diffusion")
    monkeypatch.setattr(main_module, "GG", 30.0)  # the second g always comes in time here
    opened = []
    init = SavedSearchScreen.__init__
    monkeypatch.setattr(SavedSearchScreen, "__init__", lambda self, *a: opened.append(1) or init(self, *a))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        assert app.main.papers.cursor == 89
        await pilot.press("g", "g")
        await settle(pilot)
        assert app.main.papers.cursor == 0 and not opened
        assert type(app.screen).__name__ == "CatalogScreen"
        await pilot.press("g", "down")  # another key: the picker at once, and the key goes to it
        await settle(pilot)
        assert isinstance(app.screen, SavedSearchScreen) and opened == [1]


async def test_g_and_G_in_the_reading_pane_move_within_the_paper(app, seeded, settle):
    long = max(seeded.search("", limit=90, snippets=False), key=lambda p: len(seeded.get(p.key).abstract or ""))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.main.papers.move_to(next(i for i, p in enumerate(app.main.papers.pages[0]) if p.key == long.key))
        await settle(pilot)
        await pilot.press("enter")  # into the reading pane
        await settle(pilot)
        pane = app.query_one(DetailPane)
        assert app.focused is pane and pane.max_scroll_y > 0
        await pilot.press("G")
        await settle(pilot)
        assert pane.scroll_y == pane.max_scroll_y
        await pilot.press("g")
        await settle(pilot)
        assert pane.scroll_y == 0 and type(app.screen).__name__ == "CatalogScreen"
        assert app.focused is pane


async def test_tab_completes_a_hierarchical_tag_without_splitting_it(app, seeded, settle):
    keys = [p.key for p in seeded.search("", limit=4, snippets=False)]
    seeded.tag(keys[1:2], add=["project"])
    seeded.tag(keys[2:3], add=["project/thesis"])
    seeded.tag(keys[3:4], add=["reading"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("t", *"proj", "tab")
        await settle(pilot)
        field = app.screen.query_one("#tag-input")
        assert field.value == "project"  # children follow: no space yet
        await pilot.press("slash", *"the", "tab")
        await settle(pilot)
        assert field.value == "project/thesis "
        await pilot.press(*"rea", "tab", "enter")
        await settle(pilot)
    assert seeded.get(keys[0]).summary.tags == ("project/thesis", "reading")


async def test_a_slash_after_a_completed_tag_joins_it(app, seeded, settle):
    keys = [p.key for p in seeded.search("", limit=2, snippets=False)]
    seeded.tag(keys[1:2], add=["project"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("t", *"proj", "tab")  # no children known: `project `
        await settle(pilot)
        assert app.screen.query_one("#tag-input").value == "project "
        await pilot.press("slash", *"thesis", "enter")
        await settle(pilot)
    assert seeded.get(keys[0]).summary.tags == ("project/thesis",)


async def test_paper_keys_on_an_empty_list_say_why_they_do_nothing(app, seeded, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "zzqqxx ")
        await pilot.press("escape")  # to the list
        await settle(pilot)
        assert app.main.papers.total == 0
        for key in "mTyotsrne":
            await pilot.press(key)
            await settle(pilot)
            assert type(app.screen).__name__ == "CatalogScreen", key
        said = toasts(app)
        for verb in ("find papers like", "triage", "copy", "open", "tag", "set a status on", "rate",
                     "write a note on", "give a title to"):
            assert f"No paper to {verb}: no papers match zzqqxx" in said, verb


async def test_m_then_enter_has_a_way_back(app, seeded, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "diffusion ")
        await pilot.press("escape", "down", "down")
        await settle(pilot)
        before = app.main.papers.current.key
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("enter")  # the most similar paper
        await settle(pilot)
        assert app.main.search_bar.value.startswith("key:")
        assert "ctrl+o goes back" in toasts(app)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.main.search_bar.value == "diffusion "
        assert app.main.papers.current.key == before  # the cursor on the paper it was on
        assert app.main.papers.total == seeded.count("diffusion")


async def test_ctrl_o_undoes_a_facet_click(app, seeded, settle):
    from catalog.tui.widgets.sidebar import Sidebar
    from tests.tui.conftest import facet_node

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sidebar = app.query_one(Sidebar)
        sidebar.focus()
        sidebar.move_cursor(facet_node(sidebar, "ICLR"))
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.search_bar.value == "venue:ICLR"
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.main.search_bar.value == "" and app.main.papers.total == 90
