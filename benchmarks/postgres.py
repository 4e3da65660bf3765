"""PostgreSQL against SQLite on the same corpus: `catalog import` (whole processes, alternated
so the machine's load falls on both alike) and typical queries in-process (first 50 results
with snippets), on a throwaway server (tests/pg_server.py) or CATALOG_TEST_POSTGRES.

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

QUERIES = ["influence", "sparse attention", "venue:ICML year:>=2020 graph", "tag:x OR status:read",
           '"language model"', "model*", "year:2018 -graph"]


def _import(location, files) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "catalog", "--db", str(location), "import", *map(str, files)],
                   check=True, capture_output=True)
    return time.perf_counter() - start


def _queries(location) -> dict[str, float]:
    from catalog.library import Catalog

    catalog = Catalog.open(location)
    out = {}
    try:
        for query in QUERIES:
            catalog.search(query, limit=50)  # warm
            times = []
            for _ in range(5):
                start = time.perf_counter()
                catalog.search(query, limit=50)
                times.append(time.perf_counter() - start)
            out[query] = statistics.median(times) * 1000
    finally:
        catalog.close()
    return out


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
            q_sqlite, q_pg = _queries(db), _queries(url)
            for query in QUERIES:
                print(f"{query!r:36} sqlite {q_sqlite[query]:6.1f} ms   postgresql {q_pg[query]:6.1f} ms")
    finally:
        server.stop()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
