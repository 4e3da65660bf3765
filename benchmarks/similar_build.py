"""The discovery cache beside its catalog (issue 33): `catalog import` of the generated paper
lists, then a full build of the cache, and an import of 1,000 more papers that updates it
(CATALOG_DISCOVER_REFRESH=inline), each a whole process from this checkout and from each other
checkout named (`--against`: the same catalog, its own cache folder), alternated; then each
cache's size against the catalog's.

    python -m benchmarks.similar_build --size 100000 [--against /path/to/main-checkout]
    python -m benchmarks.similar_build --size 100000 --long-forms     # what spelling out costs

`--long-forms` times `features.fit` over the generated abstracts as they are and with
`tokens.with_long_forms`, alternated (the acronyms learned from the first 5,000 abstracts, as
an import would have learned them, outside the timing).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MORE = 1000  # papers of the second import

# Run in a process of its own: the build as the refresher does it, into the cache folder given.
_BUILD = ("import resource, sys, time\n"
          "from catalog.discover.engine import Discovery\n"
          "from catalog.discover.source import StoreSource\n"
          "from catalog.store import open_store\n"
          "start = time.perf_counter()\n"
          "Discovery(StoreSource(open_store(sys.argv[1]), sys.argv[2])).refresh(full=True)\n"
          "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
          "print(time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)\n")
# What the readers of a cache pay (the cache built): `similar` of 50 papers, `recommend` from 20
# positives (training, then again with the classifier kept), topics of 5,000 papers.
_READ = ("import sys, time\n"
         "from catalog.discover.engine import Discovery\n"
         "from catalog.discover.source import StoreSource\n"
         "from catalog.store import open_store\n"
         "engine = Discovery(StoreSource(open_store(sys.argv[1]), sys.argv[2]))\n"
         "n = engine.current().rows\n"
         "def timed(call):\n"
         "    start = time.perf_counter(); call(); return time.perf_counter() - start\n"
         "print(timed(lambda: [engine.similar(p, 10) for p in range(1, n + 1, max(1, n // 50))]) / 50,\n"
         "      timed(lambda: engine.recommend(range(7, n + 1, max(1, n // 20)), limit=50)),\n"
         "      timed(lambda: engine.recommend(range(7, n + 1, max(1, n // 20)), limit=50)),\n"
         "      timed(lambda: engine.topics(range(1, n + 1, max(1, n // 5000)))))\n")


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _timed(args: list, env: dict, cwd: Path) -> tuple[float, float]:
    """Seconds a whole process took and its CPU seconds (with its children)."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(args, check=True, env=env, stdout=subprocess.DEVNULL, cwd=cwd)
    after = os.times()
    return time.perf_counter() - start, (after.children_user + after.children_system
                                         - before.children_user - before.children_system)


def compare(size: int, against: list[Path], work: Path) -> list[str]:
    from benchmarks import corpus

    work = work.resolve()
    shutil.rmtree(work, ignore_errors=True)
    # The last file's papers come in a second import: the update of an existing cache.
    *first, more = corpus.write_paper_lists(size + MORE, work / "lists", per_file=max(MORE, size // 4))
    added = sum(1 for p in more.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip())
    db = work / "catalog.db"
    env = {**os.environ, "CATALOG_DISCOVER_REFRESH": "off", "PYTHONDONTWRITEBYTECODE": "1"}
    took, cpu = _timed([sys.executable, "-m", "catalog", "--db", db, "import", *first], env, HERE.parent)
    catalog = sum(f.stat().st_size for f in work.glob("catalog.db*"))
    lines = [f"### Discovery cache: {size + MORE - added:,} papers (load {os.getloadavg()[0]:.1f})", "",
             f"`catalog import`: {took:.1f} s ({cpu:.1f} s CPU), catalog {catalog / 1e6:.0f} MB", "",
             "| side | full build (CPU) | ratio to the import | peak | cache | share of the catalog |"
             f" import of {added:,} more, cache updated inline (CPU) | similar | recommend: trains, kept |"
             " topics of 5,000 |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    # Each side's code: its folder first on the path, and the working directory (which comes
    # before PYTHONPATH for `-c` and `-m`).
    sides = {"this checkout": (env, HERE.parent),
             **{str(p): ({**env, "PYTHONPATH": str(p.resolve())}, p.resolve()) for p in against}}
    for i, (name, (side_env, code)) in enumerate(sides.items()):
        cache = work / f"cache{i}"
        out = subprocess.run([sys.executable, "-c", _BUILD, db, cache], check=True, env=side_env,
                             capture_output=True, text=True, cwd=code).stdout.split()
        built, built_cpu, peak = (float(v) for v in out)
        cached = _size(cache)  # as built: before recommend keeps a classifier in it
        similar, trains, kept, topics = (float(v) for v in subprocess.run(
            [sys.executable, "-c", _READ, db, cache], check=True, env=side_env, capture_output=True,
            text=True, cwd=code).stdout.split())
        # The update: a copy of the catalog (each side its own), its cache in the side's folder.
        copy = work / f"more{i}.db"
        shutil.copyfile(db, copy)
        update_env = {**side_env, "CATALOG_DISCOVER_REFRESH": "inline", "XDG_CACHE_HOME": str(work / f"xdg{i}")}
        shutil.copytree(cache, _cache_dir(copy, update_env, code))
        updated, updated_cpu = _timed([sys.executable, "-m", "catalog", "--db", copy, "import", more],
                                      update_env, code)
        lines.append(f"| {name} | {built:.1f} s ({built_cpu:.1f} s) | {built / took:.2f}x ({built_cpu / cpu:.2f}x)"
                     f" | {peak:.0f} MB | {cached / 1e6:.1f} MB | {cached / catalog:.1%} | {updated:.1f} s"
                     f" ({updated_cpu:.1f} s) | {similar * 1000:.0f} ms | {trains:.2f} s, {kept:.2f} s"
                     f" | {topics:.2f} s |")
    return lines + [""]


def _cache_dir(db: Path, env: dict, code: Path) -> str:
    """Where `catalog` keeps the cache of `db` under `env` (the side's own code decides)."""
    return subprocess.run([sys.executable, "-c", "import sys; from catalog.store import open_store; "
                           "print(open_store(sys.argv[1]).cache_dir())", db],
                          check=True, env=env, capture_output=True, text=True, cwd=code).stdout.strip()


def long_forms(size: int, repeats: int) -> list[str]:
    from benchmarks.corpus import abstracts
    from catalog.discover import features
    from catalog.discover.tokens import spellings, with_long_forms
    from catalog.searching.acronyms import learn

    texts = [abstract for _, _, abstract in abstracts(size)]
    spelled = spellings(learn(texts[:5_000]))
    times: dict[str, list[float]] = {"plain": [], "with long forms": []}
    for _ in range(repeats):
        for name, series in times.items():
            start = time.perf_counter()
            features.fit(texts if name == "plain" else (with_long_forms(t, spelled) for t in texts))
            series.append(time.perf_counter() - start)
    return [f"{name}: " + ", ".join(f"{s:.1f} s" for s in series) for name, series in times.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000, help="papers")
    parser.add_argument("--against", type=Path, nargs="*", default=[],
                        help="other checkouts whose cache to build beside this one's")
    parser.add_argument("--long-forms", action="store_true", help="time features.fit with and without long forms")
    parser.add_argument("--repeats", type=int, default=2, help="rounds of --long-forms, each timing both")
    parser.add_argument("--work", type=Path, default=HERE / "work" / "similar_build")
    args = parser.parse_args()
    lines = long_forms(args.size, args.repeats) if args.long_forms else compare(args.size, args.against, args.work)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
