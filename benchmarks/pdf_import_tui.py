"""The TUI while `catalog import DIR` brings in a folder of PDFs in another process: keystroke
to results, against the same typing with nothing importing.

    python -m benchmarks.pdf_import_tui [--pdfs 200] [--pages 15]

The catalog: the seeds and the papers of tests/data/pdf/papers/catalog.bib. The folder: the 51
real papers' PDFs of tests/data/pdf/papers/ (each attached to its paper) and made PDFs of
papers the catalog lacks (each a new paper from its own text), `--pages` pages of seed words
each, up to `--pdfs` files. A TUI session (benchmarks/tui.py's probe: a process of its own, a
steady typist, a key each 150 ms) types benchmarks.tui's phrases once with nothing running,
then again once the import has attached its first files; the table says whether the import
was still running when the typing ended (figures of a session that outlived it would flatter).
The import runs as `catalog import` does, with the discovery cache brought up to date in it
(CATALOG_DISCOVER_REFRESH=inline), so nothing outlives the benchmark.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import tui
from catalog.library import Catalog
from catalog.resources import seeds_dir

ROOT = Path(__file__).resolve().parent.parent
PAPERS = ROOT / "tests" / "data" / "pdf" / "papers"


def build(folder: Path, pdfs: int, pages: int) -> tuple[Path, Path, int]:
    """(the catalog, the folder of PDFs, its pages)."""
    from catalog.attachments import pdftext
    from tests.pdfmaker import make

    db = folder / "catalog.db"
    catalog = Catalog.open(db)
    try:
        catalog.import_paths([seeds_dir(), PAPERS / "catalog.bib"])
    finally:
        catalog.close()
    target = folder / "Papers"
    target.mkdir()
    real = sorted(PAPERS.glob("*.pdf"))[:pdfs]
    total = 0
    for path in real:
        shutil.copy(path, target / path.name)
        total += pdftext.read(path).page_count
    words = " ".join(p.read_text() for p in sorted(seeds_dir().glob("*.txt"))).split()
    rng = random.Random(34)
    for n in range(pdfs - len(real)):
        title = " ".join(rng.choices(words, k=8)).title()
        first = (f"{title}\nAnonymous Authors\nAbstract\n{' '.join(rng.choices(words, k=120))}\n"
                 f"1 Introduction\n{' '.join(rng.choices(words, k=300))}")
        make(target / f"new-{n:03}.pdf", [first] + [" ".join(rng.choices(words, k=700)) for _ in range(pages - 1)])
        total += pages
    return db, target, total


def attachments(db: Path) -> int:
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=5) as conn:
        return conn.execute("SELECT count(*) FROM attachment").fetchone()[0]


def summary(latencies: list[float], kept: int) -> str:
    searching = sorted(latencies[kept:]) or [0.0]
    every = sorted(latencies)
    return (f"median {statistics.median(every) * 1000:.1f} ms, p95 {every[round(0.95 * (len(every) - 1))] * 1000:.1f} ms"
            f" ({len(every)} keys); the {len(searching)} that search: median {statistics.median(searching) * 1000:.1f} ms,"
            f" p95 {searching[round(0.95 * (len(searching) - 1))] * 1000:.1f} ms, slowest {searching[-1] * 1000:.0f} ms")


def run(pdfs: int, pages: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        db, folder, total = build(Path(tmp), pdfs, pages)
        quiet = tui._probe(db, typing=True)
        env = {**os.environ, "CATALOG_DB": "", "CATALOG_DISCOVER_REFRESH": "inline"}
        started = time.perf_counter()
        importing = subprocess.Popen([sys.executable, "-m", "catalog", "--db", str(db), "import", str(folder)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        while importing.poll() is None and attachments(db) < 3:
            time.sleep(0.05)
        before = attachments(db)
        busy = tui._probe(db, typing=True)
        after, running = attachments(db), importing.poll() is None
        _, err = importing.communicate()
        took = time.perf_counter() - started
        load = os.getloadavg()[0]
        lines = [f"### The TUI during `catalog import` of {pdfs} PDFs ({total:,} pages)", "",
                 f"Load average {load:.1f} on {os.cpu_count()} cores; the import took {took:.1f} s"
                 f" (exit {importing.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}).", "",
                 "| | keystroke to results |", "| --- | --- |",
                 f"| nothing importing | {summary(quiet['latencies'], quiet['kept'])} |",
                 f"| while importing (attachments {before} to {after} of {pdfs} during the typing;"
                 f" {'still importing at its end' if running else 'THE IMPORT ENDED FIRST'}) |"
                 f" {summary(busy['latencies'], busy['kept'])} |", "",
                 f"Refreshes for changes made elsewhere while the keys were typed: {busy['refreshes']}.", "",
                 "While importing:", ""] + tui.breakdown_lines(busy["keys"], slowest=5)
        return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdfs", type=int, default=200)
    parser.add_argument("--pages", type=int, default=15, help="pages of each made PDF")
    args = parser.parse_args()
    print(run(args.pdfs, args.pages))


if __name__ == "__main__":
    main()
