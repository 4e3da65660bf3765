"""The TUI headless (Textual's run_test): time to the first screen of results as a whole
process, keystroke-to-results latency, peak memory.

    python -m benchmarks.tui CATALOG.db        # or a postgresql:// URL
    python -m benchmarks.tui CATALOG.db --keys --runs 1   # and where the slowest keys' time went

With CATALOG_STATE_DIR set, sessions read (and write) the remembered state there, as
`catalog tui` does: launch time then includes loading it and restoring the query, paper,
sidebar and theme it holds.
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

PHRASES = ["sparse attention", "language models", "venue:ICML graph", "diffusion"]


# Spans of work (kind, query, start, end) while the session runs, for the per-key breakdown:
# the catalog calls the TUI's workers make and the list's own updating and painting.
SPANS: list[tuple[str, str, float, float]] = []
WORK = {"first_page": "search", "search": "rest", "count": "count", "facets": "facets",
        "get": "paper"}


def _watch_results() -> dict[str, float]:
    """When each query's first page reached the list (patched in, for measuring only); and
    SPANS: each catalog call of the session, the list's updates and its painting."""
    from catalog.library import Catalog
    from catalog.tui.widgets.paper_list import PaperList
    from catalog.parts.words import Words

    applied: dict[str, float] = {}
    show = PaperList.show_results

    def timed_show(self, request, *args, **kwargs):
        start = time.perf_counter()
        applied.setdefault(request.text, start)
        try:
            return show(self, request, *args, **kwargs)
        finally:
            SPANS.append(("show", request.text, start, time.perf_counter()))

    PaperList.show_results = timed_show
    render = PaperList.render_line

    def timed_render(self, y):
        start = time.perf_counter()
        try:
            return render(self, y)
        finally:
            SPANS.append(("paint", self.query_text, start, time.perf_counter()))

    PaperList.render_line = timed_render
    from catalog.tui.screens.main import CatalogScreen

    refresh = CatalogScreen.on_change_watch_changed

    def counted_refresh(self):  # a change made elsewhere shown: the same search again
        now = time.perf_counter()
        SPANS.append(("refresh", "", now, now))
        return refresh(self)

    CatalogScreen.on_change_watch_changed = counted_refresh
    for method, kind in WORK.items():
        setattr(Catalog, method, _spanned(getattr(Catalog, method), kind))
    Words.suggest = _spanned(Words.suggest, "suggest")  # the "did you mean" part: catalog.words
    return applied


def _spanned(call, kind: str):
    def timed(self, query="", *args, **kwargs):
        start = time.perf_counter()
        try:
            return call(self, query, *args, **kwargs)
        finally:
            SPANS.append((kind, getattr(query, "text", query), start, time.perf_counter()))
    return timed


def breakdown(keys: list[dict], spans: list[tuple[str, str, float, float]]) -> list[dict]:
    """Where each key's time went. `keys`: {"typed", "query", "start", "applied"} (perf_counter
    times; applied None when nothing was searched). For a key: `wait`, from the key to its
    search starting (the UI thread's queue, the debounce); `page`, the search of its first
    page; `deliver`, from that search's end to the list showing it (messages waiting for the
    UI thread); `show`, the list taking the page; `paint`, painting the list's lines until the
    next key; `count` and `facets`, this key's count and facets (after its page, while the
    next key is typed: a count that outlives the 150 ms between keys delays the next key);
    `busy`, the other catalog work running when the key was pressed."""
    out = []
    for n, key in enumerate(keys):
        end = keys[n + 1]["start"] if n + 1 < len(keys) else float("inf")
        mine = [s for s in spans if s[1] == key["query"] and key["start"] <= s[2] < end]

        def took(kind, spans=mine):
            return sum(s[3] - s[2] for s in spans if s[0] == kind)

        row = {"typed": key["typed"], "query": key["query"], "ms": None, "at": key["start"]}
        if key["applied"] is not None:
            search = next((s for s in mine if s[0] == "search"), None)
            row.update(ms=(key["applied"] - key["start"]) * 1000, searched_at=search[2] if search else None,
                       wait=((search[2] if search else key["applied"]) - key["start"]) * 1000,
                       page=((search[3] - search[2]) if search else 0.0) * 1000,
                       deliver=((key["applied"] - search[3]) if search else 0.0) * 1000,
                       show=took("show") * 1000, paint=took("paint") * 1000,
                       count=took("count") * 1000, facets=took("facets") * 1000)
        row["busy"] = sorted({f"{s[0]} `{s[1]}`" for s in spans
                              if s[2] < key["start"] < s[3] and s[0] in WORK.values()})
        out.append(row)
    return out


