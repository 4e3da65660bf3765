"""The list's data: sort orders (O, header clicks), facet counts for the results, refreshing
when another process changes the catalog, and note markers."""

from __future__ import annotations

import json

from catalog.tui.app import CatalogApp
from catalog.tui.state import StateStore, catalog_identity
from catalog.tui.watching import ChangeWatch
from catalog.tui.widgets.paper_list import PaperList
from tests.tui.conftest import screen_text

SIZE = (120, 36)


def _rows(app) -> list:
    return list(app.main.papers.pages[0])


def _header(app) -> str:
    return screen_text(app, app.main.papers).splitlines()[0]


async def test_O_cycles_the_sort_and_a_header_click_sorts_by_its_column(seeded, settle, tmp_path):
    keys = [p.key for p in seeded.search("", limit=6, snippets=False)]
    seeded.set_rating(keys[:2], 2)
    seeded.set_rating(keys[2:4], 5)
    store = StateStore(tmp_path / "tui-state.json")
    app = CatalogApp(seeded, cursor_blink=False, state=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "↓" not in _header(app) and "↑" not in _header(app)
        await pilot.press("O")  # year, newest first
        await settle(pilot)
        assert "↓Year" in _header(app) and "by year, newest first" in screen_text(app)
        before = app.main.papers.current.key
        await pilot.press("O")  # rating, best first; unrated last
        await settle(pilot)
        ratings = [p.rating for p in _rows(app)]
        assert ratings[:4] == [5, 5, 2, 2] and set(ratings[4:]) <= {None, 4}
        assert "↓Rating" in _header(app) and "by rating, best first" in screen_text(app)
        assert app.main.papers.current.key == before  # the cursor stays on its paper (issue 31)
        await pilot.press("O")  # title, A to Z
        await settle(pilot)
        titles = [p.title.casefold() for p in _rows(app)]
        assert titles == sorted(titles) and "↑Title" in _header(app)

        await pilot.click(PaperList, offset=(4, 0))  # Title again: Z to A
        await settle(pilot)
        titles = [p.title.casefold() for p in _rows(app)]
        assert titles == sorted(titles, reverse=True) and "↓Title" in _header(app)
        assert "by title, Z to A" in screen_text(app)

        await pilot.press("slash", *"model", "space", "escape")  # a word search keeps the order
        await settle(pilot, typing=True)
        titles = [p.title.casefold() for p in _rows(app)]
        assert len(titles) == seeded.count("model") and titles == sorted(titles, reverse=True)
    assert store.for_catalog(catalog_identity(seeded.location)).load().sort == "-title"

    again = CatalogApp(seeded, cursor_blink=False, state=store)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "↓Title" in _header(again)
        titles = [p.title.casefold() for p in _rows(again)]
        assert titles == sorted(titles, reverse=True)
        for _ in range(3):  # title -> added -> relevance -> year
            await pilot.press("O")
        await settle(pilot)
        assert "↓Year" in _header(again)
    assert store.for_catalog(catalog_identity(seeded.location)).load().sort == "year"


async def test_pages_beyond_the_first_come_in_the_same_order(seeded, settle, monkeypatch):
    from catalog.tui import search
    from catalog.tui.widgets import paper_list

    monkeypatch.setattr(paper_list, "PAGE", 10)
    monkeypatch.setattr(search, "PAGE", 10)
    app = CatalogApp(seeded, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("O", "O", "O")  # title
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        papers = app.main.papers
        seen = [p.title.casefold() for page in sorted(papers.pages) for p in papers.pages[page]]
        assert papers.total == 90 and len(papers.pages) > 1
        assert seen == sorted(seen)
        assert papers.current.title == seeded.search("", limit=1, sort="-title", snippets=False)[0].title


def _facet_labels(app) -> list[str]:
    from catalog.tui.widgets.sidebar import Sidebar

    out = []

    def walk(node):
        for child in node.children:
            out.append(child.label.plain)
            walk(child)

    walk(app.query_one(Sidebar).root)
    return out


async def test_facet_counts_follow_the_results_and_mark_the_facets_in_use(seeded, settle, type_search):
    keys = [p.key for p in seeded.search("model", limit=10, snippets=False)]
    seeded.tag(keys[:2], add=["project/thesis"])
    seeded.tag(keys[1:4], add=["project/grant"])
    seeded.tag([p.key for p in seeded.search("-model", limit=3, snippets=False)], add=["project/other"])
    app = CatalogApp(seeded, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        labels = _facet_labels(app)
        assert "project 7" in labels and "other 3" in labels  # the whole catalog; project/*: 4 + 3
        assert f"unread {seeded.count('status:unread')}" in labels

        await type_search(pilot, "model ")  # the space: the word is finished (not a prefix)
        labels = _facet_labels(app)
        iclr = seeded.count("model venue:ICLR")
        assert f"ICLR 2026 {iclr}" in labels and f"ICML 2026 {seeded.count('model venue:ICML')}" in labels
        assert "project 4" in labels and "thesis 2" in labels and "grant 3" in labels
        assert not any(label.startswith("other") for label in labels)  # none of the results has it
        assert f"unrated {seeded.count('model')}" in labels
        assert not any(label.startswith("●") for label in labels)

        await type_search(pilot, "model venue:ICLR tag:project")
        labels = _facet_labels(app)
        assert f"● ICLR 2026 {seeded.count('model venue:ICLR tag:project')}" in labels
        assert any(label.startswith("● project ") for label in labels)
        assert not any(label.startswith("ICML") for label in labels)


async def test_changes_made_elsewhere_show_by_themselves(seeded, settle, change_shown, monkeypatch, tmp_path,
                                                        seeds_copy):
    """Another process tags, rates and imports: the rows update without R, the cursor stays
    on its paper and the marks stay; the tag dialog knows the new tag."""
    from catalog.library import Catalog
    from catalog.tui import watching

    monkeypatch.setattr(watching, "POLL", 0.05)
    other = Catalog.open(seeded.path)  # another shell: its own connections
    app = CatalogApp(seeded, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.main.papers
        await pilot.press("space", "space", "j", "j")  # two marked; the cursor on the fifth
        await settle(pilot)
        marked, key = set(papers.marked), papers.current.key
        assert papers.cursor == 4

        seen = app.main.query_one(ChangeWatch).version
        other.tag([key], add=["elsewhere"])
        other.set_status([key], "reading")
        await change_shown(pilot, seen)
        assert papers.current.key == key and papers.cursor == 4 and set(papers.marked) == marked
        assert papers.current.tags == ("elsewhere",) and papers.current.status == "reading"
        assert "#elsewhere" in screen_text(app, papers)
        assert any(label.startswith("elsewhere 1") for label in _facet_labels(app))

        await pilot.press("escape", "t")  # the tag dialog for the paper: its tag is there
        await settle(pilot)
        assert "#elsewhere" in screen_text(app) and "no tags yet" not in screen_text(app)
        await pilot.press("escape")

        extra = tmp_path / "more.txt"
        extra.write_text("ICML 2025\n\nA brand new abstract about zebra finches and their song.\n",
                         encoding="utf-8")
        seen = app.main.query_one(ChangeWatch).version
        other.import_paths([extra])
        await change_shown(pilot, seen)
        assert papers.total == 91 and papers.current.key == key
    other.close()


async def test_papers_with_notes_are_marked_in_the_list(seeded, settle):
    keys = [p.key for p in seeded.search("", limit=3, snippets=False)]
    seeded.add_note(keys[1], "read the appendix")
    app = CatalogApp(seeded, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = screen_text(app, app.main.papers).splitlines()
        assert [line[:3] for line in lines[1:4]] == ["   ", " ✎ ", "   "]
        assert lines[0].startswith("   Title")  # the header lines up with the titles
        await pilot.press("space", "n")  # mark the first, write a note on the second
        await settle(pilot)
        for ch in "mine":
            await pilot.press(ch)
        await pilot.press("ctrl+s")
        await settle(pilot)
        lines = screen_text(app, app.main.papers).splitlines()
        assert [line[:3] for line in lines[1:3]] == ["●  ", " ✎ "]
        assert len(seeded.get(keys[1]).notes) == 2
        await pilot.press("k", "n")
        for ch in "first":
            await pilot.press(ch)
        await pilot.press("ctrl+s")
        await settle(pilot)
        lines = screen_text(app, app.main.papers).splitlines()
        assert lines[1][:3] == "●✎ "


async def test_the_reading_pane_keeps_its_place_when_the_catalog_changes_elsewhere(seeded, settle, change_shown,
                                                                                   monkeypatch):
    """Reading an abstract scrolled down while another process changes the catalog: the
    rows refresh, the pane shows the change and stays where the reader was; another paper
    starts at its top."""
    from catalog.library import Catalog
    from catalog.tui import watching
    from catalog.tui.widgets.detail import DetailPane

    monkeypatch.setattr(watching, "POLL", 0.05)
    key = seeded.search("", limit=1, snippets=False)[0].key
    seeded.add_note(key, "\n\n".join(f"Point {i}: worth reading twice." for i in range(30)))
    other = Catalog.open(seeded.path)  # another shell: its own connections
    app = CatalogApp(seeded, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.main.query_one(DetailPane)
        assert app.main.papers.current.key == key
        await pilot.press("enter", *"jjjjjjjj")
        await settle(pilot)
        assert pane.scroll_y == 8

        seen = app.main.query_one(ChangeWatch).version
        other.tag([key], add=["elsewhere"])
        await change_shown(pilot, seen)
        assert "#elsewhere" in pane.text  # read again...
        assert pane.scroll_y == 8  # ...where the reader was
        assert app.main.focused is pane

        await pilot.press("right_square_bracket")  # the next paper: from its top
        await settle(pilot)
        assert app.main.papers.cursor == 1 and pane.scroll_y == 0
    other.close()


async def test_facet_counts_are_those_of_the_list_while_typing(seeded, settle, type_search):
    """The word being typed is searched as a prefix, and the list may go on with papers
    holding only some of the words: the sidebar counts exactly the papers the list holds."""
    app = CatalogApp(seeded, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # A prefix of a word that is no prefix of its stem (interpretab*: interpret); the last
        # word unfinished after whole ones, so partial matches follow.
        for typed in ("interpretab", "language mod", "graph neu"):
            await type_search(pilot, typed)
            papers, facets = app.main.papers, app.main.facets
            assert papers.total == seeded.count(typed + "*") > 0
            assert facets.query == typed + "*" and facets.total == papers.total, typed
            assert sum(n for _, _, n in facets.venues) == papers.total, typed
            assert f"unread {papers.total}" in _facet_labels(app), typed

        await pilot.press("escape", "O")  # by year: only the papers holding every word
        await settle(pilot)
        papers, facets = app.main.papers, app.main.facets
        assert papers.total == seeded.count("graph neu*", partial=False) < seeded.count("graph neu*")
        assert facets.total == papers.total == sum(n for _, _, n in facets.venues)
        assert f"unread {papers.total}" in _facet_labels(app)


async def test_the_reading_pane_shows_the_first_paper_as_the_list_appears(seeded, settle, monkeypatch):
    """The pane was read only when the list's Highlighted message came, which passes through
    each widget's queue: on a busy machine (load 7) it came seconds after the list had been
    drawn, the pane empty meanwhile. Here that message never comes at all: the pane still
    shows the paper under the cursor."""
    from catalog.tui.widgets.detail import DetailPane

    monkeypatch.setattr(PaperList, "_announce", lambda self: None)
    app = CatalogApp(seeded, cursor_blink=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.main.papers.current
        shown = screen_text(app, app.main.query_one(DetailPane))
        assert first.key in shown and first.title.split()[0] in shown
