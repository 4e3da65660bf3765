"""Keys of daily use (issue 31): gg goes to the top without the saved-search picker flashing
by, and g and G in the reading pane move within the paper."""

from __future__ import annotations

from catalog.tui import saved_keys
from catalog.tui.screens.pickers import SavedSearchScreen
from catalog.tui.widgets.detail import DetailPane
from tests.tui.conftest import toasts

SIZE = (120, 36)


async def test_gg_goes_to_the_top_without_opening_the_picker(app, seeded, settle, monkeypatch):
    seeded.saved.save_search("one", "diffusion")
    monkeypatch.setattr(saved_keys, "GG", 30.0)  # the second g always comes in time here
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


async def test_y_says_which_clipboard_took_the_text(app, seeded, settle, monkeypatch, tmp_path):
    key = seeded.search("", limit=1, snippets=False)[0].key
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y", "y")  # no desktop clipboard (over SSH, say): OSC 52 only
        await settle(pilot)
        assert app.clipboard == key
        assert f"Sent {key} to the terminal's clipboard (OSC 52; if nothing pastes" in toasts(app)
        assert f"Copied {key}" not in toasts(app)

        # A desktop with xclip: it takes the text, and only then does the app say "Copied".
        pasted = tmp_path / "pasted"
        tool = tmp_path / "bin" / "xclip"
        tool.parent.mkdir()
        tool.write_text(f"#!/bin/sh\necho noise; echo noise >&2; cat > {pasted}\n")
        tool.chmod(0o755)
        monkeypatch.setenv("PATH", f"{tool.parent}:/usr/bin:/bin")
        monkeypatch.setenv("DISPLAY", ":99")
        await pilot.press("y", "y")
        await settle(pilot)
        assert pasted.read_text() == key
        assert f"Copied {key} to the clipboard" in toasts(app)


async def test_the_browser_s_output_never_reaches_the_screen(app, seeded, settle, type_search, monkeypatch,
                                                             tmp_path, capfd):
    """Real browsers print to stdout and stderr (and some to /dev/tty): painted over the UI,
    only a resize cleared it. The opener gives the browser /dev/null and a session of its own."""
    from tests.tui.test_tui_keys import DATA

    log = tmp_path / "opened"
    script = tmp_path / "noisy-browser"
    script.write_text(f'#!/bin/sh\necho NOISE-OUT; echo NOISE-ERR >&2\n'
                      f'(echo NOISE-TTY > /dev/tty) 2>/dev/null || echo no-tty >> {log}\necho "$1" >> {log}\n')
    script.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(script))
    seeded.import_paths([DATA / "arxiv.bib"])
    capfd.readouterr()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "scaling laws")
        await pilot.press("enter", "o")
        await settle(pilot)
        assert "Opened https://arxiv.org/abs/2001.08361" in toasts(app)
    out, err = capfd.readouterr()
    assert "NOISE" not in out + err
    assert log.read_text().splitlines() == ["no-tty", "https://arxiv.org/abs/2001.08361"]  # no terminal
