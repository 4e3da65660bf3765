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
    ids = [r["id"] for r in _rows(catalog, "SELECT id FROM paper ORDER BY id LIMIT 35")]
    ids, others = ids[:30], ids[30:]
    # Each paper once: its tags (with its vectors) and its `updated_at` in one write.
    assert _change(catalog, ids, add=["bench", "bench/sub", "third"]) == len(ids)  # was 4 each
    assert _rows(catalog, STORED) == _rows(catalog, VECTORS_ANEW)
    tagged = {r["id"]: r for r in _rows(catalog, STORED)}
    assert all("'bench'" in tagged[pid]["exact"] and "'third'" in tagged[pid]["exact"] for pid in ids)
    assert _change(catalog, ids[:10], remove=["bench", "third"]) == 10  # was 3 each
    assert _change(catalog, ids[10:20], add=["Fourth"], remove=["bench"]) == 10  # was 3 each
    assert _change(catalog, others, add=["BENCH"]) == len(others)  # the tag's own name, as its rows say
    assert _rows(catalog, STORED) == _rows(catalog, VECTORS_ANEW)
    assert _rows(catalog, "SELECT id FROM paper WHERE tags_text IS DISTINCT FROM catalog_tags_text(id)") == []
    tags = {r["id"]: r["tags_text"] for r in _rows(catalog, "SELECT id, tags_text FROM paper")}
    assert tags[ids[0]] == "bench/sub" and tags[ids[-1]] == "bench bench/sub third"
    assert tags[ids[10]] == "bench/sub Fourth third" and tags[others[0]] == "bench"
    found = _rows(catalog, "SELECT id FROM paper WHERE search_vector @@ to_tsquery('catalog_words', 'third')")
    assert {r["id"] for r in found} >= set(ids[10:])


def test_a_large_update_after_a_small_one_is_logged_with_a_plan_for_its_size(pg_catalog):
    """The ranked lists' log of papers whose vectors changed (0011's statement trigger on
    `paper`) joins the statement's old and new rows. Planned once per session, a plan made for
    one row (a single edit, or 0009's tag-row trigger) joined the next statement's thousands
    in a nested loop: 3,000 papers' `updated_at` 22.7 s instead of 0.09 s at 100k. Since 0020
    each statement is planned for the rows it has."""
    catalog = pg_catalog
    with catalog.store.write() as tx:  # a list's state row: the log is kept
        papers = tx.conn.execute("SELECT count(*) FROM paper").scalar()
        tx.conn.execute("INSERT INTO rank_top_state(key, built_at, weights, listed, matches)"
                        " VALUES (?, 0, '', 0, 0)", ("exact 'test'",))
    notices: list[str] = []

    def heard(diagnostic):
        notices.append(diagnostic.message_primary or "")

    with catalog.store.write() as tx:
        tx.conn.raw.add_notice_handler(heard)
        tx.conn.execute("UPDATE paper SET updated_at = updated_at WHERE id = (SELECT min(id) FROM paper)")
        tx.conn.execute("LOAD 'auto_explain'")  # its plans as notices to this session
        for name, value in (("log_min_duration", "0"), ("log_nested_statements", "on"), ("log_level", "notice")):
            tx.conn.execute(f"SET LOCAL auto_explain.{name} = '{value}'")
        tx.conn.execute("UPDATE paper SET updated_at = updated_at")
        tx.conn.execute("SET LOCAL auto_explain.log_min_duration = '-1'")
        tx.conn.raw.remove_notice_handler(heard)
    [plan] = [n for n in notices if "INSERT INTO rank_top_change" in n]
    scans = [line for line in plan.splitlines() if "Named Tuplestore Scan" in line]
    assert len(scans) == 2 and all(f" rows={papers} " in line for line in scans), plan  # was rows=1
