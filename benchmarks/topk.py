"""Search on a large catalog: the query mix, first 50 results with snippets,
in-process, p50/p95 per query; with the ranked lists (catalog/store/lists/) and without
them, alternating in one run, and whether both give the same top 50.

    python -m benchmarks.topk CATALOG.db [--repeats 10] [--build | --build-mix] [--edit]
    python -m benchmarks.topk CATALOG.db --first [--baseline CHECKOUT] [--repeats 5]
    python -m benchmarks.topk CATALOG.db --against CHECKOUT [--repeats 10]

`--build` first builds every list the catalog qualifies for (what an import's refresh does
with no time limit), timing it; `--build-mix` only the lists the mix reads, each timed;
`--edit` then makes small changes (tags, a note, 200 new papers) that the lists follow by
rescoring. `--first` times the first search of the ANDs and phrases that get lists of their
own, each in a new process, against another checkout's. `--against` times the mix with the
lists in this checkout's code and another's (a copy of the catalog each), in processes
alternating round by round. The catalog gets a `toread` tag on
some papers if it has none (the tag filter needs one).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.measure import ms, percentiles, timed

# (label, query): every query class of the issue, the frequent ones in several shapes.
MIX = [
    ("rare word", "hessian"),
    ("frequent word", "model"),
    ("most frequent word", "the"),
    ("phrase", '"language models"'),
    ("prefix", "interpret*"),
    ("prefix, 3 letters", "spa*"),
    ("prefix, 2 letters", "in*"),
    ("prefix, 1 letter", "a*"),
    ("two words", "sparse attention"),
    ("two frequent words", "language model"),
    ("three words", "graph neural network"),
    ("word + prefix (typing)", "sparse att*"),
    ("frequent word + short prefix (typing)", "language mod*"),
    ("query + filters", "attention venue:ICML year:2016..2020"),
    ("frequent word + filter", "model venue:ICML"),
    ("tag filter", "tag:toread"),
    ("frequent word + tag", "model tag:toread"),
]


def _switch(on: bool) -> None:
    from catalog.store import lists

    lists.ENABLED = on


def ensure_tag(catalog, how_many: int) -> None:
    if not catalog.search("tag:toread", limit=1, snippets=False):
        keys = [p.key for p in catalog.search("attention", limit=how_many, snippets=False)]
        catalog.tag(keys, ["toread"])


def build(db: Path, only_mix: bool = False, extra: tuple[str, ...] = ()) -> str:
    """Build the lists (every one the catalog qualifies for, or only those of the mix's
    queries and `extra` queries that a full build would make too), timed."""
    from catalog.library import Catalog
    from catalog.searching.query import parse
    from catalog.store.lists import scoring
    from catalog.store.sqlite import fts

    catalog = Catalog.open(db)
    try:
        ensure_tag(catalog, 500)  # before: tagging writes to the index, which makes lists stale
        start = time.perf_counter()
        if not only_mix:
            built, _ = catalog.store.lists.refresh(budget=None)
            return f"built {built} lists in {time.perf_counter() - start:.1f} s"
        keys = set()
        for _, q in MIX + [(None, q) for q in extra]:
            compiled = fts.compile_query(parse(q))
            keys.update([k] if (k := scoring.word_key(compiled))
                        else scoring.and_keys(compiled) or scoring.phrase_keys(compiled) or [])
        with catalog.store.read() as tx:  # only those a full refresh would build (frequent enough)
            words = tx.lists.maintenance().words()
        keys &= {k for k, _ in scoring.candidates(words, scoring.min_matches(catalog.count("")))}
        times = {}
        for key in sorted(keys):
            one = time.perf_counter()
            with catalog.store.write() as tx:
                tx.lists.maintenance().build(key)
            times[key] = time.perf_counter() - one
        return "built " + ", ".join(f"{k} {t:.1f} s" for k, t in times.items())
    finally:
        catalog.close()


def edit(db: Path, new_papers: int = 200) -> str:
    """Small changes after the lists were built (what `--edit` times): tags on 5 papers, a
    note, an import of `new_papers` new papers; the lists then follow by rescoring."""
    import tempfile

    from benchmarks import corpus
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    try:
        keys = [p.key for p in catalog.search("model", limit=400, snippets=False)]
        catalog.tag(keys[100:105], ["model"])
        catalog.add_note(keys[200], "A note on this model and its interpretability.")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "more.txt"
            path.write_text("ICML 2026 Papers\n\n" + "".join(
                a + "\n\n" for _, _, a in corpus.abstracts(new_papers, seed=1234)), encoding="utf-8")
            start = time.perf_counter()
            report = catalog.import_paths([path])
            took = time.perf_counter() - start
        with catalog.store.read() as tx:
            stale = len(tx.lists.maintenance().stale())
        return (f"edited: 6 papers tagged or noted, imported {report.new} new papers in {took:.1f} s;"
                f" lists searches cannot read: {stale}")
    finally:
        catalog.close()


def compare(db: Path, repeats: int, sides: tuple[bool, ...] = (True, False)) -> list[dict]:
    """Each query `repeats` times with the lists and without, alternating."""
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    ensure_tag(catalog, 500)
    out = []
    try:
        for label, query in MIX:
            times: dict[bool, list[float]] = {True: [], False: []}
            found: dict[bool, list] = {}
            for on in sides:  # warm both alike
                _switch(on)
                found[on] = [(p.key, p.match) for p in catalog.search(query)]
            for _ in range(repeats):
                for on in sides:
                    _switch(on)
                    times[on].append(timed(lambda: catalog.search(query)))
            other = found.get(False, found[sides[0]])
            same = sum(1 for a, b in zip(found[sides[0]], other) if a == b)
            out.append({"label": label, "query": query, "with": times[True] or [0.0],
                        "without": times[False] or [0.0], "shown": len(found[sides[0]]), "same": same,
                        "of": len(other)})
    finally:
        _switch(True)
        catalog.close()
    return out


def report(db: Path, repeats: int, sides: tuple[bool, ...] = (True, False)) -> list[str]:
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    papers = catalog.count("")
    catalog.close()
    lines = [f"### Search at {papers:,} papers: first 50 with snippets, in-process ({repeats} runs each,"
             " alternating)", "",
             "| query | shown | lists p50 | lists p95 | full bm25 p50 | full bm25 p95 | p50 ratio |"
             " same top 50 |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in compare(db, repeats, sides):
        w50, w95 = percentiles(r["with"])
        f50, f95 = percentiles(r["without"])
        full = (f"{ms(f50)} | {ms(f95)} | {w50 / max(f50, 1e-9):.2f}x" if False in sides
                else "- | - | -")  # --lists-only: no full ranking to compare with
        lines.append(f"| {r['label']} `{r['query']}` | {r['shown']} | {ms(w50)} | {ms(w95)} | {full} |"
                     f" {r['same']}/{r['of']} |")
    return lines + [""]


# ANDs and phrases of frequent words whose words' lists do not prove the page at 1M papers: the
# first search ranks their own list (catalog/store/lists/sqlite_several.py).
FIRST = ["sparse attention", "graph neural network", '"language models"', "language model"]
_CHILD = """import sys, time
from catalog.library import Catalog
catalog = Catalog.open(sys.argv[1])
times = []
for _ in range(2):
    start = time.perf_counter()
    catalog.search(sys.argv[2])
    times.append(time.perf_counter() - start)
