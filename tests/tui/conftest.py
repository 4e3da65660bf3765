"""TUI fixtures: the app on a seeded temp catalog, and a way to wait until it is idle."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from time import monotonic

import pytest

from textual._context import active_app

from catalog.tui.app import CatalogApp

REPO = Path(__file__).resolve().parents[2]


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run `async def` tests with asyncio.run (no pytest-asyncio needed for Pilot)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        names = pyfuncitem._fixtureinfo.argnames
        asyncio.run(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
        return True
    return None


async def _keys_handled(min_sleep: float = 0, max_sleep: float = 1) -> None:
    """Between two keys Pilot waits until the process looks idle by its CPU time, which on a
    loaded machine (this process starved of CPU) returns before the key is handled: the next
    key then goes to the widget focused before (enter and S typed 'S' into the search bar,
    tests/tui/test_tui_actions.py). Wait instead until every message queue of the app and its
    screens is empty, the key's own messages (Submitted bubbling up, the focus moving) too."""
    import textual._wait

    await textual._wait.wait_for_idle(min_sleep, max_sleep)  # what Pilot does, then the condition
    app = active_app.get()
    deadline = monotonic() + 10
    quiet = 0
    while quiet < 3 and monotonic() < deadline:
        await asyncio.sleep(0)
        pumps = [app]
        for screen in app.screen_stack:
            pumps += screen.walk_children(with_self=True)
        quiet = 0 if any(not p._message_queue.empty() for p in pumps) else quiet + 1


@pytest.fixture(autouse=True)
def true_colour_terminal(monkeypatch):
    """Every app sees a true-colour terminal, whatever runs the tests: in a 256-colour one
    (TERM=xterm-256color, COLORTERM unset) text colours move further (catalog/tui/colors.py),
    and snapshots would differ from machine to machine."""
    monkeypatch.setenv("COLORTERM", "truecolor")


@pytest.fixture(autouse=True)
def keys_one_at_a_time(monkeypatch):
    """Pilot's key presses wait on the condition (every queue drained), not on the clock."""
    import textual.app

    monkeypatch.setattr(textual.app, "wait_for_idle", _keys_handled)


@pytest.fixture(autouse=True)
def toasts_kept(monkeypatch):
    """Every notification the app posts, kept for `toasts`: a toast leaves the screen after its
    timeout (3 s for an edit's), and on a loaded machine waiting for the workers can take
    longer, so reading the toasts still on screen found none."""
    import textual.app

    notify = textual.app.App.notify

    def kept(self, message, *args, **kwargs):
        self.__dict__.setdefault("posted_toasts", []).append(str(message))
        return notify(self, message, *args, **kwargs)

    monkeypatch.setattr(textual.app.App, "notify", kept)


@pytest.fixture
def app(seeded, monkeypatch):
    # Source paths are shown relative to the working directory: the same on every checkout.
    monkeypatch.chdir(REPO)
    return CatalogApp(seeded, cursor_blink=False)


@pytest.fixture
def settle():
    """Wait until workers are done and their messages handled (and the debounce has fired)."""

    async def wait(pilot, typing: bool = False) -> None:
        if typing:
            await pilot.pause(0.15)
        for _ in range(3):
            await workers_done(pilot.app)
            await pilot.pause()

    return wait


async def workers_done(app, timeout: float = 30) -> None:
    """Until no worker is pending or running. A worker a newer one replaced (an exclusive
    group: the facets of a search typed over) ends cancelled, which is done too; Textual's
    wait_for_complete raises WorkerCancelled for it instead, a race lost on a busy machine.
    A worker that failed still fails the test."""
    from textual.worker import WorkerFailed, WorkerState

    deadline = monotonic() + timeout
    while monotonic() < deadline:
        active = [w for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        if not active:
            return
        started = [w for w in active if w.state is WorkerState.RUNNING]
        for outcome in await asyncio.gather(*(w.wait() for w in started), return_exceptions=True):
            if isinstance(outcome, WorkerFailed):
                raise outcome
        if len(started) < len(active):  # not started yet: wait() refuses those
            await asyncio.sleep(0.01)
    raise AssertionError(f"workers still running after {timeout} s: {[w.name for w in active]}")


async def until(pilot, condition, timeout: float = 30) -> None:
    """Until `condition()` holds, handling the app's messages meanwhile."""
    deadline = monotonic() + timeout
    while not condition() and monotonic() < deadline:
        await pilot.pause(0.02)
    assert condition(), "it never happened"


async def paste_path(pilot, path) -> None:
    """Replace the focused input's text with `path` as a terminal pastes it (one event), then
    enter. Typed key by key, a tmp path (80 characters) took 8-40 s on a loaded machine."""
    from textual import events

    await pilot.press("ctrl+u")
    pilot.app.focused.post_message(events.Paste(str(path)))
    await pilot.press("enter")


async def palette_offers(pilot, words: str) -> None:
    """Until the command palette's first command names `words`: the palette searches its
    providers in a worker, and a fixed pause (0.5 s) lost that race on a loaded machine."""
    from textual.command import CommandList

    found = pilot.app.screen.query_one(CommandList)
    await until(pilot, lambda: found.option_count > 0 and words in str(found.get_option_at_index(0).prompt))


@pytest.fixture
def change_shown(settle):
    """Wait until the app has seen a change made elsewhere and shown it: `seen` is the
    version it had seen before (ChangeWatch, which reads it every POLL seconds)."""
    from catalog.tui.watching import ChangeWatch

    async def wait(pilot, seen: int | None) -> None:
        watch = pilot.app.main.query_one(ChangeWatch)
        await until(pilot, lambda: watch.version != seen)
        await settle(pilot)

    return wait


@pytest.fixture
def type_search(settle):
    """Focus the search bar, replace its text, and wait for the results."""

    async def run(pilot, text: str) -> None:
        await pilot.press("slash")
        pilot.app.main.search_bar.input.value = ""
        for ch in text:
            await pilot.press(ch if ch != " " else "space")
        await settle(pilot, typing=True)

    return run


def screen_text(app, widget=None) -> str:
    """What the terminal shows now, line by line (dialogs included); only the part inside
    `widget` when one is given."""
    strips = app.screen._compositor.render_strips()
    if widget is not None:
        r = widget.region
        strips = [strip.crop(r.x, r.right) for strip in strips[r.y:r.bottom]]
    return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in strips)


def toasts(app) -> str:
    """What the app's notifications said, on screen or gone (toasts_kept)."""
    return " | ".join(app.__dict__.get("posted_toasts", []))


def statics_text(app, width: int = 200) -> str:
    """The text of every Static on the current screen (a dialog's, say), as rendered."""
    import io

    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO())
    for widget in app.screen.query("Static"):
        console.print(widget.content)
    return console.export_text()
def facet_node(sidebar, start: str):
    """The first node of the sidebar's tree whose label starts with `start`, or None."""

    def walk(node):
        for child in node.children:
            if child.label.plain.removeprefix("● ").startswith(start):
                return child
            found = walk(child)
            if found is not None:
                return found
        return None

    return walk(sidebar.root)
