"""Import: `catalog` against raw sqlite3 and against sqlite-utils, on the same corpus."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from benchmarks.measure import timed


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


def catalog_import(files: list[Path], db: Path) -> None:
    """`catalog import` as a user runs it: a whole process, files on the command line."""
    child = subprocess.Popen([sys.executable, "-m", "catalog", "--db", db, "import", *files],
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise RuntimeError(f"catalog import failed with exit code {child.returncode}")
    PEAK_MB.append(usage.ru_maxrss / 1024)


def compare(files: list[Path], jsonl: Path, work: Path, repeats: int) -> dict[str, list[float]]:
    """Alternate the runs so machine noise hits every side alike."""
    sides = {
        "raw sqlite3 (executemany + rebuild)": lambda db: raw_sqlite_import(files, db),
        "sqlite-utils insert + enable-fts": lambda db: sqlite_utils_import(jsonl, db),
        "catalog import": lambda db: catalog_import(files, db),
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    for i in range(repeats):
        for n, (name, run) in enumerate(sides.items()):
            db = work / f"import-{n}-{i}.db"
            for leftover in work.glob(db.name + "*"):
                leftover.unlink()
            times[name].append(timed(lambda: run(db)))
    return times