def breakdown_lines(rows: list[dict], slowest: int = 15) -> list[str]:
    """The slowest keys, each with where its time went (milliseconds)."""
    timed = sorted((r for r in rows if r["ms"] is not None), key=lambda r: -r["ms"])[:slowest]
    lines = [f"Slowest {len(timed)} keys (ms; `page` the search of the first page, `deliver` its"
             " wait for the UI thread, `count`/`facets` after the page, `busy` still running at the key):", "",
             "| key | query sent | to results | wait | page | deliver | show | paint | count | facets | busy |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in timed:
        lines.append(f"| `{r['typed']}` | `{r['query']}` | {r['ms']:.0f} | {r['wait']:.0f} | {r['page']:.0f} |"
                     f" {r['deliver']:.0f} | {r['show']:.0f} | {r['paint']:.0f} | {r['count']:.0f} |"
                     f" {r['facets']:.0f} | {', '.join(r['busy']) or '-'} |")
    return lines + [""]


async def _session(db: Path, phrases: list[str]) -> dict:
    import os

    from catalog.library import Catalog
    from catalog.tui.app import CatalogApp
    from catalog.tui.querytext import typed_query
    from catalog.tui.state import ENV_VAR, StateStore

    applied = _watch_results()
    state = StateStore.default() if os.environ.get(ENV_VAR) else None
    app = CatalogApp(Catalog.open(db), cursor_blink=False, state=state)
    latencies, kept, keys = [], 0, []
    async with app.run_test(size=(120, 36)) as pilot:
        while not applied:  # the first screen: the whole catalog (or the remembered query)
            await asyncio.sleep(0.001)
        ready = time.time()
        if phrases:
            await pilot.press("slash")
            for phrase in phrases:
                app.main.search_bar.input.value = ""
                await pilot.pause(0.3)
                for ch in phrase:
                    await asyncio.sleep(0.15)  # a steady typist: each key is searched
                    want = typed_query(app.main.search_bar.value + ch)  # the last word: a prefix
                    ran = app.main.searching.state.ran
                    if ran and want == ran[0]:
                        # The first letters of a word: the TUI runs nothing, the results on
                        # screen are already this key's.
                        keys.append({"typed": app.main.search_bar.value + ch, "query": want,
                                     "start": time.perf_counter(), "applied": None})
                        await pilot.press(ch if ch != " " else "space")
                        latencies.append(0.0)
                        kept += 1
                        continue
                    applied.pop(want, None)
                    start = time.perf_counter()
                    await pilot.press(ch if ch != " " else "space")
                    deadline = start + 10
                    while want not in applied and time.perf_counter() < deadline:
                        await asyncio.sleep(0.0005)
                    latencies.append(applied.get(want, deadline) - start)
                    keys.append({"typed": app.main.search_bar.value, "query": want, "start": start,
                                 "applied": applied.get(want)})
            await pilot.pause(1.0)  # the last key's count and facets
    typed = (keys[0]["start"], keys[-1]["start"]) if keys else (0.0, 0.0)
    return {"ready": ready, "latencies": latencies, "kept": kept, "peak_mb": _peak_mb(),
            "keys": breakdown(keys, SPANS),
            "refreshes": sum(1 for s in SPANS if s[0] == "refresh" and typed[0] <= s[2] <= typed[1])}



def _peak_mb() -> float:
    """This process's peak memory. Linux's VmHWM counts this program only; ru_maxrss also
    counts the process it was forked from (the benchmark runner, hundreds of MB)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _probe(db: Path, typing: bool, quick: bool = False) -> dict:
    """One TUI session in a fresh process (its memory is its own); `ready` is a wall time."""
    args = [sys.executable, "-m", "benchmarks.tui", "--probe", str(db)]
    args += ["--type-one"] if quick else ["--type"] if typing else []
    launched = time.time()
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"the TUI probe failed: {out.stderr[-2000:]}")
    result = json.loads(out.stdout)
    result["startup"] = result.pop("ready") - launched
    return result


def measure(db: Path, runs: int = 5, phrases: list[str] = PHRASES) -> dict:
    """Startup from process launch to first results (median of `runs`), then one typing session."""
    starts = [_probe(db, typing=False) for _ in range(runs)]
    typing = _probe(db, typing=True, quick=phrases != PHRASES)
    return {"startup": [r["startup"] for r in starts], "latencies": typing["latencies"], "kept": typing["kept"],
            "keys": typing["keys"], "peak_mb": max(r["peak_mb"] for r in [*starts, typing])}


def report(db: Path, quick: bool = False, runs: int = 5, keys: bool = False) -> list[str]:
    """The table; `keys`: then where the time of the slowest keys went."""
    result = measure(db, runs=1, phrases=PHRASES[:1]) if quick else measure(db, runs=runs)
    latencies = sorted(result["latencies"])
    p95 = latencies[round(0.95 * (len(latencies) - 1))]
    searching = latencies[result["kept"]:] or [0.0]
    return [
        "### TUI, headless (Textual run_test, 120x36), each session in its own process", "",
        "| | result |", "| --- | --- |",
        f"| launch to first results, whole process (median of {len(result['startup'])}) | "
        f"{statistics.median(result['startup']):.2f} s |",
        f"| keystroke to results ({len(latencies)} keys, steady typing; {result['kept']} of them the first"
        f" letters of a word, which search nothing: 0 ms) | median "
        f"{statistics.median(latencies) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms |",
        f"| the keys that search ({len(searching)}) | median {statistics.median(searching) * 1000:.1f} ms,"
        f" p95 {searching[round(0.95 * (len(searching) - 1))] * 1000:.1f} ms |",
        f"| peak memory of the session | {result['peak_mb']:.0f} MB |", "",
    ] + (breakdown_lines(result["keys"]) if keys else [])


def _location(value: str) -> Path | str:
    """A catalog file, or a server's URL as given (a Path would fold its `//`)."""
    from catalog.paths import is_server_url

    return value if is_server_url(value) else Path(value)


def main() -> None:
    if sys.argv[1] == "--probe":  # a child: one session, reported as JSON
        phrases = {"--type": PHRASES, "--type-one": PHRASES[:1]}.get(sys.argv[3] if len(sys.argv) > 3 else "", [])
        print(json.dumps(asyncio.run(_session(_location(sys.argv[2]), phrases))))
        return
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("db")
    parser.add_argument("--runs", type=int, default=5, help="launches timed (the median is shown)")
    parser.add_argument("--keys", action="store_true", help="then the slowest keys, broken down")
    args = parser.parse_args()
    print("\n".join(report(_location(args.db), runs=args.runs, keys=args.keys)))


if __name__ == "__main__":
    main()
