"""The TUI headless (Textual's run_test): time to the first screen of results as a whole
process, keystroke-to-results latency, peak memory.

    python -m benchmarks.tui CATALOG.db        # or a postgresql:// URL

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


def _watch_results() -> dict[str, float]:
    """When each query's first page reached the list (patched in, for measuring only)."""
    from catalog.tui.widgets.paper_list import PaperList

    applied: dict[str, float] = {}
    show = PaperList.show_results

    def timed_show(self, query, *args, **kwargs):
        applied.setdefault(query, time.perf_counter())
        return show(self, query, *args, **kwargs)

    PaperList.show_results = timed_show
    return applied


async def _session(db: Path, phrases: list[str]) -> dict:
    import os

    from catalog.library import Catalog
    from catalog.tui.app import CatalogApp
    from catalog.tui.querytext import typed_query
    from catalog.tui.state import ENV_VAR, StateStore

    applied = _watch_results()
    state = StateStore.default() if os.environ.get(ENV_VAR) else None
    app = CatalogApp(Catalog.open(db), cursor_blink=False, state=state)
    latencies, kept = [], 0
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
                    if app.main.searched and want == app.main.searched[0]:
                        # The first letters of a word: the TUI runs nothing, the results on
                        # screen are already this key's.
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
    return {"ready": ready, "latencies": latencies, "kept": kept,
            "peak_mb": _peak_mb()}


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
            "peak_mb": max(r["peak_mb"] for r in [*starts, typing])}


def report(db: Path, quick: bool = False) -> list[str]:
    result = measure(db, runs=1, phrases=PHRASES[:1]) if quick else measure(db)
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
    ]


def _location(value: str) -> Path | str:
    """A catalog file, or a server's URL as given (a Path would fold its `//`)."""
    from catalog.paths import is_server_url

    return value if is_server_url(value) else Path(value)


def main() -> None:
    if sys.argv[1] == "--probe":  # a child: one session, reported as JSON
        phrases = {"--type": PHRASES, "--type-one": PHRASES[:1]}.get(sys.argv[3] if len(sys.argv) > 3 else "", [])
        print(json.dumps(asyncio.run(_session(_location(sys.argv[2]), phrases))))
        return
    print("\n".join(report(_location(sys.argv[1]))))


if __name__ == "__main__":
    main()
