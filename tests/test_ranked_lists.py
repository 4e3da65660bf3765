"""Ranked lists of frequent words and prefixes on SQLite (catalog/store/lists/): the pages they
serve are the full ranking's.

The exactness check: on a 10k-paper corpus (benchmarks/corpus.py) with a list for every word
and prefix in 5% of the papers (tests/ranked_lists_catalog.py), the first pages of frequent
words, prefixes (from one letter), ANDs and phrases of them, with filters, are the same papers,
in the same order, with the same scores, as the full bm25 ranking. The same after edits:
tests/test_ranked_lists_after_edits.py; after imports: tests/test_ranked_lists_imports.py;
rebuilds: tests/test_ranked_lists_rebuilds.py; deep lists and filters few papers pass:
tests/test_ranked_lists_filtered.py.
"""

from __future__ import annotations

import pytest

from benchmarks import topk as bench
from catalog.library import Catalog
from catalog.store.lists import scoring, sqlite_several
from catalog.store.lists.sqlite_words import WordLists
from tests.ranked_lists_catalog import (  # noqa: F401 (fixtures)
    QUERIES, _edit_a_few, _listed, _page, _ranked, built, catalog, served,
)


@pytest.mark.parametrize("query", QUERIES)
def test_first_page_is_the_full_ranking(catalog, served, query):
    assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert _page(catalog, query, lists=True) == _page(catalog, query, lists=False)


def test_lists_answer_the_frequent_words_and_prefixes(catalog, served):
    for query in ("model", "Model", "the", "interpret*", "spa*", "in*", "a*", "model venue:ICML"):
        _ranked(catalog, query, lists=True)
    assert served == ['("model")', '("model")', '("the")', '("interpret"*)', '("spa"*)', '("in"*)',
                      '("a"*)', '("model")']


def test_lists_answer_an_and_of_frequent_words(catalog, served):
    """Two or three frequent words (or prefixes): the papers of their lists that hold them all,
    scored, prove the page, or (whole words) a list of its own ranked by its first search; a
    word without a list (rare: `hessian`) with a frequent one (`model`) gets a list of its own
    too (ranking walks `model`'s papers)."""
    for query in ("language model", "model the a*", "language mo*", "model learning venue:ICML", "model hessian"):
        _ranked(catalog, query, lists=True)
    assert served == ['("language") AND ("model")', '("model") AND ("the") AND ("a"*)',
                      '("language") AND ("mo"*)', '("model") AND ("learning")', '("model") AND ("hessian")']


def test_lists_answer_a_phrase_of_frequent_words(catalog, served):
    """A phrase held by many papers: its IDF is low, and the lists of its words bound what a
    paper outside them can score; the page is served when its last paper beats that."""
    for query in ('"language models"', '"language models" year:2016..2020'):
        _ranked(catalog, query, lists=True)
    assert served == ['("language") ("models")'] * 2


def test_an_and_the_lists_did_not_prove_is_not_scored_again(catalog, monkeypatch):
    """Scoring the lists' papers costs ~80 ms at 1M; when it did not prove the page, the same
    page on the same index goes straight to the full ranking (still the same page)."""
    tried = []
    monkeypatch.setattr(WordLists, "proven_page", lambda self, *a: tried.append(a) and None)
    monkeypatch.setattr(sqlite_several.SeveralWords, "_may_rank_now", lambda self, *a: False)  # the words' lists alone
    for _ in range(3):
        assert _ranked(catalog, "language model", lists=True) == _ranked(catalog, "language model", lists=False)
    assert len(tried) == 1
    # Nor a page ending further down (a larger page, a later one): each needs more papers
    # beating the same bound. A smaller page might be proven: tried.
    for offset, limit in ((0, 200), (50, 50), (10, 40)):
        assert _ranked(catalog, "language model", lists=True, limit=limit, offset=offset) == \
            _ranked(catalog, "language model", lists=False, limit=limit, offset=offset)
    assert len(tried) == 1
    _ranked(catalog, "language model", lists=True, limit=20)
    assert len(tried) == 2
    catalog.tag([catalog.search("hessian", limit=1, snippets=False)[0].key], ["later"])  # the index changed
    _ranked(catalog, "language model", lists=True)
    assert len(tried) == 3


# ANDs with a prefix, as typed (with filters): FTS5 ranking them counts the prefix's papers first.
PREFIX_ANDS = ["language mo*", "model lan*", "language mo* year:2016..2020", "Model Learn* venue:ICML"]


