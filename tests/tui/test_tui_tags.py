"""The tag dialog: # is not part of a name, a suggested child tag is what enter saves, and
tags added elsewhere since the list loaded are shown."""

from __future__ import annotations

from catalog.library import Catalog
from tests.tui.conftest import screen_text

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


async def test_the_dialog_reads_the_marked_papers_tags_in_as_few_statements_for_80_as_for_5(app, seeded, settle, monkeypatch):
    """The dialog brings the marked papers' tags up to date in a background read. It read each
    paper's whole state one key at a time: with a real library's 16,468 papers marked that
    read took 8-19 s and ran alongside the tagging, which took 20-30 s instead of 10."""
    import traceback

    from catalog.store.sqlite.connection import Connection
    from catalog.tui.screens.tag_editor import TagEditor

    papers = seeded.search("", limit=80, snippets=False)
    seeded.tag([p.key for p in papers[:3]], add=["before"])
    papers = seeded.search("", limit=80, snippets=False)  # with their tags
    counted: list[int] = []
    execute = Connection.execute

    def counting(self, *args):  # the statements the dialog's read of the tags runs
        if any(frame.name == "_load_tags" for frame in traceback.extract_stack()):
            counted.append(1)
        return execute(self, *args)

    monkeypatch.setattr(Connection, "execute", counting)
    statements = []
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for marked in (5, 80):
            app.main.papers.marks.marked.clear()
            app.main.papers.mark_all(papers[:marked])
            counted.clear()
            await pilot.press("t")
            await settle(pilot)
            assert isinstance(app.screen, TagEditor)
            statements.append(len(counted))
            assert "#before (3/" in screen_text(app)
            await pilot.press("escape")
            await settle(pilot)
    assert statements[0] == statements[1] and statements[0] <= 4, statements


async def test_a_long_tagging_says_it_runs_and_the_list_stays_usable(app, seeded, settle, monkeypatch):
    """Tagging a real library's 16k marked papers takes 10 s or more: the line under the
    search bar says what is being written and for how long, and the cursor still moves."""
    import threading

    from catalog.tui import editing
    from tests.tui.conftest import toasts, until

    monkeypatch.setattr(editing, "SAY_AFTER", 0)
    release = threading.Event()
    tag = Catalog.tag

    def slow_tag(self, *args, **kwargs):  # a write that takes until the test lets it go
        release.wait(30)
        return tag(self, *args, **kwargs)

    monkeypatch.setattr(Catalog, "tag", slow_tag)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space", "space")
        await pilot.press("t")
        await _type(pilot, "bulk")
        await pilot.press("enter")
        line = app.main.search_bar
        await until(pilot, lambda: "tagging 3 papers… " in screen_text(app, line))
        before = app.main.papers.cursor
        await pilot.press("down")
        await until(pilot, lambda: app.main.papers.cursor == before + 1)
        assert "tagging 3 papers… " in screen_text(app, line)
        release.set()
        await until(pilot, lambda: "Tagged 3 papers: +bulk" in toasts(app))
        await settle(pilot)
        assert "tagging" not in screen_text(app, line)
    assert seeded.count("tag:bulk") == 3
