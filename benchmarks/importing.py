"""Import: `catalog` against raw sqlite3 (executemany, then one FTS5 rebuild)."""

from __future__ import annotations

import sqlite3
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


def catalog_import(files: list[Path], db: Path) -> None:
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    report = catalog.import_paths(files)
    assert not report.errors, report.errors[0].error
    catalog.close()


def compare(files: list[Path], work: Path, repeats: int) -> dict[str, list[float]]:
    """Alternate the runs so machine noise hits both sides alike."""
    times: dict[str, list[float]] = {"raw sqlite3": [], "catalog": []}
    for i in range(repeats):
        for name, fn in (("raw sqlite3", raw_sqlite_import), ("catalog", catalog_import)):
            db = work / f"import-{name.replace(' ', '-')}-{i}.db"
            for leftover in work.glob(db.name + "*"):
                leftover.unlink()
            times[name].append(timed(lambda: fn(files, db)))
    return times
