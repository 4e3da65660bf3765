"""Ranked lists of frequent words and prefixes on SQLite (catalog/store/lists/).

The exactness check: on a 10k-paper corpus (benchmarks/corpus.py) with a list for every word
and prefix in 5% of the papers, the first pages of frequent words, prefixes (from one letter),
with filters, are the same papers, in the same order, with the same scores, as the full bm25
ranking; and a list is never read once the index changed under it.
"""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from benchmarks import corpus
from benchmarks import topk as bench
from catalog.parts import doctor
from catalog.cli import main
from catalog.library import Catalog
from catalog.store import lists
from catalog.store.lists import scoring, sqlite_build, sqlite_several, sqlite_words
from catalog.store.lists import sqlite as lists_sqlite
from catalog.store.lists.memo import ListMemo
from catalog.store.lists.sqlite_words import WordLists, read_state
from tests.ranked_lists_catalog import SIZE, _page, _ranked, built, catalog, served  # noqa: F401 (fixtures)

QUERIES = ["model", "the", "Model", "learning", "interpret*", "spa*", "in*", "a*", "m*", "lan*",
           "model venue:ICML", "model year:2016..2018", "the venue:KDD year:2020", "in* venue:ACL",
           "a* -the", "model*",
           # AND of frequent words (their lists bound every paper outside them), with prefixes
           "language model", "the model", "Model Learning", "model the a*", "language mo*", "the in*",
           "model learning venue:ICML", "sparse attention", "model hessian",
           # phrases of frequent words (the words' lists bound the phrase's term part)
           '"language models"', '"the model"', '"language models" year:2016..2020', '"of the"']


@pytest.fixture
def few_lists(catalog, monkeypatch) -> None:
    """`catalog` with the lists of words and prefixes in half of the papers only, for the
    tests that rebuild every list: rebuilding all of them at 10k took minutes of CI."""
    half = SIZE // 2
    monkeypatch.setattr(scoring, "MIN_MATCHES", half)
    with catalog.store.write() as tx:
        for table in ("term_top", "term_top_state"):
            tx.conn.execute(f"DELETE FROM {table} WHERE term IN (SELECT term FROM term_top_state"
                            " WHERE matches < ? AND term != '#papers')", (half,))
        kept = {r[0] for r in tx.conn.execute("SELECT term FROM term_top_state").all()}
    assert {'("model")', '("the")', '("a"*)'} <= kept


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


def _listed(catalog: Catalog, key: str) -> tuple[int, int]:
    """(papers listed, papers matching) of a word's list."""
    with catalog.store.read() as tx:
        return tuple(tx.conn.execute("SELECT listed, matches FROM term_top_state WHERE term = ?", (key,)).first())


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


def _edit_a_few(catalog: Catalog, tmp_path) -> None:
    """Tags, a note, a new title, a deletion-free import of a few papers: small changes that
    move bm25's statistics (papers, average length, how many papers hold a word)."""
    keys = [p.key for p in catalog.search("model", limit=400, snippets=False)]
    catalog.tag(keys[300:303], ["model", "language"])  # far down: could climb into the page
    catalog.tag(keys[:2], ["toread"])  # longer papers at the top: they could drop
    catalog.add_note(keys[5], "A note on the model: interpretability, attention, sparse models.")
    catalog.add_note(keys[350], "model model model " * 20)
    catalog.set_title(keys[1], "Untitled")  # the top paper loses its title words
    more = tmp_path / "more.txt"  # 30 new papers (another seed: not the catalog's)
    more.write_text("ICML 2021 Papers\n\n" + "".join(a + "\n\n" for _, _, a in corpus.abstracts(30, seed=99))
                    + "A model of models for interpretability, model model.\n", encoding="utf-8")
    assert catalog.import_paths([more]).new == 31


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


