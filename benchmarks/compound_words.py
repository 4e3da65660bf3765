"""What counting a compound's words held apart costs a search (catalog/store/tierplan.py,
`_parts`): the first 50 results of queries with a compound, with it and with it turned off,
alternated in one run on a generated catalog (benchmarks/corpus.py).

    python -m benchmarks.compound_words --size 10000 [--rounds 15] [--work DIR]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUERIES = ("weight-based interpretability", "low-rank attention", "model-free zeugma", "attention")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000, help="papers in the corpus")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--work", type=Path, default=HERE / "work", help="scratch folder")
    args = parser.parse_args()

    from benchmarks import corpus
    from catalog.library import Catalog
    from catalog.store import tierplan

    db = args.work / f"compound-{args.size}.db"
    if not db.exists():
        source = corpus.write_jsonl(args.size, args.work / f"compound-{args.size}.jsonl")
        catalog = Catalog.open(db)
        catalog.import_paths([source])
        catalog.close()
    catalog = Catalog.open(db)
    parts = tierplan._parts
    modes = {"words apart": parts, "as one phrase only": lambda option, syntax: []}
    times: dict[tuple[str, str], list[float]] = {}
    found: dict[tuple[str, str], int] = {}
    for n in range(args.rounds):
        for mode, planner in list(modes.items())[::1 if n % 2 else -1]:  # each mode first in turn
            tierplan._parts = planner
            for query in QUERIES:
                start = time.perf_counter()
                found[query, mode] = len(catalog.search(query, limit=50))
                times.setdefault((query, mode), []).append(time.perf_counter() - start)
    tierplan._parts = parts
    print(f"| query ({args.size:,} papers) | " + " | ".join(modes) + " |")
    print("| --- |" + " --- |" * len(modes))
    for query in QUERIES:
        cells = [f"{statistics.median(times[query, m]) * 1000:.1f} ms ({found[query, m]})" for m in modes]
        print(f"| `{query}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
