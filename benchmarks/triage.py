"""Triage mode's catalog calls at scale, in one process (what the triage screen's workers ask).

    python -m benchmarks.triage --size 100000 --work benchmarks/work/triage

Builds the corpus catalog once (benchmarks.discover.build_catalog), rates 20 papers 5 so there
is something to learn from, warms the discovery cache, then times each call (median of 3) and
compares reading a list's untriaged ids with search_ids against whole summaries, alternating.
The ratings are taken back at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path


def _median(call, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--work", type=Path, default=Path(__file__).parent / "work" / "triage")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("XDG_CACHE_HOME", str(args.work / "cache"))
    from benchmarks.discover import build_catalog
    from catalog.library import Catalog
    from catalog.parts.triaging import _untriaged
    from catalog.searching.query import parse

    db = args.work / "catalog.db"
    if not db.exists():
        build_catalog(args.size, args.work)
    catalog = Catalog.open(db)
    keys = [p.key for p in catalog.search("sparse autoencoders", limit=20, snippets=False)]
    catalog.set_rating(keys, 5)
    try:
        catalog.triage.triage_order("")  # builds or updates the cache, imports scikit-learn
        query = _untriaged(parse(""))
        old, new = [], []
        for _ in range(3):
            with catalog.store.read() as tx:
                old.append(_median(lambda: tx.search.page(query, limit=-1), 1))
                new.append(_median(lambda: tx.search.ids(query), 1))
        o, n = statistics.median(old), statistics.median(new)
        print(f"untriaged ids of the whole catalog: summaries {o:.2f} s, search_ids {n:.2f} s ({n / o:.2f}x)")
        for label, call in (("untriaged('', limit=500)", lambda: catalog.triage.untriaged("", limit=500)),
                            ("triage_count('')", lambda: catalog.triage.triage_count("")),
                            ("triage_order('')", lambda: catalog.triage.triage_order("")),
                            ("triage_order('venue:ICML')", lambda: catalog.triage.triage_order("venue:ICML"))):
            print(f"{label}: median {_median(call):.2f} s")
    finally:
        catalog.set_rating(keys, None)
        catalog.close()


if __name__ == "__main__":
    main()
