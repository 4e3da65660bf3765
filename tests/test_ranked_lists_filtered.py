"""Deep lists and filters on ranked lists (catalog/store/lists/): a word in a large share of
the papers keeps a deeper list (scoring.DEEP_LIST_SIZE) that fills a filtered page its first
thousand cannot, and a filter few papers pass is scored paper by paper (sqlite_several.FewFiltered);
every page the full ranking's (on the shared 10k catalog, tests/ranked_lists_catalog.py).
"""

from __future__ import annotations

import pytest

from catalog.library import Catalog
from catalog.parts import doctor
from catalog.store import lists
from catalog.store.lists import scoring, sqlite_several, sqlite_words
from catalog.store.lists.memo import ListMemo
from catalog.store.lists.sqlite_words import WordLists, read_state
from tests.ranked_lists_catalog import (  # noqa: F401 (fixtures)
    _edit_a_few, _listed, _page, _ranked, built, catalog, served,
)


# --- deep lists: words in a large share of the papers (scoring.DEEP_LIST_SIZE) ---------------


def _every_30th(catalog: Catalog) -> list[str]:
    """`every30` on every 30th paper of `model`'s best 2,000 (none elsewhere): ~34 of them in
    its first 1,000, ~67 in its deep list. `model`'s list is ranked again after the tagging
    (which changed the index), the other lists left stale."""
    ranking = [p.key for p in catalog.search("model", limit=scoring.DEEP_LIST_SIZE, snippets=False)]
    catalog.tag(ranking[::30], ["every30"])
    with catalog.store.write() as tx:
        tx.lists.maintenance().build('("model")')
    assert _listed(catalog, '("model")')[0] == scoring.DEEP_LIST_SIZE
    return ranking[::30]


def test_a_deep_list_fills_a_filtered_page_its_first_thousand_cannot(catalog, served, few_served, tmp_path):
    """The first 1,000 of `model` hold ~34 papers of the filter, its deep list ~67: page 1 of
    50 comes from the deep list, exact, also after edits (the list rescored to its end, its
    2,000th paper the bound); page 2 is ranked in full."""
    _every_30th(catalog)
    for edited in (False, True):
        if edited:
            _edit_a_few(catalog, tmp_path)
            with catalog.store.read() as tx:
                assert tx.conn.execute("SELECT stamp != ? FROM term_top_state WHERE term = ?",
                                       (tx.lists.records.stamp(), '("model")')).scalar()  # rescored, not read
        for query in ("model tag:every30", "model tag:every30 -status:read"):
            served.clear()
            assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False), (query, edited)
            assert served == ['("model")'] and few_served == [], (query, edited)
            assert _page(catalog, query, lists=True) == _page(catalog, query, lists=False)
            served.clear()
            assert _ranked(catalog, query, lists=True, offset=50) == _ranked(catalog, query, lists=False, offset=50)
            assert served == [], (query, edited)


def test_a_filter_few_papers_pass_does_not_walk_a_deep_list(catalog, few_served, monkeypatch):
    """A filter that passes too few of a deep list's first 1,000 to fill the page at that rate
    goes to the few-papers path without reading the rest of the list."""
    _tag_few(catalog)
    walked = []
    original = WordLists.listed_slice
    monkeypatch.setattr(WordLists, "listed_slice", lambda self, key, c, start, *rest: walked.append(start)
                        or original(self, key, c, start, *rest))
    with catalog.store.write() as tx:
        tx.lists.maintenance().build('("model")')  # read as ranked (tagging changed the index)
    assert _ranked(catalog, "model tag:few", lists=True) == _ranked(catalog, "model tag:few", lists=False)
    assert walked == [0] and few_served == [('("model")', 0)]


