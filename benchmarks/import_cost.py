"""What a large import costs, and what a change to it bought: a raw sqlite3 import of the
generated paper lists, then `catalog import` of the same files from this checkout and from each
other checkout named (`--against`, run with that folder first on PYTHONPATH), alternated round
by round so the machine's load falls on every side alike. Each `catalog import` is split into
its files stored and the lists it ranked before returning; then the lists it left to the
background refresher (those of one- and two-letter prefixes, past 200,000 papers) are ranked as
the refresher ranks them, timed on their own ("left to the background").

    python -m benchmarks.import_cost --size 100000 --rounds 2 --against /path/to/main-checkout
    python -m benchmarks.import_cost --size 100000 --profile     # where the whole import goes
    python -m benchmarks.import_cost --size 100000 --cprofile    # storing the files, by function
    python -m benchmarks.import_cost --lists DB                  # what ranking each list costs

`--profile` runs `catalog import` in this process with a timer around each component (the two
FTS5 indexes, cite keys, the lists' counts and rankings, commits: benchmarks/import_profile.py).
`--cprofile` runs the importer in this process under cProfile (lists not ranked) and prints the
functions that took longest, cumulatively: the way the quadratic cite keys were found.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import corpus, importing

HERE = Path(__file__).resolve().parent


def compare(size: int, rounds: int, against: list[Path], work: Path) -> list[str]:
    files = [f.resolve() for f in corpus.write_paper_lists(size, work / "lists", per_file=max(1000, size // 4))]
    base = {**os.environ, "CATALOG_DISCOVER_REFRESH": "off", "PYTHONDONTWRITEBYTECODE": "1"}
    # Each side's catalog by PYTHONPATH, run from the work folder: `python -m` puts the folder
    # it runs in first on the path, so run from a checkout every side would be that checkout.
    sides = {"this checkout": {**base, "PYTHONPATH": str(HERE.parent)}}
    for folder in against:
        sides[str(folder)] = {**base, "PYTHONPATH": str(folder.resolve())}
    lines = [f"### Import cost: {size:,} papers, {rounds} alternating rounds", "",
             "| round | side | until it returned | ratio to raw | ranking lists | files stored | ratio to raw | CPU"
             " | left to the background |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for n in range(rounds):
        for old in work.glob("*.db*"):
            old.unlink()
        os.sync()
        start = time.perf_counter()
        importing.raw_sqlite_import(files, work / "raw.db")
        raw = time.perf_counter() - start
        lines.append(f"| {n + 1} | raw sqlite3 (load {os.getloadavg()[0]:.1f}) | {raw:.1f} s | 1.00x | | | | | |")
        for i, (name, env) in enumerate(sides.items()):
            os.sync()
            before = _children_cpu()
            took = importing.catalog_import(files, work / f"side{i}.db", env, cwd=work)
            cpu = _children_cpu() - before  # the import and its reader worker: less swayed by load
            ranking = importing.RANKING_S[-1]
            rest, left = _rank_the_rest(work / f"side{i}.db", env)
            lines.append(f"| {n + 1} | {name} | {took:.1f} s | {took / raw:.2f}x | {ranking:.1f} s"
                         f" | {took - ranking:.1f} s | {(took - ranking) / raw:.2f}x | {cpu:.1f} s"
                         f" | {left} lists, {rest:.1f} s |")
    return lines + [""]


_REST = ("import sys, time; from catalog.store import open_store; store = open_store(sys.argv[1]); "
         "start = time.perf_counter(); built, _ = store.lists.refresh(budget=None, rescored=True); "
         "print(built, time.perf_counter() - start)")


def _rank_the_rest(db: Path, env: dict) -> tuple[float, int]:
    """(seconds, lists) the background refresher spends on what the import left: its
    `store.lists.refresh`, in a process of its own after the import returned."""
    out = subprocess.run([sys.executable, "-c", _REST, str(db)], check=True, capture_output=True, text=True,
                         env=env, cwd=db.parent).stdout.split()
    return float(out[-1]), int(out[-2])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def profile(size: int, work: Path, top: int = 25) -> str:
    """The importer's own process under cProfile (the reader's worker is not profiled: the
    time the importer waits for it shows as queue waits)."""
    from catalog.importing import importer
    from catalog.store import open_store

    files = corpus.write_paper_lists(size, work / "lists", per_file=max(1000, size // 4))
    db = work / "profiled.db"
    for old in work.glob(db.name + "*"):
        old.unlink()
    store = open_store(db)
    profiler = cProfile.Profile()
    profiler.enable()
    importer.import_paths(store, files)
    profiler.disable()
    store.close()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def components(size: int, work: Path) -> list[str]:
    from benchmarks.import_profile import profile_import

    files = corpus.write_paper_lists(size, work / "lists", per_file=max(1000, size // 4))
    db = work / "components.db"
    for old in work.glob(db.name + "*"):
        old.unlink()
    return profile_import(files, db)


def list_costs(db: Path) -> list[str]:
    """Each list a catalog keeps, ranked again as the import ranks it (FTS5's bm25 over every
    match, one at a time), and its matches merely counted (what reading the doclists costs,
    without scoring): seconds for the words' lists and the prefixes'."""
    import sqlite3

    from catalog.store.lists.sqlite_words import RANKED, STATE_TABLE
    from catalog.store.lists.sqlite_build import COUNT

    conn = sqlite3.connect(db)
    keys = [k for (k,) in conn.execute(f"SELECT term FROM {STATE_TABLE} WHERE term LIKE '(%' AND term NOT LIKE '% %'")]
    ranking = {False: 0.0, True: 0.0}
    counting = {False: 0.0, True: 0.0}
    number = {False: 0, True: 0}
    for key in keys:
        prefix = key.endswith("*)")
        start = time.perf_counter()
        conn.execute(COUNT, (key,)).fetchall()
        counting[prefix] += time.perf_counter() - start
        start = time.perf_counter()
        conn.execute(RANKED, (key, 1000)).fetchall()
        ranking[prefix] += time.perf_counter() - start
        number[prefix] += 1
    conn.close()
    lines = [f"### Ranking the lists of {db.name} one at a time (load {os.getloadavg()[0]:.1f})", "",
             "| lists | how many | ranked (bm25, first 1,000) | matches counted |", "| --- | --- | --- | --- |"]
    for prefix, label in ((False, "words"), (True, "prefixes")):
        lines.append(f"| {label} | {number[prefix]} | {ranking[prefix]:.1f} s | {counting[prefix]:.1f} s |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--against", type=Path, nargs="*", default=[],
                        help="other checkouts (folders holding catalog/) to time alongside")
    parser.add_argument("--profile", action="store_true", help="time the import's components in this process")
    parser.add_argument("--cprofile", action="store_true", help="profile the importer under cProfile instead")
    parser.add_argument("--lists", type=Path, help="a catalog whose lists to rank again, one at a time")
    parser.add_argument("--work", type=Path, default=HERE / "work" / "import_cost")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.lists:
        print("\n".join(list_costs(args.lists)))
    elif args.profile:
        print("\n".join(components(args.size, args.work)))
    elif args.cprofile:
        print(profile(args.size, args.work))
    else:
        print("\n".join(compare(args.size, args.rounds, args.against, args.work)))


if __name__ == "__main__":
    main()
