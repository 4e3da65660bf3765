"""Discovery engine benchmarks: each discovery command as a whole process, with its peak memory.

    python -m benchmarks.discover --size 10000
    python -m benchmarks.discover --size 100000 --write docs/benchmarks.md
    python -m benchmarks.discover --cli --size 100000   # the catalog commands themselves

Builds a catalog of the generated corpus (benchmarks/corpus.py) with `catalog import`, then
runs each measurement in a fresh process (`--probe`), timed from launch to exit:

- first `similar`: no cache yet, so it reads every text, builds the features and the cache;
- later `similar` (median of several, different papers): the engine alone, and with what the
  CLI command will add (click, the library, opening the catalog, resolving a key);
- `recommend TAG`: training included (1% of the papers tagged), then again (the classifier
  stored with the cache);
- `topics` of a 5,000-paper list, and of the whole catalog;
- the update after importing 1% more papers (projected into the existing space);
- at 5,000 papers, NMF against MiniBatchKMeans (the choice in topics.py).

The corpus recombines the seeds' sentences, so its vocabulary is small (~125k terms at 100k
papers, where real abstracts would give several times more) and every paper shares phrases
with thousands of others. Building costs about the same per token either way; the cache and
the postings would be larger on real text, and real topics are far sharper than these.
"""

from __future__ import annotations

# Only what the probe needs is imported at the top: the probe is the process being timed.
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


# --- the probe: one measurement in this process, reported as JSON --------------------------------


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _probe(action: str, db: str, cache: str, arg: str) -> dict:
    if action == "similar-cli":  # what `catalog similar KEY` will do besides the engine
        import click  # noqa: F401

        from catalog.library import Catalog

        catalog = Catalog.open(Path(db))
        with catalog.store.read() as tx:
            paper_id = tx.papers.paper_id(arg)
        arg = str(paper_id)
    from catalog.discover import Discovery
    from catalog.discover.source import StoreSource
    from catalog.store import open_store

    engine = Discovery(StoreSource(open_store(Path(db)), Path(cache)))
    result: dict = {}
    if action in ("similar", "similar-cli"):
        result["n"] = len(engine.similar(int(arg), 10))
    elif action == "recommend":
        result["n"] = len(engine.recommend_tag(arg, limit=50))
    elif action.startswith("topics"):
        ids = None if arg == "all" else list(range(1, int(arg) + 1))
        method = "kmeans" if action == "topics-kmeans" else "nmf"
        start = time.perf_counter()
        topics = engine.topics(ids, method=method)
        result.update(n=len(topics), seconds=time.perf_counter() - start,
                      sizes=[t.size for t in topics][:5], labels=[t.label for t in topics][:3])
    elif action == "refresh":
        report = engine.refresh()
        result.update(kind=report.kind, added=report.added)
    if engine.last_update is not None:
        result["update"] = {"kind": engine.last_update.kind, "seconds": engine.last_update.seconds}
    result["heavy"] = sorted({m.split(".")[0] for m in sys.modules} & {"numpy", "sklearn", "scipy"})
    result["peak_mb"] = _peak_mb()
    return result


def probe(action: str, db: Path, cache: Path, arg: object) -> dict:
    """One measurement in a fresh process (see timed)."""
    out, timing = timed([sys.executable, "-m", "benchmarks.discover", "--probe", action,
                         str(db), str(cache), str(arg)])
    return {**timing, **json.loads(out.splitlines()[-1])}


