"""The 10k catalog the ranked-list tests share (tests/test_ranked_lists*.py):
benchmarks/corpus.py's papers with a list for every word and prefix in 5% of them, its words in
30% with deep lists, and how those tests read a page with and without the lists, edit it a
little, and ask what a list holds."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from benchmarks import corpus
from benchmarks import topk as bench
from catalog.library import Catalog
from catalog.store import lists
from catalog.store.lists import scoring
from catalog.store.lists.sqlite import SqliteRankedLists
from catalog.store.sqlite.store import SqliteStore

SIZE = int(os.environ.get("CATALOG_RANKED_LISTS_SIZE", "10000"))
# Words and prefixes in 30% of the papers (`model`, `the`, `a*`, `in*`, ...) keep deep lists
# (scoring.DEEP_LIST_SIZE), the others LIST_SIZE: both kinds under every test.
DEEP_SHARE = 0.3


@pytest.fixture(scope="session")
def built(tmp_path_factory, worker_id) -> Path:
    """A 10k catalog with every qualifying list built (the threshold lowered to 10k papers):
    made once per run (80-90 s), by the first of xdist's workers to need it."""
    return _made_per_run(tmp_path_factory, worker_id, "ranked-lists-base.db", _build)


@pytest.fixture(scope="session")
def few_built(built, tmp_path_factory, worker_id) -> Path:
    """`built` with the lists of words and prefixes in half of the papers only (FEW_MATCHES),
    for the tests that rebuild every list (`few_lists`): rebuilding all of them at 10k took
    minutes of CI. Made once per run: deleting the other lists in each test's copy took
    5-10 s a test."""
    return _made_per_run(tmp_path_factory, worker_id, "ranked-lists-few.db", lambda path: _keep_few(built, path))


def _made_per_run(tmp_path_factory, worker_id, name: str, make) -> Path:
    """The file `make(path)` writes, made by the first of xdist's workers to ask for it, in
    the run's folder they share; the others wait for it (one lock for every such file)."""
    run = tmp_path_factory.getbasetemp()
    run = run if worker_id == "master" else run.parent
    path = run / name
    with open(run / "ranked-lists-base.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            building = run / f"building-{name}"
            make(building)
            os.replace(building, path)
    return path


def _build(path: Path) -> None:
    files = corpus.write_paper_lists(SIZE, path.parent / "ranked-lists-corpus", per_file=SIZE // 4)
    catalog = Catalog.open(path)
    try:
        catalog.import_paths(files)
        bench.ensure_tag(catalog, 50)  # the benchmark's tag filter (a write: before the lists)
    finally:
        catalog.close()
    saved = scoring.MIN_MATCHES, scoring.DEEP_SHARE
    scoring.MIN_MATCHES, scoring.DEEP_SHARE = SIZE // 20, DEEP_SHARE
    try:
        store = SqliteStore.open(path)
        built, stale = store.lists.refresh(budget=None)
        store.close()
    finally:
        scoring.MIN_MATCHES, scoring.DEEP_SHARE = saved
    assert built > 100 and stale == 0


# The words and prefixes `few_lists` keeps lists of: those in half of the papers.
FEW_MATCHES = SIZE // 2


def _keep_few(built: Path, path: Path) -> None:
    shutil.copy(built, path)
    catalog = Catalog.open(path)
    try:
        with catalog.store.write() as tx:
            for table in ("term_top", "term_top_state"):
                tx.conn.execute(f"DELETE FROM {table} WHERE term IN (SELECT term FROM term_top_state"
                                " WHERE matches < ? AND term != '#papers')", (FEW_MATCHES,))
    finally:
        catalog.close()


@pytest.fixture
def catalog(built, tmp_path, monkeypatch, request):
    """This test's own copy of `built` (of `few_built` when the test takes `few_lists`)."""
    path = tmp_path / "catalog.db"
    shutil.copy(request.getfixturevalue("few_built") if "few_lists" in request.fixturenames else built, path)
    monkeypatch.setattr(scoring, "MIN_MATCHES", SIZE // 20)
    monkeypatch.setattr(scoring, "DEEP_SHARE", DEEP_SHARE)
    catalog = Catalog.open(path)
    yield catalog
    catalog.close()


@pytest.fixture
def few_lists(catalog, monkeypatch) -> None:
    """`catalog` with the lists of words and prefixes in half of the papers only (a copy of
    `few_built`), and the threshold that chose them."""
    monkeypatch.setattr(scoring, "MIN_MATCHES", FEW_MATCHES)
    with catalog.store.read() as tx:
        kept = {r["term"]: r["matches"] for r in tx.conn.execute("SELECT term, matches FROM term_top_state").all()}
    assert {'("model")', '("the")', '("a"*)'} <= kept.keys()
    assert all(n >= FEW_MATCHES for term, n in kept.items() if term != "#papers")


@pytest.fixture
def served(monkeypatch):
    """The queries a list answered (their exact tier's page), by key."""
    answered: list[str] = []
    original = SqliteRankedLists.page

    def spy(self, compiled, tier, *args):
        rows = original(self, compiled, tier, *args)
        if rows is not None:
            answered.append(scoring.word_key(compiled) or " AND ".join(scoring.and_keys(compiled) or [])
                            or " ".join(scoring.phrase_keys(compiled)))
        return rows

    monkeypatch.setattr(SqliteRankedLists, "page", spy)
    return answered


def _page(catalog: Catalog, query: str, *, lists: bool, **kwargs) -> list:
    _switch(lists)
    try:
        return [(p.key, p.match, p.snippet) for p in catalog.search(query, **kwargs)]
    finally:
        _switch(True)


def _ranked(catalog: Catalog, query: str, *, lists: bool, limit: int = 50, offset: int = 0) -> list:
    """(paper id, score) of the page, as the store ranks it; the lists the search ranked of
    its own kept after it, as Catalog.search keeps them."""
    from catalog.searching.query import parse

    _switch(lists)
    try:
        with catalog.store.read() as tx:
            page = [(h.paper_id, h.score) for h in tx.search.page(parse(query), limit=limit, offset=offset)]
            made = tx.lists.to_keep()
        catalog.store.lists.keep(made)
        return page
    finally:
        _switch(True)


def _switch(on: bool) -> None:
    """With the ranked lists (on), or every match ranked (off)."""
    lists.ENABLED = on


QUERIES = ["model", "the", "Model", "learning", "interpret*", "spa*", "in*", "a*", "m*", "lan*",
           "model venue:ICML", "model year:2016..2018", "the venue:KDD year:2020", "in* venue:ACL",
           "a* -the", "model*",
           # AND of frequent words (their lists bound every paper outside them), with prefixes
           "language model", "the model", "Model Learning", "model the a*", "language mo*", "the in*",
           "model learning venue:ICML", "sparse attention", "model hessian",
           # phrases of frequent words (the words' lists bound the phrase's term part)
           '"language models"', '"the model"', '"language models" year:2016..2020', '"of the"']


def _listed(catalog: Catalog, key: str) -> tuple[int, int]:
    """(papers listed, papers matching) of a word's list."""
    with catalog.store.read() as tx:
        return tuple(tx.conn.execute("SELECT listed, matches FROM term_top_state WHERE term = ?", (key,)).first())


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
