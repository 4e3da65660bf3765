"""In-process search: `Catalog.search` against the same ranked FTS5 query in raw sqlite3."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from benchmarks.measure import timed
from catalog.store.sqlite.fts import FTS_COLUMNS

# (label, catalog query, raw FTS5 MATCH or None for filter-only, raw WHERE on paper p)
MIX = [
    ("rare term", "hessian", '"hessian"', "1"),
    ("common term", "model", '"model"', "1"),
    ("phrase", '"language models"', '"language models"', "1"),
    ("prefix", "interpret*", '"interpret"*', "1"),
    ("two words", "sparse attention", '("sparse") AND ("attention")', "1"),
    ("filter only", "venue:ICLR", None, "p.venue = 'ICLR'"),
    ("tag filter", "tag:toread", None,
     "p.id IN (SELECT pt.paper_id FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE t.name = 'toread')"),
    ("query + filters", "attention venue:ICML year:2016..2020",
     '("attention")', "p.venue = 'ICML' AND p.year BETWEEN 2016 AND 2020"),
]
WEIGHTS = ", ".join(str(w) for w in FTS_COLUMNS.values())


def raw_query(conn: sqlite3.Connection, match: str | None, where: str, limit: int = 50) -> list:
    if match is None:
        return conn.execute(
            f"SELECT p.key, coalesce(p.user_title, p.title, p.headline), p.venue, p.year FROM paper p"
            f" WHERE {where} ORDER BY p.year DESC, p.venue, p.id LIMIT {limit}").fetchall()
    return conn.execute(
        f"SELECT p.key, coalesce(p.user_title, p.title, p.headline), p.venue, p.year,"
        f" snippet(paper_fts, 3, char(2), char(3), '…', 24), bm25(paper_fts, {WEIGHTS}) AS score"
        f" FROM paper_fts JOIN paper p ON p.id = paper_fts.rowid"
        f" WHERE paper_fts MATCH ? AND {where} ORDER BY score LIMIT {limit}", (match,)).fetchall()


def tag_some(db: Path, how_many: int) -> None:
    """Give the catalog some user data for the tag filter to find."""
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    keys = [p.key for p in catalog.search("attention", limit=how_many, snippets=False)]
    catalog.tag(keys, ["toread"])
    catalog.close()


def compare(db: Path, repeats: int) -> list[dict]:
    from catalog.library import Catalog

    catalog = Catalog.open(db)
    raw = sqlite3.connect(db)
    results = []
    for label, query, match, where in MIX:
        catalog.search(query)  # warm both caches alike
        raw_query(raw, match, where)
        mine, theirs = [], []
        for _ in range(repeats):
            mine.append(timed(lambda: catalog.search(query)))
            theirs.append(timed(lambda: raw_query(raw, match, where)))
        hits = len(catalog.search(query))
        results.append({"label": label, "query": query, "catalog": mine, "raw": theirs, "hits": hits})
    raw.close()
    catalog.close()
    return results
