"""Tagging every paper of a catalog in the TUI, and undoing it: ctrl+a (yes), t, a tag, enter,
then u, driven by Textual's Pilot (120x36) on a fresh copy of the catalog each run.

    python -m benchmarks.tui_bulk DB [--runs 2] [--against DIR]

Times enter -> "Tagged N papers" on screen against the write itself (Catalog.tag, timed inside
the same process), and u -> "Undone" against Catalog.undo: what the TUI adds to the database's
work. `--against DIR`: another checkout's code (on PYTHONPATH) runs the same session,
alternated with this one's. Each session is its own process; the load is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TAG = "bulkbench"


async def _session(db: Path) -> dict:
    import asyncio

    from catalog.library import Catalog
    from catalog.tui.app import CatalogApp
    from catalog.tui.screens.confirm import ConfirmScreen
    from catalog.tui.screens.tag_editor import TagEditor

    spans: dict[str, float] = {}

    def timed(name: str):
        original = getattr(Catalog, name)

        def run(self, *args, **kwargs):
            start = time.perf_counter()
            try:
                return original(self, *args, **kwargs)
            finally:
                spans[name] = time.perf_counter() - start
        setattr(Catalog, name, run)

    timed("tag")
    timed("undo")
    app = CatalogApp(Catalog.open(db), cursor_blink=False)
    said: list[str] = []
    notify = app.notify
    app.notify = lambda message, *a, **k: said.append(str(message)) or notify(message, *a, **k)

    async def until(condition, limit: float = 600) -> None:
        end = time.perf_counter() + limit
        while not condition():
            if time.perf_counter() > end:
                raise TimeoutError
            await asyncio.sleep(0.01)

    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(2)
        await pilot.press("ctrl+a")
        await until(lambda: isinstance(app.screen, ConfirmScreen))
        total = app.main.papers.total
        await pilot.press("y")
        await until(lambda: len(app.main.papers.marked) == total)
        await pilot.press("t")
        await until(lambda: isinstance(app.screen, TagEditor))
        app.screen.query_one("#tag-input").value = TAG
        start = time.perf_counter()
        await pilot.press("enter")
        await until(lambda: any(s.startswith("Tagged") for s in said))
        tagged = time.perf_counter() - start
        await pilot.pause(1)
        start = time.perf_counter()
        await pilot.press("u")
        await until(lambda: any(s.startswith("Undone") for s in said))
        undone = time.perf_counter() - start
    return {"papers": total, "tagged": tagged, "tag": spans["tag"], "undone": undone, "undo": spans["undo"]}


def _probe(db: Path) -> None:
    import asyncio

    print(json.dumps(asyncio.run(_session(db))))


def _run(db: Path, code: Path, folder: Path) -> dict:
    copy = folder / "run.db"
    shutil.copy(db, copy)
    for extra in ("-wal", "-shm"):
        Path(str(copy) + extra).unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(code), "CATALOG_STATE_DIR": str(folder / "state")}
    out = subprocess.run([sys.executable, __file__, "--probe", str(copy)], env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("db", type=Path)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--against", type=Path, help="another checkout, alternated with this one")
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        _probe(args.db)
        return
    here = Path(__file__).resolve().parent.parent
    checkouts = {"this checkout": here, **({str(args.against): args.against.resolve()} if args.against else {})}
    results: dict[str, list[dict]] = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            for name, code in checkouts.items():
                load = os.getloadavg()[0]
                result = _run(args.db, code, Path(tmp))
                results[name].append(result)
                print(f"run {run + 1}, {name}, load {load:.1f}: " + ", ".join(
                    f"{k} {v:.2f} s" if isinstance(v, float) else f"{k} {v:,}" for k, v in result.items()),
                      flush=True)
    print("\n| median of the runs | enter -> Tagged | Catalog.tag | u -> Undone | Catalog.undo |")
    print("| --- | --- | --- | --- | --- |")
    for name, runs in results.items():
        cells = [statistics.median(r[k] for r in runs) for k in ("tagged", "tag", "undone", "undo")]
        print(f"| {name} | " + " | ".join(f"{c:.1f} s" for c in cells) + " |")


if __name__ == "__main__":
    if __package__ in (None, ""):  # run as a file (the probe, with another checkout's catalog)
        sys.path = [p for p in sys.path if Path(p).resolve() != Path(__file__).resolve().parent]
    main()