def test_what_reads_a_deep_list_for_a_bound_reads_its_first_thousand(catalog, tmp_path):
    """The AND proofs, fewfilter and doctor read a deep list as if it were LIST_SIZE long: its
    first LIST_SIZE papers, the LIST_SIZE-th score their bound (after edits: rescored so)."""
    key, size = '("model")', scoring.LIST_SIZE
    with catalog.store.read() as tx:
        rows = [tuple(r) for r in tx.conn.execute("SELECT paper_id, score FROM term_top WHERE term = ?"
                                                  " ORDER BY position", (key,)).all()]
        ranked, bound, _, _ = tx.lists.word_lists.now(key)
    assert len(rows) == scoring.DEEP_LIST_SIZE
    assert ranked == rows[:size] and bound == rows[size - 1][1]
    _edit_a_few(catalog, tmp_path)
    with catalog.store.read() as tx:
        ranked, bound, _, _ = tx.lists.word_lists.now(key)
        deep, deep_bound, _ = tx.lists.word_lists.rescored(read_state(tx.conn, key))
        full = [tuple(r) for r in tx.conn.execute(sqlite_words.RANKED, (key, 3000)).all()]
    assert size <= len(ranked) < size + 40  # its first 1,000 and the changed papers
    assert bound < deep_bound  # the deep rescoring's bound is further down (a worse score)
    # Each is the full ranking down to its bound.
    assert [r for r in ranked if r[1] < bound] == [r for r in full if r[1] < bound]
    assert [r for r in deep if r[1] < deep_bound] == [r for r in full if r[1] < deep_bound]
    assert doctor.run(catalog.store).found == []


def test_a_stale_list_is_rescored_once_per_search_and_again_after_a_change(catalog, few_served, monkeypatch):
    """`model tag:few` on a stale list: its filtered page (not proven) and fewfilter's scores
    share one rescoring. In a write transaction that changes the index between two searches,
    the second rescores again (the memo is keyed by the index's stamp and the changed papers)."""
    from catalog.searching.query import parse

    _tag_few(catalog)  # tagging changed the index: every list is rescored
    calls = []
    for name in ("_rescore_changes", "_rescored_at"):  # the changed papers; the list's
        original = getattr(WordLists, name)
        monkeypatch.setattr(WordLists, name, lambda self, state, *a, _original=original, _name=name:
                            calls.append((_name, state.key)) or _original(self, state, *a))
    assert _ranked(catalog, "model tag:few", lists=True) == _ranked(catalog, "model tag:few", lists=False)
    once = [("_rescore_changes", '("model")'), ("_rescored_at", '("model")')]
    assert calls == once and few_served == [('("model")', 0)]
    with catalog.store.write() as tx:
        first = [(h.paper_id, h.score) for h in tx.search.page(parse("model tag:few"), limit=50)]
        far = first[-1][0]
        tx.conn.execute("UPDATE paper SET abstract_text = abstract_text || ? WHERE id = ?",
                        (" model model model model" * 5, far))
        calls.clear()
        again = [(h.paper_id, h.score) for h in tx.search.page(parse("model tag:few"), limit=50)]
        assert calls == once
        lists.ENABLED = False
        try:
            full = [(h.paper_id, h.score) for h in tx.search.page(parse("model tag:few"), limit=50)]
        finally:
            lists.ENABLED = True
        tx.conn.rollback()
    assert again == full and again != first and again[0][0] == far


# --- a frequent word with filters few papers pass (sqlite_several.FewFiltered) -----------------


@pytest.fixture
def few_served(monkeypatch) -> list:
    """The pages the few-papers path served: (list key, offset)."""
    answered: list = []
    original = sqlite_several.FewFiltered.page

    def spy(self, state, compiled, limit, offset, with_text):
        rows = original(self, state, compiled, limit, offset, with_text)
        if rows is not None:
            answered.append((state.key, offset))
        return rows

    monkeypatch.setattr(sqlite_several.FewFiltered, "page", spy)
    return answered


def _tag_few(catalog: Catalog) -> list[str]:
    """`few` on 9 papers: 2 at the top of `model` (listed), 4 far down (past its deep list), 3
    that do not hold it (`hessian`'s best); 3 of them read by this reader."""
    ranking = [p.key for p in catalog.search("model", limit=4000, snippets=False)]
    deep = {p.key for p in catalog.search("mod*", limit=scoring.DEEP_LIST_SIZE, snippets=False)}
    far = [key for key in ranking[2500:] if key not in deep][::300][:4]  # past both deep lists
    other = [p.key for p in catalog.search("hessian -model -mod*", limit=3, snippets=False)]
    keys = ranking[:2] + far + other
    catalog.tag(keys, ["few"])
    catalog.set_status([ranking[0], far[1], far[2]], "read")
    return keys


FEW_QUERIES = ["model tag:few", "mod* tag:few", "model tag:few status:read", "mod* tag:few -status:read"]


