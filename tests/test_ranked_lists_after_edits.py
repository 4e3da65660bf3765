"""Ranked lists after edits (catalog/store/lists/): tags, notes, a new title and a small import
move bm25's statistics; the lists are rescored with the changed papers, never read stale, and
every page is still the full ranking's (on the shared 10k catalog, tests/ranked_lists_catalog.py).
"""

from __future__ import annotations

import pytest

from catalog.parts import doctor
from tests.ranked_lists_catalog import (  # noqa: F401 (fixtures)
    QUERIES, _edit_a_few, _listed, _page, _ranked, built, catalog, served,
)


def test_an_edit_is_followed_by_rescoring_and_never_wrong(catalog, served):
    """Tagging a paper `model` puts it near the top of `model`: the list, rescored with the
    changed paper under the new statistics, shows it there, as the full ranking does."""
    last = catalog.search("model", limit=5000, snippets=False)[-1].key
    catalog.tag([last], ["model"])
    served.clear()
    found = [p.key for p in catalog.search("model", snippets=False)]
    assert last in found[:50]
    assert served == ['("model")']  # the list still answers: rescored, not stale
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)
    assert doctor.run(catalog.store).found == []  # doctor checks the rescored heads too
    with catalog.store.read() as tx:
        lists = tx.lists.maintenance()
        assert lists.stale() == [] and len(lists.stale(rescored=False)) > 100


@pytest.mark.parametrize("query", QUERIES)
def test_after_a_few_edits_and_imports_the_first_page_is_the_full_ranking(catalog, served, tmp_path, query):
    _edit_a_few(catalog, tmp_path)
    with catalog.store.read() as tx:
        assert tx.lists.maintenance().stale() == []  # none rebuilt: every list follows the changes
        assert tx.conn.execute("SELECT count(*) FROM term_top_dirty").scalar() > 20
    served.clear()
    assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert _ranked(catalog, query, lists=True, offset=50) == _ranked(catalog, query, lists=False, offset=50)
    assert _page(catalog, query, lists=True) == _page(catalog, query, lists=False)


def test_rescored_lists_serve_the_frequent_words_after_edits(catalog, served, tmp_path):
    _edit_a_few(catalog, tmp_path)
    served.clear()
    for query in ("model", "the", "interpret*", "spa*", "in*", "a*", "model venue:ICML"):
        _ranked(catalog, query, lists=True)
    assert len(served) >= 5, served  # most pages still come from the lists
    served.clear()
    for query in ("language model", "the model", "language mo*"):
        _ranked(catalog, query, lists=True)
    assert len(served) >= 2, served  # and of the ANDs of frequent words


@pytest.mark.parametrize("word", ["model", "language"])
def test_after_edits_a_page_past_the_list_is_ranked_in_full(catalog, served, tmp_path, word):
    """The bound: papers outside the list (not changed) may rank anywhere after its last one,
    so a page reaching past it, or a filter the rescored list cannot fill, ranks every match.
    A deep list (`model`'s) is rescored to its end for a page past its first LIST_SIZE."""
    listed, _ = _listed(catalog, f'("{word}")')
    _edit_a_few(catalog, tmp_path)
    tagged = catalog.search(word, limit=3000, snippets=False)[-1].key  # far down the ranking
    keys = [p.key for p in catalog.search(word, limit=3, snippets=False)]
    catalog.tag([*keys, tagged], ["later"])
    for offset, limit in ((0, 200), (900, 50), (950, 100), (1900, 50), (1950, 100)):
        served.clear()
        assert _ranked(catalog, word, lists=True, limit=limit, offset=offset) == \
            _ranked(catalog, word, lists=False, limit=limit, offset=offset)
        assert served == ([] if offset + limit > listed else [f'("{word}")']), (offset, limit)
    served.clear()
    query = f"{word} tag:later"
    assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert tagged in [p.key for p in catalog.search(query)]
