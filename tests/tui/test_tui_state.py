"""The session is remembered: query, paper, sidebar, theme and search history come back."""

from __future__ import annotations

import json

from catalog.tui.app import CatalogApp
from catalog.tui.state import HISTORY, State, StateStore, catalog_identity
from tests.tui.conftest import statics_text

SIZE = (120, 36)


async def test_the_session_comes_back(seeded, settle, tmp_path, type_search):
    store = StateStore(tmp_path / "state" / "tui-state.json")
    app = CatalogApp(seeded, cursor_blink=False, state=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "diffusion")
        await pilot.press("enter", "j", "j", "b")  # third paper; sidebar hidden
        await settle(pilot)
        key = app.main.papers.current.key
        app.theme = "catppuccin-latte"
        await pilot.pause()
    saved = json.loads(store.path.read_text())
    place = saved["catalogs"][catalog_identity(seeded.location)]  # this catalog's place
    assert place["query"] == "diffusion" and place["key"] == key
    assert saved["sidebar"] is False and saved["theme"] == "catppuccin-latte"
    assert saved["history"] == ["diffusion"]
    assert not list(store.path.parent.glob("*.tmp"))  # written atomically

    again = CatalogApp(seeded, cursor_blink=False, state=store)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        main = again.main
        assert main.search_bar.value == "diffusion"
        assert main.papers.total == seeded.count("diffusion")
        assert main.papers.current.key == key and main.papers.cursor == 2
        assert not again.query_one("#sidebar").display
        assert again.theme == "catppuccin-latte"


async def test_a_corrupt_or_unreadable_session_is_ignored(seeded, settle, tmp_path):
    path = tmp_path / "tui-state.json"
    for content in ("{not json", json.dumps({"version": 1, "query": 5, "history": "x", "sort": "author",
                                             "theme": "no-such-theme", "key": ["k"]}),
                    json.dumps([1, 2]), "\x00\xff"):
        path.write_text(content, encoding="latin-1")
        app = CatalogApp(seeded, cursor_blink=False, state=StateStore(path))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert app.main.papers.total == 90 and app.main.search_bar.value == ""
    unwritable = StateStore(tmp_path / "file" / "tui-state.json")
    (tmp_path / "file").write_text("a file, not a directory")
    assert unwritable.load() == State()
    assert unwritable.save(State(query="x")) is False


def test_the_state_directory_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_STATE_DIR", str(tmp_path / "st"))
    store = StateStore.default()
    assert store.path.parent == tmp_path / "st"
    session = State()
    for i in range(HISTORY + 5):
        session.remember(f"q{i}")
    session.remember("q10  ")  # again: moved to the end, not repeated
    assert len(session.history) == HISTORY and session.history[-1] == "q10"
    assert session.history.count("q10") == 1
    assert store.save(session)
    assert store.load() == session


async def test_search_history_walks_earlier_queries(seeded, settle, tmp_path, type_search):
    store = StateStore(tmp_path / "s.json")
    store.save(State(history=["graph", "venue:ICML"]))
    app = CatalogApp(seeded, cursor_blink=False, state=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "diffusion")
        await pilot.press("enter")  # remembered
        await settle(pilot)
        bar = app.main.search_bar
        await pilot.press("slash", "ctrl+u", *"att", "up")
        await settle(pilot)
        assert bar.value == "diffusion" and app.main.papers.total == seeded.count("diffusion")
        await pilot.press("up", "up")
        await settle(pilot)
        assert bar.value == "graph"
        await pilot.press("up")  # the oldest: stays
        assert bar.value == "graph"
        await pilot.press("down", "down", "down")  # back to what was typed
        await settle(pilot)
        assert bar.value == "att" and app.focused is bar.input
        await pilot.press("down")  # past the newest: the list
        assert app.focused is app.main.papers
    assert store.load().history == ["graph", "venue:ICML", "diffusion", "att"]


def test_triage_places_are_kept_per_query_and_bad_ones_dropped():
    state = State.from_json({"version": 1, "triage": {
        "venue:ICML": {"key": "abc", "passed": ["x", 3, "y"]},
        "bad": ["not", "a", "dict"], "worse": {"key": 5, "passed": "x"}}})
    assert state.triage_place("venue:ICML") == ("abc", ["x", "y"])
    assert state.triage_place("  venue:ICML ") == ("abc", ["x", "y"])  # spaces do not matter
    assert state.triage_place("worse") == (None, [])
    assert state.triage_place("bad") == (None, [])
    for i in range(60):
        state.remember_triage(f"q{i}", "k", [])
    assert len(state.triage) == 50 and state.triage_place("q59") == ("k", [])
    assert state.triage_place("venue:ICML") == (None, [])  # the oldest went