def test_a_filter_few_papers_pass_is_scored_paper_by_paper(catalog, few_served):
    _tag_few(catalog)
    for query in FEW_QUERIES:
        for offset in (0, 3):  # pages 1 and 2
            few_served.clear()
            mine = _ranked(catalog, query, lists=True, limit=3, offset=offset)
            assert mine == _ranked(catalog, query, lists=False, limit=3, offset=offset), (query, offset)
            assert few_served and few_served[0][1] == offset, query  # served so, not ranked in full
        assert _page(catalog, query, lists=True) == _page(catalog, query, lists=False), query
    assert len(_ranked(catalog, "model tag:few", lists=True)) == 6  # the 3 without `model` do not match


def test_a_filter_few_papers_pass_after_an_edit(catalog, served, few_served):
    """After an edit (the list rescored), with the edited papers among the filtered ones."""
    keys = _tag_few(catalog)
    catalog.add_note(keys[3], "model model model: a note on the model")  # climbs the ranking
    catalog.add_note(keys[-1], "a model after all")  # now matches
    for query in FEW_QUERIES:
        for offset in (0, 3):
            served.clear()
            few_served.clear()
            assert _ranked(catalog, query, lists=True, limit=3, offset=offset) == \
                _ranked(catalog, query, lists=False, limit=3, offset=offset), (query, offset)
            assert served, query  # page 1 may come from the rescored list (its bound proves it)
            assert few_served or offset == 0, query  # page 2 cannot: each filtered paper scored
    assert len(_ranked(catalog, "model tag:few", lists=True)) == 7


def test_a_filter_many_papers_pass_or_text_the_index_disagrees_with_ranks_in_full(catalog, few_served, monkeypatch):
    _tag_few(catalog)
    monkeypatch.setattr(sqlite_several, "FEW_PER_MATCH", 1e-4)  # at most a few papers: 9 are too many
    assert _ranked(catalog, "model tag:few", lists=True) == _ranked(catalog, "model tag:few", lists=False)
    assert few_served == []
    monkeypatch.setattr(sqlite_several, "FEW_PER_MATCH", 0.002)
    catalog.store.lists.memo = ListMemo()  # that page was not served on this index: it would not be tried again
    with catalog.store.write() as tx:  # a paper's text no longer what the index holds: never a guess
        tx.conn.execute("DROP TRIGGER IF EXISTS paper_au")
        names = [r[0] for r in tx.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"
                                               " AND tbl_name = 'paper'").all()]
        for name in names:
            tx.conn.execute(f"DROP TRIGGER {name}")
        tx.conn.execute("UPDATE paper SET abstract_text = abstract_text || ' model' WHERE id IN"
                        " (SELECT paper_id FROM paper_tag JOIN tag ON tag.id = tag_id WHERE name = 'few')")
    assert _ranked(catalog, "model tag:few", lists=True) == _ranked(catalog, "model tag:few", lists=False)
    assert few_served == []


def test_a_filtered_page_the_list_did_not_serve_is_not_tried_again_on_the_same_index(catalog, few_served,
                                                                                   monkeypatch):
    """`model tag:toread` at 100k: the list walked under the tag's filter and the tag's papers
    counted for nothing (5-6 ms on a 15 ms ranking). The same page on the same index goes
    straight to the full ranking; after a change to the index the list is tried again."""
    _tag_few(catalog)
    monkeypatch.setattr(sqlite_several, "FEW_PER_MATCH", 1e-4)  # too many papers to score each
    walked = []  # the list tried (as it is, or rescored after the tags)
    for name in ("listed_page", "_rescored_page"):
        original = getattr(WordLists, name)
        monkeypatch.setattr(WordLists, name,
                            lambda self, *a, original=original: walked.append(a) or original(self, *a))
    query = "model tag:few"
    for _ in range(3):
        assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert len(walked) == 1 and few_served == []
    assert _ranked(catalog, query, lists=True, offset=3) == _ranked(catalog, query, lists=False, offset=3)
    assert len(walked) == 2  # another page: tried
    catalog.tag([catalog.search("model", limit=1, snippets=False)[0].key], ["few"])  # the index changed
    monkeypatch.setattr(sqlite_several, "FEW_PER_MATCH", 0.002)
    assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert len(walked) == 3