def test_prefix_ands_are_scored_from_the_lists_as_fts5_ranks_them(catalog, tmp_path, monkeypatch):
    """The lists' papers of an AND are scored from the lists and their own text (no FTS5
    ranking of the prefix), and the pages are the full ranking's, paper for paper and score
    for score, before and after tags, notes, a title and an import."""
    scored = []
    original = sqlite_several.SeveralWords._and_scored

    def spy(self, keys, *args):
        try:
            ranked = original(self, keys, *args)
        except sqlite_several.TooMany:
            scored.append(True)
            raise
        scored.append(ranked is not None)
        return ranked

    monkeypatch.setattr(sqlite_several.SeveralWords, "_and_scored", spy)
    for edited in (False, True):
        if edited:
            _edit_a_few(catalog, tmp_path)
        scored.clear()
        for query in PREFIX_ANDS:
            for offset in (0, 50):
                assert _ranked(catalog, query, lists=True, offset=offset) == \
                    _ranked(catalog, query, lists=False, offset=offset), (query, offset, edited)
        assert scored.count(True) >= 6, scored  # most from the lists: FTS5 scored none of them


@pytest.mark.parametrize("word", ["model", "language"])
def test_later_pages_and_long_pages(catalog, served, word):
    """`model` has a deep list (2,000), `language` one of 1,000: a page is served from the list
    when it ends within it."""
    listed, matches = _listed(catalog, f'("{word}")')
    assert listed < matches and listed == (scoring.DEEP_LIST_SIZE if word == "model" else scoring.LIST_SIZE)
    pages = ((50, 50), (900, 100), (950, 100), (0, 200), (1900, 100), (1950, 100))
    for offset, limit in pages:
        assert _ranked(catalog, word, lists=True, limit=limit, offset=offset) == \
            _ranked(catalog, word, lists=False, limit=limit, offset=offset)
    assert served.count(f'("{word}")') == sum(1 for offset, limit in pages if offset + limit <= listed)


def test_a_filter_the_list_cannot_fill_is_still_the_full_ranking(catalog, served):
    keys = [p.key for p in catalog.search("hessian", limit=3, snippets=False)]
    tagged = catalog.search("model", limit=3000, snippets=False)[-1].key  # far down the ranking
    catalog.tag([*keys, tagged], ["later"])
    served.clear()
    assert _ranked(catalog, "model tag:later", lists=True) == _ranked(catalog, "model tag:later", lists=False)
    assert tagged in [p.key for p in catalog.search("model tag:later")]


def test_a_list_shows_and_filters_by_your_own_marks(catalog, served, monkeypatch):
    """Status and rating are each person's (paper_reader): a page read from a list shows
    yours, and status:/rating: filters over a list keep to yours, as the full ranking does."""
    top = [p.key for p in catalog.search("model", limit=5, snippets=False)]
    people = {}
    for who in ("ann", "bob"):
        monkeypatch.setenv("CATALOG_USER", who)
        people[who] = Catalog.open(catalog.store.path)
    ann, bob = people["ann"], people["bob"]
    try:
        ann.set_status(top[:2], "read")
        ann.set_rating(top[1:3], 5)
        for query in ("model", "model status:read", "model rating:>=4", "model -status:read"):
            assert _page(ann, query, lists=True) == _page(ann, query, lists=False), query
        mine = {p.key: (p.status, p.rating) for p in ann.search("model", limit=5, snippets=False)}
        assert mine[top[0]] == ("read", None) and mine[top[1]] == ("read", 5) and mine[top[2]] == ("unread", 5)
        assert not bob.search("model status:read", snippets=False)
        assert {p.status for p in bob.search("model", limit=5, snippets=False)} == {"unread"}
        assert served.count('("model")') >= 4
    finally:
        ann.close()
        bob.close()


def test_benchmark_mix_reports_the_same_top_50(catalog, served):
    """The benchmark's report (benchmarks/topk.py) on this catalog: every query of the mix
    gives the same first page with the lists as without, and the lists served it."""
    lines = bench.report(catalog.path, repeats=1)
    assert {'("model")', '("the")', '("a"*)', '("in"*)'} <= set(served)
    rows = [line for line in lines if line.startswith("| ") and "`" in line]
    assert len(rows) == len(bench.MIX)
    for row in rows:
        same = row.rstrip(" |").rsplit("| ", 1)[1]
        shown, of = same.split("/")
        assert shown == of, row
