"""The TUI on a real library against the seeds, in the same run: every key typed into the
search bar, its time to results on both, and the UI thread's longest stall (issue 31's
target: each key within 50 ms of the same key on the 90 seed papers, the first key after
clearing a query and broad two-word queries included; the facets fill in afterwards).

    python -m benchmarks.tui_real PATH     # a .bib folder or file (imported into a temporary
                                           # catalog), or a catalog .db
    python -m benchmarks.tui_real PATH --keys   # and the slowest keys, broken down
    python -m benchmarks.tui_real PATH --show 'the m' 'attention e'   # and every key of those
    python -m benchmarks.tui_real --wide 1000000 --dir DIR   # a generated wide catalog
                                           # (5,000 venues, 100,000 authors) built in DIR with
                                           # `catalog import` as a user would (kept: built once)

The script types as the issue's user did: a query, a pause (its facets fill in), ctrl+u,
a short pause, the next query. Each session runs in its own process."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# (text typed, pause after it in seconds before ctrl+u clears it). Broad two-word queries
# (every paper holds `the`) and the first key after clearing (`x`) are what froze.
SCRIPT = [("spar", 1.5), ("x", 1.5), ("learning the", 1.5), ("attention evaluation", 1.5),
          ("neural", 1.0), ("the model", 1.0)]
KEY_GAP = 0.15  # a steady typist
CLEAR_PAUSE = 0.35  # after ctrl+u, before the next query's first key: the whole catalog's facets arrive
TICK = 0.005  # the stall watcher's sleep


async def _session(db: Path) -> dict:
    from benchmarks.tui import SPANS, _watch_results, breakdown
    from catalog.library import Catalog
    from catalog.tui.app import CatalogApp
    from catalog.tui.querytext import typed_query

    applied = _watch_results()
    stalls: list[float] = []

    async def watch() -> None:  # how long the event loop (the UI thread) was kept from us
        while True:
            start = time.perf_counter()
            await asyncio.sleep(TICK)
            stalls.append(time.perf_counter() - start - TICK)

    app = CatalogApp(Catalog.open(db), cursor_blink=False)
    keys: list[dict] = []
    async with app.run_test(size=(120, 36)) as pilot:
        while not applied:
            await asyncio.sleep(0.001)
        await pilot.pause(1.0)  # the first counts
        watcher = asyncio.get_running_loop().create_task(watch())
        await pilot.press("slash")
        for text, pause in SCRIPT:
            for n, ch in enumerate(text):
                await asyncio.sleep(KEY_GAP)
                typed = app.main.search_bar.value + ch
                want = typed_query(typed)
                ran = app.main.searching.state.ran
                start = time.perf_counter()
                searched = not (ran and want == ran[0])  # a short word searches nothing
                applied.pop(want, None)
                _send(app, "space" if ch == " " else ch, ch)
                deadline = start + 10
                while app.main.search_bar.value != typed and time.perf_counter() < deadline:
                    await asyncio.sleep(0.0005)
                shown = time.perf_counter()  # the key is in the search bar
                while searched and want not in applied and time.perf_counter() < deadline:
                    await asyncio.sleep(0.0005)
                keys.append({"typed": typed, "query": want, "start": start,
                             "applied": max(shown, applied.get(want, deadline)) if searched else shown,
                             "after_clear": n == 0, "searched": searched})
            await pilot.pause(pause)
            applied.pop("", None)
            start = time.perf_counter()
            _send(app, "ctrl+u", None)
            while "" not in applied and time.perf_counter() < start + 10:
                await asyncio.sleep(0.0005)
            keys.append({"typed": "ctrl+u", "query": "", "start": start, "applied": applied.get("", start + 10),
                         "after_clear": False, "searched": True})
            await pilot.pause(CLEAR_PAUSE)
        watcher.cancel()
    return {"keys": [{"typed": k["typed"], "ms": (k["applied"] - k["start"]) * 1000,
                      "after_clear": k["after_clear"], "searched": k["searched"]} for k in keys],
            "stall_ms": max(stalls, default=0.0) * 1000,
            "refreshes": sum(1 for s in SPANS if s[0] == "refresh"),
            "breakdown": breakdown([{**k, "applied": k["applied"] if k["searched"] else None} for k in keys], SPANS)}


def _send(app, key: str, char: str | None) -> None:
    """A key as the terminal sends it, without Pilot's wait until the app looks idle (which
    would time the workers' counting too)."""
    from textual import events

    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


def _probe(db: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "benchmarks.tui_real", "--probe", str(db)],
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"the TUI probe failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout)


def _catalog(path: Path, folder: Path) -> Path:
    """`path` itself when it is a catalog; else a catalog of its files in `folder`."""
    from catalog.library import Catalog

    if path.suffix == ".db":
        return path
    db = folder / f"{path.stem or 'library'}.db"
    catalog = Catalog.open(db)
    catalog.import_paths([path])
    catalog.close()
    return db


def _shape(db: Path) -> str:
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    try:
        facets = catalog.facets("")
        return (f"{facets.total:,} papers, {len({v for v, _, _ in facets.venues}):,} venues, "
                f"{len(facets.authors):,} authors")
    finally:
        catalog.close()


