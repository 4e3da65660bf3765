"""Discovery: similar papers, recommendations and topics over one catalog's cache.

Where the cache lives: files in a folder the store names (`DiscoverStore.cache_dir`; for a
SQLite catalog, the user cache directory keyed by the database's path), not a table:

- A later `similar` must answer as a whole process in less time than importing numpy
  takes. It reads a few kilobytes of memory-mapped arrays with the standard library; a table
  would hand over whole blobs (the postings are larger than the catalog's text) or need a
  row per term and a query per term, and bring the same bytes through SQLite's page cache.
- It is derived data, several times the size of the abstracts: rebuilt silently, never
  backed up, never worth a write lock on the catalog (a write transaction that large would
  stall the TUI and every other writer), and not part of what users query with sqlite3 or
  Datasette.
- A shared PostgreSQL catalog is served to several machines; each builds its own cache and
  keeps it fresh by the same version check. What users see and share, the topics, goes
  into a table through `save_topics`.

Each call checks the store's CatalogVersion against the cache's (one cheap query); a cache
that is missing, unreadable or of another format is rebuilt, a stale one updated (build.py
holds the rule), without a word: models are derived data.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from catalog.discover.index import Index
from catalog.discover.protocol import DiscoverStore
from catalog.discover.results import CacheStatus, Recommendation, SimilarPaper, Topic


class Discovery:
    def __init__(self, store: DiscoverStore, cache_dir: Path | None = None):
        self.store = store
        self.cache_dir = Path(cache_dir) if cache_dir is not None else Path(store.cache_dir())
        self.last_update = None  # build.UpdateReport of the last rebuild or update, if any

    # --- the cache ----------------------------------------------------------------------------

    def current(self) -> Index:
        """The cache, brought up to date with the catalog first if needed."""
        version = self.store.version()
        index = Index.open(self.cache_dir)
        if index is not None and index.version == asdict(version):
            return index
        self.refresh()
        index = Index.open(self.cache_dir)
        if index is None:
            raise OSError(f"cannot read the discovery cache in {self.cache_dir}")
        return index

    def refresh(self, full: bool = False):
        """Update (or with `full`, rebuild) the cache now, e.g. after an import, in a worker.
        One process at a time builds; another that wanted to waits, then finds it fresh."""
        from catalog.discover import build

        with _building(self.cache_dir):
            version = self.store.version()
            if full:
                self.last_update = build.rebuild(self.store, self.cache_dir, version)
                return self.last_update
            index = Index.open(self.cache_dir)
            if index is not None and index.version == asdict(version):
                return None
            self.last_update = build.update(self.store, self.cache_dir, index, version)
            return self.last_update

    def status(self) -> CacheStatus:
        """For `catalog doctor`: without building anything."""
        index = Index.open(self.cache_dir)
        if index is None:
            return CacheStatus("missing", str(self.cache_dir), 0, 0, 0, None)
        from catalog.discover.results import CatalogVersion

        built = CatalogVersion(**index.version)
        size = sum(f.stat().st_size for f in index.folder.iterdir() if f.is_file())
        state = "fresh" if built == self.store.version() else "stale"
        return CacheStatus(state, str(index.folder), index.rows, index.n_terms, size, built)

    # --- the three questions --------------------------------------------------------------------

    def similar(self, paper_id: int, limit: int = 10) -> list[SimilarPaper]:
        """The papers most like `paper_id`, best first. KeyError: no such paper."""
        from catalog.discover.similar import similar

        return similar(self.current(), paper_id, limit)

    def recommend(self, positive_ids: Iterable[int], candidate_ids: Iterable[int] | None = None,
                  limit: int = 50, exclude_ids: Iterable[int] = ()) -> list[Recommendation]:
        """Candidates (default: every other paper) but `exclude_ids` ranked by likeness to the
        positives. Positives are never recommended; an empty list when there is nothing to learn
        from. The classifier trained for these positives on this cache is kept with it: the
        same positives again rank without training (nor importing scikit-learn or scipy)."""
        import numpy as np

        from catalog.discover import index as index_files
        from catalog.discover import recommend as ranking

        index = self.current()
        ids, _, _ = index_files.read_arrays(index.folder)
        positives = _rows(ids, positive_ids)
        if len(positives) == 0:
            return []
        positive = np.zeros(len(ids), bool)
        positive[positives] = True
        candidates = np.arange(len(ids)) if candidate_ids is None else _rows(ids, candidate_ids)
        excluded = _rows(ids, exclude_ids)
        if len(excluded):
            candidates = np.setdiff1d(candidates, excluded, assume_unique=True)
        stored = index.folder / "models" / f"{ranking.model_key(ids[positives].tolist())}.f64"
        model = _read_model(stored, index.n_terms + 1)
        if model is None:
            learn_from = ranking.training_rows(positive)
            if learn_from is None:
                return []
            model = ranking.train(index_files.read_rows(index.folder, index.manifest, learn_from),
                                  positive[learn_from])
            _write_model(stored, model)
        scores = index_files.row_scores(index.folder, index.manifest, model[:-1].astype(np.float32))
        return ranking.rank(scores, model, index.top_terms, _Terms(index), ids, positive,
                            candidates, limit)

    def recommend_tag(self, tag: str, candidate_ids: Iterable[int] | None = None,
                      limit: int = 50) -> list[Recommendation]:
        return self.recommend(self.store.tagged(tag), candidate_ids, limit)

    def recommend_liked(self, candidate_ids: Iterable[int] | None = None,
                        limit: int = 50) -> list[Recommendation]:
        return self.recommend(self.store.liked(), candidate_ids, limit)

    def topics(self, paper_ids: Iterable[int] | None = None, n_topics: int | None = None,
               method: str = "nmf") -> list[Topic]:
        """The list's papers (default: all) in labelled topics, largest first."""

        from catalog.discover import index as index_files
        from catalog.discover.topics import topics

        index = self.current()
        ids, _, _ = index_files.read_arrays(index.folder)
        rows = None if paper_ids is None else _rows(ids, paper_ids)
        matrix = index_files.read_rows(index.folder, index.manifest, rows)
        if rows is not None:
            ids = ids[rows]
        return topics(matrix, _Terms(index), ids, n_topics, method)


