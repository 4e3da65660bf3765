"""Discovery through Catalog (what the CLI, the TUI and triage call): similar, recommend,
topics, the stored topics and the cache after imports, on the seeds."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from catalog.errors import CatalogError
from catalog.library import Catalog
from catalog.errors import TooFewPositives
from tests.test_discover import sae_keys_in, seeds_db  # noqa: F401  (a fixture)

SEEDS = Path(__file__).resolve().parent.parent / "seeds"


@pytest.fixture
def catalog(seeds_db, tmp_path):
    path = tmp_path / "catalog.db"
    shutil.copy(seeds_db, path)
    opened = Catalog.open(path)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def sae_keys(seeds_db) -> list[str]:
    return sae_keys_in(seeds_db)


# --- similar ------------------------------------------------------------------------------


def test_similar_gives_papers_with_scores_and_reasons(catalog, sae_keys):
    found = catalog.discovery.similar(sae_keys[1], 5)
    assert len(found) == 5 and sae_keys[1] not in [r.key for r in found]
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)
    top = found[0]
    assert top.key in sae_keys and top.why and top.title and top.venue and top.year
    assert top.summary.key == top.key
    assert set(top.as_json()) >= {"key", "title", "venue", "year", "score", "why"}


def test_similar_keeps_the_sae_papers_together(catalog, sae_keys):
    shared = sum(r.key in sae_keys for key in sae_keys for r in catalog.discovery.similar(key, 5))
    assert shared >= 14  # of 35; random neighbours would give about 2


def test_similar_of_an_unknown_key_is_one_line(catalog):
    with pytest.raises(CatalogError, match="no paper with key 'zzzzzzz'"):
        catalog.discovery.similar("zzzzzzz")


# --- recommend ----------------------------------------------------------------------------


def test_recommend_a_tag_ranks_the_other_sae_papers_first(catalog, sae_keys):
    catalog.tag(sae_keys[:3], ["interp/sae"])
    catalog.set_status([sae_keys[3]], "skipped")
    found = catalog.discovery.recommend("interp", limit=100)  # a parent tag takes its children
    keys = [r.key for r in found]
    assert not set(keys) & set(sae_keys[:4])  # tagged or skipped: never suggested
    ranks = sorted(keys.index(k) + 1 for k in sae_keys[4:])
    assert ranks[-1] <= 15 and ranks[0] <= 3, ranks
    assert all(r.why for r in found[:10])


def test_recommend_without_a_tag_learns_from_ratings_and_reading(catalog, sae_keys):
    catalog.set_rating(sae_keys[:2], 5)
    catalog.set_status([sae_keys[2]], "read")
    keys = [r.key for r in catalog.discovery.recommend(limit=20)]
    assert not set(keys) & set(sae_keys[:3])
    assert sum(k in sae_keys for k in keys[:10]) >= 3


def test_recommend_within_a_list(catalog, sae_keys):
    catalog.tag(sae_keys[:3], ["sae"])
    venue = catalog.get(sae_keys[5]).summary.venue
    found = catalog.discovery.recommend("sae", f"venue:{venue}", limit=50)
    assert found and {r.venue for r in found} == {venue}


def test_recommend_says_what_is_missing(catalog, sae_keys):
    with pytest.raises(TooFewPositives, match="no paper is tagged 'nothing'"):
        catalog.discovery.recommend("nothing")
    with pytest.raises(TooFewPositives, match="no paper is rated 4-5 or marked read"):
        catalog.discovery.recommend()
    catalog.tag(sae_keys[:1], ["one"])
    with pytest.raises(TooFewPositives, match="only 1 paper is tagged 'one'.*catalog similar"):
        catalog.discovery.recommend("one")
    catalog.tag(sae_keys[:2], ["two"])
    with pytest.raises(CatalogError, match="no papers match 'venue:Nowhere'"):
        catalog.discovery.recommend("two", "venue:Nowhere")
    with pytest.raises(CatalogError, match="nothing to recommend: every paper matching"):
        catalog.discovery.recommend("two", "tag:two")
    with pytest.raises(CatalogError, match="invalid tag"):
        catalog.discovery.recommend("two words")


# --- topics -------------------------------------------------------------------------------


def test_topics_of_the_catalog_are_stored(catalog, sae_keys):
    topics = catalog.discovery.topics()
    assert 4 <= len(topics) <= 20
    keys = [p.key for t in topics for p in t.papers]
    assert len(keys) == len(set(keys)) == 90
    assert max(sum(p.key in sae_keys for p in t.papers) for t in topics) >= 5
    assert all(t.label and t.size == len(t.papers) for t in topics)
    with sqlite3.connect(catalog.path) as conn:
        rows = conn.execute("SELECT scope, number, label, count(*) FROM topic"
                            " GROUP BY scope, number ORDER BY number").fetchall()
    assert rows == [("", t.number, t.label, t.size) for t in topics]
    counts, stale = catalog.discovery.stored_topics()
    assert not stale and [(c.number, c.label, c.count) for c in counts] == [
        (t.number, t.label, t.size) for t in topics]
    assert [p.key for p in catalog.discovery.topic_papers(1)] == [p.key for p in topics[0].papers]
    # The query language's topic:N: the whole catalog's topic N (what the TUI's facet runs).
    assert {p.key for p in catalog.search("topic:2", limit=500)} == {p.key for p in topics[1].papers}


def test_topics_of_a_list_replace_only_that_list(catalog):
    everything = catalog.discovery.topics()
    venue = everything[0].papers[0].venue
    listed = catalog.discovery.topics(f"venue:{venue}   ")
    assert {p.venue for t in listed for p in t.papers} == {venue}
    listed_again = catalog.discovery.topics(f"venue:{venue}")
    with sqlite3.connect(catalog.path) as conn:
        scopes = dict(conn.execute("SELECT scope, count(*) FROM topic GROUP BY scope").fetchall())
    assert scopes == {"": 90, f"venue:{venue}": sum(t.size for t in listed_again)}
    with pytest.raises(CatalogError, match="no papers match 'venue:Nowhere'"):
        catalog.discovery.topics("venue:Nowhere")


def test_topics_of_an_empty_catalog(tmp_path):
    catalog = Catalog.open(tmp_path / "empty.db")
    with pytest.raises(CatalogError, match="no papers yet"):
        catalog.discovery.topics()
    catalog.close()


# --- the cache: derived data --------------------------------------------------------------


def test_an_import_updates_an_existing_cache_and_dates_the_topics(tmp_path):
    catalog = Catalog.open(tmp_path / "c.db")
    first, *rest = sorted(SEEDS.glob("*.txt"))
    catalog.import_paths([first])
    assert catalog.discovery.discovery_status().state == "missing"
    before = catalog.discovery.topics()
    assert catalog.discovery.discovery_status().state == "fresh"
    catalog.import_paths(rest)
    status = catalog.discovery.discovery_status()
    assert status.state == "fresh" and status.papers == 90  # rebuilt by the import itself
    _, stale = catalog.discovery.stored_topics()
    assert stale  # new papers have no topic yet
    newest = catalog.search("", limit=1)[0].key
    assert catalog.discovery.similar(newest, 3)
    assert sum(t.size for t in catalog.discovery.topics()) == 90 > sum(t.size for t in before)
    catalog.close()


def test_an_import_builds_nothing_for_a_catalog_that_never_used_discovery(tmp_path):
    catalog = Catalog.open(tmp_path / "c.db")
    catalog.import_paths([SEEDS])
    assert catalog.discovery.discovery_status().state == "missing"
    catalog.close()


def test_the_topic_table_follows_its_papers_and_the_migration_steps(catalog, tmp_path):
    from catalog.store.sqlite import migrations

    catalog.discovery.topics()
    with sqlite3.connect(catalog.path) as conn:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("DELETE FROM paper WHERE id = (SELECT min(paper_id) FROM topic)")
        assert conn.execute("SELECT count(*) FROM topic").fetchone() == (89,)
    catalog.close()
    migrations.downgrade(catalog.path, "0006")
    with sqlite3.connect(catalog.path) as conn:
        assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'topic'").fetchall()
    migrations.upgrade(catalog.path, "0007")
    reopened = Catalog.open(catalog.path)
    assert reopened.discovery.stored_topics() == ((), True)
    assert sum(t.size for t in reopened.discovery.topics()) == 89
    reopened.close()


def test_topics_keep_their_numbers_run_after_run_and_after_a_small_import(tmp_path, sae_keys):
    catalog = Catalog.open(tmp_path / "c.db")
    files = sorted(SEEDS.glob("*.txt"))
    catalog.import_paths(files)
    first = catalog.discovery.topics()
    assert catalog.discovery.topics() == first  # the same catalog: the same topics and numbers
    sae_number = max(first, key=lambda t: sum(p.key in sae_keys for p in t.papers)).number
    # A small import: three more papers (the refit moves the topics a little).
    extra = tmp_path / "extra.txt"
    paragraphs = files[0].read_text(encoding="utf-8").split("\n\n")
    extra.write_text("Workshop 2027 Papers\n\n" + "\n\n".join(
        p.strip() + " We revisit this in a new setting." for p in paragraphs[1:4]) + "\n",
        encoding="utf-8")
    assert catalog.import_paths([extra]).new == 3
    after = catalog.discovery.topics()
    assert sum(t.size for t in after) == 93
    by_number = {t.number: {p.key for p in t.papers} for t in after}
    assert sum(key in sae_keys for key in by_number[sae_number]) >= 5  # topic:N still means SAEs
    kept = 0
    for old in first:
        keys = {p.key for p in old.papers}
        home = max(after, key=lambda t: len(keys & {p.key for p in t.papers}))
        if 2 * len(keys & {p.key for p in home.papers}) > len(keys):
            # It keeps its number, unless it merged with another that shared more papers.
            assert home.number in {t.number for t in first}, (old.label, home.label)
            kept += home.number == old.number
    assert kept >= len(first) // 2
    assert {p.key for p in catalog.search(f"topic:{sae_number}", limit=500)} == by_number[sae_number]
    counts, _ = catalog.discovery.stored_topics()
    assert [c.count for c in counts] == sorted((c.count for c in counts), reverse=True)
    catalog.close()
