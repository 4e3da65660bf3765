"""Connecting words (catalog/searching/connecting.py) on real titles: the 993 arXiv papers of
tests/data/arxiv_categories, each title holding a connecting word searched as a known item,
as written and with that word swapped for another (`via` -> `using`: how a reader recalls a
title), with connecting words optional and with them required, in one run.

    python -m benchmarks.connecting_words [--work DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAPERS = HERE.parent / "tests" / "data" / "arxiv_categories" / "papers.jsonl.gz"
# The word a reader may recall instead (another connecting word, or a plain one).
SWAP = {"via": "using", "using": "via", "towards": "for", "toward": "for", "through": "via", "without": "with",
        "across": "for", "between": "of", "based": "using", "against": "for", "within": "in", "beyond": "for",
        "versus": "vs", "vs": "versus", "among": "in", "upon": "on"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=HERE / "work", help="scratch folder")
    args = parser.parse_args()

    from catalog.library import Catalog
    from catalog.searching import connecting

    rows = [json.loads(line) for line in gzip.open(PAPERS, "rt", encoding="utf-8")]
    db = args.work / "connecting-arxiv.db"
    if not db.exists():
        args.work.mkdir(parents=True, exist_ok=True)
        source = args.work / "connecting-arxiv.jsonl"
        source.write_text("".join(json.dumps({"title": r["title"], "abstract": r["abstract"]}) + "\n" for r in rows))
        catalog = Catalog.open(db)
        catalog.import_paths([source])
        catalog.close()
    catalog = Catalog.open(db)
    items = []
    for row in rows:
        title = " ".join(row["title"].split())
        words = [w for w in re.findall(r"[A-Za-z]+", title) if w.lower() in SWAP]
        if words:
            typed = re.sub(r"[^\w\s-]", " ", title)
            items.append((title, {"as written": typed,
                                  "word swapped": re.sub(rf"\b{words[0]}\b", SWAP[words[0].lower()], typed, count=1)}))

    def rank(query: str, title: str) -> int | None:
        hits = catalog.search(query, limit=20, snippets=False)
        return next((i + 1 for i, h in enumerate(hits) if h.title.strip().lower() == title.lower()), None)

    optional = connecting.optional
    print(f"{len(items)} of {len(rows)} titles hold a connecting word")
    print("| connecting words | query | first | in top 10 | MRR |")
    print("| --- | --- | --- | --- | --- |")
    for mode, rule in (("optional", optional), ("required", lambda clauses: set())):
        connecting.optional = rule
        for kind in ("as written", "word swapped"):
            ranks = [rank(queries[kind], title) for title, queries in items]
            mrr = sum(1 / r for r in ranks if r) / len(ranks)
            print(f"| {mode} | {kind} | {sum(r == 1 for r in ranks)} | {sum(1 for r in ranks if r and r <= 10)}"
                  f" | {mrr:.3f} |")
    connecting.optional = optional
    catalog.close()


if __name__ == "__main__":
    main()
