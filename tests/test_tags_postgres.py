"""Tag changes on PostgreSQL (migration 0020): each paper a statement tags or untags is written
once, whatever the number of its tag rows the statement changed (its vectors computed once),
and keeps the vectors catalog_vector() computes from its tags."""

from __future__ import annotations

import pytest

from catalog.library import Catalog

# Both vectors computed from the paper's fields as 0009's generated columns did.
VECTORS_ANEW = ("SELECT id, catalog_vector('catalog_words', user_title, title, headline, tags_text, authors,"
                " notes_text, abstract_text, search_extra)::text AS exact, catalog_vector('catalog_stems', user_title,"
                " title, headline, tags_text, authors, notes_text, abstract_text, search_extra)::text AS stems"
                " FROM paper ORDER BY id")
STORED = "SELECT id, search_vector::text AS exact, stem_vector::text AS stems FROM paper ORDER BY id"
# Rows of `paper` this transaction updated so far (exact within it, unlike the server-wide views).
UPDATED = "SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relname = 'paper'"


@pytest.fixture
def pg_catalog(pg_server, pg_seeded_template):
    url = pg_server.create(template=pg_seeded_template)
    catalog = Catalog.open(url)
    yield catalog
    catalog.close()
    pg_server.drop(url)


def _rows(catalog, sql) -> list[dict]:
    with catalog.store.read() as tx:
        return [dict(r) for r in tx.conn.execute(sql).all()]


def _change(catalog, ids, add=(), remove=()) -> int:
    """Tags added to and removed from these papers in one store call (as `catalog tag` makes
    it); how many times rows of `paper` were written."""
    with catalog.store.write() as tx:
        before = tx.conn.execute(UPDATED).scalar()
        tx.edits.change_tags([(pid, name) for pid in ids for name in add],
                             [(pid, name) for pid in ids for name in remove])
        return tx.conn.execute(UPDATED).scalar() - before


def test_tagging_many_papers_with_several_tags_writes_each_paper_once(pg_catalog):
    catalog = pg_catalog
    ids = [r["id"] for r in _rows(catalog, "SELECT id FROM paper ORDER BY id LIMIT 30")]
    # Each paper twice: its tags (with its vectors) once, its `updated_at` once.
    assert _change(catalog, ids, add=["bench", "bench/sub", "third"]) == 2 * len(ids)  # was 4 each
    assert _rows(catalog, STORED) == _rows(catalog, VECTORS_ANEW)
    tagged = {r["id"]: r for r in _rows(catalog, STORED)}
    assert all("'bench'" in tagged[pid]["exact"] and "'third'" in tagged[pid]["exact"] for pid in ids)
    assert _change(catalog, ids[:10], remove=["bench", "third"]) == 2 * 10  # was 3 each
    assert _rows(catalog, STORED) == _rows(catalog, VECTORS_ANEW)
    tags = {r["id"]: r["tags_text"] for r in _rows(catalog, "SELECT id, tags_text FROM paper")}
    assert tags[ids[0]] == "bench/sub" and tags[ids[-1]] == "bench bench/sub third"
    found = _rows(catalog, "SELECT id FROM paper WHERE search_vector @@ to_tsquery('catalog_words', 'third')")
    assert {r["id"] for r in found} >= set(ids[10:])
