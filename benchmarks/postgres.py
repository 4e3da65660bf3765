"""PostgreSQL against SQLite on the same corpus: `catalog import` (whole processes, alternated
so the machine's load falls on both alike) and typical queries in-process (first 50 results
with snippets), on a throwaway server (tests/pg_server.py) or CATALOG_TEST_POSTGRES. On
PostgreSQL every ranked list is built first (timed), and each query runs with the lists and
without (ranking every match), alternated with SQLite.

    python -m benchmarks.postgres [N] [ROUNDS]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.corpus import write_paper_lists

# Papers holding the word in the generated 100k corpus: raphasor 31, debias 799, decomposition
# 1,593 (rare); influence 10,489, graph 28,904, model 51,319 (frequent; lists on PostgreSQL).
QUERIES = ["raphasor", "debias", "decomposition", "influence", "graph", "sparse attention", "venue:ICML year:>=2020 graph", "tag:x OR status:read",
           '"language model"', "model*", "year:2018 -graph"]


def _import(location, files) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "catalog", "--db", str(location), "import", *map(str, files)],
                   check=True, capture_output=True)
    return time.perf_counter() - start


def _time(catalog, query: str) -> float:
    catalog.search(query, limit=50)  # warm
    times = []
    for _ in range(5):
        start = time.perf_counter()
        catalog.search(query, limit=50)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _compare(db, url) -> None:
    """Each query on SQLite, on PostgreSQL ranking every match, and from its lists, alternated."""
    from catalog.library import Catalog
    from catalog.store.postgres import topk

    sqlite, postgres = Catalog.open(db), Catalog.open(url)
    try:
        start = time.perf_counter()
        built, _ = postgres.store.refresh_top_lists(budget=None)
        print(f"postgresql ranked lists: {built} built in {time.perf_counter() - start:.1f} s")
        for query in QUERIES:
            topk.ENABLED = False
            full = _time(postgres, query)
            topk.ENABLED = True
            listed = _time(postgres, query)
            print(f"{query!r:36} sqlite {_time(sqlite, query):6.1f} ms   postgresql {full:6.1f} ms,"
                  f" with lists {listed:6.1f} ms")
    finally:
        sqlite.close()
        postgres.close()


def main(n: int = 100_000, rounds: int = 1) -> None:
    from tests.pg_server import Server

    server = Server().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            files = write_paper_lists(n, Path(tmp) / "lists")
            imports = {"sqlite": [], "postgresql": []}
            for r in range(rounds):
                db = Path(tmp) / f"c{r}.db"
                imports["sqlite"].append(_import(db, files))
                url = server.create()
                imports["postgresql"].append(_import(url, files))
            for name, times in imports.items():
                print(f"import {n} papers {name}: {', '.join(f'{t:.1f}' for t in times)} s")
            print(f"postgresql / sqlite: {statistics.median(imports['postgresql']) / statistics.median(imports['sqlite']):.2f}")
            _compare(db, url)
    finally:
        server.stop()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
