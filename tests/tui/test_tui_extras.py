"""Without the [discover] extra the TUI still opens and searches; `m` and the Topics facet say
in one line which extra to install (tests/test_extras.py covers the CLI on a real
installation without it)."""

from __future__ import annotations

import importlib.util

from catalog import extras
from catalog.tui.screens.similar import SimilarScreen

SIZE = (120, 36)
INSTALL = "pip install 'catalog[discover]'"


def _without_discovery(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(extras, "find_spec",
                        lambda name: None if name in ("numpy", "scipy", "sklearn") else real(name))


async def test_m_says_which_extra_discovery_needs(app, seeded, settle, type_search, monkeypatch):
    _without_discovery(monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_search(pilot, "attention")
        assert app.main.papers.total == seeded.count("attention")  # search works as before
        await pilot.press("escape", "m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SimilarScreen)
        hint = str(screen.query_one("#similar-hint").render())
        assert INSTALL in hint and "\n" not in hint.strip()
        await pilot.press("escape")
        app.main.sidebar.find_topics()  # the Topics facet's "find topics"
        await settle(pilot)
        shown = [str(n.message) for n in app._notifications]
        assert any(INSTALL in message and "Cannot find topics" in message for message in shown), shown
