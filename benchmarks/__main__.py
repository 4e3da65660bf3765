"""Run the benchmarks on a generated corpus and print (or append) a Markdown report.

    python -m benchmarks --size 10000                 # a quick run (CI runs a smaller one)
    python -m benchmarks --size 100000 --write docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sqlite3
from pathlib import Path

from benchmarks import corpus, importing, processes, relevance, searching, suggesting, text
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


def ratio_table(title: str, times: dict[str, list[float]], unit=lambda s: f"{s:.2f} s") -> list[str]:
    baseline = percentiles(next(iter(times.values())))[0]
    lines = [f"### {title}", "", "| | median | p95 | ratio to first row |", "| --- | --- | --- | --- |"]
    for name, samples in times.items():
        median, p95 = percentiles(samples)
        lines.append(f"| {name} | {unit(median)} | {unit(p95)} | {median / baseline:.2f}x |")
    return lines + [""]


def run(size: int, repeats: int, search_repeats: int, work_root: Path, tui: bool,
        quick: bool = False) -> str:
    work = work_root / str(size)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    files = corpus.write_paper_lists(size, work / "lists", per_file=max(1000, size // 20))
    jsonl = corpus.write_jsonl(size, work / "papers.jsonl")
    megabytes = sum(f.stat().st_size for f in files) / 1e6

    lines = [f"## {size:,} papers ({megabytes:.0f} MB of paper lists)", "", f"Machine: {machine()}", ""]
    imports = importing.compare(files, jsonl, work, repeats, floor=size <= 200_000)
    lines += ratio_table(f"Import (whole run, {repeats} alternating runs each)", imports)
    catalog_db, raw_db, utils_db = (work / f"import-{n}-0.db" for n in (2, 0, 1))
    sizes = {name: db.stat().st_size / 1e6 for name, db in
             (("catalog", catalog_db), ("raw sqlite3", raw_db), ("sqlite-utils", utils_db))}
    lines += ["Database size: " + ", ".join(f"{n} {mb:.0f} MB" for n, mb in sizes.items())
              + f". Peak memory of `catalog import`: {max(importing.PEAK_MB):.0f} MB.", ""]

    searching.tag_some(catalog_db, max(10, size // 100))
    lines += [f"### Search in-process: first 50 ranked results with snippets ({search_repeats} runs each)", "",
              "| query | shown | catalog p50 | catalog p95 | raw FTS5 p50 | raw FTS5 p95 | p50 ratio |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in searching.compare(catalog_db, search_repeats):
        c50, c95 = percentiles(r["catalog"])
        r50, r95 = percentiles(r["raw"])
        lines.append(f"| {r['label']} `{r['query']}` | {r['hits']} | {ms(c50)} | {ms(c95)} | "
                     f"{ms(r50)} | {ms(r95)} | {c50 / max(r50, 1e-6):.2f}x |")
    lines.append("")
    lines += ratio_table("Search as a whole process (`-n 20`, three queries)",
                         processes.compare(catalog_db, utils_db, max(3, search_repeats // 5)),
                         unit=ms)
    lines += suggesting.report(catalog_db, repeats=max(6, search_repeats // 2))
    lines += relevance.report(work)
    lines += text.report(repeats=3 if quick else 7)
    if tui:
        from benchmarks import tui as tui_bench

        lines += tui_bench.report(catalog_db, quick=quick)
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000, help="papers in the corpus")
    parser.add_argument("--repeats", type=int, default=3, help="import runs per side")
    parser.add_argument("--search-repeats", type=int, default=30)
    parser.add_argument("--work", type=Path, default=HERE / "work", help="scratch folder")
    parser.add_argument("--no-tui", action="store_true", help="skip the TUI measurements")
    parser.add_argument("--quick", action="store_true",
                        help="one TUI start and one typed phrase (the CI smoke run)")
    parser.add_argument("--write", type=Path, help="append the report to this Markdown file")
    args = parser.parse_args()
    report = run(args.size, args.repeats, args.search_repeats, args.work, tui=not args.no_tui,
                 quick=args.quick)
    print(report)
    if args.write:
        with args.write.open("a", encoding="utf-8") as f:
            f.write("\n" + report)


if __name__ == "__main__":
    main()
