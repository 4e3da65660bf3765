"""Lists of ANDs and phrases of frequent words (catalog/store/lists/sqlite_several.py): the
lists of their own that searches rank and the catalog keeps, and the heads of prefix ANDs the
store remembers; on the shared 10k catalog (tests/ranked_lists_catalog.py), every page the full
ranking's.
"""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest

from catalog.parts import doctor
from catalog.library import Catalog
from catalog.store.lists import scoring, sqlite as sqlite_lists, sqlite_build, sqlite_several
from catalog.store.lists.sqlite_several import SeveralWords
from catalog.store.lists.sqlite_words import WordLists
from catalog.store.sqlite.store import SqliteStore
from tests.ranked_lists_catalog import _page, _ranked, _switch, built, catalog  # noqa: F401 (fixtures)


# --- ANDs and phrases the words' lists cannot prove: lists of their own ----------------------

PHRASE, PHRASE_KEY = '"of the"', '("of the")'  # at 10k the words' lists do not prove its page
AND, AND_KEY = "Language model", '("language") AND ("model")'


@pytest.fixture
def own_lists(monkeypatch) -> list:
    """The pages read from lists of several words, as (key, offset). The words' lists prove
    every AND's page at 10k papers: here they are taken not to (proven_page answers None)."""
    monkeypatch.setattr(SeveralWords, "proven_page", lambda self, *args, **kwargs: None)
    read: list = []
    original = WordLists.listed_page

    def spy(self, state, compiled, limit, offset, with_text):
        rows = original(self, state, compiled, limit, offset, with_text)
        if scoring.of_several(state.key) and rows is not None:
            read.append((state.key, offset))
        return rows

    monkeypatch.setattr(WordLists, "listed_page", spy)
    return read


def _compound_lists(catalog: Catalog) -> tuple[list[str], list[str]]:
    with catalog.store.read() as tx:
        return tx.lists.maintenance().several()


def test_an_and_or_phrase_the_lists_cannot_prove_gets_a_list_of_its_own(catalog, own_lists):
    for query, key in ((PHRASE, PHRASE_KEY), (AND, AND_KEY)):
        full = [_ranked(catalog, query, lists=False, offset=offset) for offset in (0, 50)]
        assert _ranked(catalog, query, lists=True) == full[0]  # ranks its list, serves the page from it
        assert key in _compound_lists(catalog)[0] and own_lists == []
        assert [_ranked(catalog, query, lists=True, offset=offset) for offset in (0, 50)] == full
        filtered = f"{query} year:2016..2020"
        assert _ranked(catalog, filtered, lists=True) == _ranked(catalog, filtered, lists=False)
        assert own_lists == [(key, 0), (key, 50), (key, 0)]
        assert _page(catalog, query, lists=True) == _page(catalog, query, lists=False)
        own_lists.clear()


def _far_down(catalog: Catalog, query: str, offset: int) -> tuple[int, str]:
    """(id, key) of the paper at `offset` in the full ranking of `query`."""
    low = _ranked(catalog, query, lists=False, offset=offset)[0][0]
    _switch(False)
    try:
        return low, catalog.search(query, limit=1, offset=offset, snippets=False)[0].key
    finally:
        _switch(True)


def test_after_an_edit_a_list_of_its_own_is_ranked_again_not_read(catalog, own_lists):
    _ranked(catalog, PHRASE, lists=True)
    low, key = _far_down(catalog, PHRASE, 200)
    catalog.add_note(key, "Of the many, of the few, of the rest: of the others.")
    assert _compound_lists(catalog) == ([PHRASE_KEY], [PHRASE_KEY])
    own_lists.clear()
    page = _ranked(catalog, PHRASE, lists=True)
    assert page == _ranked(catalog, PHRASE, lists=False) and low in [pid for pid, _ in page]
    assert own_lists == [] and _compound_lists(catalog) == ([PHRASE_KEY], [])  # ranked again
    assert _ranked(catalog, PHRASE, lists=True) == page and own_lists == [(PHRASE_KEY, 0)]


def test_lists_of_several_words_past_the_cap_drop_the_oldest(catalog, own_lists, monkeypatch):
    monkeypatch.setattr(sqlite_build, "SEVERAL_LISTS", 2)
    for query in ('"of the"', '"in the"', '"of a"'):
        _ranked(catalog, query, lists=True)
    assert _compound_lists(catalog)[0] == ['("in the")', '("of a")']
    _ranked(catalog, '"of the"', lists=True)
    assert _compound_lists(catalog)[0] == ['("of a")', '("of the")']
    with catalog.store.read() as tx:
        assert tx.conn.execute("SELECT count(DISTINCT term) FROM term_top WHERE term LIKE '% %'").scalar() == 2


