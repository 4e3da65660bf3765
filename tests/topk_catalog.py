"""The 10k catalog the ranked-list tests share (tests/test_topk.py, tests/test_topand.py):
benchmarks/corpus.py's papers with a list for every word and prefix in 5% of them, its words in
30% with deep lists, and how those tests read a page with and without the lists."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from benchmarks import corpus
from benchmarks import topk as bench
from catalog.library import Catalog
from catalog.store.sqlite import topand, topk
from catalog.store.sqlite.store import SqliteStore

SIZE = int(os.environ.get("CATALOG_TOPK_SIZE", "10000"))
# Words and prefixes in 30% of the papers (`model`, `the`, `a*`, `in*`, ...) keep deep lists
# (topk.DEEP_LIST_SIZE), the others LIST_SIZE: both kinds under every test.
DEEP_SHARE = 0.3


@pytest.fixture(scope="session")
def built(tmp_path_factory, worker_id):
    """A 10k catalog with every qualifying list built (the threshold lowered to 10k papers):
    made once per run (80-90 s), by the first of xdist's workers to need it, in the run's
    folder they share; the others wait for it."""
    run = tmp_path_factory.getbasetemp()
    run = run if worker_id == "master" else run.parent
    path = run / "topk-base.db"
    with open(run / "topk-base.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            _build(run / "topk-building.db")
            os.replace(run / "topk-building.db", path)
    return path


def _build(path: Path) -> None:
    files = corpus.write_paper_lists(SIZE, path.parent / "topk-lists", per_file=SIZE // 4)
    catalog = Catalog.open(path)
    try:
        catalog.import_paths(files)
        bench.ensure_tag(catalog, 50)  # the benchmark's tag filter (a write: before the lists)
    finally:
        catalog.close()
    saved = topk.MIN_MATCHES, topk.DEEP_SHARE
    topk.MIN_MATCHES, topk.DEEP_SHARE = SIZE // 20, DEEP_SHARE
    try:
        store = SqliteStore.open(path)
        built, stale = store.refresh_top_lists(budget=None)
        store.close()
    finally:
        topk.MIN_MATCHES, topk.DEEP_SHARE = saved
    assert built > 100 and stale == 0


@pytest.fixture
def catalog(built, tmp_path, monkeypatch):
    path = tmp_path / "catalog.db"
    shutil.copy(built, path)
    monkeypatch.setattr(topk, "MIN_MATCHES", SIZE // 20)
    monkeypatch.setattr(topk, "DEEP_SHARE", DEEP_SHARE)
    catalog = Catalog.open(path)
    yield catalog
    catalog.close()


@pytest.fixture
def served(monkeypatch):
    """The queries a list answered (their exact tier's page), by key."""
    answered: list[str] = []
    original = topk.TopLists.top_rows

    def spy(self, compiled, limit, offset, with_text):
        rows = original(self, compiled, limit, offset, with_text)
        if rows is not None:
            answered.append(topk.list_key(compiled) or " AND ".join(topand.and_keys(compiled) or [])
                            or " ".join(topand.phrase_keys(compiled)))
        return rows

    monkeypatch.setattr(topk.TopLists, "top_rows", spy)
    return answered


def _page(catalog: Catalog, query: str, *, lists: bool, **kwargs) -> list:
    topk.ENABLED = lists
    try:
        return [(p.key, p.match, p.snippet) for p in catalog.search(query, **kwargs)]
    finally:
        topk.ENABLED = True


def _ranked(catalog: Catalog, query: str, *, lists: bool, limit: int = 50, offset: int = 0) -> list:
    """(paper id, score) of the page, as the store ranks it."""
    from catalog.searching.query import parse

    topk.ENABLED = lists
    try:
        with catalog.store.read() as tx:
            return [(h.paper_id, h.score) for h in tx.search(parse(query), limit=limit, offset=offset)]
    finally:
        topk.ENABLED = True
