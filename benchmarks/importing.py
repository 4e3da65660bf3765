"""Import: `catalog` against raw sqlite3 and against sqlite-utils, on the same corpus."""

from __future__ import annotations

import gc
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


def raw_sqlite_import(files: list[Path], db: Path) -> None:
    """The floor: split paragraphs, executemany the rows, then build the FTS index once."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE TABLE paper (id INTEGER PRIMARY KEY, venue TEXT, year INTEGER, abstract TEXT)")
    conn.execute("CREATE VIRTUAL TABLE paper_fts USING fts5(abstract, content='paper', content_rowid='id')")
    conn.execute("BEGIN")
    for path in files:
        with path.open(encoding="utf-8") as f:
            header = f.readline().split()
            venue, year = header[0], int(header[1])
            rows = ((venue, year, p.strip()) for p in f.read().split("\n\n") if p.strip())
            conn.executemany("INSERT INTO paper(venue, year, abstract) VALUES (?, ?, ?)", rows)
    conn.execute("INSERT INTO paper_fts(paper_fts) VALUES ('rebuild')")
    conn.execute("COMMIT")
    conn.close()


def sqlite_utils_import(jsonl: Path, db: Path) -> None:
    """`sqlite-utils insert` of the same papers as JSON lines, then `enable-fts` on the abstract."""
    tool = Path(sys.executable).with_name("sqlite-utils")
    subprocess.run([tool, "insert", db, "papers", jsonl, "--nl"], check=True)
    subprocess.run([tool, "enable-fts", db, "papers", "abstract"], check=True)


PEAK_MB: list[float] = []  # peak memory of each `catalog import` run
RANKING_S: list[float] = []  # of each `catalog import` run: the seconds it spent ranking lists
# `catalog import` is started from this small process, not from the benchmark's own (which
# holds hundreds of MB after the raw import): a child's peak memory counts the process it
# was forked from. Prints the import's stderr, then the peak of the largest process under it
# (main or worker), in KiB.
_PEAK_WRAPPER = ("import resource, subprocess, sys; "
                 "run = subprocess.run(sys.argv[1:], stderr=subprocess.PIPE, text=True); "
                 "print(run.stderr); "
                 "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(run.returncode)")
_RANKED = re.compile(r"ranked the lists of [\d,]+ frequent words and prefixes in ([\d.]+) s")


def catalog_import(files: list[Path], db: Path, env: dict | None = None, cwd: Path | None = None) -> float:
    """`catalog import` as a user runs it: a whole process, files on the command line, until
    it returns (its lists ranked: ready). The seconds it said it spent ranking lists are kept
    in RANKING_S. `cwd`: where it runs (`python -m` puts that folder first on the path, before
    PYTHONPATH: a comparison of checkouts runs it where there is none)."""
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", _PEAK_WRAPPER,
                          sys.executable, "-m", "catalog", "--db", db, "import", *files],
                         capture_output=True, text=True, env=env, cwd=cwd)
    took = time.perf_counter() - start
    if run.returncode:
        raise RuntimeError(f"catalog import failed with exit code {run.returncode}: {run.stdout[-500:]}")
    PEAK_MB.append(int(run.stdout.split()[-1]) / 1024)
    ranked = _RANKED.search(run.stdout)
    RANKING_S.append(float(ranked.group(1)) if ranked else 0.0)
    return took


def schema_floor(files: list[Path], db: Path) -> float:
    """catalog's own SQL with every row prepared beforehand: what storing into catalog's
    schema costs (two copies of each abstract, eight FTS columns, indexes, one transaction
    per file) without any Python work. Run in its own process, which prepares the rows and
    creates the schema untimed and reports the seconds the storing took."""
    out = subprocess.run([sys.executable, "-m", "benchmarks.importing", str(db), *map(str, files)],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def _store_prepared(files: list[Path], db: Path) -> float:
    from catalog.importing import prepare
    from catalog.store import open_store

    prepared = []  # per file: (venue, year, rows)
    for path in files:
        items = prepare.read(prepare.Job(path))
        opened = next(items)
        prepared.append((opened.venue, opened.year, [f for batch in items for f in batch.fields]))
    store = open_store(db)
    gc.freeze()  # the prepared rows live on; collections should not walk them while timed
    os.sync()
    start = time.perf_counter()
    for n, (venue, year, rows) in enumerate(prepared):
        with store.write() as tx, tx.imports.bulk_load():
            source = tx.imports.add_source(path=f"file{n}", sha256=str(n), venue=venue, year=year,
                                           format="paperlist", imported_at="2026-01-01", warnings="")
            ids = tx.imports.insert_papers(rows, [row.fingerprint[:12] for row in rows], "2026-01-01")
            tx.imports.add_provenance([(paper_id, source, position) for position, paper_id in enumerate(ids, 1)])
            tx.imports.index_papers_from(ids[0])
    store.close()
    return time.perf_counter() - start


def compare(files: list[Path], jsonl: Path, work: Path, repeats: int,
            floor: bool = True) -> dict[str, list[float]]:
    """Alternate the runs so machine noise hits every side alike. Each run starts with the
    disk cache flushed (os.sync), so no run pays for the previous one's writes."""
    sides = {
        "raw sqlite3 (executemany + rebuild)": lambda db: raw_sqlite_import(files, db),
        "sqlite-utils insert + enable-fts": lambda db: sqlite_utils_import(jsonl, db),
        # the discovery cache is benchmarked on its own (benchmarks/discover.py): not built
        # in the background here, under the next side's run
        "catalog import": lambda db: catalog_import(files, db, {**os.environ, "CATALOG_DISCOVER_REFRESH": "off"}),
    }
    if floor:  # holds every prepared row in memory: for corpora up to a few 100k papers
        sides["catalog's SQL alone (rows prepared beforehand)"] = lambda db: schema_floor(files, db)
    RANKING_S.clear()
    times: dict[str, list[float]] = {name: [] for name in sides}
    for i in range(repeats):
        for n, (name, run) in enumerate(sides.items()):
            db = work / f"import-{n}-{i}.db"
            for leftover in work.glob(db.name + "*"):
                leftover.unlink()
            os.sync()
            start = time.perf_counter()
            reported = run(db)  # a side that prepares untimed work reports its own seconds
            times[name].append(reported if reported is not None else time.perf_counter() - start)
    # The same runs split: the files stored, and the lists ranked before it returned.
    times["catalog import: files stored (before ranking lists)"] = [
        total - ranking for total, ranking in zip(times["catalog import"], RANKING_S)]
    times["catalog import: ranking lists"] = list(RANKING_S)
    return times


if __name__ == "__main__":  # schema_floor's process: DB FILE...
    print(_store_prepared([Path(f) for f in sys.argv[2:]], Path(sys.argv[1])))
