"""What the screen shows: nothing cut mid-word or without an ellipsis, rendered emphasis and
math, notes as Markdown."""

from __future__ import annotations

from tests.tui.conftest import screen_text, toasts

SIZE = (120, 36)


async def test_the_title_dialog_hint_is_shown_whole_at_120_columns(app, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        shown = " ".join(screen_text(app, app.screen.query_one(".dialog-hint")).split())
        assert "empty goes back to the derived headline · escape cancels" in shown


async def test_toasts_shorten_long_titles_with_an_ellipsis(app, seeded, settle):
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        title = app.main.papers.current.title
        assert len(title) > 40
        await pilot.press("s", "3")
        await settle(pilot)
        message = toasts(app)
        assert "…: reading" in message, message
        shown = message.split("…")[0]
        assert title.startswith(shown) and len(shown) <= 40
        assert title[len(shown)] in " ,;:-", "cut at a word boundary"


async def test_the_empty_catalog_message_wraps_at_100_columns(empty_catalog, settle):
    from catalog.tui.app import CatalogApp

    app = CatalogApp(empty_catalog, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        shown = " ".join(screen_text(app, app.main.papers).split())
        assert "Import paper lists (text files, one abstract per paragraph) in a terminal:" in shown
        assert "then press R here to see them." in shown