def timed(command: list[str]) -> tuple[str, dict]:
    """Run a process: its output, and `wall`, from launch to exit, and `cpu`, its user +
    system time (the machine is shared: CPU time varies less than wall time)."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise RuntimeError(f"{command[2:4]} failed: {out.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out.stdout, {"wall": wall, "cpu": cpu, "peak_mb": float("nan")}


# --- the run ----------------------------------------------------------------------------------------


def build_catalog(size: int, work: Path) -> Path:
    import subprocess

    from benchmarks import corpus

    files = corpus.write_paper_lists(size, work / "lists", per_file=max(1000, size // 20))
    db = work / "catalog.db"
    subprocess.run([sys.executable, "-m", "catalog", "--db", str(db), "import", *map(str, files)],
                   check=True, capture_output=True, cwd=REPO)
    return db


def tag_some(db: Path, tag: str, how_many: int) -> None:
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    keys = [p.key for p in catalog.search("sparse autoencoders", limit=how_many, snippets=False)]
    catalog.tag(keys, [tag])
    catalog.close()


def import_more(db: Path, work: Path, how_many: int) -> None:
    import subprocess

    from benchmarks import corpus

    path = work / "more.txt"
    with path.open("w", encoding="utf-8") as f:
        f.write("ICLR 2027 Papers\n\n")
        for _, _, abstract in corpus.abstracts(how_many, seed=11):
            f.write(abstract + "\n\n")
    subprocess.run([sys.executable, "-m", "catalog", "--db", str(db), "import", str(path)],
                   check=True, capture_output=True, cwd=REPO)


def _row(label: str, r: dict, note: str = "") -> str:
    peak = "" if r["peak_mb"] != r["peak_mb"] else f"{r['peak_mb']:.0f} MB"
    return f"| {label} | {r['wall']:.2f} s | {r['cpu']:.2f} s | {peak} | {note} |"


def _median(results: list[dict]) -> dict:
    import statistics

    return {"wall": statistics.median(r["wall"] for r in results),
            "cpu": statistics.median(r["cpu"] for r in results),
            "peak_mb": max(r["peak_mb"] for r in results)}


def run(size: int, work_root: Path, repeats: int) -> str:
    import shutil

    work = work_root / f"discover-{size}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    db = build_catalog(size, work)
    cache = work / "cache"
    lines = [f"## Discovery, {size:,} papers", "",
             "Each row is a whole process, launch to exit (Python start and imports included).", "",
             "| measurement | wall time | CPU time | peak memory | notes |",
             "| --- | --- | --- | --- | --- |"]

    first = probe("similar", db, cache, size // 2)
    size_mb = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file()) / 1e6
    lines.append(_row("first `similar` (builds features and cache)", first,
                      f"build {first['update']['seconds']:.1f} s; cache {size_mb:.0f} MB"))
    later = [probe("similar", db, cache, 1 + (i * 7919) % size) for i in range(repeats)]
    lines.append(_row(f"later `similar`, engine alone (median of {repeats})", _median(later),
                      f"imports: {later[0]['heavy'] or 'no numpy, scipy or scikit-learn'}"))
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    keys = [p.key for p in catalog.search("", limit=repeats, snippets=False)]
    catalog.close()
    cli = [probe("similar-cli", db, cache, key) for key in keys]
    lines.append(_row(f"later `similar` with the CLI's imports and key lookup (median of {len(cli)})",
                      _median(cli), "the command will cost about this"))
    search = [timed([sys.executable, "-m", "catalog", "--db", str(db), "search", "attention",
                     "-n", "10"])[1] for _ in range(repeats)]
    lines.append(_row(f"for comparison: `catalog search attention -n 10` (median of {repeats})",
                      _median(search), "same machine, same minute"))

    tag_some(db, "bench", max(10, size // 100))
    rec = probe("recommend", db, cache, "bench")
    lines.append(_row(f"`recommend TAG` ({max(10, size // 100)} tagged)", rec,
                      f"training included; imports: {rec['heavy']}"))
    again = [probe("recommend", db, cache, "bench") for _ in range(max(1, repeats // 2))]
    lines.append(_row(f"`recommend TAG` again (median of {len(again)})", _median(again),
                      f"the stored classifier; imports: {again[0]['heavy']}"))

    list_size = min(5000, size)
    nmf = probe("topics", db, cache, list_size)
    lines.append(_row(f"`topics` of a {list_size:,}-paper list (NMF)", nmf,
                      f"{nmf['n']} topics, clustering {nmf['seconds']:.1f} s; largest {nmf['sizes']}"))
    if size <= 20_000:
        km = probe("topics-kmeans", db, cache, list_size)
        lines.append(_row("the same with MiniBatchKMeans", km,
                          f"{km['n']} topics, clustering {km['seconds']:.1f} s; largest {km['sizes']}"))
    whole = probe("topics", db, cache, "all")
    lines.append(_row(f"`topics` of the whole catalog ({size:,})", whole,
                      f"{whole['n']} topics, clustering {whole['seconds']:.1f} s; largest {whole['sizes']}"))

    more = max(10, size // 100)
    import_more(db, work, more)
    update = probe("similar", db, cache, size // 3)
    lines.append(_row(f"first `similar` after importing {more:,} more papers", update,
                      f"{update['update']['kind']} in {update['update']['seconds']:.1f} s"))
    rebuilt = probe("similar", db, work / "cache-2", size // 3)
    lines.append(_row("the same from no cache (full build), for comparison", rebuilt,
                      f"build {rebuilt['update']['seconds']:.1f} s"))
    lines += ["", f"Labels of the largest topics of the {list_size:,}-paper list: "
              + "; ".join(f"`{label}`" for label in nmf["labels"]), ""]
    return "\n".join(lines) + "\n"


def cli_timed(args: list[str], env: dict) -> dict:
    """One `catalog ...` command as a user runs it: wall and CPU time from launch to exit and
    its peak memory (GNU time's maximum resident set)."""
    import os
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "PEAK_KB %M", sys.executable, "-m", "catalog",
                          *args], capture_output=True, text=True, cwd=REPO, env={**os.environ, **env})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise RuntimeError(f"catalog {args[2:4]} failed: {out.stderr[-3000:]}")
    peak = next((int(line.split()[1]) / 1024 for line in out.stderr.splitlines()
                 if line.startswith("PEAK_KB")), float("nan"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak_mb": peak, "stdout": out.stdout}


def run_cli(size: int, work_root: Path, repeats: int) -> str:
    """The commands themselves (`catalog similar`, `recommend`, `topics`, `import`), each a
    whole process with the cache where users have it (here under the work folder)."""
    import json as json_module
    import shutil

    work = work_root / f"discover-cli-{size}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    db = build_catalog(size, work)
    env = {"XDG_CACHE_HOME": str(work / "xdg-cache")}
    base = ["--db", str(db)]
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    keys = [p.key for p in catalog.search("", limit=repeats + 1, snippets=False)]
    listed = catalog.count("venue:ICML year:2016")
    catalog.close()
    lines = [f"## Discovery commands, {size:,} papers", "",
             "Each row is one `catalog` command, launch to exit, as a user runs it.", "",
             "| command | wall time | CPU time | peak memory | notes |",
             "| --- | --- | --- | --- | --- |"]
    first = cli_timed([*base, "similar", keys[0]], env)
    lines.append(_row("`catalog similar KEY`, first (builds the cache)", first))
    later = [cli_timed([*base, "similar", key], env) for key in keys[1:]]
    lines.append(_row(f"`catalog similar KEY`, later (median of {len(later)})", _median(later)))
    search = [cli_timed([*base, "search", "attention", "-n", "10"], env) for _ in range(repeats)]
    lines.append(_row(f"for comparison: `catalog search attention -n 10` (median of {repeats})",
                      _median(search), "same machine, same minutes"))
    tagged = max(10, size // 100)
    tag_some(db, "bench", tagged)
    rec = cli_timed([*base, "recommend", "bench", "-n", "20"], env)
    lines.append(_row(f"`catalog recommend TAG` ({tagged} tagged)", rec, "training included"))
    again = [cli_timed([*base, "recommend", "bench", "-n", "20"], env) for _ in range(max(1, repeats // 2))]
    lines.append(_row(f"`catalog recommend TAG` again (median of {len(again)})", _median(again),
                      "the classifier stored with the cache: no scikit-learn"))
    topics5k = cli_timed([*base, "topics", "venue:ICML", "year:2016", "--json"], env)
    n5k = len(json_module.loads(topics5k["stdout"]))
    lines.append(_row(f"`catalog topics venue:ICML year:2016` ({listed:,} papers)", topics5k,
                      f"{n5k} topics, stored"))
    whole = cli_timed([*base, "topics", "--json"], env)
    lines.append(_row(f"`catalog topics` (the whole catalog, {size:,})", whole,
                      f"{len(json_module.loads(whole['stdout']))} topics, stored"))
    more = max(10, size // 100)
    path = work / "more.txt"
    from benchmarks import corpus

    with path.open("w", encoding="utf-8") as f:
        f.write("ICLR 2027 Papers\n\n")
        for _, _, abstract in corpus.abstracts(more, seed=11):
            f.write(abstract + "\n\n")
    imported = cli_timed([*base, "import", str(path)], env)
    lines.append(_row(f"`catalog import` of {more:,} more papers", imported,
                      "exits at once; catalog/discover/refresher.py updates the cache in the background"))
    after = cli_timed([*base, "similar", keys[1]], env)
    lines.append(_row("`catalog similar KEY` right after it", after,
                      "waits for what is left of the background update"))
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--probe":
        print(json.dumps(_probe(*sys.argv[2:6])))
        return
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000, help="papers in the corpus")
    parser.add_argument("--repeats", type=int, default=5, help="runs of the quick measurements")
    parser.add_argument("--work", type=Path, default=HERE / "work", help="scratch folder")
    parser.add_argument("--write", type=Path, help="append the report to this Markdown file")
    parser.add_argument("--cli", action="store_true",
                        help="time the catalog commands themselves rather than the engine")
    args = parser.parse_args()
    report = (run_cli if args.cli else run)(args.size, args.work, args.repeats)
    print(report)
    if args.write:
        with args.write.open("a", encoding="utf-8") as f:
            f.write("\n" + report)


if __name__ == "__main__":
    main()