@contextmanager
def _building(cache_dir: Path):
    """An exclusive lock on the cache folder (where the platform has flock)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: builders may race; each still writes a whole generation
        yield
        return
    with open(cache_dir / "lock", "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


MODELS_KEPT = 16  # classifiers kept per cache generation


def _read_model(path: Path, size: int):
    """A stored classifier of the right size, or None (never stored, or unreadable)."""
    import numpy as np

    try:
        model = np.fromfile(path, np.float64)
    except (OSError, ValueError):
        return None
    return model if len(model) == size else None


def _write_model(path: Path, model) -> None:
    """Keep a trained classifier beside its generation (atomically; derived data: a failure,
    or the generation replaced meanwhile, only costs training again)."""
    import os

    try:
        path.parent.mkdir(exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        model.tofile(partial)
        os.replace(partial, path)
        # Triage retrains as decisions come in: keep the most recent few (one float per term each).
        kept = sorted(path.parent.glob("*.f64"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[MODELS_KEPT:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def _rows(ids, paper_ids: Iterable[int]):
    """Rows of the papers (those in the cache), ascending, each once."""
    import numpy as np

    return np.flatnonzero(np.isin(ids, np.fromiter(paper_ids, np.int64)))


class _Terms:
    """Term texts by id, read from the cache when asked (labels need a few dozen of them all)."""

    def __init__(self, index: Index):
        self._index = index

    def __getitem__(self, term: int) -> str:
        return self._index.term(int(term))

    def __len__(self) -> int:
        return self._index.n_terms
