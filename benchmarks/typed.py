"""Queries searched one after another in one process, as the TUI searches them while they are
typed: each one's first 50 rows, then its page of 200 (what the TUI asks next), timed, and
with --check compared with ranking every match (the same papers in the same order).

    python -m benchmarks.typed CATALOG.db 'the mod*' 'the mode*' 'the model*' [--check]

Each query is a request as the TUI makes it (a trailing `*`: the word being typed). The first
query of a process starts with nothing remembered: the store's memory of the heads it ranked
(catalog/store/lists/memo.py) is what the later ones may read.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    from catalog.library import Catalog
    from catalog.searching.request import request
    from catalog.store import lists

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("db")
    parser.add_argument("queries", nargs="+")
    parser.add_argument("--check", action="store_true", help="compare each page with ranking every match")
    args = parser.parse_args()
    catalog = Catalog.open(args.db)
    try:
        for query in args.queries:
            for limit in (50, 200):
                asked = request(query, completing=query.endswith("*"))
                start = time.perf_counter()
                page = catalog.first_page(asked, limit=limit)
                line = f"{query!r:24} first {limit:3}: {(time.perf_counter() - start) * 1000:8.1f} ms"
                if args.check:
                    lists.ENABLED = False
                    try:
                        full = catalog.first_page(asked, limit=limit)
                    finally:
                        lists.ENABLED = True
                    same = [p.key for p in page.rows] == [p.key for p in full.rows]
                    line += "  the full ranking's" if same else "  DIFFERS from the full ranking"
                print(line, flush=True)
    finally:
        catalog.close()


if __name__ == "__main__":
    main()
