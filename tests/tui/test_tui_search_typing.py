"""Issue 12 in the TUI: the word being typed is a prefix (results narrow with every key), and
a key, key prefix, DOI or arXiv id typed in the search bar finds its paper first."""

from __future__ import annotations

import json

import pytest

from tests.tui.conftest import screen_text, toasts, until

SIZE = (120, 36)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """The word list for suggestions is cached in the user's cache folder: a temporary one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def shown(app) -> list[str]:
    return [p.key for p in app.main.papers.pages.get(0, [])]


async def test_results_narrow_with_every_key(app, seeded, settle, type_search):
    """`interp` showed 0 papers until the word was complete (issue 12)."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        totals = []
        for typed in ("int", "inte", "inter", "interp", "interpretab"):
            await type_search(pilot, typed)
            totals.append(app.main.papers.total)
            assert app.main.papers.total == seeded.count(typed + "*"), typed
        assert totals == sorted(totals, reverse=True) and totals[-1] > 0
        assert seeded.count("interp") == 0  # exact, as `catalog search` reads it
        await type_search(pilot, "interpretab ")  # a space ends the word: exact again
        assert app.main.papers.total == 0


async def test_the_first_letters_of_a_word_keep_the_results_until_the_third(app, seeded, settle, type_search,
                                                                            monkeypatch):
    """`graph o` searched `o` as a word (next to nothing, and at a million papers a second of
    ranking): the first two letters of a word run no search, the results stay those of the
    words before it; the third letter, a space or Enter searches it (a pause too: below)."""
    from catalog.tui.widgets import search_bar

    monkeypatch.setattr(search_bar, "SHORT_WORD_WAIT", 60)  # no pause in this test
    ran = []

    def spied(method):
        original = getattr(type(app.catalog), method)

        def spy(catalog, asked, **kwargs):
            ran.append(asked.text)
            return original(catalog, asked, **kwargs)

        setattr(app.catalog, method, spy.__get__(app.catalog))

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "graph ")
        before = shown(app)
        spied("first_page")  # a search's first rows
        spied("search")  # the rest of its first page
        for ch in "of":
            await pilot.press(ch)
            await settle(pilot, typing=True)
            assert shown(app) == before and app.main.papers.total == seeded.count("graph")
        assert ran == []
        await pilot.press("enter")  # a finished query: `of` as a word
        await settle(pilot)
        # (Twice: its first rows, then the whole first page: tests/tui/test_tui_first_rows.py.)
        assert set(ran) == {"graph of"} and app.main.papers.total == seeded.count("graph of")
        await pilot.press("slash", "space")  # so is a space after it
        await settle(pilot, typing=True)
        assert ran[-1] == "graph of " and app.main.papers.total == seeded.count("graph of")


async def test_a_pause_on_a_two_letter_word_searches_it(app, seeded, settle, type_search, monkeypatch):
    """`RL`, `GP`: short words are words too. Typing that stops on one searches it as typed."""
    from catalog.tui.widgets import search_bar

    monkeypatch.setattr(search_bar, "SHORT_WORD_WAIT", 0.3)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", "r", "l")
        await until(pilot, lambda: app.main.papers.query_text == "rl")  # after the pause
        await settle(pilot)
        assert app.main.papers.total == seeded.count("rl") == 1
        assert app.main.search_bar.value == "rl"


async def test_the_prefix_is_highlighted_in_the_reading_pane(app, settle, type_search):
    """The words that start with what is typed are marked (interpretability, interpretable)."""
    from textual.widgets import Static

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "interpretab")
        await settle(pilot)
        body = app.main.query_one("#detail-body", Static).render()
        marked = {body.plain[s.start:s.end].lower() for s in body.spans
                  if body.plain[s.start:s.end].lower().startswith("interpretab")}
        assert marked and all(len(w) > len("interpretab") for w in marked)


async def test_a_key_typed_in_the_search_bar_finds_its_paper(app, seeded, settle, type_search):
    key = seeded.search("influence functions", limit=1)[0].key
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, key)
        assert shown(app)[:1] == [key]
        await type_search(pilot, key[:5])
        assert shown(app)[:1] == [key] or len(seeded.search(key[:5])) != 1


async def test_a_doi_typed_in_the_search_bar_finds_its_paper(app, seeded, settle, type_search, tmp_path):
    lines = tmp_path / "doi.jsonl"
    lines.write_text(json.dumps({"title": "Numbat Burrows", "doi": "10.1000/xyz.42",
                                 "abstract": "Numbats dig."}) + "\n", encoding="utf-8")
    assert seeded.import_paths([lines]).new == 1
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "https://doi.org/10.1000/xyz.42")
        assert app.main.papers.total == 1
        assert app.main.papers.current.title == "Numbat Burrows"


