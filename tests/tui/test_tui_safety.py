"""Imported text is shown literally; database work stays off the UI thread; no sessions."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from textual.geometry import Region

from catalog.library import Catalog
from catalog.tui.app import CatalogApp
from catalog.tui.widgets.detail import DetailPane

HOSTILE = ("We study [bold red]x[/] and [link=http://e]y[/link] with \x1b[31mred\x1b[0m text, "
           "[/] stray closers, \x07bells and \x1b]8;;http://evil\x1b\\hyperlinks\x1b]8;;\x1b\\ too.")


async def test_markup_and_escapes_in_an_abstract_render_literally(tmp_path, settle):
    lists = tmp_path / "lists"
    lists.mkdir()
    (lists / "evil.txt").write_text(f"Evil 2026 Papers\n\n{HOSTILE}\n", encoding="utf-8")
    catalog = Catalog.open(tmp_path / "c.db")
    catalog.import_paths([lists])
    catalog.add_note(catalog.search("")[0].key, "note with [b]markup[/b] and \x1b[2J")
    app = CatalogApp(catalog, cursor_blink=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        pane = app.query_one(DetailPane)
        text = pane.text
        for literal in ("[bold red]x[/]", "[link=http://e]y[/link]", "[/] stray", "[b]markup[/b]"):
            assert literal in text
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)
        body = pane.query_one("#detail-body")
        strips = body.render_lines(Region(0, 0, body.size.width, body.size.height))
        shown = "\n".join("".join(seg.text for seg in strip) for strip in strips)
        assert "[bold red]x[/]" in shown
        styles = [seg.style for strip in strips for seg in strip if seg.style]
        assert not any(s.link for s in styles)
        assert not any(s.color and s.color.name == "red" for s in styles)
    catalog.close()


class Recording:
    """A Catalog stand-in that notes which thread each call ran on."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self.threads: list[tuple[str, str]] = []

    def __getattr__(self, name):
        value = getattr(self._catalog, name)
        if not callable(value):
            return value

        def call(*args, **kwargs):
            self.threads.append((name, threading.current_thread().name))
            return value(*args, **kwargs)

        return call


async def test_database_work_runs_in_worker_threads(seeded, settle):
    recording = Recording(seeded)
    app = CatalogApp(recording, cursor_blink=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("j", "j", "s", "2")
        await settle(pilot)
        await pilot.press("t", "x", "enter")
        await settle(pilot)
        await pilot.press("u", "R", "end", "home")
        await settle(pilot)
    names = {name for name, _ in recording.threads}
    assert {"search", "get", "facets", "set_status", "tag", "undo"} <= names
    main = threading.main_thread().name
    assert all(thread != main for _, thread in recording.threads), recording.threads


def test_the_tui_never_touches_sessions_or_sql():
    source = Path(__file__).resolve().parents[2] / "catalog" / "tui"
    for path in source.rglob("*.py"):
        code = path.read_text(encoding="utf-8")
        for forbidden in ("sqlalchemy", "sqlmodel", "Session", "sqlite3", "exec_driver_sql",
                          "from_markup", "Text.from_markup"):
            assert forbidden not in code, f"{path.name} mentions {forbidden}"


def test_the_app_itself_handles_no_messages():
    """Widget messages are handled by the catalog screen, which handles what is queued while it
    closes with its widgets still there and drops what comes later. A handler on the App would
    run after the screens are gone, and anything it does with the screen raises
    ScreenStackError (the race a loaded machine hit on close)."""
    from catalog.tui.app import CatalogApp

    handlers = [name for klass in CatalogApp.__mro__ if klass.__module__.startswith("catalog")
                for name, value in vars(klass).items()
                if name.startswith(("on_", "_on_")) or hasattr(value, "_textual_on")]
    assert handlers == []


async def test_closing_while_answers_arrive(seeded, settle):
    """Quit at once after keys that start searches, page loads and detail loads."""
    for keys in (["j"], ["slash", "d"], ["end"], ["slash", "d", "i", "f"], ["j", "j", "j"]):
        app = CatalogApp(seeded, cursor_blink=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            await pilot.press(*keys)
        # run_test re-raises what a handler raised while the app closed


async def test_o_opens_only_web_links_and_the_browser_never_writes_on_the_screen(
        tmp_path, settle, type_search, monkeypatch, capfd):
    import shlex
    import sqlite3

    from tests.tui.conftest import toasts

    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title = {Local file}, abstract = {Kept before links were checked.},"
                   " url = {https://example.com/a}}\n"
                   "@article{b, title = {Web page}, abstract = {An ordinary link.},"
                   " url = {https://example.com/b?x=1&y=(2)}}\n", encoding="utf-8")
    catalog = Catalog.open(tmp_path / "c.db")
    catalog.import_paths([bib])
    conn = sqlite3.connect(tmp_path / "c.db")  # what a catalog made before links were checked may hold
    conn.execute("UPDATE paper SET url = 'file:///usr/share/applications/evil.desktop' WHERE title = 'Local file'")
    conn.commit()
    conn.close()
    log = tmp_path / "browser.log"
    # A browser that talks on both outputs, as many do.
    monkeypatch.setenv("BROWSER", f"""sh -c 'echo NOISE; echo NOISE >&2; echo "$1" >> "$0"' """
                                  f"{shlex.quote(str(log))} %s")
    app = CatalogApp(catalog, cursor_blink=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for title in ("Local file", "Web page"):
            await type_search(pilot, title.lower())
            await pilot.press("enter", "o")
            await settle(pilot)
    assert "only http and https links are opened (file:)" in toasts(app)
    assert "Opened https://example.com/b?x=1&y=(2)" in toasts(app)
    assert log.read_text().splitlines() == ["https://example.com/b?x=1&y=(2)"]
    captured = capfd.readouterr()
    assert "NOISE" not in captured.out + captured.err