print(*times)
"""


def first_searches(db: Path, repeats: int, baseline: str | None) -> list[str]:
    """The first search of each FIRST query in a new process (Catalog.open not timed), then
    the second in the same process, with the lists of several words dropped before each run;
    alternating with the code at `baseline` (a checkout's folder, put first on PYTHONPATH)."""
    import os
    import subprocess
    import sys

    from catalog.store.sqlite.store import SqliteStore

    here = str(Path(__file__).resolve().parents[1])
    sides = {"this": here, **({"baseline": baseline} if baseline else {})}
    times: dict = {(q, side): ([], []) for q in FIRST for side in sides}
    for _ in range(repeats):
        for query in FIRST:
            for side, root in sides.items():
                store = SqliteStore.open(db)
                with store.write() as tx:
                    lists = tx.lists.maintenance()
                    lists.drop(lists.several()[0])
                store.close()
                env = {**os.environ, "PYTHONPATH": root}
                out = subprocess.run([sys.executable, "-c", _CHILD, str(db), query], env=env, check=True,
                                     capture_output=True, text=True, cwd=root).stdout.split()
                times[query, side][0].append(float(out[0]))
                times[query, side][1].append(float(out[1]))
    lines = [f"### First search in a new process, lists of several words dropped before ({repeats} runs,"
             " alternating)", "", "| query | " + " | ".join(f"{s} first p50 / p95 | {s} second p50" for s in sides)
             + " |", "| --- |" + " --- | --- |" * len(sides)]
    for query in FIRST:
        cells = []
        for side in sides:
            first, second = times[query, side]
            f50, f95 = percentiles(first)
            cells.append(f"{ms(f50)} / {ms(f95)} | {ms(percentiles(second)[0])}")
        lines.append(f"| `{query}` | " + " | ".join(cells) + " |")
    return lines + [""]


_MIX_CHILD = """import json, sys, time
from catalog.library import Catalog
catalog = Catalog.open(sys.argv[1])
times = {}
for query in json.loads(sys.argv[2]):
    catalog.search(query)  # warm: the first search of a process opens its connections
    times[query] = []
    for _ in range(int(sys.argv[3])):
        start = time.perf_counter()
        catalog.search(query)
        times[query].append(time.perf_counter() - start)
print(json.dumps(times))
"""


def against(db: Path, repeats: int, baseline: str, inner: int = 3) -> list[str]:
    """The mix with the lists, this checkout's code against `baseline`'s (its folder, put
    first on PYTHONPATH), each on a copy of the catalog, a process per side per round,
    alternating; `inner` searches of each query a round after a warm one."""
    import json
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    here = str(Path(__file__).resolve().parents[1])
    sides = {"this": here, "baseline": baseline}
    queries = [q for _, q in MIX]
    times: dict = {(q, side): [] for q in queries for side in sides}
    with tempfile.TemporaryDirectory(dir=db.parent) as folder:
        copies = {side: Path(folder) / f"{side}.db" for side in sides}
        for copy in copies.values():
            shutil.copy(db, copy)
        for _ in range(repeats):
            for side, root in sides.items():
                env = {**os.environ, "PYTHONPATH": root, "CATALOG_DISCOVER_REFRESH": "off"}
                out = subprocess.run([sys.executable, "-c", _MIX_CHILD, str(copies[side]), json.dumps(queries),
                                      str(inner)], env=env, check=True, capture_output=True, text=True, cwd=root)
                for query, found in json.loads(out.stdout).items():
                    times[query, side] += found
    lines = [f"### The mix with the lists: this checkout against {baseline} ({repeats} rounds of {inner},"
             " alternating)", "", "| query | this p50 | this p95 | baseline p50 | baseline p95 | p50 ratio |",
             "| --- | --- | --- | --- | --- | --- |"]
    for label, query in MIX:
        t50, t95 = percentiles(times[query, "this"])
        b50, b95 = percentiles(times[query, "baseline"])
        lines.append(f"| {label} `{query}` | {ms(t50)} | {ms(t95)} | {ms(b50)} | {ms(b95)} |"
                     f" {t50 / max(b50, 1e-9):.2f}x |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("db", type=Path)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--build", action="store_true", help="build every list first (timed)")
    parser.add_argument("--build-mix", action="store_true", help="build only the mix's lists first (timed)")
    parser.add_argument("--lists-only", action="store_true",
                        help="measure only with the lists (the full ranking of a 1-letter prefix takes seconds)")
    parser.add_argument("--edit", action="store_true",
                        help="after building: tag 5 papers, add a note, import 200 new papers (the lists rescore)")
    parser.add_argument("--first", action="store_true",
                        help="time the first search of ANDs and phrases whose lists a search ranks (new processes)")
    parser.add_argument("--baseline", help="with --first: a checkout to alternate with (its folder)")
    parser.add_argument("--against", help="time the mix with the lists against another checkout (its folder)")
    args = parser.parse_args()
    if args.against:
        print("\n".join(against(args.db, args.repeats, args.against)))
        return
    if args.first:
        print("\n".join(first_searches(args.db, args.repeats, args.baseline)))
        return
    if args.build or args.build_mix:
        print(build(args.db, only_mix=args.build_mix) + "\n")
    if args.edit:
        print(edit(args.db) + "\n")
    print("\n".join(report(args.db, args.repeats, (True,) if args.lists_only else (True, False))))


if __name__ == "__main__":
    main()
