"""The TUI on a wide catalog (thousands of venues, as a real library has): the sidebar shows
the venues with most papers and "N more…", which opens a picker filtered by typing; the
venues are grouped off the UI thread and only a few tree nodes are built. One node per
venue built on the UI thread froze every key for seconds (issue 31)."""

from __future__ import annotations

import shutil
import threading

import pytest

from benchmarks.corpus import write_wide_jsonl
from catalog.library import Catalog
from catalog.tui.app import CatalogApp
from catalog.tui.facetlist import SHOWN
from catalog.tui.screens.facet_picker import FacetPickerScreen
from catalog.tui.widgets import sidebar as sidebar_module
from catalog.tui.widgets.sidebar import Sidebar
from tests.tui.conftest import facet_node, screen_text

SIZE = (120, 36)
PAPERS, VENUES = 2_500, 2_200


@pytest.fixture(scope="module")
def wide_db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wide")
    catalog = Catalog.open(folder / "wide.db")
    report = catalog.import_paths([write_wide_jsonl(PAPERS, folder / "wide.jsonl", venues=VENUES, authors=5_000)])
    assert not report.errors
    catalog.close()
    return folder / "wide.db"


@pytest.fixture
def wide(wide_db, tmp_path):
    path = tmp_path / "wide.db"
    shutil.copy(wide_db, path)
    catalog = Catalog.open(path)
    yield catalog
    catalog.close()


def _nodes(node) -> int:
    return sum(1 + _nodes(child) for child in node.children)


def _venues_section(app):
    return next(n for n in app.query_one(Sidebar).root.children if n.label.plain == "Venues")


async def test_thousands_of_venues_show_the_top_ones_and_how_many_more(wide, settle):
    facets = wide.facets("")
    assert len({v for v, _, _ in facets.venues}) == VENUES
    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        section = _venues_section(app)
        labels = [child.label.plain for child in section.children]
        assert len(labels) == SHOWN + 1, labels
        assert labels[-1].startswith(f"{VENUES - SHOWN:,} more…")
        # The venue with most papers comes first, with its count.
        totals: dict[str, int] = {}
        for venue, _, n in facets.venues:
            totals[venue] = totals.get(venue, 0) + n
        best = max(totals, key=totals.get)
        assert labels[0].startswith(best[:12]) and labels[0].endswith(f" {totals[best]:,}")
        assert _nodes(app.query_one(Sidebar).root) < 120  # not one per venue


async def test_more_opens_a_picker_that_filters_and_filters_the_list(wide, settle):
    facets = wide.facets("")
    rare = next(v for v, _, n in reversed(facets.venues) if n == 1 and v != "?")
    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sidebar = app.query_one(Sidebar)
        sidebar.focus()
        sidebar.move_cursor(facet_node(sidebar, f"{VENUES - SHOWN:,} more"))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FacetPickerScreen)
        assert f"Venues ({VENUES:,})" in screen_text(app)
        assert "more match: type to narrow" in screen_text(app)
        for ch in rare:
            await pilot.press(ch if ch != " " else "space")
        await settle(pilot)
        assert app.screen.shown[0].name == rare and rare in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, FacetPickerScreen)
        assert app.main.search_bar.value == f'venue:"{rare}"'
        assert app.main.papers.total == wide.count(f'venue:"{rare}"') == 1
        # The rare venue is in the query: the sidebar shows it, marked, though it ranks low.
        assert facet_node(sidebar, rare[:12]).label.plain.startswith("● ")


async def test_the_picker_says_when_nothing_matches_and_escape_keeps_the_query(wide, settle):
    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sidebar = app.query_one(Sidebar)
        sidebar.focus()
        sidebar.move_cursor(facet_node(sidebar, f"{VENUES - SHOWN:,} more"))
        await pilot.press("enter", *"zzqq")
        await settle(pilot)
        assert "nothing matches" in screen_text(app)
        await pilot.press("enter", "escape")
        await settle(pilot)
        assert not isinstance(app.screen, FacetPickerScreen)
        assert app.main.search_bar.value == ""


async def test_venues_are_grouped_off_the_ui_thread_and_few_nodes_built(wide, settle, type_search, monkeypatch):
    """The facets are counted (SQL) and grouped in the sidebar's worker; the UI thread only
    builds the few nodes shown. (Checked to fail with the grouping or the counting moved to
    the UI thread: FacetsLoaded without its venues, or Catalog.facets called in load.)"""
    threads: list[bool] = []
    counted: list[bool] = []
    grouped = sidebar_module.venue_entries

    def watched(facets):
        threads.append(threading.current_thread() is threading.main_thread())
        return grouped(facets)

    monkeypatch.setattr(sidebar_module, "venue_entries", watched)
    count = wide.facets

    def counting(*args, **kwargs):
        counted.append(threading.current_thread() is threading.main_thread())
        return count(*args, **kwargs)

    monkeypatch.setattr(wide, "facets", counting)
    built = []
    add, add_leaf = sidebar_module.TreeNode.add, sidebar_module.TreeNode.add_leaf
    monkeypatch.setattr(sidebar_module.TreeNode, "add", lambda *a, **k: built.append(1) or add(*a, **k))
    monkeypatch.setattr(sidebar_module.TreeNode, "add_leaf", lambda *a, **k: built.append(1) or add_leaf(*a, **k))
    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "graph ")
        await pilot.press("ctrl+u")
        await settle(pilot, typing=True)
    assert threads and not any(threads), "venues grouped on the UI thread"
    assert counted and not any(counted), "facets counted on the UI thread"
    shows = len(threads)
    # (The top venues with their years, the top authors and the rest: ~140 per rebuild, not
    # one per venue or person.)
    assert len(built) < 200 * (shows + 2), f"{len(built)} tree nodes for {shows} counts"


