"""Whether the results hold each marked paper, as the TUI asks before t, s, r, x act on marks
(catalog/tui/editing.py, `_check_marks`): every paper of a catalog marked, then a search.

    python -m benchmarks.marks_check DB [QUERY ...] [--runs 2]

For each query (default: the whole catalog, and `learning the`), the check as it was (one
search per 400 keys) and as it is (the results' keys in one search, then few keys checked),
alternated `--runs` times in the same process, with the machine's load printed.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from catalog.library import Catalog
from catalog.searching.query import RELEVANCE
from catalog.searching.request import request
from catalog.tui.querytext import chunks, keys_query


def per_chunk(catalog: Catalog, query: str, keys: list[str]) -> set[str]:
    found: set[str] = set()
    for chunk in chunks(keys):
        rows = catalog.search(request(keys_query(chunk, query), RELEVANCE), limit=2 * len(chunk), snippets=False)
        found.update(p.key for p in rows)
    return found


def one_search(catalog: Catalog, query: str, keys: list[str]) -> set[str]:
    every = catalog.search(request(query, RELEVANCE), limit=-1, snippets=False)
    return {p.key for p in every}.intersection(keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("queries", nargs="*", default=["", "learning the"])
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    catalog = Catalog.open(args.db)
    keys = [p.key for p in catalog.search("", limit=-1, snippets=False)]
    print(f"{len(keys):,} papers marked; load {os.getloadavg()[0]:.1f}")
    for query in args.queries:
        for run in range(args.runs):
            for name, check in (("per 400 keys", per_chunk), ("one search", one_search)):
                start = time.perf_counter()
                found = check(catalog, query, keys)
                print(f"{query!r:16} {name:13} {time.perf_counter() - start:6.2f} s  "
                      f"({len(found):,} in the results)  load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
