"""Authors and files in the TUI (issue 29 item 3, issue 31 want 2, issue 34 item 6): an
Authors column while some paper shown has authors, an Authors facet whose leaf adds
author:"…", and a Files facet (with PDF, with files, none) using has:pdf / has:files."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.library import Catalog
from catalog.tui.app import CatalogApp
from catalog.tui.widgets.sidebar import Sidebar
from tests.tui.conftest import facet_node, screen_text

REPO = Path(__file__).resolve().parents[2]
LIBRARIES = REPO / "tests" / "data" / "libraries"
PDF = REPO / "tests" / "data" / "pdf" / "tracemonkey-page1.pdf"
SIZE = (160, 40)


@pytest.fixture
def library(tmp_path):
    """Real-shaped exports (people in every format) beside the seeds' papers (no authors)."""
    catalog = Catalog.open(tmp_path / "people.db")
    assert not catalog.import_paths([LIBRARIES]).errors
    yield catalog
    catalog.close()


def _section(app, name: str):
    return next((n for n in app.query_one(Sidebar).root.children if n.label.plain == name), None)


def _header(app) -> str:
    return screen_text(app, app.main.papers).splitlines()[0]


async def test_an_authors_column_while_papers_shown_have_authors(library, settle, type_search):
    app = CatalogApp(library, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Authors" in _header(app)
        first = app.main.papers.current
        assert first.authors and first.authors[:8] in screen_text(app, app.main.papers)
        # Papers without authors (a query finding only those): the column gives way to titles.
        without = [p.key for p in library.search("-has:authors", limit=5)]
        assert without
        await type_search(pilot, f"key:{without[0]}")
        assert app.main.papers.total == 1
        assert "Authors" not in _header(app)


async def test_no_authors_column_on_the_seeds(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.main.papers.total > 50
        assert "Authors" not in _header(app)


async def test_an_author_leaf_adds_author_to_the_query(library, settle, type_search):
    app = CatalogApp(library, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await type_search(pilot, "learning")
        top = max(library.facets("learning").authors, key=lambda a: (a.papers, a.name))
        sidebar = app.query_one(Sidebar)
        node = facet_node(sidebar, top.name + " ")
        assert node is not None and node.parent is _section(app, "Authors")
        sidebar.focus()
        sidebar.move_cursor(node)
        await pilot.press("enter")
        await settle(pilot, typing=True)
        assert app.main.search_bar.value == f'learning author:"{top.name}"'
        assert app.main.papers.total == library.count(f'learning author:"{top.name}"') >= top.papers


async def test_a_files_facet_filters_by_pdf_files_and_none(library, settle):
    papers = library.search("", limit=3)
    library.files.attach_file(papers[0].key, PDF)
    library.files.attach_file(papers[1].key, REPO / "README.md")
    total = library.count("")
    app = CatalogApp(library, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        section = _section(app, "Files")
        assert [c.label.plain for c in section.children] == [
            "with PDF 1", "with files 2", f"none {total - 2:,}"]
        sidebar = app.query_one(Sidebar)
        sidebar.focus()
        for leaf, query, found in (("with PDF", "has:pdf", 1), ("with PDF", "", total),
                                   ("none", "-has:files", total - 2)):
            sidebar.move_cursor(facet_node(sidebar, leaf))
            await pilot.press("enter")
            await settle(pilot, typing=True)
            assert app.main.search_bar.value == query
            assert app.main.papers.total == found
            sidebar.focus()


async def test_no_files_facet_before_any_file(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _section(app, "Files") is None