def test_edits_during_a_rebuild_after_too_many_changes_leave_lists_that_follow_them(catalog, few_lists, served, monkeypatch):
    """A rebuild takes minutes at 1M papers and the user keeps editing: the lists it ranks
    after an edit are not thrown away by the edits that came before (the changed papers are
    counted again from the rebuild's start), so they are read, rescored, at once."""
    monkeypatch.setattr(sqlite_words, "DIRTY_LIMIT", 2)
    monkeypatch.setattr(lists_sqlite, "RANKERS", 1)  # one at a time: lists ranked ahead would be refused too
    keys = [p.key for p in catalog.search("model", limit=5, snippets=False)]
    catalog.tag(keys, ["later"])  # past the limit: no list can be rescored
    original, calls = sqlite_build.ListBuilder.store, []

    def edited_meanwhile(self, ranked):
        calls.append(ranked.key)
        if len(calls) == 3:  # someone retitles a paper while the refresh runs
            self.conn.execute("UPDATE paper SET user_title = 'A model' WHERE id = (SELECT min(id) FROM paper)")
        return original(self, ranked)

    monkeypatch.setattr(sqlite_build.ListBuilder, "store", edited_meanwhile)
    built, left = catalog.store.lists.refresh(budget=None, rescored=True)
    assert left == 1  # the list ranked before the edit and stored after it
    served.clear()
    for query in ("model", "the", "a*"):
        assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert len(served) == 3, served


def _import_past_the_limit(tmp_path, seed: int = 99):
    big = tmp_path / f"big{seed}.txt"
    big.write_text("ICML 2022 Papers\n\n" + "".join(
        a + "\n\n" for _, _, a in corpus.abstracts(sqlite_words.DIRTY_LIMIT + 100, seed=seed)))
    return big


def test_a_large_import_is_ready_when_it_returns(catalog, few_lists, served, tmp_path, monkeypatch):
    """Past DIRTY_LIMIT new papers the lists cannot be rescored: `catalog import` ranks those
    searches as you type read before it returns (saying how far it got), so the first search
    after it reads its list; only the one- and two-letter prefixes' are left to the background
    refresher, started for them (until then `a*` ranks every match: the same page). A small
    import ranks nothing."""
    from catalog.discover import refresher, related

    started = []
    monkeypatch.setenv(refresher.MODE_VARIABLE, "background")
    monkeypatch.setattr(refresher, "start", lambda db, cache_dir: started.append(db))
    monkeypatch.setattr(related, "refresh_after_import", lambda *a, **k: None)  # the discovery side's
    progress = []
    small = tmp_path / "small.txt"
    small.write_text("ICML 2021 Papers\n\n" + "".join(a + "\n\n" for _, _, a in corpus.abstracts(30, seed=98)))
    assert catalog.import_paths([small], background=True, ranking=lambda *p: progress.append(p)).new == 30
    assert progress == []
    big = _import_past_the_limit(tmp_path)
    report = catalog.import_paths([big], background=True, ranking=lambda *p: progress.append(p))
    assert report.new == sqlite_words.DIRTY_LIMIT + 100
    assert progress[-1][0] == progress[-1][1] > 100  # every list typing reads, counted as it went
    with catalog.store.read() as tx:
        short = tx.lists.maintenance().stale(rescored=False)  # but a span they share with a longer prefix
        assert '("a"*)' in short and not any(scoring.typed(k) for k in short)
    assert catalog.lists_left() == len(short) and started == [catalog.path]
    served.clear()
    for query in ("model", "interpret*", "a*"):
        assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
    assert served == ['("model")', '("interpret"*)']  # `a*` ranked every match
    assert refresher._ranked_lists(catalog.store, tmp_path) == len(short)  # what the refresher runs
    with catalog.store.read() as tx:
        assert tx.lists.maintenance().stale(rescored=False) == [] and catalog.lists_left() == 0
        assert tx.conn.execute("SELECT count(*) FROM term_top_dirty").scalar() == 0
    served.clear()
    assert _ranked(catalog, "a*", lists=True) == _ranked(catalog, "a*", lists=False)
    assert served == ['("a"*)']