async def test_a_typo_gets_did_you_mean_in_the_empty_list(app, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "atention sink")
        await settle(pilot)
        # Papers on `sink` are listed (≈), and the line under the search bar corrects the typo.
        assert app.main.papers.total > 0 and "did you mean attention sink?" in screen_text(app)
        await type_search(pilot, "subquadratic attention")
        await settle(pilot)
        assert app.main.papers.total > 0 and "no paper has subquadratic" in screen_text(app)
        await type_search(pilot, "atention")
        await settle(pilot)
        assert app.main.papers.total == 0
        message = " ".join(t.plain for t in app.main.papers.message)
        assert "Did you mean attention?" in message
        await type_search(pilot, "interpretabilty")  # the word being typed is checked too
        await settle(pilot)
        message = " ".join(t.plain for t in app.main.papers.message)
        assert "Did you mean interpretability?" in message
        await type_search(pilot, "attention sink")
        assert app.main.papers.total > 0


async def test_the_reading_pane_marks_what_an_acronym_matched_through(app, seeded, settle, type_search):
    """`SAE` finds "Sparse Autoencoders (SAEs)": both forms are marked, as word forms are."""
    from textual.widgets import Static

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "SAE ")
        await settle(pilot)
        body = app.main.query_one("#detail-body", Static).render()
        marked = {body.plain[s.start:s.end].lower() for s in body.spans}
        assert any(w.startswith("sparse autoencoder") for w in marked), marked


async def test_keys_typed_in_a_row_count_and_facet_only_the_last(app, seeded, settle, monkeypatch):
    """Each key's count and facets ran after its page on the cores the next key's page needed
    (at a million papers they cost more than the page). They now wait SETTLE after the key,
    and a key typed meanwhile cancels them before they start; until the last key's come the
    list says `20+` (not an earlier search's count) and the sidebar's counts, an earlier
    search's, are dimmed."""
    from catalog.tui import search, waiting
    from catalog.tui.widgets import search_bar

    monkeypatch.setattr(search, "PAGE", 20)  # the seeds are 90 papers: a first page that is not all
    # A key that came more than SHORT_WORD_WAIT after the one before (a loaded machine) had
    # `mo` searched as a finished word, counted at once: not what this test is about.
    monkeypatch.setattr(search_bar, "SHORT_WORD_WAIT", 60.0)
    clock = [0.0]  # SETTLE's clock stands still while the keys are typed (however slowly)
    monkeypatch.setattr(waiting, "monotonic", lambda: clock[0])
    counted, faceted = [], []
    count, facets = app.catalog.count, app.catalog.facets

    def count_spy(asked, **kwargs):
        counted.append(getattr(asked, "text", asked))  # the TUI's request, or the test's text
        return count(asked, **kwargs)

    def facets_spy(asked="", **kwargs):
        faceted.append(getattr(asked, "text", asked))
        return facets(asked, **kwargs)

    async def shown(query: str) -> None:
        await until(pilot, lambda: app.main.papers.query_text == query)

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.catalog.count, app.catalog.facets = count_spy, facets_spy
        await pilot.press("slash", "m", "o")  # the first letters of a word search nothing
        for ch, query in (("d", "mod*"), ("e", "mode*"), ("l", "model*")):
            await pilot.press(ch)
            await shown(query)  # each key's page came, its count and facets wait
        await pilot.pause(0.1)  # (had they not waited, they would come now)
        sidebar = app.main.query_one("#sidebar")
        assert (app.main.papers.total, counted, faceted) == (20, [], [])
        assert "/ 20+" in screen_text(app) and sidebar.has_class("-pending")
        clock[0] += search.SETTLE
        await settle(pilot)
        assert counted == ["model*"] and faceted == ["model*"]
        assert app.main.papers.total == seeded.count("model*") == 74
        assert "/ 74" in screen_text(app) and not sidebar.has_class("-pending")
        assert app.main.facets.query == "model*"


async def test_the_footer_is_rebuilt_only_when_a_paper_comes_or_goes(app, settle, type_search, monkeypatch):
    """Issue 16: every key that changed the results refreshed the footer's keys, which
    rebuilds the footer and lays the screen out again (more UI time than the list's page).
    The keys depend only on whether a paper is under the cursor (check_action): they are
    refreshed when the list empties and when a paper comes back, not in between."""
    from catalog.tui.widgets import search_bar

    # On a loaded machine a key could come more than SHORT_WORD_WAIT after the one before:
    # `graph ne` was then searched as the word `ne` (no paper), which this test is not about.
    monkeypatch.setattr(search_bar, "SHORT_WORD_WAIT", 60.0)
    async with app.run_test(size=SIZE) as pilot:
        await type_search(pilot, "graph")
        refreshed = []
        refresh = app.main.refresh_bindings
        app.main.refresh_bindings = lambda: (refreshed.append(app.main.papers.total), refresh())
        before = app.main.papers.total
        for ch in " neural":  # typed on: other results, each with a paper under the cursor
            await pilot.press(ch if ch != " " else "space")
            await pilot.pause(0.12)
        await settle(pilot)
        assert app.main.papers.total != before and refreshed == []
        app.main.search_bar.input.value = "zzqxv wwqyj"  # nothing matches: the paper keys go
        await settle(pilot, typing=True)
        assert refreshed == [0]
        app.main.search_bar.input.value = "graph"  # and come back
        await settle(pilot, typing=True)
        assert app.main.papers.total > 0 and refreshed == [0, app.main.papers.total]