async def test_each_catalog_has_its_own_place_and_shares_the_person_s_settings(seeded, settle, tmp_path, type_search):
    from catalog.library import Catalog

    store = StateStore(tmp_path / "state" / "tui-state.json")
    app = CatalogApp(seeded, cursor_blink=False, state=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "diffusion")
        await pilot.press("enter", "j", "O")  # second paper, by year
        await settle(pilot)
        app.theme = "catppuccin-latte"
        await pilot.pause()

    other = Catalog.open(tmp_path / "other.db")  # a second, empty catalog
    try:
        fresh = CatalogApp(other, cursor_blink=False, state=store)
        async with fresh.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert fresh.main.search_bar.value == ""  # not the first catalog's query
            assert fresh.main.papers.sort.field == "relevance"
            assert fresh.theme == "catppuccin-latte"  # the person's
            await type_search(pilot, "zebra")
            await pilot.press("enter")
            await settle(pilot)
    finally:
        other.close()

    back = CatalogApp(seeded, cursor_blink=False, state=store)
    async with back.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert back.main.search_bar.value == "diffusion"  # its own, kept while the other ran
        assert {"diffusion", "zebra"} <= set(back.main.remembered.history)  # the person's, shared


def test_a_file_from_before_keeps_the_settings_and_drops_the_unknown_catalog_s_place(tmp_path):
    path = tmp_path / "tui-state.json"
    path.write_text(json.dumps({"version": 1, "query": "old", "key": "abc", "theme": "nord",
                                "history": ["old"], "triage": {"x": {"key": "k", "passed": []}}}))
    state = StateStore(path, "/some/catalog.db").load()
    assert state.query == "" and state.key is None and state.triage == {}
    assert state.theme == "nord" and state.history == ["old"]


async def test_marks_come_back_with_the_session(seeded, settle, tmp_path, type_search):
    """Issue 31 want 10: the marks (of papers in any search) are there again next time, for
    this catalog only; papers deleted since are not."""
    store = StateStore(tmp_path / "s.json", catalog_identity(str(seeded.store.path)))
    app = CatalogApp(seeded, cursor_blink=False, state=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space")
        await type_search(pilot, "diffusion ")
        await pilot.press("escape", "space")
        await settle(pilot)
        marked = set(app.main.papers.marked)
    assert len(marked) == 3
    again = CatalogApp(seeded, cursor_blink=False, state=store)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert set(again.main.papers.marked) == marked
        assert "3 marked" in statics_text(again)
    other = StateStore(tmp_path / "s.json", "/another/catalog.db").load()
    assert other.marks == []


def test_every_paper_of_a_real_library_marked_comes_back_marked(tmp_path):
    """16,378 papers marked (a real library, all of it): 5,000 came back, and nothing said
    the other 11,378 were dropped."""
    store = StateStore(tmp_path / "s.json", "/my/library.db")
    marks = [f"k{i:07d}" for i in range(16378)]
    assert store.save(State(marks=marks))
    assert store.load().marks == marks


async def test_marking_more_than_the_session_keeps_says_so(seeded, settle, tmp_path, monkeypatch):
    """Marks past the newest 100,000 were dropped from the session without a word: marking
    more says, once, how many come back next time (here the limit is 40, of 90 papers)."""
    from catalog.tui.screens import main as main_screen
    from tests.tui.conftest import toasts

    monkeypatch.setattr(main_screen, "MARKS", 40)
    store = StateStore(tmp_path / "s.json", catalog_identity(str(seeded.store.path)))
    app = CatalogApp(seeded, cursor_blink=False, state=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space", "space")
        assert "session" not in toasts(app)
        await pilot.press("ctrl+a")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert len(app.main.papers.marked) == 90
        said = [t for t in toasts(app).split(" | ") if "session" in t]
        assert said == ["90 papers marked: the next session brings back the newest 40 marks only"]
        await pilot.press("space", "space")  # the marks change, still past the limit: said once
        await settle(pilot)
        assert len([t for t in toasts(app).split(" | ") if "session" in t]) == 1
    assert len(store.load().marks) == 40