def test_the_import_says_which_lists_it_left_and_doctor_ranks_them(catalog, few_lists, tmp_path, monkeypatch):
    """With no background refresher (CATALOG_DISCOVER_REFRESH=off) `catalog import` says how
    many lists of one- and two-letter prefixes it left, and who ranks them: `catalog doctor
    --fix`, which does."""
    from catalog.discover import refresher

    monkeypatch.setenv(refresher.MODE_VARIABLE, "off")
    result = CliRunner().invoke(main, ["--db", str(catalog.path), "import", str(_import_past_the_limit(tmp_path))])
    assert result.exit_code == 0, result.output
    left = catalog.lists_left()
    assert left > 0 and "ranked the lists of" in result.stderr
    assert f"ranking lists: {left:,} left, of prefixes like `a*` or `in*`" in result.stderr
    assert "`catalog doctor --fix` ranks them" in result.stderr
    result = CliRunner().invoke(main, ["--db", str(catalog.path), "doctor", "--fix"])
    assert catalog.lists_left() == 0, result.output


def test_an_import_cut_short_while_ranking_goes_on_in_the_background(catalog, few_lists, served, tmp_path,
                                                                      monkeypatch):
    """Ctrl-C while the import ranks its lists: the papers stay imported, what was ranked stays
    ranked, the refresher is started for the rest, and it goes on from there (it ranks only
    what is left)."""
    from catalog.discover import refresher, related

    started = []
    monkeypatch.setenv(refresher.MODE_VARIABLE, "background")
    monkeypatch.setattr(refresher, "start", lambda db, cache_dir: started.append(db) or object())
    monkeypatch.setattr(related, "refresh_after_import", lambda *a, **k: None)

    def interrupted(done, of):
        if done >= 20:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        catalog.import_paths([_import_past_the_limit(tmp_path)], background=True, ranking=interrupted)
    assert started == [catalog.path]
    left = catalog.lists_left()
    with catalog.store.read() as tx:
        total = len(tx.lists.maintenance().keys())
        assert tx.conn.execute("SELECT count(*) FROM paper").scalar() == SIZE + sqlite_words.DIRTY_LIMIT + 100
    assert 0 < left <= total - 20
    started.clear()  # a search says so, and starts the refresher when none is at work
    result = CliRunner().invoke(main, ["--db", str(catalog.path), "search", "model"])
    assert result.exit_code == 0 and f"ranking lists: {left:,} left" in result.stderr
    assert started == [catalog.path]
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)  # stale: not read
    ranked = []
    original = sqlite_build.ListBuilder.rank
    monkeypatch.setattr(sqlite_build.ListBuilder, "rank", lambda self, key, *args, **kwargs: ranked.append(key)
                        or original(self, key, *args, **kwargs))
    assert refresher._ranked_lists(catalog.store, tmp_path) == left  # what the refresher process runs
    assert len(ranked) <= left and catalog.lists_left() == 0
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)
    assert served == ['("model")']


def test_the_same_import_again_after_a_kill_finishes_the_lists(catalog, few_lists, served, tmp_path, monkeypatch):
    """An import killed while ranking (its papers stored, some lists not): running the same
    import again adds nothing and ranks what is left before it returns."""
    from catalog.discover import refresher, related

    monkeypatch.setenv(refresher.MODE_VARIABLE, "off")  # no background process: the re-run alone
    monkeypatch.setattr(related, "refresh_after_import", lambda *a, **k: None)
    big = _import_past_the_limit(tmp_path, seed=97)

    def killed(done, of):
        if done >= 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        catalog.import_paths([big], background=True, ranking=killed)
    assert catalog.lists_left() > 0
    progress = []
    assert catalog.import_paths([big], background=True, ranking=lambda *p: progress.append(p)).new == 0
    assert progress and progress[-1][0] == progress[-1][1]
    with catalog.store.read() as tx:  # no background refresher (=off): the short prefixes wait for doctor
        short = tx.lists.maintenance().stale()
        assert short and not any(scoring.typed(k) for k in short)
    catalog.store.lists.refresh(budget=None, rescored=True)  # what `catalog doctor --fix` runs
    assert catalog.lists_left() == 0
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)
    assert served == ['("model")']