def _section(app, name: str):
    return next(n for n in app.query_one(Sidebar).root.children if n.label.plain == name)


async def test_thousands_of_authors_show_the_top_ones_and_a_picker_adds_author(wide, settle):
    """Issue 29 item 3 / 31 want 2: the people with most papers, "N more…", and a picker
    filtered by typing whose choice adds author:"…" to the query."""
    people = wide.authors("", limit=100_000)
    assert len(people) > 1_000
    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        section = _section(app, "Authors")
        labels = [child.label.plain for child in section.children]
        assert len(labels) == SHOWN + 1, labels
        assert labels[-1].startswith(f"{len(people) - SHOWN:,} more…")
        best = people[0]
        assert labels[0].startswith(best.name[:10]) and labels[0].endswith(f" {best.papers:,}")
        rare = next(p.name for p in reversed(people) if p.papers == 1)
        sidebar = app.query_one(Sidebar)
        sidebar.focus()
        sidebar.move_cursor(facet_node(sidebar, f"{len(people) - SHOWN:,} more"))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FacetPickerScreen)
        assert f"Authors ({len(people):,})" in screen_text(app)
        for ch in rare:
            await pilot.press(ch if ch != " " else "space")
        await settle(pilot)
        assert app.screen.shown[0].name == rare
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.search_bar.value == f'author:"{rare}"'
        assert app.main.papers.total == wide.count(f'author:"{rare}"') >= 1
        assert facet_node(sidebar, rare + " ").label.plain.startswith("● ")


async def test_authors_are_picked_off_the_ui_thread(wide, settle, type_search, monkeypatch):
    """The people shown, and every person for the picker (only when it opens), are made in
    thread workers: 24,000 of them cost 110 ms of the interpreter the UI thread shares."""
    threads: dict[str, list[bool]] = {"top_authors": [], "author_entries": []}
    for name in threads:
        def watched(*args, _name=name, _original=getattr(sidebar_module, name)):
            threads[_name].append(threading.current_thread() is threading.main_thread())
            return _original(*args)

        monkeypatch.setattr(sidebar_module, name, watched)
    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "graph ")
        await settle(pilot, typing=True)
        assert threads["author_entries"] == []  # not until the picker opens
        sidebar = app.query_one(Sidebar)
        sidebar.focus()
        sidebar.move_cursor(facet_node(sidebar, "Authors").children[-1])
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FacetPickerScreen)
    assert threads["top_authors"] and not any(threads["top_authors"]), "people picked on the UI thread"
    assert threads["author_entries"] == [False], "the picker's people made on the UI thread"


async def test_mark_all_reaches_past_the_pages_loaded_and_acts_without_asking_again(wide, settle):
    from catalog.tui.screens.confirm import ConfirmScreen
    from catalog.tui.screens.tag_editor import TagEditor
    from catalog.tui.widgets.paper_list import PAGE

    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.main.papers
        assert len(papers.loaded_keys()) <= PAGE < PAPERS
        await pilot.press("ctrl+a")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert len(papers.marked) == PAPERS
        await pilot.press("t")  # every marked paper is known to be in these results
        await settle(pilot)
        assert isinstance(app.screen, TagEditor)


async def test_sorting_keeps_the_cursor_on_its_paper_however_deep(wide, settle):
    """Issue 31 want 10: O (or a header click) sorted from the top and the paper was lost."""
    from catalog.tui.widgets.paper_list import PAGE

    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.main.papers
        for _ in range(3):
            await pilot.press("pagedown")
        await settle(pilot)
        before, deep = papers.current.key, []
        for _ in range(4):  # year, rating, title, date added
            await pilot.press("O")
            await settle(pilot)
            order = [p.key for p in wide.search("", sort=papers.sort, limit=-1, snippets=False)]
            assert papers.current is not None and papers.current.key == before, papers.sort
            assert papers.cursor == order.index(before)
            deep.append(papers.cursor >= PAGE)
            top = int(papers.scroll_offset.y)
            assert top <= papers.cursor < top + papers.size.height  # in view
        assert any(deep)  # past the first page at least once


