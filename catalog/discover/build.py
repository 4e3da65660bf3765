"""Building and updating the cache (numpy, scipy, scikit-learn).

The rule for an update, when the store's version differs from the cache's:

1. Find what changed. When only papers were added (the data version is the same and the
   papers above the old max id account for the whole difference in count), only those are
   read. Otherwise every paper's text is read and hashed, and compared with the hashes in the
   cache: new, changed and removed papers.
2. Nothing changed (a version moved for nothing the features see): the cache is stamped with
   the new version, nothing else is rewritten.
3. Small catalogs (under REFIT_BELOW papers at the last full build) and large changes (papers
   added, changed or removed since the last full build over REFIT_SHARE of the papers at that
   build) refit the vocabulary and idf: a full rebuild. A term that papers added since the
   last fit introduce is not in the vocabulary, and idf drifts as the catalog grows; a
   quarter of new papers bounds both.
4. Otherwise the new and changed papers are projected into the existing space (their terms
   outside the vocabulary ignored), removed ones dropped, and the cache rewritten from the
   matrix: a fraction of a rebuild's time, and no refit.
"""

from __future__ import annotations

import time
import zlib
from array import array
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from catalog.discover import features, index as index_files
from catalog.discover.index import Index
from catalog.discover.protocol import DiscoverStore
from catalog.discover.tokens import spellings, with_long_forms
from catalog.discover.results import CatalogVersion

REFIT_BELOW = 2_000  # papers: under this a full rebuild costs under a second
REFIT_SHARE = 0.25


@dataclass(frozen=True)
class UpdateReport:
    kind: str  # "rebuilt", "updated" (projected), "restamped" (nothing the features see changed)
    added: int
    changed: int
    removed: int
    papers: int
    seconds: float


def text_hash(text: str) -> int:
    """What tells a changed text: its length and CRC-32 (compared per paper, so a collision
    needs an edit that keeps both; a cryptographic hash cost more for nothing)."""
    data = text.encode("utf-8")
    return (len(data) << 32) | zlib.crc32(data)


def rebuild(store: DiscoverStore, cache_dir: Path, version: CatalogVersion) -> UpdateReport:
    start = time.perf_counter()
    ids = array("q")
    hashes = array("Q")
    spelled = spellings(store.acronyms())

    def texts():
        for paper in store.paper_texts():
            ids.append(paper.id)
            hashes.append(text_hash(paper.text))
            yield with_long_forms(paper.text, spelled)

    built = features.fit(texts())
    order = _ascending(ids)
    matrix = built.matrix if order is None else built.matrix[order]
    id_array = np.frombuffer(ids, np.int64) if order is None else np.frombuffer(ids, np.int64)[order]
    hash_array = np.frombuffer(hashes, np.uint64) if order is None else np.frombuffer(hashes, np.uint64)[order]
    index_files.write(cache_dir, ids=id_array, hashes=hash_array, matrix=matrix,
                      terms=built.terms, idf=built.idf, version=asdict(version),
                      counters={"full_build_rows": len(ids), "changed_since_full": 0})
    return UpdateReport("rebuilt", len(ids), 0, 0, len(ids), time.perf_counter() - start)


def update(store: DiscoverStore, cache_dir: Path, current: Index | None,
           version: CatalogVersion) -> UpdateReport:
    """Bring the cache to `version`: see the module's docstring for the rule."""
    if current is None:
        return rebuild(store, cache_dir, version)
    start = time.perf_counter()
    manifest = current.manifest
    old = CatalogVersion(**manifest["version"])
    old_ids, old_hashes, idf = index_files.read_arrays(current.folder)
    row_of = {int(pid): row for row, pid in enumerate(old_ids.tolist())}
    old_hash_list = old_hashes.tolist()

    fresh: dict[int, str] = {}  # new or changed papers: id -> text
    removed: set[int] = set()
    if version.data == old.data and version.max_id >= old.max_id:
        fresh = {p.id: p.text for p in store.paper_texts(after_id=old.max_id)}
    if not fresh or old.count + len(fresh) != version.count or version.data != old.data:
        fresh, seen = {}, set()
        for paper in store.paper_texts():
            seen.add(paper.id)
            row = row_of.get(paper.id)
            if row is None or old_hash_list[row] != text_hash(paper.text):
                fresh[paper.id] = paper.text
        removed = set(row_of) - seen
    added = sum(1 for pid in fresh if pid not in row_of)
    changed = len(fresh) - added
    counters = {"full_build_rows": manifest["full_build_rows"],
                "changed_since_full": manifest["changed_since_full"] + len(fresh) + len(removed)}
    if not fresh and not removed:
        _restamp(current, version)
        return UpdateReport("restamped", 0, 0, 0, current.rows, time.perf_counter() - start)
    if (counters["full_build_rows"] < REFIT_BELOW
            or counters["changed_since_full"] > REFIT_SHARE * counters["full_build_rows"]):
        report = rebuild(store, cache_dir, version)
        return UpdateReport("rebuilt", added, changed, len(removed), report.papers,
                            time.perf_counter() - start)

    matrix = index_files.read_rows(current.folder, current.manifest)
    terms = [current.term(t) for t in range(current.n_terms)]
    keep = np.array([pid not in removed and pid not in fresh for pid in old_ids.tolist()], bool)
    fresh_ids = np.array(sorted(fresh), np.int64)
    spelled = spellings(store.acronyms())  # as now: a new paper's acronyms are learned at its import
    projected = features.project([with_long_forms(fresh[pid], spelled) for pid in fresh_ids.tolist()],
                                 {t: i for i, t in enumerate(terms)}, idf)
    ids = np.concatenate([old_ids[keep], fresh_ids])
    hashes = np.concatenate([old_hashes[keep], np.array(
        [text_hash(fresh[pid]) for pid in fresh_ids.tolist()], np.uint64)])
    matrix = sp.vstack([matrix if keep.all() else matrix[np.flatnonzero(keep)], projected],
                       format="csr")
    order = _ascending(ids)  # None for papers added after the others: the usual import
    if order is not None:
        ids, hashes, matrix = ids[order], hashes[order], matrix[order]
    index_files.write(cache_dir, ids=ids, hashes=hashes, matrix=matrix,
                      terms=terms, idf=idf, version=asdict(version), counters=counters)
    return UpdateReport("updated", added, changed, len(removed), len(ids), time.perf_counter() - start)


def _ascending(ids):
    """None when `ids` ascend (as the Protocol promises), else the order that sorts them."""
    values = np.frombuffer(ids, np.int64) if isinstance(ids, array) else ids
    if len(values) < 2 or bool(np.all(values[1:] > values[:-1])):
        return None
    return np.argsort(values, kind="stable")


def _restamp(current: Index, version: CatalogVersion) -> None:
    """Record that the cache matches `version` too: rewrite the manifest only (atomically)."""
    import json
    import os

    manifest = dict(current.manifest, version=asdict(version))
    partial = current.folder / f".manifest.{os.getpid()}"
    partial.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    os.replace(partial, current.folder / "manifest.json")
