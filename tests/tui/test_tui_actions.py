"""One Pilot test per action, asserting on the database afterwards (via the Catalog API)."""

from __future__ import annotations

from catalog.tui.widgets.sidebar import Sidebar
from tests.tui.conftest import facet_node, palette_offers, statics_text, toasts, until

SIZE = (120, 36)


def first_key(app) -> str:
    return app.main.papers.current.key


async def test_typing_narrows_the_list(app, seeded, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main.papers.total == 90
        await type_search(pilot, "diffusion ")
        assert app.main.papers.total == seeded.count("diffusion") < 90
        assert app.main.query_text == "diffusion "
        await type_search(pilot, "diffusion mod")  # the word being typed: a prefix
        assert 0 < app.main.papers.total == seeded.count("diffusion mod*")
        assert seeded.count("diffusion mod*", partial=False) <= seeded.count("diffusion")
        await type_search(pilot, "diffusion models ")
        assert 0 < app.main.papers.total == seeded.count("diffusion models")
        assert seeded.count("diffusion models", partial=False) <= seeded.count("diffusion mod*", partial=False)


async def _click_facet(pilot, label_start: str) -> None:
    sidebar = pilot.app.query_one(Sidebar)
    found = facet_node(sidebar, label_start)
    assert found is not None, f"no facet {label_start!r}"
    await pilot.click(Sidebar, offset=(6, found.line - int(sidebar.scroll_offset.y)))


async def test_facet_click_adds_its_filter(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _click_facet(pilot, "ICML")
        await settle(pilot)
        assert app.main.search_bar.value == "venue:ICML"
        assert app.main.papers.total == seeded.count("venue:ICML") == 52
        await _click_facet(pilot, "unread")
        await settle(pilot)
        assert app.main.search_bar.value == "venue:ICML status:unread"
        await _click_facet(pilot, "ICML")  # clicking a facet again takes it away
        await settle(pilot)
        assert app.main.search_bar.value == "status:unread"


async def test_tag_add_and_remove(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = first_key(app)
        await pilot.press("t")
        for ch in "project/thesis toread":
            await pilot.press(ch if ch != " " else "space")
        await pilot.press("enter")
        await settle(pilot)
        assert seeded.get(key).summary.tags == ("project/thesis", "toread")
        await pilot.press("t", "minus", "t", "o", "tab", "enter")  # tab completes -toread
        await settle(pilot)
        assert seeded.get(key).summary.tags == ("project/thesis",)


async def test_status(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = first_key(app)
        await pilot.press("s", "4")
        await settle(pilot)
        assert seeded.get(key).summary.status == "read"


async def test_rating_and_clearing_it(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = first_key(app)
        await pilot.press("r", "4")
        await settle(pilot)
        assert seeded.get(key).summary.rating == 4
        await pilot.press("r", "0")
        await settle(pilot)
        assert seeded.get(key).summary.rating is None


async def test_note_save(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = first_key(app)
        await pilot.press("n")
        await pilot.press(*"read [b]this[/b]".replace(" ", "_"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert [n.body for n in seeded.get(key).notes] == ["read_[b]this[/b]"]
        # n again offers the existing note; 1 edits it, emptying it deletes it
        await pilot.press("n", "1", "end", *"!", "ctrl+s")
        await settle(pilot)
        assert [n.body for n in seeded.get(key).notes] == ["read_[b]this[/b]!"]
        await pilot.press("n", "1", "end", "ctrl+u", "ctrl+s")
        await settle(pilot)
        assert seeded.get(key).notes == ()


async def test_note_cancel_saves_nothing(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = first_key(app)
        await pilot.press("n", "h", "i", "escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmScreen"  # unsaved text: asks first
        await pilot.press("n")  # keep editing
        assert type(app.screen).__name__ == "NoteEditor"
        await pilot.press("escape", "y")
        await settle(pilot)
        assert type(app.screen).__name__ == "CatalogScreen"
        assert seeded.get(key).notes == ()


async def test_title(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = first_key(app)
        await pilot.press("e", "ctrl+u", *"Mine", "enter")
        await settle(pilot)
        assert seeded.get(key).user_title == "Mine"
        assert app.main.papers.current.title == "Mine"


async def test_bulk_tag_and_status_on_marked_papers(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "down", "space")  # marks rows 1, 2 and 4
        keys = list(app.main.papers.marked)
        assert len(keys) == 3
        await pilot.press("t", *"bulk", "enter")
        await settle(pilot)
        await pilot.press("s", "2")
        await settle(pilot)
        for key in keys:
            assert seeded.get(key).summary.tags == ("bulk",)
            assert seeded.get(key).summary.status == "queued"
        assert seeded.count("tag:bulk") == 3
        await pilot.press("escape", "y")  # unmarks, once asked
        assert not app.main.papers.marked


async def test_saved_search_stored_and_applied(app, seeded, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "diffusion venue:ICLR")
        await pilot.press("enter", "S", *"diff", "enter")
        await settle(pilot)
        assert [(s.name, s.query) for s in seeded.saved.saved_searches()] == [("diff", "diffusion venue:ICLR")]
        await type_search(pilot, "")
        await pilot.press("escape", "1")
        await settle(pilot)
        assert app.main.search_bar.value == "diffusion venue:ICLR"
        assert app.main.papers.total == seeded.count("diffusion venue:ICLR")


async def test_saved_search_on_a_starved_machine(app, seeded, settle, type_search, monkeypatch):
    """The same, with Pilot's idle wait (CPU time against the clock) answering at once, as it
    does when a loaded machine starves this process: each key still waits until the one
    before is handled (conftest's keys_one_at_a_time), so S is never typed into the search
    bar because the focus had not moved yet."""
    import asyncio

    import textual._wait

    async def starved(*args, **kwargs) -> None:
        await asyncio.sleep(0)

    monkeypatch.setattr(textual._wait, "wait_for_idle", starved)
    await test_saved_search_stored_and_applied(app, seeded, settle, type_search)


async def test_saved_search_deleted_from_the_picker(app, seeded, settle):
    seeded.saved.save_search("first", "diffusion")
    seeded.saved.save_search("second", "venue:ICML")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await until(pilot, lambda: type(app.screen).__name__ == "SavedSearchScreen")  # no second g came
        await pilot.press("down", "d")  # the highlighted one: "second"
        await settle(pilot)
        assert type(app.screen).__name__ == "ConfirmScreen"  # asks first
        assert "second" in str(app.screen.query_one(".dialog-title").content)
        await pilot.press("n")
        await settle(pilot)
        assert len(seeded.saved.saved_searches()) == 2
        await pilot.press("g", "down", "d", "y")
        await settle(pilot)
        assert [s.name for s in seeded.saved.saved_searches()] == ["first"]
        assert [s.name for s in app.main.facets.saved] == ["first"]
        assert app.main.search_bar.value == ""  # deleting does not run it
        await pilot.press("g", "1")
        await settle(pilot)
        assert app.main.search_bar.value == "diffusion"


async def test_undo_restores(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = first_key(app)
        await pilot.press("s", "3")
        await settle(pilot)
        await pilot.press("t", *"x", "enter")
        await settle(pilot)
        assert seeded.get(key).summary.status == "reading"
        await pilot.press("u")
        await settle(pilot)
        assert seeded.get(key).summary.tags == ()
        await pilot.press("u")
        await settle(pilot)
        assert seeded.get(key).summary.status == "unread"
        await pilot.press("U")  # redo the status
        await settle(pilot)
        assert seeded.get(key).summary.status == "reading"


async def test_undo_never_takes_back_changes_made_elsewhere(app, seeded, settle):
    """Tag in the TUI; a shell tags, rates and writes a note; u removes the TUI's tag only."""
    from catalog.library import Catalog

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = first_key(app)
        await pilot.press("t", *"local", "enter")
        await settle(pilot)
        shell = Catalog.open(seeded.path)
        shell.tag([key], ["ext"])
        shell.set_rating([key], 2)
        shell.add_note(key, "external")
        shell.set_status([key], "read")
        shell.close()
        await pilot.press("s", "3")  # reading, over the shell's read
        await settle(pilot)
        shell = Catalog.open(seeded.path)
        shell.set_status([key], "skipped")  # and the shell changes it again
        shell.close()
        await pilot.press("u")  # the status: changed since, so left alone, and said so
        await settle(pilot)
        assert seeded.get(key).summary.status == "skipped"
        assert "changed since" in toasts(app)
        await pilot.press("u")  # the tag
        await settle(pilot)
        detail = seeded.get(key)
        assert detail.summary.tags == ("ext",)
        assert detail.summary.rating == 2
        assert [n.body for n in detail.notes] == ["external"]
        assert "Undone: Tagged" in toasts(app)


async def test_invalid_query_shows_a_hint_and_keeps_results(app, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "status:nope")
        hint = app.query_one("#search-hint")
        assert hint.has_class("-error")
        app.main.search_bar.input.value = ""
        await settle(pilot, typing=True)
        app.main.search_bar.input.value = "status:nope"  # pasted: no partial queries before it
        await settle(pilot, typing=True)
        assert hint.has_class("-error")
        assert "nope" in str(hint.content)
        assert app.main.papers.total == 90  # the last good results stay
        await type_search(pilot, "status:unread")
        assert not hint.has_class("-error")


async def test_no_results_suggests_loosening(app, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "zzqqxx venue:ICML ")
        assert app.main.papers.total == 0
        message = " ".join(t.plain for t in app.main.papers.message)
        assert "No papers match" in message and "venue:ICML" in message


async def test_empty_catalog_shows_how_to_import(empty_catalog, settle):
    from catalog.tui.app import CatalogApp

    app = CatalogApp(empty_catalog, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main.papers.total == 0
        message = " ".join(t.plain for t in app.main.papers.message)
        assert "catalog import PATH" in message
        await pilot.press("t", "s", "r", "n", "e", "u")  # nothing to act on: no error
        await settle(pilot)


async def test_refresh_shows_papers_imported_elsewhere(app, seeded, settle, tmp_path):
    from catalog.library import Catalog

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        other = Catalog.open(seeded.path)  # another process, as far as the app can tell
        lists = tmp_path / "more"
        lists.mkdir()
        (lists / "w.txt").write_text("Workshop 2027 Papers\n\nWe study refreshing a terminal "
                                     "catalog while another process imports papers into it.\n")
        other.import_paths([lists])
        other.close()
        assert app.main.papers.total == 90
        await pilot.press("R")
        await settle(pilot)
        assert app.main.papers.total == 91


async def test_mouse_click_on_a_row_reads_it(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        third = app.main.papers.paper_at(2)
        await pilot.click("#papers", offset=(10, 3))  # line 0 is the column header
        await settle(pilot)
        assert app.main.papers.cursor == 2
        assert app.main.detail.summary.key == third.key
        assert third.key in app.query_one("#detail").text


async def test_command_palette_runs_actions(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        key = first_key(app)
        await pilot.press("ctrl+p", *"Rate")
        await palette_offers(pilot, "Rate")
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "ChoiceScreen"
        await pilot.press("3")
        await settle(pilot)
        assert seeded.get(key).summary.rating == 3


async def test_help_lists_every_key(app, settle):
    from catalog.tui.keys import BINDINGS, TRIAGE_BINDINGS
    from catalog.tui.widgets.detail import DetailPane
    from catalog.tui.widgets.paper_list import PaperList
    from catalog.tui.widgets.search_bar import SearchBar
    from catalog.tui.widgets.sidebar import Sidebar

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        shown = statics_text(app)
        for binding in [*BINDINGS, *PaperList.BINDINGS, *DetailPane.BINDINGS, *SearchBar.BINDINGS,
                        *Sidebar.BINDINGS, *TRIAGE_BINDINGS]:
            if not binding.action.startswith(("saved(", "rate_now(")) or binding.action == "rate_now(1)":
                assert binding.description in shown, binding
                assert (binding.tooltip or "") in shown, binding
        assert "1 … 9" in shown and "g g" in shown and "1 … 5" in shown
        await pilot.press("escape")
        assert type(app.screen).__name__ == "CatalogScreen"


async def test_saving_under_an_existing_name_asks_and_keeps_the_numbers(app, seeded, settle, type_search):
    """Saved searches are numbered in name order: replacing one keeps every number."""
    for name, query in (("alpha", "diffusion"), ("beta", "venue:ICML"), ("gamma", "graph")):
        seeded.saved.save_search(name, query)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "venue:ICLR")
        await pilot.press("enter", "S", *"beta", "enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "ConfirmScreen"
        question = str(app.screen.query_one(".dialog-title").content)
        assert "beta" in question and "venue:ICML" in question and "venue:ICLR" in question
        await pilot.press("n")  # cancel: nothing replaced
        await settle(pilot)
        assert dict((s.name, s.query) for s in seeded.saved.saved_searches())["beta"] == "venue:ICML"
        await pilot.press("S", *"beta", "enter", "y")
        await settle(pilot)
        assert [(s.name, s.query) for s in seeded.saved.saved_searches()] == [
            ("alpha", "diffusion"), ("beta", "venue:ICLR"), ("gamma", "graph")]
        assert "Replaced saved search 'beta' (was: venue:ICML)" in toasts(app)
        await type_search(pilot, "")
        await pilot.press("escape", "2")  # still beta
        await settle(pilot)
        assert app.main.search_bar.value == "venue:ICLR"
        await pilot.press("u")  # undoes the replacement only
        await settle(pilot)
        assert dict((s.name, s.query) for s in seeded.saved.saved_searches())["beta"] == "venue:ICML"


async def test_bulk_edits_ask_about_marked_papers_the_results_hide(app, seeded, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space")
        shown, hidden = list(app.main.papers.marked)
        await type_search(pilot, f"key:{shown}")
        await pilot.press("enter", "s")
        await settle(pilot)
        assert type(app.screen).__name__ == "ChoiceScreen"
        question = str(app.screen.query_one(".dialog-title").content)
        assert "1 of the 2 marked papers are not in these results" in question
        await pilot.press("v")  # only the one shown
        await settle(pilot)
        assert "Status of" in str(app.screen.query_one(".dialog-title").content)
        await pilot.press("4")
        await settle(pilot)
        assert seeded.get(shown).summary.status == "read"
        assert seeded.get(hidden).summary.status == "unread"
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("a", "5")  # all marked, hidden too
        await settle(pilot)
        assert seeded.get(shown).summary.rating == seeded.get(hidden).summary.rating == 5
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("escape")  # cancelling changes nothing
        await settle(pilot)
        assert type(app.screen).__name__ == "CatalogScreen"
