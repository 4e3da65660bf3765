"""One long-running process for tests/test_concurrency.py: tags, searches or drives the TUI
against a shared catalog until a deadline, then prints a JSON summary on stdout.

    python -m tests.concurrency_worker tagger DB SECONDS NAME KEY...
    python -m tests.concurrency_worker reader DB SECONDS
    python -m tests.concurrency_worker tui    DB SECONDS

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


def tagger(catalog: Watched, deadline: float, name: str, keys: list[str]) -> dict:
    """Adds `name`N tags to a few of `keys` at a time, and now and then removes an earlier one;
    returns the tags each key must end with."""
    rng = random.Random(name)
    expected: dict[str, set[str]] = {k: set() for k in keys}
    i = 0
    while time.monotonic() < deadline:
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
    return {"expected": {k: sorted(v) for k, v in expected.items()}}


def reader(catalog: Watched, deadline: float) -> dict:
    rng = random.Random(1)
    while time.monotonic() < deadline:
        try:
            hits = catalog.search(rng.choice(WORDS), limit=20)
            if hits:
                catalog.get(hits[0].key)
        except Exception:
            pass
    return {}


async def _drive_tui(catalog: Watched, deadline: float) -> dict:
    from catalog.tui.app import CatalogApp

    app = CatalogApp(catalog, cursor_blink=False)
    rng = random.Random(2)
    hints: list[str] = []
    searches = 0
    async with app.run_test(size=(120, 36)) as pilot:
        while time.monotonic() < deadline:
            app.main.search(rng.choice(WORDS))
            searches += 1
            await pilot.pause(0.05)
            for _ in range(3):
                await pilot.press("down")
            await pilot.pause(0.05)
            if searches % 10 == 0:
                app.main.action_refresh()
            hint = str(app.main.query_one("#search-hint").render())
            if "⚠" in hint:
                hints.append(hint)
        await pilot.pause(0.3)
    return {"searches": searches, "warnings": hints}


def main(argv: list[str]) -> int:
    role, db, seconds, *rest = argv
    deadline = time.monotonic() + float(seconds)
    summary: dict = {"role": role}
    catalog = Watched.open(Path(db))
    try:
        if role == "tagger":
            summary.update(tagger(catalog, deadline, rest[0], rest[1:]))
        elif role == "reader":
            summary.update(reader(catalog, deadline))
        elif role == "tui":
            summary.update(asyncio.run(_drive_tui(catalog, deadline)))
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