def test_a_read_only_file_searches_without_keeping_lists(catalog, own_lists, monkeypatch):
    """SQLite refuses the write ("attempt to write a readonly database"): the page is the
    same, no error, and the process does not try again."""
    from catalog.store.sqlite import store as sqlite_store
    from catalog.store.sqlite.connection import Connection

    def read_only(path):
        raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
        raw.row_factory = sqlite3.Row
        return Connection(raw)

    monkeypatch.setattr(sqlite_store, "connect", read_only)
    assert _ranked(catalog, PHRASE, lists=True) == _ranked(catalog, PHRASE, lists=False)
    assert _compound_lists(catalog) == ([], [])
    with catalog.store.read() as tx:
        assert not tx.lists.several_words.keeping  # not ranked again to be kept
    assert _page(catalog, PHRASE, lists=True) == _page(catalog, PHRASE, lists=False)


def test_a_list_its_own_search_kept_does_not_look_like_a_change_to_the_tui(catalog, own_lists):
    """The TUI polls Catalog.version (SQLite's data_version) and reloads when it moves: a list
    kept by its own search must not move it (the reload would search again)."""
    before = catalog.version()
    _ranked(catalog, PHRASE, lists=True)
    assert _compound_lists(catalog)[0] == [PHRASE_KEY]
    assert catalog.version() == before
    with sqlite3.connect(catalog.path) as conn:  # another process's change still shows
        conn.execute("INSERT INTO catalog_setting(name, value) VALUES ('probe', 'x')")
    assert catalog.version() != before


def test_doctor_says_stale_lists_of_several_words_are_no_problem(catalog, own_lists):
    _ranked(catalog, PHRASE, lists=True)
    catalog.tag([catalog.search("hessian", limit=1, snippets=False)[0].key], ["later"])
    with catalog.store.read() as tx:
        assert doctor._ranked_lists(tx) == []
        assert tx.lists.note().endswith(" and 1 search of several of them (1 ranked before the last"
                                        " change: the next search of each ranks it again), each listing"
                                        " its best 1,000 by bm25 (364 of them, in 30%+ of the papers, their"
                                        " best 2,000)")
    assert doctor._rank_lists_again(catalog.store) == ("rebuilt 0 ranked list(s); dropped 1 list(s) of ANDs and"
                                                        " phrases ranked before the last change (the next search of"
                                                        " each ranks it again)")
    assert _compound_lists(catalog) == ([], [])


def test_two_searches_at_once_keep_one_list_and_an_import_keeps_none_waiting(catalog, own_lists, monkeypatch):
    from catalog.searching.query import parse
    from catalog.store.sqlite import connection
    from catalog.store.sqlite import store as sqlite_store

    full = _ranked(catalog, PHRASE, lists=False)
    other = SqliteStore.open(catalog.path)
    try:
        with catalog.store.read() as a, other.read() as b:
            pages = [[(h.paper_id, h.score) for h in tx.search.page(parse(PHRASE))] for tx in (a, b)]
            made = a.lists.to_keep(), b.lists.to_keep()
        catalog.store.lists.keep(made[0])
        other.lists.keep(made[1])
    finally:
        other.close()
    assert pages == [full, full] and _compound_lists(catalog)[0] == [PHRASE_KEY]
    with catalog.store.read() as tx:
        assert tx.conn.execute("SELECT count(*) FROM term_top WHERE term = ?", (PHRASE_KEY,)).scalar() == 1000
    with catalog.store.write() as tx:
        tx.lists.maintenance().drop([PHRASE_KEY])
    # A search that waited for another writer's lock would wait as long as the busy timeout:
    # an hour here, so waiting hangs (and the guard below fires) instead of passing slowly.
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 3_600_000)
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 3_600_000)
    searcher = Catalog(SqliteStore.open(catalog.path))  # its connections take that timeout
    importing = sqlite3.connect(catalog.path, isolation_level=None)  # another writer holds the file
    importing.execute("BEGIN IMMEDIATE")
    try:
        answer: dict = {}
        search = threading.Thread(target=lambda: answer.update(page=_ranked(searcher, PHRASE, lists=True)),
                                  daemon=True)
        search.start()
        search.join(timeout=300)  # generous: fires only when the search waits for the lock
        assert not search.is_alive(), "the search waited for the import's write lock"
        assert answer["page"] == full and _compound_lists(catalog) == ([], [])  # not kept, not waited
    finally:
        importing.execute("ROLLBACK")
        importing.close()
        searcher.close()
    _ranked(catalog, PHRASE, lists=True)
    assert _compound_lists(catalog)[0] == [PHRASE_KEY]


