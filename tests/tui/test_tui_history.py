"""Back and forward through searches and jumps, as a browser's history (issue 31, want 4):
ctrl+o back, ctrl+i (alt+right) forward, each restoring the query, the order and the paper
under the cursor; a new search after going back drops the places ahead; kept with the
session, per catalog."""

from __future__ import annotations

from catalog.tui.app import CatalogApp
from catalog.tui.state import PLACES, StateStore, catalog_identity

SIZE = (120, 36)


def _shown(app) -> tuple[str, str | None]:
    main = app.main
    current = main.papers.current
    return main.search_bar.value, current.key if current else None


async def _search(pilot, type_search, settle, text: str, down: int = 0) -> None:
    """Type a search, settle on it (escape to the list) and move the cursor down."""
    await type_search(pilot, text)
    await pilot.press("escape", *["down"] * down)
    await settle(pilot)


async def test_ctrl_o_and_ctrl_i_walk_typed_searches_with_their_cursor(app, seeded, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _search(pilot, type_search, settle, "diffusion", down=2)
        diffusion = _shown(app)
        await _search(pilot, type_search, settle, "attention", down=1)
        attention = _shown(app)
        await _search(pilot, type_search, settle, "graph")
        assert app.main.papers.total == seeded.count("graph")
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert _shown(app) == attention
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert _shown(app) == diffusion and app.main.papers.total == seeded.count("diffusion")
        await pilot.press("ctrl+i")
        await settle(pilot)
        assert _shown(app) == attention
        await pilot.press("alt+right")  # where the terminal sends ctrl+i as tab
        await settle(pilot)
        assert _shown(app)[0] == "graph"
        await pilot.press("alt+left", "ctrl+o")
        await settle(pilot)
        assert _shown(app) == diffusion


async def test_a_new_search_after_going_back_drops_the_places_ahead(app, seeded, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _search(pilot, type_search, settle, "diffusion")
        await _search(pilot, type_search, settle, "attention")
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.main.check_action("walk", (1,)) is True
        await _search(pilot, type_search, settle, "graph")
        assert app.main.check_action("walk", (1,)) is None  # attention is gone
        await pilot.press("ctrl+i")
        await settle(pilot)
        assert _shown(app)[0] == "graph"
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert _shown(app)[0] == "diffusion"


async def test_going_back_restores_the_order_and_jumps_are_places(app, seeded, settle, type_search):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _search(pilot, type_search, settle, "diffusion")
        await pilot.press("O", "O")  # by year, then by rating
        await settle(pilot)
        order = str(app.main.searching.state.sort)
        await pilot.press("down")
        await settle(pilot)
        diffusion = _shown(app)
        app.main.run_saved(type("Saved", (), {"query": "venue:ICLR"})())  # a saved search: a jump
        await settle(pilot)
        await pilot.press("O")
        await settle(pilot)
        assert str(app.main.searching.state.sort) != order
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert _shown(app) == diffusion and str(app.main.searching.state.sort) == order
        await pilot.press("ctrl+i")
        await settle(pilot)
        assert _shown(app)[0] == "venue:ICLR"


async def test_the_places_come_back_with_the_session_for_this_catalog_only(seeded, settle, tmp_path, type_search):
    store = StateStore(tmp_path / "s.json", catalog_identity(str(seeded.store.path)))
    app = CatalogApp(seeded, cursor_blink=False, state=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _search(pilot, type_search, settle, "diffusion", down=1)
        diffusion = _shown(app)
        await _search(pilot, type_search, settle, "attention")
    again = CatalogApp(seeded, cursor_blink=False, state=store)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _shown(again)[0] == "attention"
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert _shown(again) == diffusion
    other = StateStore(tmp_path / "s.json", "/another/catalog.db").load()
    assert other.back == [] and other.forward == []
    state = store.load()
    state.back = [state.back[0]] * (PLACES + 20)
    store.save(state)
    assert len(store.load().back) == PLACES
