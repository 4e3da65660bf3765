"""Regenerate docs/tui.svg: the TUI on the bundled seeds, a few papers tagged and rated, a search
typed and a paper open. Textual saves the screen as SVG.

    .venv/bin/python docs/screenshot.py
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE = (120, 36)


async def shoot(folder: Path) -> None:
    os.environ["CATALOG_STATE_DIR"] = str(folder / "state")  # not the user's remembered query
    os.environ["CATALOG_DISCOVER_REFRESH"] = "off"
    from catalog.library import Catalog
    from catalog.tui.app import CatalogApp

    catalog = Catalog.open(folder / "catalog.db")
    catalog.import_paths([HERE.parent / "seeds"])
    keys = [p.key for p in catalog.search("attention", limit=6, snippets=False)]
    catalog.tag(keys[:3], add=["project/thesis"])
    catalog.tag(keys[2:5], add=["toread"])
    catalog.set_rating(keys[:2], 5)
    catalog.set_rating(keys[2:4], 4)
    catalog.set_status(keys[:2], "reading")
    catalog.set_status(keys[2:3], "read")
    catalog.add_note(keys[0], "Check the proof of Thm 2")
    app = CatalogApp(catalog, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.5)
        await pilot.press("slash", *"attention", "enter")
        await pilot.pause(1.5)
        await pilot.press("escape", "down")
        await pilot.pause(1.0)
        app.save_screenshot(filename="tui.svg", path=str(HERE))
    catalog.close()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(shoot(Path(folder)))
    print(HERE / "tui.svg")
