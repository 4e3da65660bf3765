"""A prefix AND typed one letter further (`language mode*` after `language mod*`): its page
proven from the head the store remembers of the shorter one (catalog/store/lists/sqlite_prefixes.py),
on the shared 10k catalog (tests/ranked_lists_catalog.py), every page the full ranking's.

The words' lists prove most prefix ANDs at 10k papers; here they are taken not to (as at 1M,
where `the mod*`'s words match 98% and 85% of the papers and their lists prove nothing), so
the first letters rank every match and the letters after them come from its head.
"""

from __future__ import annotations

import pytest

from catalog.store.lists.sqlite_prefixes import LongerPrefix
from catalog.store.lists.sqlite_several import SeveralWords
from tests.ranked_lists_catalog import _page, _ranked, built, catalog  # noqa: F401 (fixtures)


@pytest.fixture
def from_shorter(monkeypatch) -> list:
    """The pages proven from a shorter prefix's head, as (the AND's keys, offset); the words'
    lists prove nothing."""
    monkeypatch.setattr(SeveralWords, "proven_page", lambda self, *args, **kwargs: None)
    served: list = []
    original = LongerPrefix.page

    def spy(self, keys, compiled, limit, offset, with_text, *budget):
        rows = original(self, keys, compiled, limit, offset, with_text, *budget)
        if rows is not None:
            served.append((" AND ".join(keys), offset))
        return rows

    monkeypatch.setattr(LongerPrefix, "page", spy)
    return served


@pytest.mark.parametrize("words", [["language mo", "language mod", "language mode", "language model",
                                    "language models"],
                                   ["the gra", "the grap", "the graph"],
                                   ["sparse att", "sparse atte", "sparse atten", "sparse attention"]])
def test_each_letter_typed_is_the_full_ranking(catalog, from_shorter, words):
    """As the TUI asks: the first 50 rows, then the page of 200, at each letter."""
    for typed in words:
        query = typed + "*"
        for limit in (50, 200):
            assert _ranked(catalog, query, lists=True, limit=limit) == \
                _ranked(catalog, query, lists=False, limit=limit), (query, limit)
    assert from_shorter, "no letter was proven from the one before it"


def test_the_letters_after_the_first_rank_nothing(catalog, from_shorter, monkeypatch):
    """Only the first prefix ranks every match; the next two come from its head."""
    ranked: list = []
    original = SeveralWords._made_page

    def spy(self, made, compiled, limit, offset, with_text):
        ranked.append(compiled.match)
        return original(self, made, compiled, limit, offset, with_text)

    monkeypatch.setattr(SeveralWords, "_made_page", spy)
    for query in ("language mod*", "language mode*", "language model*"):
        assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert ranked[0] == '("language") AND ("mod"*)'  # ranked in full, its page from what it ranked
    assert from_shorter == [('("language") AND ("mode"*)', 0), ('("language") AND ("model"*)', 0)]
    assert _page(catalog, "language model*", lists=True) == _page(catalog, "language model*", lists=False)


def test_a_head_is_not_read_after_an_edit(catalog, from_shorter):
    """A note lifts a paper from far down to the top of `sparse atte*`: the head of `sparse
    att*` was of the index as it was, and must not prove the page."""
    _ranked(catalog, "sparse att*", lists=True)
    full = _ranked(catalog, "sparse atte*", lists=False, limit=2000)
    low = full[-1][0]
    with catalog.store.read() as tx:
        key = tx.conn.execute("SELECT key FROM paper WHERE id = ?", (low,)).scalar()
    catalog.add_note(key, "Sparse attention: sparse attention, attending sparsely, sparse attention again.")
    page = _ranked(catalog, "sparse atte*", lists=True)
    assert page == _ranked(catalog, "sparse atte*", lists=False) and low in [pid for pid, _ in page]
    assert from_shorter == []


def test_a_filter_is_never_proven_from_a_head(catalog, from_shorter):
    _ranked(catalog, "language mod*", lists=True)
    query = "language mode* year:2016..2020"
    assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert from_shorter == []


def test_a_prefix_in_fewer_papers_is_bounded_by_its_own_list_too(catalog, from_shorter, monkeypatch):
    """`the neur*` after `the neu*`: `neur*` is in fewer papers (2,861 against 3,494), its IDF
    higher, so the head's bound grows; the longer prefix's own list narrows it (and its papers
    after the head are scored too): still the full ranking's page."""
    narrowed: list = []
    original = LongerPrefix._narrowed
    monkeypatch.setattr(LongerPrefix, "_narrowed",
                        staticmethod(lambda *args: narrowed.append(args[2]) or original(*args)))
    for query in ("the neu*", "the neur*", "the neura*", "the neural*", "language spe*", "language spec*",
                  "language speci*"):
        for limit in (50, 200):
            assert _ranked(catalog, query, lists=True, limit=limit) == \
                _ranked(catalog, query, lists=False, limit=limit), (query, limit)
    assert narrowed and all(ratio > 1 for ratio in narrowed)
    assert from_shorter