@pytest.mark.parametrize("failures", [1, 99])
async def test_facets_that_fail_to_load_are_tried_again_or_said(app, settle, monkeypatch,
                                                               failures):
    """A busy database made the facets' worker give up silently: the sidebar stayed dimmed
    (its counts an earlier search's) until the next search. Now a failure is tried again a
    moment later; one that lasts is said, and the sidebar stays marked as out of date."""
    from catalog.errors import StoreError
    from catalog.tui.widgets import sidebar as facets_sidebar

    monkeypatch.setattr(facets_sidebar, "FACETS_RETRY", 0.01)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        facets, left = app.catalog.facets, [failures]

        def busy(query="", **kwargs):
            if left[0]:
                left[0] -= 1
                raise StoreError("database is locked")
            return facets(query, **kwargs)

        app.catalog.facets = busy
        await pilot.press("R")  # search again: the same results, their facets read again
        await settle(pilot)
        sidebar = app.main.query_one("#sidebar")
        if failures == 1:
            assert app.main.facets.query == app.main.papers.query_text
            assert not sidebar.has_class("-pending")
            assert "counts" not in toasts(app)
        else:
            assert sidebar.has_class("-pending")
            assert ("The sidebar's counts are an earlier search's: database is locked "
                    "(R counts again)") in toasts(app)
            app.catalog.facets = facets
            await pilot.press("R")
            await settle(pilot)
            assert not sidebar.has_class("-pending")


async def test_a_search_is_parsed_once_per_key(app, seeded, settle, type_search, monkeypatch, parses):
    """A key's first rows, the rest of its page, its count, its facets, the words the reading
    pane marks, suggestions, and the pages fetched later all come from one parse of its text
    (a search parsed it 5-6 times, and again for every page)."""
    from catalog.tui import search
    from catalog.tui.widgets import paper_list, search_bar

    monkeypatch.setattr(search, "PAGE", 10)  # pages past the first are fetched as it scrolls
    monkeypatch.setattr(paper_list, "PAGE", 10)
    monkeypatch.setattr(search, "FIRST", 5)  # the first rows, then the rest of the page
    monkeypatch.setattr(search_bar, "SHORT_WORD_WAIT", 60.0)  # no pause searches `mo` as a word
    found = seeded.count("model*")

    def once_each() -> bool:
        """Each text parsed once: the keys of one word each search another text."""
        return len(parses) == len(set(parses))

    async with app.run_test(size=(120, 12)) as pilot:
        await settle(pilot)
        parses.clear()
        await type_search(pilot, "model")
        await pilot.press("escape", "end", "up", "up")  # pages fetched, papers read
        await settle(pilot)
        papers = app.main.papers
        assert papers.total == found and len(papers.pages) > 1
        assert app.main.facets.query == "model*" and "model" in app.main.pane.text.lower()
        assert once_each() and parses[-1] == "model*"

        parses.clear()
        await type_search(pilot, "modle")  # nothing found: did you mean
        assert "Did you mean model?" in " ".join(t.plain for t in papers.message)
        assert once_each() and parses[-1] == "modle*"

        parses.clear()
        await pilot.press("escape", "O")  # the same text in another order: a search of its own
        await settle(pilot)
        assert parses == ["modle*"]


async def test_did_you_mean_is_accepted_with_one_key(app, seeded, settle, type_search):
    """Issue 32 / 31 want 8: the correction offered runs with Y (or enter on the empty
    list), and ctrl+o goes back to what was typed."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "atention")
        await settle(pilot)
        assert app.main.papers.total == 0
        assert "Y (or enter) searches it" in " ".join(t.plain for t in app.main.papers.message)
        await pilot.press("escape", "Y")
        await settle(pilot, typing=True)
        assert app.main.search_bar.value == "attention"
        assert app.main.papers.total == seeded.count("attention") > 0
        await pilot.press("ctrl+o")
        await settle(pilot, typing=True)
        assert app.main.search_bar.value == "atention"
        await pilot.press("enter")  # on the empty list: the correction too
        await settle(pilot, typing=True)
        assert app.main.search_bar.value == "attention"
        # Papers with some of the words listed: the line under the search bar offers it.
        await type_search(pilot, "atention sink")
        await settle(pilot)
        assert "(Y searches it)" in screen_text(app)
        await pilot.press("escape", "Y")
        await settle(pilot, typing=True)
        assert app.main.search_bar.value == "attention sink"
        # No correction offered: Y says nothing and changes nothing.
        await pilot.press("Y")
        await settle(pilot)
        assert app.main.search_bar.value == "attention sink"
