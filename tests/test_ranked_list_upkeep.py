"""Upkeep of the ranked lists that nothing can starve: a catalog big enough for lists whose
frequent words have none is a problem `catalog doctor` reports and `--fix` ranks (saying how
far it got), on both backends; the background refresher finishes its lists while searches
run in a loop, and the searches keep no list while it does (they give way)."""

from __future__ import annotations

import itertools
import threading

import pytest

from catalog.parts import doctor
from catalog.discover import refresher
from catalog.library import Catalog
from catalog.store import open_store
from catalog.store.lists import postgres_build as pg_build, scoring
from catalog.store.sqlite import connection
from tests.conftest import SEEDS

# In the seeds (90 papers), words and prefixes in 40 papers or more: a few dozen lists.
FREQUENT = 40


@pytest.fixture
def without_lists(seeded_any, monkeypatch):
    """The seeds, imported while too small for lists, then taken to be big enough for them."""
    monkeypatch.setattr(scoring, "MIN_MATCHES", FREQUENT)
    monkeypatch.setattr(pg_build, "MIN_MATCHES", FREQUENT)
    monkeypatch.setattr(pg_build, "RANKED_AHEAD", FREQUENT)
    return seeded_any


def test_frequent_words_without_lists_are_a_problem_doctor_fixes_with_progress(without_lists):
    store = without_lists.store
    found = doctor.run(store)
    assert [f.problem for f in found.found] == [
        "the frequent words of these 90 papers have no ranked lists (searches for them rank every match until"
        " they are ranked)"]
    said: list[str] = []
    fixed = doctor.run(store, fix=True, notify=said.append)
    assert fixed.remaining == [] and len(fixed.repaired) == 1 and fixed.repaired[0].startswith("rebuilt ")
    built = int(fixed.repaired[0].split()[1])
    assert built > 10 and said[-1] == f"ranking lists: {built:,} of {built:,}"
    assert all(line.startswith("ranking lists: ") for line in said)
    with store.read() as tx:
        lists = tx.lists.maintenance()
        assert lists.stale() == [] and len(lists.keys()) >= built
    assert doctor.run(store).found == []


def test_a_refresh_cut_short_leaves_its_words_to_the_next(without_lists):
    """The words chosen are noted before any is ranked: a refresh stopped after choosing them
    (a kill, a lock, its time budget) leaves the rest stale, for doctor and the next refresh."""
    store = without_lists.store
    assert store.lists.left() == 1  # none chosen yet: at least one (what a search says)
    built, left = store.lists.refresh(budget=0.0)
    assert built == 0 and left > 10 and store.lists.behind()
    assert store.lists.left() == left
    assert [f.check for f in doctor.run(store).found] == ["ranked lists"]
    assert store.lists.refresh(budget=None) == (left, 0) and not store.lists.behind()
    assert store.lists.left() == 0


def test_the_refresher_finishes_while_searches_run(db_path, monkeypatch, tmp_path):
    """The refresher (what `catalog import` starts, on a store of its own) ranks every list
    while another connection searches in a loop, each search of several frequent words
    ranking a list of its own to keep. Here no connection waits for the write lock at all (as,
    under load at a million papers, a wait runs out): the searches keep nothing while the
    refresh runs, and its transactions are tried again when held up, so it completes."""
    catalog = Catalog.open(db_path)
    catalog.import_paths([SEEDS])
    catalog.close()
    monkeypatch.setattr(scoring, "MIN_MATCHES", FREQUENT)
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 0)
    searcher = Catalog.open(db_path)
    queries = _searches_of_several_words(searcher)
    searched, done = threading.Event(), threading.Event()

    def search_in_a_loop():
        for query in itertools.cycle(queries):
            if done.is_set():
                return
            searcher.search(query, limit=5)
            searched.set()

    loop = threading.Thread(target=search_in_a_loop)
    loop.start()
    store = open_store(db_path)
    try:
        searched.wait()
        assert _several_lists(searcher)  # the searches keep lists of their own
        assert refresher._ranked_lists(store, tmp_path) > 10
    finally:
        done.set()
        loop.join()
        store.close()
    with searcher.store.read() as tx:
        assert tx.lists.maintenance().stale() == [] and not searcher.store.lists.behind()
    searcher.close()


def test_searches_keep_no_list_while_a_refresh_runs(seeded, monkeypatch):
    """A refresh holds the upkeep lock; a search that ranks a list of its own meanwhile serves
    its page from it and keeps nothing; the next one, after the refresh, keeps it."""
    monkeypatch.setattr(scoring, "MIN_MATCHES", FREQUENT)
    query = _searches_of_several_words(seeded)[0]
    other = Catalog.open(seeded.store.path)  # another process's refresh, as far as locks go
    try:
        with other.store.lists.lock.exclusive():
            page = [p.key for p in seeded.search(query)]
            assert _several_lists(seeded) == []
        assert [p.key for p in seeded.search(query)] == page
        assert len(_several_lists(seeded)) == 1
    finally:
        other.close()


def _searches_of_several_words(catalog: Catalog) -> list[str]:
    """ANDs of three of the catalog's most frequent words (2,184 of them): each ranks a list
    of its own."""
    with catalog.store.read() as tx:
        words = [w for w, _ in sorted(tx.lists.maintenance().words(), key=lambda wn: -wn[1]) if w.isalpha()][:14]
    return [" ".join(three) for three in itertools.permutations(words, 3)]


def _several_lists(catalog: Catalog) -> list[str]:
    with catalog.store.read() as tx:
        return tx.lists.maintenance().several()[0]
