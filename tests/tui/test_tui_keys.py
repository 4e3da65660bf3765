"""The keys added for daily use: open, copy, export, the reading pane, the sidebar, the
position, gg. No test opens a real browser: $BROWSER is a command that notes the links."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tests.conftest import SEEDS, opened
from tests.tui.conftest import paste_path, toasts, until

SIZE = (120, 36)
DATA = SEEDS.parent / "tests" / "data"


async def test_o_opens_the_paper_or_says_it_has_no_link(app, seeded, settle, type_search, browser):
    seeded.import_paths([DATA / "arxiv.bib"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o")  # a paper from a paper list: no link
        await settle(pilot)
        assert opened(browser) == [] and "has no URL, DOI or arXiv id" in toasts(app)
        await type_search(pilot, "scaling laws")
        await pilot.press("enter", "o")
        await settle(pilot)
        assert opened(browser) == ["https://arxiv.org/abs/2001.08361"]
        assert "Opened https://arxiv.org/abs/2001.08361" in toasts(app)


async def test_o_without_a_browser_copies_the_link(app, seeded, settle, type_search, monkeypatch, tmp_path):
    monkeypatch.setenv("BROWSER", str(tmp_path / "no-such-browser"))
    seeded.import_paths([DATA / "arxiv.bib"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "scaling laws")
        await pilot.press("enter", "o")
        await settle(pilot)
        assert app.clipboard == "https://arxiv.org/abs/2001.08361"
        assert "No browser found" in toasts(app)


async def test_y_copies_the_key_bibtex_cite_and_links(app, seeded, settle, type_search):
    seeded.import_paths([DATA / "arxiv.bib"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "scaling laws")
        await pilot.press("enter")
        key = app.main.papers.current.key
        await pilot.press("y", "y")  # yy: the key
        await settle(pilot)
        assert app.clipboard == key
        await pilot.press("y", "b")
        await settle(pilot)
        assert app.clipboard.startswith("@misc{kaplan2020scaling,") and "2001.08361" in app.clipboard
        await pilot.press("y", "c")
        await settle(pilot)
        assert app.clipboard == "\\cite{kaplan2020scaling}"
        await pilot.press("y", "l")
        await settle(pilot)
        assert app.clipboard == "https://arxiv.org/abs/2001.08361"
        await type_search(pilot, "")
        await pilot.press("enter", "space", "space", "y", "m")  # two marked: both, in order
        await settle(pilot)
        marked = list(app.main.papers.marked)
        assert app.clipboard.count("\n- ") + app.clipboard.startswith("- ") == 2
        assert all(f"`{k}`" in app.clipboard for k in marked)
        assert "the Markdown reference of 2 papers" in toasts(app)


async def test_x_exports_results_or_marked_papers(app, seeded, settle, type_search, tmp_path):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "venue:ICLR")
        await pilot.press("enter", "x")
        await settle(pilot)
        assert type(app.screen).__name__ == "ExportScreen"
        target = tmp_path / "iclr.md"
        await paste_path(pilot, target)  # .md: markdown, by its suffix
        await settle(pilot)
        assert target.read_text().startswith("# Reading list\n\n38 papers")
        assert f"Exported 38 papers as markdown to {target}" in toasts(app)

        await pilot.press("space", "space")  # two marked
        marked = list(app.main.papers.marked)
        await type_search(pilot, "")  # marks outlive the search
        await pilot.press("enter", "x")
        await settle(pilot)
        bib = tmp_path / "two.jsonl"
        await paste_path(pilot, bib)
        await settle(pilot)
        text = bib.read_text()
        assert [json.loads(line)["key"] for line in text.splitlines()] == marked

        await pilot.press("x")  # the same file again: asks first
        await settle(pilot)
        await paste_path(pilot, bib)
        await settle(pilot)
        assert type(app.screen).__name__ == "ConfirmScreen"
        await pilot.press("n")
        await settle(pilot)
        assert bib.read_text() == text

        bib.write_text("old")  # and yes: replaced
        await pilot.press("x")
        await settle(pilot)
        await paste_path(pilot, bib)
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert bib.read_text() == text

        fifo = tmp_path / "pipe.jsonl"  # not a file: refused without a question, still a pipe
        os.mkfifo(fifo)
        await pilot.press("x")
        await settle(pilot)
        await paste_path(pilot, fifo)
        await settle(pilot)
        assert type(app.screen).__name__ == "CatalogScreen"
        assert f"cannot write {fifo}: it is a named pipe (FIFO), not a regular file" in toasts(app)
        assert stat.S_ISFIFO(fifo.stat().st_mode)


async def test_reading_pane_keys(app, settle):
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        papers, pane = app.main.papers, app.query_one("#detail")
        first = papers.current.key
        await pilot.press("enter")
        assert app.focused is pane
        await pilot.press("j", "j")
        assert pane.scroll_y == 2
        await pilot.press("k")
        assert pane.scroll_y == 1
        await pilot.press("space")
        assert pane.scroll_y > 2
        await pilot.press("right_square_bracket")  # ]: the next paper, still reading
        await settle(pilot)
        assert papers.cursor == 1 and app.focused is pane and pane.scroll_y == 0
        assert app.main.detail.summary.key == papers.current.key != first
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert papers.current.key == first and app.focused is pane
        await pilot.press("z")  # zoom: the pane alone
        await pilot.pause()
        assert not papers.display and not app.query_one("#sidebar").display
        assert pane.size.width > 110
        await pilot.press("escape")
        await pilot.pause()
        assert papers.display and app.focused is papers


async def test_sidebar_key_and_folding(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sidebar = app.query_one("#sidebar")
        await pilot.press("b")
        await pilot.pause()
        assert not sidebar.display
        await pilot.press("f")  # shows it again, and goes there
        await pilot.pause()
        assert sidebar.display and app.focused is sidebar
        sidebar.move_cursor(sidebar.root.children[0])  # the first section
        section = sidebar.cursor_node
        assert section.is_expanded
        await pilot.press("left")
        assert not section.is_expanded
        await pilot.press("right")
        assert section.is_expanded
        await pilot.press("right")  # into it
        assert sidebar.cursor_node.parent is section
        await pilot.press("left")  # a leaf: back to its section
        assert sidebar.cursor_node is section
        await pilot.press("escape")
        assert app.focused is app.main.papers


async def test_position_and_gg(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hint = app.query_one("#search-hint")
        assert str(hint.content).startswith("row 1 / 90")
        await pilot.press("end")
        await settle(pilot)
        assert str(hint.content).startswith("row 90 / 90")
        await pilot.press("g", "g")  # no saved searches: gg within half a second
        await settle(pilot)
        assert app.main.papers.cursor == 0 and str(hint.content).startswith("row 1 / 90")
        await pilot.press("g")  # a lone g says what g is for, once no second g came
        await until(pilot, lambda: "No saved searches yet" in toasts(app))
        seeded.saved.save_search("one", "diffusion")
        await pilot.press("R", "end")
        await settle(pilot)
        await pilot.press("g")  # the picker, once no second g came ...
        await until(pilot, lambda: type(app.screen).__name__ == "SavedSearchScreen")
        await pilot.press("g")  # ... and g again: the top
        await settle(pilot)
        assert type(app.screen).__name__ == "CatalogScreen"
        assert app.main.papers.cursor == 0 and app.main.search_bar.value == ""


async def test_x_offers_every_format_catalog_export_has(app, seeded, settle, tmp_path):
    """The vault too: a folder, written again in place without asking; a folder given for a file format, or a vault whose parent folder is
    missing, is refused in one line, as the CLI does."""
    from textual.widgets import Input, Select

    from catalog.cli.files import EXPORT_FORMATS
    from catalog.export.vault import MARKER

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space")  # two marked
        marked = list(app.main.papers.marked)
        await pilot.press("x")
        await settle(pilot)
        dialog = app.screen
        select, path = dialog.query_one("#export-format", Select), dialog.query_one("#export-path", Input)
        assert [value for _, value in select._options if value != Select.BLANK] == list(EXPORT_FORMATS)
        select.value = "vault"  # chosen in the list: the file name loses its suffix
        await pilot.pause()
        assert path.value == "catalog-export" and "one Markdown file per paper" in str(
            dialog.query_one("#export-hint").content)
        select.value = "ris"  # and back: a file again
        await pilot.pause()
        assert path.value == "catalog-export.ris"

        vault = tmp_path / "notes"
        select.value = "vault"
        await paste_path(pilot, vault)
        await settle(pilot)
        assert sorted(p.stem for p in vault.glob("*.md")) == sorted(marked)
        assert f"Exported 2 papers as vault to {vault}" in toasts(app)
        mine = vault / f"{marked[0]}.md"
        mine.write_text(mine.read_text() + "my own thoughts\n")

        await pilot.press("x")  # again: no question, what was written below the marker kept
        await settle(pilot)
        app.screen.query_one("#export-format", Select).value = "vault"
        await paste_path(pilot, vault)
        await settle(pilot)
        assert type(app.screen).__name__ == "CatalogScreen"
        assert "2 already up to date" in toasts(app)
        assert mine.read_text().endswith(MARKER + "\nmy own thoughts\n")

        await pilot.press("x")  # a file format into a folder: refused, the dialog stays
        await settle(pilot)
        await paste_path(pilot, vault)
        await settle(pilot)
        assert type(app.screen).__name__ == "ExportScreen"
        assert f"{vault} is a folder; give a file name (or choose vault)" in toasts(app)

        missing = tmp_path / "no" / "such"
        app.screen.query_one("#export-format", Select).value = "vault"
        await paste_path(pilot, missing)
        await settle(pilot)
        assert f"cannot write a vault to {missing}: folder {missing.parent} does not exist" in toasts(app)
        assert not missing.exists()


async def test_q_quits_from_the_list(app, settle):
    """`q` (README, the help screen) leaves the app: the binding lives on the screen, which
    has no quit action of its own, so before it did nothing and only ctrl+q left."""
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.focused is app.main.papers
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_keys_typed_right_after_a_dialog_key_reach_the_dialog(app, settle):
    """`r` `5` typed in quick succession: the 5 reached the bindings only once the rating
    dialog was on top, and was lost (the dialog stayed open, the paper unrated). Both keys
    arrive before either is handled, as from a quick typist on a busy machine (in tmux,
    `r` then `5` 0.1 s later was lost; 0.25 s later was not)."""
    from textual import events

    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        key = app.main.papers.current.key
        for keys in (("r", "5"), ("s", "2")):
            for typed in keys:
                app.post_message(events.Key(typed, typed if len(typed) == 1 else None))
            await settle(pilot)
            await pilot.pause(0.1)
            await settle(pilot)
            assert type(app.screen).__name__ == "CatalogScreen", keys
        paper = app.catalog.get(key).summary
        assert (paper.rating, paper.status) == (5, "queued")



@pytest.mark.parametrize("opener", ["t", "n", "slash"])
async def test_text_typed_right_after_a_key_that_opens_an_input_reaches_it(app, settle, opener):
    """`t` `f` `o` `o` in quick succession: the letters that came before the tag editor had
    focused its input were lost (in tmux, `t` then `foo` 0.1 s later lost some). The same
    for the note editor (`n`) and the search bar (`/`)."""
    from textual import events
    from textual.widgets import Input, TextArea

    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for typed in (opener, "f", "o", "o"):
            app.post_message(events.Key(typed, "/" if typed == "slash" else typed))
        await settle(pilot, typing=True)
        field = app.screen.focused
        assert isinstance(field, (Input, TextArea))
        assert (field.text if isinstance(field, TextArea) else field.value) == "foo"
