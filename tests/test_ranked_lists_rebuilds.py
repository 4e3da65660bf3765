"""Ranked lists rebuilt (catalog/store/lists/): too many changes stop rescoring until a rebuild,
edits during a rebuild leave lists that follow them, keys of the same words are ranked once,
doctor finds a list that is not the ranking, a big catalog keeps lists of less frequent words,
and building a list counts its matches once (on the shared 10k catalog,
tests/ranked_lists_catalog.py; `few_lists`: its copy with the lists of words in half the papers).
"""

from __future__ import annotations

import sqlite3

from catalog.parts import doctor
from catalog.store.lists import scoring, sqlite_build, sqlite_words
from catalog.store.lists import sqlite as lists_sqlite
from catalog.store.lists.sqlite_words import read_state
from tests.ranked_lists_catalog import (  # noqa: F401 (fixtures)
    SIZE, _ranked, built, catalog, few_built, few_lists, served,
)


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