def test_refresh_keeps_lists_of_several_words_and_ranks_stale_ones_again(catalog, own_lists):
    _ranked(catalog, PHRASE, lists=True)
    catalog.store.lists.refresh(budget=None)  # chooses the words again: keeps the phrase's list
    assert _compound_lists(catalog) == ([PHRASE_KEY], [])
    catalog.tag([catalog.search("hessian", limit=1, snippets=False)[0].key], ["later"])
    assert catalog.store.lists.refresh(budget=60.0) == (1, 0)  # the words' lists are rescored
    assert _compound_lists(catalog) == ([PHRASE_KEY], [])
    assert _ranked(catalog, PHRASE, lists=True) == _ranked(catalog, PHRASE, lists=False)
    assert own_lists == [(PHRASE_KEY, 0)]


def test_refresh_ranks_again_only_the_newest_stale_lists_of_several_words(catalog, own_lists, monkeypatch):
    """Past COMPOUND_REFRESH, an older stale list waits for its next search (which ranks it)."""
    monkeypatch.setattr(sqlite_lists, "SEVERAL_REFRESH", 1)
    _ranked(catalog, PHRASE, lists=True)
    _ranked(catalog, AND, lists=True)  # the newest
    catalog.tag([catalog.search("hessian", limit=1, snippets=False)[0].key], ["later"])
    assert _compound_lists(catalog) == ([PHRASE_KEY, AND_KEY], [PHRASE_KEY, AND_KEY])
    catalog.store.lists.refresh(budget=None)
    assert _compound_lists(catalog) == ([PHRASE_KEY, AND_KEY], [PHRASE_KEY])
    assert _ranked(catalog, PHRASE, lists=True) == _ranked(catalog, PHRASE, lists=False)
    assert _compound_lists(catalog) == ([AND_KEY, PHRASE_KEY], [])


# --- ANDs of whole words whose lists' proof would cost what ranking does ----------------------

def _drop_word_lists(catalog: Catalog, keys: list[str]) -> None:
    with catalog.store.write() as tx:
        for table in ("term_top", "term_top_state"):
            tx.conn.execute(f"DELETE FROM {table} WHERE term IN (SELECT value FROM json_each(?))", (json.dumps(keys),))


def test_an_and_whose_proof_fts5_would_score_gets_a_list_of_its_own_at_once(catalog, monkeypatch):
    """At 10k papers FTS5 would score the lists' papers of `language model` (_fts_scored: it
    counts both words' papers over the index, what ranking costs): its first search ranks a list
    of its own instead of trying the lists, every later one reads it."""
    tried = []
    original = SeveralWords.proven_page
    monkeypatch.setattr(SeveralWords, "proven_page",
                        lambda self, *a, **k: tried.append(a[0]) or original(self, *a, **k))
    full = [_ranked(catalog, AND, lists=False, offset=offset) for offset in (0, 50)]
    assert _ranked(catalog, AND, lists=True) == full[0]
    assert _compound_lists(catalog)[0] == [AND_KEY] and tried == []
    assert [_ranked(catalog, AND, lists=True, offset=offset) for offset in (0, 50)] == full
    assert _page(catalog, AND, lists=True) == _page(catalog, AND, lists=False)
    # With a prefix the lists' papers are tokenized again (no FTS5 pass): the lists prove it.
    assert _ranked(catalog, "language mo*", lists=True) == _ranked(catalog, "language mo*", lists=False)
    assert tried == [['("language")', '("mo"*)']] and _compound_lists(catalog)[0] == [AND_KEY]


def test_an_and_of_words_without_lists_that_match_many_papers_gets_a_list_of_its_own(catalog, monkeypatch):
    """`sparse attention` at 100k: neither word in 25,000 papers (no list), together in 36,025:
    ranking it walks them all. Its first search ranks a list of its own; an AND of words that
    together match fewer papers than a word needs for a list keeps none (quick to rank)."""
    query, key = "sparse attention", '("sparse") AND ("attention")'
    _drop_word_lists(catalog, ['("sparse")', '("attention")'])
    with catalog.store.read() as tx:
        matches = sum(tx.conn.execute("SELECT count(*) FROM paper_fts WHERE paper_fts MATCH ?", (w,)).scalar()
                      for w in ("sparse", "attention"))
    monkeypatch.setattr(scoring, "SMALL_FLOOR", 10**9)  # the threshold: MIN_MATCHES alone
    monkeypatch.setattr(scoring, "MIN_MATCHES", matches + 1)  # together: fewer than a list needs
    full = [_ranked(catalog, query, lists=False, offset=offset) for offset in (0, 50)]
    assert [_ranked(catalog, query, lists=True, offset=offset) for offset in (0, 50)] == full
    assert _compound_lists(catalog) == ([], [])
    monkeypatch.setattr(scoring, "MIN_MATCHES", matches)
    assert _ranked(catalog, query, lists=True) == full[0]
    assert _compound_lists(catalog)[0] == [key]
    filtered = f"{query} year:2016..2020"
    for q, offset in ((query, 0), (query, 50), (filtered, 0), (filtered, 50)):
        assert _ranked(catalog, q, lists=True, offset=offset) == _ranked(catalog, q, lists=False, offset=offset)
    with catalog.store.read() as tx:
        listed = tx.conn.execute("SELECT listed FROM term_top_state WHERE term = ?", (key,)).scalar()
        both = tx.conn.execute("SELECT count(*) FROM paper_fts WHERE paper_fts MATCH ?", (key,)).scalar()
    assert listed == min(both, 1000) and _page(catalog, query, lists=True) == _page(catalog, query, lists=False)


