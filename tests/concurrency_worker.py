"""One long-running process for tests/test_concurrency.py: tags, searches or drives the TUI
against a shared catalog until the test says stop, then prints a JSON summary on stdout.

    python -m tests.concurrency_worker tagger DB RUN NAME KEY...
    python -m tests.concurrency_worker reader DB RUN
    python -m tests.concurrency_worker tui    DB RUN

RUN is a folder: after each operation the worker writes how many it has done to RUN/ROLE-NAME
(the test waits on those counts, not on a time window) and it stops once RUN/stop exists.

Every exception is caught and reported in the summary (the test fails on any), so a
"database is locked" anywhere is seen, not swallowed.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
import traceback
from pathlib import Path

from catalog.errors import Interrupted
from catalog.library import Catalog

WORDS = ["attention", "influence", "graph", "protein", "sparse", "bayesian", "tag:a0", "status:read",
         "venue:ICML", "year:2016..2026", "model*", "transformer OR diffusion", "-graph learning"]


class Watched(Catalog):
    """Counts operations and records every exception, including those a UI would swallow."""

    ops = 0
    interrupted = 0
    errors: list[str] = []

    def _watch(self, fn, *args, **kwargs):
        try:
            result = fn(*args, **kwargs)
        except Interrupted:
            # The TUI stopping work it no longer wants (a newer search replaced it) is by design.
            Watched.interrupted += 1
            raise
        except Exception as exc:
            Watched.errors.append(f"{type(exc).__name__}: {exc}")
            raise
        Watched.ops += 1
        return result

    def search(self, *a, **k):
        return self._watch(super().search, *a, **k)

    def count(self, *a, **k):
        return self._watch(super().count, *a, **k)

    def get(self, *a, **k):
        return self._watch(super().get, *a, **k)

    def facets(self, *a, **k):
        return self._watch(super().facets, *a, **k)

    def tag(self, *a, **k):
        return self._watch(super().tag, *a, **k)


# A worker whose test died never hears stop: it ends by itself this long after it started.
ORPHANED = 1800


class Run:
    """The folder a test and its workers share: progress counts, and the stop sign."""

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)
        self.orphaned = time.monotonic() + ORPHANED

    def going(self) -> bool:
        return not (self.folder / "stop").exists() and time.monotonic() < self.orphaned

    def stop(self) -> None:
        (self.folder / "stop").touch()

    def report(self, worker: str, done: int) -> None:
        (self.folder / f"{worker}.tmp").write_text(str(done))
        (self.folder / f"{worker}.tmp").replace(self.folder / worker)  # never read half-written

    def done(self, worker: str) -> int:
        try:
            return int((self.folder / worker).read_text())
        except FileNotFoundError:
            return 0


def tagger(catalog: Watched, run: Run, name: str, keys: list[str]) -> dict:
    """Adds `name`N tags to a few of `keys` at a time, and now and then removes an earlier one;
    returns the tags each key must end with."""
    rng = random.Random(name)
    expected: dict[str, set[str]] = {k: set() for k in keys}
    i = 0
    while run.going():
        chosen = rng.sample(keys, 3)
        tag = f"{name}{i}"
        remove = []
        if i % 4 == 3:
            # Take one of this tagger's tags off one of the chosen papers.
            mine = sorted(expected[chosen[0]])
            if mine:
                remove = [rng.choice(mine)]
        try:
            catalog.tag(chosen, add=[tag])
            for k in chosen:
                expected[k].add(tag)
            if remove:
                catalog.tag([chosen[0]], remove=remove)
                expected[chosen[0]].discard(remove[0])
        except Exception:
            pass  # recorded by Watched
        i += 1
        run.report(f"tagger-{name}", Watched.ops)
    return {"expected": {k: sorted(v) for k, v in expected.items()}}


def reader(catalog: Watched, run: Run) -> dict:
    rng = random.Random(1)
    while run.going():
        try:
            hits = catalog.search(rng.choice(WORDS), limit=20)
            if hits:
                catalog.get(hits[0].key)
        except Exception:
            pass
        run.report("reader", Watched.ops)
    return {}


async def _settled(app) -> None:
    """Until the app and every widget on its screen have handled what was sent to them before,
    however long a loaded machine takes. (Pilot's press and pause give up after a fixed 30 s
    and raise WaitForScreenTimeout: on a loaded CI machine the session ended early on that.
    A real hang is the test's to catch: it waits on progress, HANG seconds at most.)"""
    loop = asyncio.get_running_loop()
    handled = []
    for node in [app, *app.screen.walk_children(with_self=True)]:
        future = loop.create_future()
        if node.call_later(lambda f=future: f.done() or f.set_result(None)):
            handled.append(future)
    if handled:
        await asyncio.wait(handled)


async def _drive_tui(catalog: Watched, run: Run) -> dict:
    from catalog.tui.app import CatalogApp

    app = CatalogApp(catalog, cursor_blink=False)
    rng = random.Random(2)
    hints: list[str] = []
    searches = 0

    async def drive(_pilot) -> None:
        # Keys as a user types them, each handled before the next (no Pilot waits: see _settled).
        nonlocal searches
        await _settled(app)
        while run.going():
            app.main.search(rng.choice(WORDS))
            searches += 1
            await asyncio.sleep(0.05)
            await _settled(app)
            for _ in range(3):
                app.simulate_key("down")
                await _settled(app)
            await asyncio.sleep(0.05)
            if searches % 10 == 0:
                app.main.action_refresh()
            hint = str(app.main.query_one("#search-hint").render())
            if "⚠" in hint:
                hints.append(hint)
            run.report("tui", searches)
        await asyncio.sleep(0.3)
        await _settled(app)
        app.exit()

    # run_async, not run_test: run_test too waits on the first screen for 30 s at most.
    await app.run_async(headless=True, size=(120, 36), auto_pilot=drive)
    if app.return_code:  # the app itself failed (its traceback is on stderr)
        raise RuntimeError(f"the TUI ended with status {app.return_code}")
    return {"searches": searches, "warnings": hints}


def main(argv: list[str]) -> int:
    role, db, folder, *rest = argv
    run = Run(folder)
    summary: dict = {"role": role}
    from catalog.paths import location_of

    catalog = Watched.open(location_of(db))  # a file, or a postgresql:// URL
    try:
        if role == "tagger":
            summary.update(tagger(catalog, run, rest[0], rest[1:]))
        elif role == "reader":
            summary.update(reader(catalog, run))
        elif role == "tui":
            summary.update(asyncio.run(_drive_tui(catalog, run)))
        else:
            raise SystemExit(f"unknown role {role}")
    except Exception:
        Watched.errors.append(traceback.format_exc())
    finally:
        catalog.close()
    summary.update(ops=Watched.ops, errors=Watched.errors)
    print(json.dumps(summary))
    return 1 if Watched.errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