async def test_the_venue_column_fits_the_venues_measured_until_one_is_wide_enough(wide, settle, monkeypatch):
    """The venues' width is the widest venue's, at most VENUE_MOST cells; measuring stops at
    the first venue that wide (every venue-year measured took the UI thread 40-115 ms at 1M).
    The column drawn is that, up to a fifth of the line past 20 cells (20 at 120 columns)."""
    from catalog.tui import facetlist
    from catalog.tui.answers import VENUE_MOST

    measured = []
    cells = facetlist.cell_len
    monkeypatch.setattr(facetlist, "cell_len", lambda name: measured.append(name) or cells(name))
    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        papers = app.main.papers
        assert papers.venue_width == VENUE_MOST
        assert papers.columns().venue == (papers.scrollable_content_region.width - 20) // 5
        assert "Venue" in screen_text(app, papers).splitlines()[0]
    assert 0 < len(measured) < 10, f"{len(measured)} venues measured for one count"


async def test_a_venues_years_come_when_it_is_unfolded_and_stay_after_new_counts(wide, settle):
    """A venue's years are tree nodes only once it is unfolded (built for the ten venues at
    every count, they were most of the UI thread's 40 ms per count); unfolded, they come back
    with the next counts, and choosing one filters by the venue and the year."""
    app = CatalogApp(wide, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sidebar = app.main.sidebar
        venue = next(n for n in _venues_section(app).children if n.allow_expand)
        name = venue.label.plain.rsplit(" ", 1)[0]
        assert not venue.is_expanded and not venue.children
        sidebar.focus()
        sidebar.move_cursor(venue)
        await pilot.press("right")
        await settle(pilot)
        years = [n.label.plain.split()[0] for n in venue.children]
        assert len(years) > 1 and years == sorted(years, reverse=True)
        sidebar.show_facets(sidebar.facets)  # the next counts (a resize rebuilds the same way)
        await settle(pilot)
        again = next(n for n in _venues_section(app).children if n.label.plain.rsplit(" ", 1)[0] == name)
        assert again is not venue and again.is_expanded
        assert [n.label.plain.split()[0] for n in again.children] == years
        sidebar.move_cursor(again.children[0])
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.search_bar.value.endswith(f"year:{years[0]}")
        assert app.main.search_bar.value.startswith("venue:")


def _bib_catalog(folder, entries: list[str]) -> Catalog:
    """A catalog of these BibTeX entries, imported from a .bib file in `folder`."""
    (folder / "lib.bib").write_text("\n".join(entries), encoding="utf-8")
    catalog = Catalog.open(folder / "lib.db")
    catalog.import_paths([folder / "lib.bib"])
    return catalog


async def test_the_picker_lists_venues_whose_words_start_with_the_typed_ones_first(tmp_path, settle):
    """Typing `neur` in the venues' picker (a real library's 3,700 venues) listed
    "Entrepreneurship …", with more papers, above NeurIPS and "Neural Computation": a word
    typed is matched at the start of a venue's words first, inside a word only after."""
    venues = {"Entrepreneurship Theory and Practice": 6, "NeurIPS": 2, "Neural Computation": 1,
              **{f"Venue {name}": 3 for name in "ABCDEFGHIJKL"}}
    entries = [f"@article{{p{n}_{i}, title = {{Paper {i} of {venue}}}, journal = {{{venue}}}, year = 2020}}"
               for n, (venue, count) in enumerate(venues.items()) for i in range(count)]
    catalog = _bib_catalog(tmp_path, entries)
    app = CatalogApp(catalog, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sidebar = app.query_one(Sidebar)
        sidebar.focus()
        sidebar.move_cursor(facet_node(sidebar, "Venues").children[-1])  # "N more…"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FacetPickerScreen)
        await pilot.press(*"neur")
        await settle(pilot)
        assert [e.name for e in app.screen.shown] == [
            "NeurIPS", "Neural Computation", "Entrepreneurship Theory and Practice"]
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.search_bar.value == "venue:NeurIPS"
    catalog.close()


async def test_papers_without_a_venue_are_said_so_and_offer_no_year_filters(tmp_path, settle):
    """A real library's 8,879 papers without a venue topped the venues as "? 8,879"; unfolded,
    its years filtered every venue's papers of that year (`year:2019`), not those without one."""
    entries = [f"@misc{{n{i}, title = {{Note {i}}}, year = {2019 + i % 2}}}" for i in range(4)]
    entries += [f"@article{{a{i}, title = {{Paper {i}}}, journal = {{Some Journal}}, year = 2019}}" for i in range(2)]
    catalog = _bib_catalog(tmp_path, entries)
    app = CatalogApp(catalog, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        labels = [child.label.plain for child in _venues_section(app).children]
        assert not any(label.lstrip("▶ ").startswith("?") for label in labels), labels
        none = facet_node(app.query_one(Sidebar), "no venue")
        assert none is not None and none.label.plain.endswith(" 4")
        assert not none.allow_expand and none.data is None
    catalog.close()