def test_keys_of_the_same_words_are_ranked_once(catalog, few_lists, served, monkeypatch):
    """A word and its prefix (`such`, `such*`), or two prefixes (`explai*`, `explain*`), that match
    the same words of the index are one list: ranked once, kept under each key, each read."""
    keys = [p.key for p in catalog.search("model", limit=1, snippets=False)]
    catalog.tag(keys, ["later"])  # the index changed: every list is ranked again
    ranked = []
    original = sqlite_build.ListBuilder.rank
    monkeypatch.setattr(sqlite_build.ListBuilder, "rank", lambda self, key, *args, **kwargs: ranked.append(key)
                        or original(self, key, *args, **kwargs))
    built, left = catalog.store.lists.refresh(budget=None, rescored=False)
    with catalog.store.read() as tx:
        keys = tx.lists.maintenance().keys()
        spans = tx.lists.builder.spans(keys)
        assert tx.lists.builder.spans(keys, tx.lists.builder.vocabulary()) == spans  # from the words read already
    assert spans['("model")'] == ("model", "model")
    shared = [k for k in keys if list(spans.values()).count(spans.get(k)) > 1]
    assert shared, "the corpus has keys of one span"
    assert left == 0 and built == len(keys)
    assert len(ranked) == len(set(spans.values())) + len([k for k in keys if k not in spans]) < len(keys)
    for key in shared:
        word, prefix = scoring.term(key)
        query = word + ("*" if prefix else "")
        served.clear()
        assert _ranked(catalog, query, lists=True) == _ranked(catalog, query, lists=False)
        assert served == [key]


def test_too_many_changes_stop_rescoring_until_a_rebuild(catalog, few_lists, served, monkeypatch):
    monkeypatch.setattr(sqlite_words, "DIRTY_LIMIT", 2)  # the triggers keep counting to the migration's
    keys = [p.key for p in catalog.search("model", limit=5, snippets=False)]
    catalog.tag(keys, ["later"])
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)
    assert served == []  # three changed papers: past the limit, every match is ranked
    report = doctor.run(catalog.store)
    assert any("ranked list" in f.problem and "out of date" in f.problem for f in report.found)
    fixed = doctor.run(catalog.store, fix=True)
    assert fixed.remaining == [] and any("rebuilt" in r and "ranked list" in r for r in fixed.repaired)
    with catalog.store.read() as tx:
        assert tx.conn.execute("SELECT count(*) FROM term_top_dirty").scalar() == 0
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)
    assert served == ['("model")']


def test_a_small_import_keeps_the_lists_serving(catalog, served, tmp_path, monkeypatch):
    from catalog import library

    monkeypatch.setattr(library, "RANKED_LISTS_FLOOR", 600.0)  # all of them, however loaded the machine
    more = corpus.write_paper_lists(200, tmp_path / "more", per_file=200)
    more[0].write_text(more[0].read_text() + "A model of models, model model.\n")
    catalog.import_paths(more)
    with catalog.store.read() as tx:
        assert tx.lists.maintenance().stale() == []
    served.clear()
    assert _ranked(catalog, "model", lists=True) == _ranked(catalog, "model", lists=False)
    assert served == ['("model")']


def test_doctor_finds_a_list_that_is_not_the_ranking(catalog, built):
    assert doctor.run(catalog.store).found == []
    with sqlite3.connect(catalog.path) as conn:  # a hand edit: swap the first two papers of a list
        key = conn.execute("SELECT term FROM term_top_state WHERE term LIKE '(%' ORDER BY matches, term LIMIT 1").fetchone()[0]
        first, second = (r[0] for r in conn.execute(
            "SELECT paper_id FROM term_top WHERE term = ? AND position < 2 ORDER BY position", (key,)))
        conn.execute("UPDATE term_top SET paper_id = ? WHERE term = ? AND position = 0", (second, key))
        conn.execute("UPDATE term_top SET paper_id = ? WHERE term = ? AND position = 1", (first, key))
    report = doctor.run(catalog.store)
    assert [f.problem for f in report.found] == [f"the ranked list of {key} differs from the full ranking"]
    assert doctor.run(catalog.store, fix=True).remaining == []