# --- ANDs with a prefix, remembered by the store (memo.py) ------------------------------------

@pytest.fixture
def remembered(monkeypatch) -> list:
    """The pages of prefix ANDs served from the store's memory, as (query's MATCH, offset)."""
    read: list = []
    original = SeveralWords._made_page

    def spy(self, made, compiled, limit, offset, with_text):
        rows = original(self, made, compiled, limit, offset, with_text)
        if rows is not None and " " in compiled.match and "*" in compiled.match:
            read.append((compiled.match, offset))
        return rows

    monkeypatch.setattr(SeveralWords, "_made_page", spy)
    return read


def test_a_prefix_and_ranked_in_full_is_remembered_and_kept(catalog, remembered, monkeypatch):
    """A prefix AND the lists do not prove is ranked REMEMBER_DEPTH deep: the TUI's page of
    200 after its first 50 rows, and the same search again, read that; the catalog keeps it
    as a list of its own (its words all have lists), which a filter reads too; a page past the
    depth ranks in full."""
    monkeypatch.setattr(SeveralWords, "proven_page", lambda self, *a, **k: None)
    query, match = "sparse att*", '("sparse") AND ("att"*)'
    depth = sqlite_several.REMEMBER_DEPTH
    full = _ranked(catalog, query, lists=False, limit=depth + 100)
    assert _ranked(catalog, query, lists=True) == full[:50]
    assert remembered == [(match, 0)]  # ranked here, served from what it ranked
    for limit, offset in ((200, 0), (50, depth - 50), (50, 0)):
        assert _ranked(catalog, query, lists=True, limit=limit, offset=offset) == full[offset:offset + limit]
    assert remembered == [(match, 0), (match, 0), (match, depth - 50), (match, 0)]
    assert _ranked(catalog, query, lists=True, limit=50, offset=depth - 20) == full[depth - 20:depth + 30]
    # Past the depth: ranked in full, not from memory (unless the head holds every match).
    with catalog.store.read() as tx:
        every = tx.conn.execute("SELECT count(*) FROM paper_fts WHERE paper_fts MATCH ?", (match,)).scalar()
    read = 5 if every < depth else 4
    assert len(remembered) == read
    filtered = f"{query} year:2016..2020"
    assert _ranked(catalog, filtered, lists=True) == _ranked(catalog, filtered, lists=False)
    assert len(remembered) == read + 1  # from the kept list: its papers passing the filter fill the page
    assert _compound_lists(catalog) == ([match], [])
    assert _page(catalog, query, lists=True) == _page(catalog, query, lists=False)


def test_a_prefix_and_remembered_is_not_read_after_an_edit(catalog, remembered, monkeypatch):
    """A note that lifts a paper from far down to the top: the remembered head is of the index
    as it was, and must not be served."""
    monkeypatch.setattr(SeveralWords, "proven_page", lambda self, *a, **k: None)
    query = "sparse att*"
    _ranked(catalog, query, lists=True)
    low, key = _far_down(catalog, query, 300)
    catalog.add_note(key, "Sparse attention: sparse attention, attending sparsely, sparse attention again.")
    page = _ranked(catalog, query, lists=True)
    assert page == _ranked(catalog, query, lists=False) and low in [pid for pid, _ in page]


def test_a_prefix_and_the_lists_proved_is_remembered(catalog, remembered, monkeypatch):
    """`language mo*` proved from its words' lists (their papers tokenized again): the same page
    again, and the pages before it, are read from memory, not proved again."""
    proved = []
    original = SeveralWords._and_scored
    monkeypatch.setattr(SeveralWords, "_and_scored", lambda self, *a: proved.append(1) or original(self, *a))
    for query in ("language mo*", "language mo* year:2016..2020"):
        for offset in (0, 50, 0, 50):
            assert _ranked(catalog, query, lists=True, offset=offset) == \
                _ranked(catalog, query, lists=False, offset=offset), (query, offset)
    match = '("language") AND ("mo"*)'
    assert remembered == [(match, 0), (match, 50)]  # a filter is never remembered: proved each time
    assert len(proved) == 6
