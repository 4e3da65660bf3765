"""Searching a catalog whose papers have PDFs: the TUI's first rows (no snippets), its count,
and the page search alone, for a frequent word, a prefix, two words and a word no page holds.

    python -m benchmarks.pdf_search [--pdfs 200] [--pages 15] [--repeats 5]

The seeds, with PDFs' text stored directly (no PDF is read: this measures search, not
extraction): `--pdfs` attachments of `--pages` pages of 700 words drawn from the seeds.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from datetime import datetime
from pathlib import Path
from time import perf_counter

from catalog.library import Catalog
from catalog.resources import seeds_dir
from catalog.searching.request import request

QUERIES = ("model", "sparse autoenc", "attention heads", "zzzz")


def build(folder: Path, pdfs: int, pages: int) -> Catalog:
    catalog = Catalog.open(folder / "catalog.db")
    catalog.import_paths([seeds_dir()])
    words = " ".join(p.read_text() for p in sorted(seeds_dir().glob("*.txt"))).split()
    rng = random.Random(1)
    keys = [p.key for p in catalog.search("", limit=pdfs)]
    with catalog.store.write() as tx:
        for n in range(pdfs):
            paper = tx.papers.paper_id(keys[n % len(keys)])
            made = tx.edits.add_attachment(paper, stored="linked", path=f"/nowhere/{n}.pdf", name=f"{n}.pdf",
                                           sha256=f"{n:064d}", size=1, added_at=datetime.now())
            tx.imports.set_attachment_text(made, "text", [" ".join(rng.choices(words, k=700)) for _ in range(pages)])
    return catalog


def run(pdfs: int, pages: int, repeats: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        catalog = build(Path(tmp), pdfs, pages)
        lines = [f"### Search with {pdfs} PDFs of {pages} pages ({pdfs * pages:,} pages), mean of {repeats}", "",
                 "| query | first 50 rows | first 50 rows and count | page search alone |", "| --- | --- | --- | --- |"]
        for text in QUERIES:
            asked = request(text)
            times = []
            for counted in (False, True):
                start = perf_counter()
                for _ in range(repeats):
                    catalog.first_page(asked, limit=50, counted=counted)
                times.append((perf_counter() - start) / repeats)
            start = perf_counter()
            with catalog.store.read() as tx:
                for _ in range(repeats):
                    tx.search.pages(asked.query, 400)
            times.append((perf_counter() - start) / repeats)
            lines.append(f"| `{text}` | " + " | ".join(f"{1000 * t:.1f} ms" for t in times) + " |")
        catalog.close()
    return "\n".join(lines + [""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdfs", type=int, default=200)
    parser.add_argument("--pages", type=int, default=15)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(run(args.pdfs, args.pages, args.repeats))


if __name__ == "__main__":
    main()
