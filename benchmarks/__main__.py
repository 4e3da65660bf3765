"""Run the benchmarks: python -m benchmarks [--size N] [--repeats R] [--write docs/benchmarks.md]"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sqlite3
from pathlib import Path

from benchmarks import corpus, importing, searching
from benchmarks.measure import ms, percentiles

HERE = Path(__file__).resolve().parent


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"SQLite {sqlite3.sqlite_version}, {platform.system()} {platform.release()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000, help="papers in the corpus")
    parser.add_argument("--repeats", type=int, default=3, help="import runs per side")
    parser.add_argument("--search-repeats", type=int, default=30)
    parser.add_argument("--work", type=Path, default=HERE / "work")
    parser.add_argument("--write", type=Path, help="append the results as Markdown to this file")
    args = parser.parse_args()

    work = args.work / str(args.size)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    files = corpus.write_paper_lists(args.size, work / "lists")
    size_mb = sum(f.stat().st_size for f in files) / 1e6

    lines = [f"## {args.size:,} papers ({size_mb:.0f} MB of paper lists)", "", f"Machine: {machine()}", ""]
    imports = importing.compare(files, work, args.repeats)
    raw_median = percentiles(imports["raw sqlite3"])[0]
    lines += ["### Import (median of %d, alternating)" % args.repeats, "",
              "| tool | median | ratio to raw |", "| --- | --- | --- |"]
    for name, samples in imports.items():
        median = percentiles(samples)[0]
        lines.append(f"| {name} | {median:.2f} s | {median / raw_median:.2f}x |")

    catalog_db = work / "import-catalog-0.db"
    lines += ["", f"Database size: {catalog_db.stat().st_size / 1e6:.0f} MB "
              f"(raw: {(work / 'import-raw-sqlite3-0.db').stat().st_size / 1e6:.0f} MB)", "",
              f"### Search in-process, first 50 ranked results with snippets ({args.search_repeats} runs each)", "",
              "| query | hits shown | catalog p50 | catalog p95 | raw p50 | raw p95 | p50 ratio |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in searching.compare(catalog_db, args.search_repeats):
        c50, c95 = percentiles(r["catalog"])
        r50, r95 = percentiles(r["raw"])
        lines.append(f"| {r['label']} `{r['query']}` | {r['hits']} | {ms(c50)} | {ms(c95)} | "
                     f"{ms(r50)} | {ms(r95)} | {c50 / r50:.2f}x |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        with args.write.open("a", encoding="utf-8") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