def test_a_word_without_a_list_ranks_every_letter(catalog, from_shorter):
    """`hessian` keeps no list (rare): its ANDs rank in a few milliseconds, less than tokenizing
    a head's papers again would take (on a real library of 16,000 papers, 4-10 ms against
    15-37 ms), so no letter is proven from a head."""
    for query in ("hessian mo*", "hessian mod*", "hessian mode*"):
        assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert from_shorter == []


# --- kept in the catalog: what one process ranked, any other reads ---------------------------

@pytest.fixture
def full_rankings(monkeypatch) -> list:
    """The MATCH expressions of the ANDs ranked in full through the lists (their heads), in
    any store."""
    from catalog.store.sqlite.connection import Connection

    ranked: list = []
    original = Connection.execute

    def spy(self, sql, params=()):
        if sql.startswith("SELECT rowid AS id, bm25(") and "ORDER BY score, rowid LIMIT" in sql \
                and " AND " in str(params[0]):
            ranked.append(params[0])
        return original(self, sql, params)

    monkeypatch.setattr(Connection, "execute", spy)
    return ranked


def test_a_prefix_and_ranked_in_full_is_kept_for_any_process(catalog, from_shorter, full_rankings):
    """`sparse att*` and the letters after it typed in one store (the lists proving nothing,
    as at 1M): those ranked in full are kept in the catalog, and another store on the file
    (another process: nothing remembered) reads them and proves the other letters from their
    heads, ranking nothing again."""
    from catalog.library import Catalog

    words = ("sparse att*", "sparse atte*", "sparse atten*", "sparse attent*")
    full = {q: [_ranked(catalog, q, lists=False, limit=limit) for limit in (50, 200)] for q in words}
    for query in words:
        assert [_ranked(catalog, query, lists=True, limit=limit) for limit in (50, 200)] == full[query], query
    ranked = list(full_rankings)
    assert ranked[0] == '("sparse") AND ("att"*)' and len(ranked) < len(words) and from_shorter
    with catalog.store.read() as tx:
        assert tx.lists.maintenance().several() == (ranked, [])
    from_shorter.clear()
    other = Catalog.open(catalog.store.path)
    try:
        for query in words:
            assert [_ranked(other, query, lists=True, limit=limit) for limit in (50, 200)] == full[query], query
        assert _page(other, "sparse attent*", lists=True) == _page(catalog, "sparse attent*", lists=False)
    finally:
        other.close()
    assert full_rankings == ranked  # nothing ranked again
    assert from_shorter  # letters proven from the heads the first store left in the catalog


def test_a_kept_prefix_and_is_not_read_after_an_edit(catalog, from_shorter, full_rankings):
    """A note lifts a paper from far down to the top of `sparse att*`: the kept list is of the
    index as it was; another store ranks the AND again rather than read it."""
    from catalog.library import Catalog

    _ranked(catalog, "sparse att*", lists=True)
    low = _ranked(catalog, "sparse att*", lists=False, limit=2000)[-1][0]
    with catalog.store.read() as tx:
        key = tx.conn.execute("SELECT key FROM paper WHERE id = ?", (low,)).scalar()
    catalog.add_note(key, "Sparse attention: sparse attention, attending sparsely, sparse attention again.")
    other = Catalog.open(catalog.store.path)
    try:
        page = _ranked(other, "sparse att*", lists=True)
        assert page == _ranked(other, "sparse att*", lists=False) and low in [pid for pid, _ in page]
        assert _ranked(other, "sparse atte*", lists=True) == _ranked(other, "sparse atte*", lists=False)
    finally:
        other.close()
    assert full_rankings[:2] == ['("sparse") AND ("att"*)'] * 2  # ranked again after the edit


def test_a_refresh_ranks_a_kept_prefix_and_again(catalog, from_shorter):
    """An edit makes the kept list stale like any list of several words; the refresh after
    an import ranks it again, on the index as it is."""
    _ranked(catalog, "sparse att*", lists=True)
    with catalog.store.read() as tx:
        key = tx.conn.execute("SELECT key FROM paper ORDER BY id LIMIT 1").scalar()
    catalog.add_note(key, "sparse attention")
    with catalog.store.read() as tx:
        assert tx.lists.maintenance().several()[1] == ['("sparse") AND ("att"*)']
    catalog.store.lists.refresh(budget=600)  # what rescoring cannot follow: lists of several words
    with catalog.store.read() as tx:
        assert tx.lists.maintenance().several() == (['("sparse") AND ("att"*)'], [])
        head = tx.conn.execute("SELECT paper_id, score FROM term_top WHERE term = ? ORDER BY position LIMIT 50",
                               ('("sparse") AND ("att"*)',)).all()
    assert [(r["paper_id"], r["score"]) for r in head] == _ranked(catalog, "sparse att*", lists=False)