def test_small_catalogs_keep_no_lists(seeded, monkeypatch):
    
    with seeded.store.read() as tx:
        assert tx.conn.execute("SELECT count(*) FROM term_top_state").scalar() == 0


def test_a_big_catalog_keeps_lists_of_less_frequent_words(catalog, monkeypatch):
    """At a million papers ranking `hessian` (24,572 papers) in full took 65-100 ms: past
    BIG_CATALOG papers, words and prefixes get lists from MIN_MATCHES_BIG papers on."""
    with catalog.store.read() as tx:
        words = tx.lists.maintenance().words()
    between = [k for k, n in scoring.candidates(words, SIZE // 40) if n < SIZE // 20]
    assert between and set(between).isdisjoint(_kept(catalog))
    monkeypatch.setattr(scoring, "BIG_CATALOG", SIZE)
    monkeypatch.setattr(scoring, "MIN_MATCHES_BIG", SIZE // 40)
    with catalog.store.write() as tx:  # as if the catalog had grown by a quarter: words chosen again
        tx.conn.execute("DELETE FROM term_top_state WHERE term = '#papers'")
    # No time to build any (the benchmark times that): the new words are the lists left to build.
    assert catalog.store.lists.refresh(budget=0.0) == (0, len(between))


def _kept(catalog) -> set[str]:
    with catalog.store.read() as tx:
        return {r[0] for r in tx.conn.execute("SELECT term FROM term_top_state").all()}


@pytest.mark.parametrize("query, key", [
    ("model", '("model")'), ("Model", '("model")'), ("interp*", '("interp"*)'),
    ('"language models"', None), ("a OR b", None), ("model -x", None),
    ("=model", '("model")'), ("venue:ICML", None),
])
def test_which_queries_a_list_can_serve(query, key):
    from catalog.searching.query import parse
    from catalog.store.sqlite.fts import compile_query

    assert scoring.word_key(compile_query(parse(query))) == key


@pytest.mark.parametrize("query, keys", [
    ("sparse attention", ['("sparse")', '("attention")']), ("Language mo*", ['("language")', '("mo"*)']),
    ("model venue:ICML the", ['("model")', '("the")']), ("model", None), ('"language models" x', None),
    ("model model", None), ("model -the", None), ("model OR the", None), ("model (the OR a)", None),
])
def test_which_and_queries_lists_can_serve(query, keys):
    from catalog.searching.query import parse
    from catalog.store.sqlite.fts import compile_query

    assert scoring.and_keys(compile_query(parse(query))) == keys


@pytest.mark.parametrize("query, keys", [
    ('"language models"', ['("language")', '("models")']), ('"Model of the model"', ['("model")', '("of")', '("the")']),
    ('"model"', None), ('"multi-agent model"', None), ('x "language models"', None), ('"language models" -x', None),
])
def test_which_phrases_lists_can_serve(query, keys):
    from catalog.searching.query import parse
    from catalog.store.sqlite.fts import compile_query

    assert scoring.phrase_keys(compile_query(parse(query))) == keys


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


# --- deep lists: words in a large share of the papers (scoring.DEEP_LIST_SIZE) ---------------

@pytest.mark.parametrize("papers", [10_000, 100_000, 1_000_000])
def test_how_deep_a_list_is_goes_by_the_share_of_papers_a_word_matches(papers):
    share = scoring.DEEP_SHARE
    assert scoring.list_depth(int(papers * share), papers) == scoring.DEEP_LIST_SIZE
    assert scoring.list_depth(int(papers * share) - 1, papers) == scoring.LIST_SIZE
    assert scoring.list_depth(0, 0) == scoring.LIST_SIZE


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


def test_a_lists_matches_are_told_by_its_scores_without_counting_them(catalog, monkeypatch):
    """Ranking a list reads its matches once: the count each list keeps (what searches and
    rescoring read) is the ranking's length when it holds them all, else told by its own
    scores, the same number FTS5 counts; only a key in half the papers or more (its IDF a
    floor) is counted apart."""
    told = {}
    original = scoring.matches_from_scores

    def spy(rows, papers, avgdl, *args):
        told[key] = original(rows, papers, avgdl, *args)
        return told[key]

    monkeypatch.setattr(sqlite_build, "matches_from_scores", spy)
    with catalog.store.read() as tx:
        full = sorted((k for k in tx.lists.maintenance().keys() if read_state(tx.conn, k).matches > scoring.DEEP_LIST_SIZE),
                      key=lambda k: read_state(tx.conn, k).matches)
        keys = full[:30] + full[-5:]
        made = {}
        for key in keys:
            made[key] = tx.lists.builder.rank(key).matches
        count = {key: tx.conn.execute(sqlite_build.COUNT, (key,)).scalar() for key in keys}
    assert made == count
    assert len(told) == sum(1 for k in keys if count[k] >= scoring.DEEP_LIST_SIZE)
    assert [k for k, n in told.items() if n is None] == [k for k in told if count[k] >= SIZE / 2]
    assert sum(1 for n in told.values() if n is not None) >= 10


def test_a_words_matches_come_from_the_vocabulary_and_its_list_is_the_one_counting_makes(catalog, monkeypatch):
    """A refresh that reads the vocabulary (fts5vocab: the papers holding each word) takes
    the matches of every key whose span is one word from it: a word in half the papers or
    more, whose scores cannot tell its matches, is not counted again; each list is the one
    ranking and counting make (the same papers, scores, frequencies, counts)."""
    with catalog.store.read() as tx:
        words = dict(tx.lists.maintenance().words())
        spans = tx.lists.builder.spans(tx.lists.maintenance().keys(), list(words.items()))
        one = [key for key, (first, last) in spans.items() if first == last]
        floor = [key for key in one if words[spans[key][0]] >= SIZE / 2]
        keys = floor[:6] + sorted(set(one) - set(floor))[:4]
    assert len(floor) >= 3 and any(key.endswith('*)') for key in keys)
    with catalog.store.write() as tx:
        tx.lists.maintenance().drop(keys)
    counting = sqlite_build.COUNT
    monkeypatch.setattr(sqlite_build, "COUNT", "SELECT no_such_count(?)")  # counting one fails
    built, stale = catalog.store.lists.refresh(budget=None)
    assert (built, stale) == (len(keys), 0)
    monkeypatch.setattr(sqlite_build, "COUNT", counting)
    with catalog.store.read() as tx:
        for key in keys:
            made = tx.lists.builder.rank(key)  # counted, where its scores cannot tell
            state = read_state(tx.conn, key)
            rows = [tuple(r) for r in tx.conn.execute(
                "SELECT position, paper_id, score, freq, length FROM term_top WHERE term = ? ORDER BY position",
                (key,)).all()]
            assert (made.matches, made.base, len(made.rows)) == (state.matches, state.base, state.listed), key
            assert made.rows == rows, key


def test_a_told_count_the_scores_do_not_bear_out_is_counted_instead(catalog, monkeypatch):
    """The count told by a list's first scores is checked on every paper of it: one that
    fails the check (here: told one too many) is counted, and the list keeps the true one."""
    monkeypatch.setattr(sqlite_build, "matches_from_scores",
                        lambda rows, papers, avgdl: scoring.matches_from_scores(rows, papers, avgdl) + 1)
    with catalog.store.read() as tx:
        key = next(k for k in sorted(tx.lists.maintenance().keys()) if scoring.DEEP_LIST_SIZE < read_state(tx.conn, k).matches < SIZE / 3)
        made = tx.lists.builder.rank(key)
        assert made.matches == tx.conn.execute(sqlite_build.COUNT, (key,)).scalar()
        assert made.base is not None  # its frequencies kept: rescored after changes
