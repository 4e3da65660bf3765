"""A catalog smaller than MIN_MATCHES papers (a real library of 16,000) keeps lists for the
words and prefixes that match a large share of it (scoring.SMALL_SHARE): their pages, read
from the lists, are the full ranking's. The seeds (90 papers) keep none."""

from __future__ import annotations

from catalog.store.lists import scoring
from tests.ranked_lists_catalog import SIZE, _page, _ranked, built, catalog, served  # noqa: F401 (fixtures)


def test_words_in_a_fifth_of_a_smaller_catalog_get_lists(catalog, served, monkeypatch):
    monkeypatch.setattr(scoring, "MIN_MATCHES", 20_000)  # the product's: more than the catalog holds
    assert SIZE < scoring.MIN_MATCHES and scoring.keeps_lists(SIZE)
    at_least = scoring.min_matches(SIZE)
    with catalog.store.read() as tx:
        before = dict(tx.lists.builder.kept())  # the fixture's: every word in 5% of the papers
    fewer = [key for key, n in before.items() if n < at_least and _word(key)]
    assert fewer
    _, stale = catalog.store.lists.refresh(budget=None)
    assert stale == 0
    with catalog.store.read() as tx:
        kept = dict(tx.lists.builder.kept())
    assert '("the")' in kept and '("the"*)' in kept
    assert all(n >= at_least for key, n in kept.items() if _word(key)) and not set(fewer) & set(kept)
    served.clear()
    for query in ("the", "the*", "the venue:ICML"):
        assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
        assert _page(catalog, query, lists=True) == _page(catalog, query, lists=False)
    assert '("the")' in served and '("the"*)' in served


def _word(key: str) -> bool:
    """A whole word's list (its count exact: a prefix's is chosen by its words' counts added up)."""
    found = scoring.term(key)
    return found is not None and not found[1]


def test_small_catalogs_keep_no_lists(seeded, monkeypatch):
    with seeded.store.read() as tx:
        assert tx.conn.execute("SELECT count(*) FROM term_top_state").scalar() == 0
