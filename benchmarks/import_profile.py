"""Where a whole `catalog import` goes, by component: the import as `catalog import` runs it
(the lists searches as you type read ranked before it returns), in this process, with a timer
around each component's statements and functions (no cProfile: its cost per call inflates the
Python parts). Ranking runs on one thread here, so that its parts add up to wall-clock time.

    python -m benchmarks.import_cost --size 100000 --profile

Statements are told apart by their SQL (the two FTS5 indexes, the lists' counts and rankings,
COMMIT); functions by name. A component's time excludes the components timed inside it.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from pathlib import Path

# (label, how to recognise the statement): the first that matches wins.
STATEMENTS = [
    ("FTS5 index 1 (paper_fts)", lambda sql: sql.startswith("INSERT INTO paper_fts(rowid")),
    ("FTS5 index 2, word forms (paper_stem)", lambda sql: sql.startswith("INSERT INTO paper_stem(rowid")),
    ("lists: counting matches", lambda sql: sql.startswith("SELECT count(*) FROM paper_fts WHERE")),
    ("lists: bm25 ranking", lambda sql: sql.startswith("SELECT rowid AS id, bm25(")),
    ("lists: ranking and counting at once", lambda sql: "bm25(" in sql and "count(*) OVER" in sql),
]


class Timers:
    """Seconds per label, each excluding the labels timed inside it (a stack per thread is
    not needed: ranking runs on one thread here)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.stack: list[list] = []

    def run(self, label: str, call, *args, **kwargs):
        frame = [label, time.perf_counter(), 0.0]  # label, start, time of inner components
        self.stack.append(frame)
        try:
            return call(*args, **kwargs)
        finally:
            self.stack.pop()
            took = time.perf_counter() - frame[1]
            self.seconds[label] += took - frame[2]
            if self.stack:
                self.stack[-1][2] += took

    def wrap(self, owner, name: str, label: str) -> None:
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            return self.run(label, original, *args, **kwargs)

        setattr(owner, name, timed)

    def wrap_stream(self, owner, name: str, label: str) -> None:
        """A method returning an iterator: the time each item takes to come."""
        original = getattr(owner, name)
        timers = self

        def timed(*args, **kwargs):
            items = original(*args, **kwargs)

            def each():
                while True:
                    try:
                        item = timers.run(label, next, items)
                    except StopIteration:
                        return
                    yield item
            return each()

        setattr(owner, name, timed)


def _instrument(timers: Timers) -> None:
    from catalog.importing import dedupe, importer, merges, reader
    from catalog.store.imports import ImportQueries
    from catalog.store.lists import sqlite as lists_sqlite
    from catalog.store.lists.records import IndexRecords
    from catalog.store.lists.sqlite_build import ListBuilder
    from catalog.store.sqlite import connection

    lists_sqlite.RANKERS = 1
    timers.wrap_stream(reader.Reader, "stream", "waiting for the reader worker")
    timers.wrap(importer, "insert_papers", "storing the rows (paper)")
    timers.wrap(importer, "_give_citekeys", "cite keys")
    timers.wrap(dedupe, "match", "dedupe: matching")
    timers.wrap(dedupe, "merge", "dedupe: merging")
    timers.wrap(merges, "store_merges", "dedupe: merges kept")
    timers.wrap(importer, "_learn_acronyms", "acronyms")
    timers.wrap(importer, "_keep_records", "records kept as written")
    for name in ("set_authors", "add_provenance"):
        timers.wrap(ImportQueries, name, f"{name.replace('_', ' ')}")
    timers.wrap(connection.Connection, "commit", "commits")
    timers.wrap(ListBuilder, "vocabulary", "lists: the index's vocabulary (fts5vocab)")
    timers.wrap(ListBuilder, "store", "lists: writing them")
    timers.wrap(ListBuilder, "rank", "lists: ranking, the rest")
    timers.wrap(IndexRecords, "lengths", "lists: the papers' lengths")
    timers.wrap(lists_sqlite.SqliteListUpkeep, "refresh", "lists: choosing, the rest")
    for method in ("execute", "executemany"):
        original = getattr(connection.Connection, method)

        def timed(self, sql, params=(), _original=original):
            for label, matches in STATEMENTS:
                if matches(sql):
                    return timers.run(label, _original, self, sql, params)
            return _original(self, sql, params)

        setattr(connection.Connection, method, timed)


def profile_import(files: list[Path], db: Path) -> list[str]:
    """The components of one `catalog import` of `files` into a new catalog at `db`, as a
    Markdown table (seconds and share of the whole)."""
    os.environ["CATALOG_DISCOVER_REFRESH"] = "off"  # discovery: benchmarks/discover.py
    from catalog.library import Catalog

    timers = Timers()
    _instrument(timers)
    catalog = Catalog.open(db, create=True, seed=False)
    start = time.perf_counter()
    try:
        report = timers.run("the rest (Python between the statements)", catalog.import_paths, files,
                            background=True)
    finally:
        whole = time.perf_counter() - start
        catalog.close()
    rows = sorted(timers.seconds.items(), key=lambda kv: -kv[1])
    lines = [f"### One `catalog import` of {report.new:,} papers by component (load {os.getloadavg()[0]:.1f})", "",
             "| component | seconds | share |", "| --- | --- | --- |"]
    lines += [f"| {label} | {s:.1f} s | {s / whole:.0%} |" for label, s in rows]
    return lines + [f"| whole import, until it returned | {whole:.1f} s | 100% |", ""]
