"""Ready when the import returns: `catalog import` as a user runs it, then every query class of
the mix as a whole process at once, each against the rare word in the same rounds.

    python -m benchmarks.ready --size 50000 --wide     # a wide library (BibTeX: venues, authors)
    python -m benchmarks.ready --size 100000           # the seed-shaped paper lists
    python -m benchmarks.ready --catalog DB            # the searches only, right after an import
                                                       # another command made (tui_real --wide)

Nothing runs between the import and the searches: no background work is waited for (the
discovery cache is left off, as it does not serve searches). The target: every class within
1.3x of the rare word (p95 as a whole process).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from benchmarks import corpus, importing
from benchmarks.measure import ms, percentiles, timed
from benchmarks.topk import MIX

HERE = Path(__file__).resolve().parent
TARGET = 1.3


def run(size: int, wide: bool, rounds: int, work: Path, against_raw: bool = False) -> list[str]:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if wide:
        files = corpus.write_wide_bibtex(size, work / "bib")
    else:
        files = corpus.write_paper_lists(size, work / "lists", per_file=max(1000, size // 4))
    db = work / "ready.db"
    env = {**os.environ, "CATALOG_DISCOVER_REFRESH": "off"}
    raw = None
    if against_raw:  # the floor, on the same files just before (paper lists only)
        os.sync()
        raw = timed(lambda: importing.raw_sqlite_import(files, work / "raw.db"))
    os.sync()
    took = importing.catalog_import(files, db, env)
    ranking = importing.RANKING_S[-1]
    kind = "wide BibTeX library" if wide else "paper lists"
    lines = [f"### Ready when the import returns: {size:,} papers ({kind})", "",
             f"`catalog import` {took:.1f} s until it returned, of which ranking lists {ranking:.1f} s;"
             f" peak memory {importing.PEAK_MB[-1]:.0f} MB. Then each query as a whole process,"
             f" {rounds} rounds:", ""]
    if raw is not None:
        lines[-1:] = [f"Raw sqlite3 (executemany + rebuild, one FTS5 index) {raw:.1f} s just before: catalog"
                      f" import {took / raw:.2f}x until it returned, {(took - ranking) / raw:.2f}x until its"
                      " files were stored.", ""]
    return lines + query_classes(db, rounds, env)


def query_classes(db: Path, rounds: int, env: dict[str, str]) -> list[str]:
    """Each query class of the mix as a whole `catalog search`, rounds alternated, p95 against
    the rare word's."""
    catalog = Path(sys.executable).with_name("catalog")
    times: dict[str, list[float]] = {query: [] for _, query in MIX}
    for _ in range(rounds):
        for _, query in MIX:
            times[query].append(timed(lambda: subprocess.run(
                [catalog, "--db", db, "search", "-n", "20", query], check=True, capture_output=True, env=env)))
    lines = ["| query | median | p95 | p95 ratio to the rare word |", "| --- | --- | --- | --- |"]
    _, rare95 = percentiles(times[MIX[0][1]])
    for label, query in MIX:
        median, p95 = percentiles(times[query])
        mark = "" if p95 <= TARGET * rare95 else " (missed)"
        lines.append(f"| {label} `{query}` | {ms(median)} | {ms(p95)} | {p95 / rare95:.2f}x{mark} |")
    return lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=50_000)
    parser.add_argument("--wide", action="store_true", help="a wide BibTeX library instead of paper lists")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--work", type=Path, default=HERE / "work" / "ready")
    parser.add_argument("--raw", action="store_true", help="time a raw sqlite3 import of the same paper lists first")
    parser.add_argument("--catalog", type=Path, help="only the searches, on this catalog (just imported)")
    args = parser.parse_args()
    if args.catalog:
        print("\n".join(query_classes(args.catalog, args.rounds, dict(os.environ))))
        return
    print("\n".join(run(args.size, args.wide, args.rounds, args.work, args.raw and not args.wide)))


if __name__ == "__main__":
    main()