def build_wide(papers: int, folder: Path, per_file: int = 250_000) -> Path:
    """A wide catalog of `papers` papers in `folder` (benchmarks.corpus.write_wide_jsonl: 5,000
    venues, 100,000 authors), imported by the `catalog` command from JSON Lines files of at
    most `per_file` papers (it refuses a file over 512 MiB); one already built is reused."""
    from benchmarks.corpus import write_wide_jsonl

    db = folder / f"wide-{papers}.db"
    if db.exists():
        return db
    parts = folder / f"wide-{papers}-jsonl"
    whole = write_wide_jsonl(papers, folder / f"wide-{papers}.jsonl")
    parts.mkdir(parents=True, exist_ok=True)
    with whole.open(encoding="utf-8") as lines:
        out = None
        for n, line in enumerate(lines):
            if n % per_file == 0:
                if out:
                    out.close()
                out = (parts / f"part{n // per_file:03d}.jsonl").open("w", encoding="utf-8")
            out.write(line)
        if out:
            out.close()
    whole.unlink()
    building = db.with_suffix(".building.db")  # renamed once whole: an interrupted build is not reused
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "catalog", "--db", str(building), "import", str(parts)], check=True)
    print(f"built {db} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    building.rename(db)
    return db


def report(path: Path, keys: bool = False, show: tuple[str, ...] = ()) -> list[str]:
    from benchmarks.tui import breakdown_lines

    with tempfile.TemporaryDirectory() as tmp:
        seeds = _catalog(Path(__file__).resolve().parent.parent / "seeds", Path(tmp))
        real = _catalog(path, Path(tmp))
        shapes = _shape(seeds), _shape(real)
        runs = _probe(seeds), _probe(real)
    lines = ["### TUI on a real library against the seeds (Textual run_test, 120x36; each key's time"
             " from the key to its results (a key that searches nothing: to its letter in the search bar), the same keys"
             " on both)", "",
             f"| | seeds ({shapes[0]}) | real ({shapes[1]}) | real − seeds |", "| --- | --- | --- | --- |"]

    def row(name: str, pick, agg) -> None:
        values = [agg([k["ms"] for k in run["keys"] if pick(k)] or [0.0]) for run in runs]
        diffs = [r["ms"] - s["ms"] for s, r in zip(*(run["keys"] for run in runs)) if pick(s)]
        lines.append(f"| {name} | {values[0]:.0f} ms | {values[1]:.0f} ms | {agg(diffs or [0.0]):+.0f} ms |")

    def p95(values: list[float]) -> float:
        return sorted(values)[round(0.95 * (len(values) - 1))]

    count = len(runs[0]["keys"])
    row(f"every key ({count}), median", lambda k: True, statistics.median)
    row("every key, p95", lambda k: True, p95)
    row("every key, slowest", lambda k: True, max)
    row("ctrl+u (clearing the query), slowest", lambda k: k["typed"] == "ctrl+u", max)
    row("first key after clearing, slowest", lambda k: k["after_clear"], max)
    row("keys of broad two-word queries, slowest", lambda k: k["typed"].startswith(("learning t", "the m")), max)
    lines.append(f"| the UI thread's longest stall | {runs[0]['stall_ms']:.0f} ms | {runs[1]['stall_ms']:.0f} ms"
                 f" | {runs[1]['stall_ms'] - runs[0]['stall_ms']:+.0f} ms |")
    # Keys pressed while a count or the facets of earlier results ran: they share the cores
    # with the key's own search (what the timings above show only through the machine's noise).
    busy = [sum(1 for k in run["breakdown"] if any(b.startswith(("count", "facets")) for b in k["busy"]))
            for run in runs]
    lines.append(f"| keys pressed while counts or facets ran | {busy[0]} | {busy[1]} | {busy[1] - busy[0]:+d} |")
    refreshes = [run.get("refreshes", 0) for run in runs]  # for changes made elsewhere meanwhile
    lines.append(f"| refreshes (changes made elsewhere) | {refreshes[0]} | {refreshes[1]} | {refreshes[1] - refreshes[0]:+d} |")
    lines.append("")
    lines += breakdown_lines(runs[1]["breakdown"]) if keys else []
    if show:  # every key typed in these queries, slow or not, against the same key on the seeds
        lines += ["Keys of " + ", ".join(f"`{text}`" for text in show) + " (to results, real / seeds / real − seeds):", ""]
        lines += [f"- `{r['typed']}`: {r['ms']:.0f} / {s['ms']:.0f} / {r['ms'] - s['ms']:+.0f} ms"
                  for s, r in zip(*(run["keys"] for run in runs)) if r["typed"].startswith(show)]
        lines += ["", "Their breakdown:", ""]
        lines += breakdown_lines([k for k in runs[1]["breakdown"] if k["typed"].startswith(show)],
                                 slowest=len(runs[1]["breakdown"]))[2:]
    return lines


def main() -> None:
    if sys.argv[1] == "--probe":
        print(json.dumps(asyncio.run(_session(Path(sys.argv[2])))))
        return
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, nargs="?")
    parser.add_argument("--keys", action="store_true", help="then the real library's slowest keys, broken down")
    parser.add_argument("--show", nargs="+", default=[], metavar="TEXT",
                        help="then every key of the queries typed starting with TEXT (`the m`), broken down")
    parser.add_argument("--wide", type=int, metavar="PAPERS", help="a generated wide catalog of PAPERS papers instead")
    parser.add_argument("--dir", type=Path, help="where --wide builds (and finds) its catalog")
    args = parser.parse_args()
    if args.wide:
        if args.dir is None:
            parser.error("--wide needs --dir (the catalog is kept there: it takes long to build)")
        args.path = build_wide(args.wide, args.dir)
    elif args.path is None:
        parser.error("give PATH or --wide")
    print("\n".join(report(args.path, keys=args.keys, show=tuple(args.show))))


if __name__ == "__main__":
    main()
