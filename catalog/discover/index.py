"""The cache on disk: written with numpy when features are built, read with the standard
library alone, so a `similar` on a fresh cache imports neither numpy nor scikit-learn
(numpy's import alone takes ~0.2 s here, the whole budget of a later `similar`).

A cache is a folder of flat native-endian arrays, one generation at a time:

    CURRENT            the name of the current generation folder (replaced atomically)
    g-.../manifest.json  format, what it was built from (CatalogVersion), sizes, counters
          ids.i64        row -> paper id, ascending (a paper's row is found by bisection)
          hashes.u64     row -> hash of the paper's text (what an update compares)
          top.bin        row -> its TOP strongest terms: TOP uint32 term ids, TOP float32 weights
          post_ptr.u64   term -> where its postings start in post_rows / post_w
          post_rows.u32  postings: the rows holding a term, strongest first, at most POSTINGS
          post_w.f32     and the term's weight in each
          terms_ptr.u64  term -> where its text starts in terms.utf8
          terms.utf8     the terms, back to back
          idf.f32        term -> idf (for projecting new papers)
          x_*.            the whole tf-idf matrix, CSR (x_data.f32, x_indices.i32, x_indptr.i64):
                         what recommend, topics and updates read, with numpy

Writers build a new generation beside the current one and then replace CURRENT, so a reader
sees either the old cache or the new one, never half of one. Old generations are removed
after the switch (a reader that still has one open keeps reading it: POSIX keeps an unlinked
file alive while it is mapped).
"""

from __future__ import annotations

import bisect
import json
import mmap
import os
import shutil
import sys
import tempfile
from pathlib import Path

FORMAT = 1
TOP = 32  # terms kept per paper: the query of `similar` (Lucene's MoreLikeThis takes 25)
POSTINGS = 2000  # papers kept per term, strongest first: bounds the work of one query
_NO_TERM = 0xFFFFFFFF  # padding in top.bin for papers with fewer than TOP terms


class Index:
    """One generation of the cache, memory-mapped; pure Python."""

    def __init__(self, folder: Path, manifest: dict):
        self.folder = folder
        self.manifest = manifest
        self._ids = self._array("ids.i64", "q")
        self._top = self._array("top.bin", "B")
        self._post_ptr = self._array("post_ptr.u64", "Q")
        self._post_rows = self._array("post_rows.u32", "I")
        self._post_w = self._array("post_w.f32", "f")
        self._terms_ptr = self._array("terms_ptr.u64", "Q")
        self._terms = self._array("terms.utf8", "B")

    @classmethod
    def open(cls, cache_dir: Path) -> Index | None:
        """The current generation, or None when there is none or it cannot be used."""
        try:
            name = (cache_dir / "CURRENT").read_text(encoding="utf-8").strip()
            folder = cache_dir / name
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            if manifest.get("format") != FORMAT or manifest.get("byteorder") != sys.byteorder:
                return None
            return cls(folder, manifest)
        except (OSError, ValueError, KeyError):
            return None

    def _array(self, name: str, fmt: str) -> memoryview:
        with open(self.folder / name, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                return memoryview(b"").cast(fmt)
            # Unmapped when the last view of it goes (views of postings outlive no call).
            return memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)).cast(fmt)

    # --- what it was built from ---------------------------------------------------------------

    @property
    def version(self) -> dict:
        return self.manifest["version"]

    @property
    def rows(self) -> int:
        return len(self._ids)

    @property
    def n_terms(self) -> int:
        return len(self._terms_ptr) - 1

    # --- lookups ----------------------------------------------------------------------------

    def row_of(self, paper_id: int) -> int | None:
        row = bisect.bisect_left(self._ids, paper_id)
        return row if row < len(self._ids) and self._ids[row] == paper_id else None

    def paper_id(self, row: int) -> int:
        return self._ids[row]

    def top_terms(self, row: int) -> list[tuple[int, float]]:
        """The row's strongest terms with their weights, strongest first."""
        stride = TOP * 8
        chunk = self._top[row * stride:(row + 1) * stride]
        terms = chunk[:TOP * 4].cast("I")
        weights = chunk[TOP * 4:].cast("f")
        return [(t, w) for t, w in zip(terms, weights) if t != _NO_TERM]

    def postings(self, term: int) -> tuple[memoryview, memoryview]:
        start, end = self._post_ptr[term], self._post_ptr[term + 1]
        return self._post_rows[start:end], self._post_w[start:end]

    def term(self, term: int) -> str:
        return bytes(self._terms[self._terms_ptr[term]:self._terms_ptr[term + 1]]).decode("utf-8")


# --- writing (numpy) ------------------------------------------------------------------------


def write(cache_dir: Path, *, ids, hashes, matrix, terms: list[str], idf, version: dict,
          counters: dict) -> Path:
    """Write a new generation and make it current; returns its folder."""
    import numpy as np

    cache_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="g-", dir=cache_dir))
    try:
        matrix = matrix.tocsr()
        matrix.sort_indices()
        np.asarray(ids, np.int64).tofile(folder / "ids.i64")
        np.asarray(hashes, np.uint64).tofile(folder / "hashes.u64")
        _write_top(folder / "top.bin", matrix)
        _write_postings(folder, matrix)
        encoded = [t.encode("utf-8") for t in terms]
        np.concatenate([[0], np.cumsum([len(e) for e in encoded], dtype=np.uint64)]).astype(
            np.uint64).tofile(folder / "terms_ptr.u64")
        (folder / "terms.utf8").write_bytes(b"".join(encoded))
        np.asarray(idf, np.float32).tofile(folder / "idf.f32")
        matrix.data.astype(np.float32, copy=False).tofile(folder / "x_data.f32")
        matrix.indices.astype(np.int32, copy=False).tofile(folder / "x_indices.i32")
        matrix.indptr.astype(np.int64, copy=False).tofile(folder / "x_indptr.i64")
        manifest = {
            "format": FORMAT, "byteorder": sys.byteorder, "version": version,
            "rows": int(matrix.shape[0]), "terms": len(terms), "top": TOP, "postings": POSTINGS,
            **counters,
        }
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        current = cache_dir / f".CURRENT.{os.getpid()}"
        current.write_text(folder.name, encoding="utf-8")
        os.replace(current, cache_dir / "CURRENT")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    _remove_old(cache_dir, keep=folder.name)
    return folder


def _remove_old(cache_dir: Path, keep: str) -> None:
    for old in cache_dir.glob("g-*"):
        if old.name != keep:
            shutil.rmtree(old, ignore_errors=True)


def _strongest_first(matrix, n_groups: int):
    """Positions of the entries of each row of a CSR (or column of a CSC) matrix, strongest
    first within the row, and each entry's rank in its row. Rows are sorted together by one
    key: the row in the high 32 bits, the weight's bits inverted in the low ones (positive
    float32 bit patterns order like the numbers)."""
    import numpy as np

    lengths = np.diff(matrix.indptr)
    group = np.repeat(np.arange(n_groups, dtype=np.int64), lengths)
    inverted = np.uint32(0xFFFFFFFF) - matrix.data.astype(np.float32).view(np.uint32)
    order = np.argsort((group << 32) | inverted.astype(np.int64), kind="stable")
    rank = np.arange(len(order), dtype=np.int64) - np.repeat(matrix.indptr[:-1], lengths)
    return order, rank


def _write_top(path: Path, matrix) -> None:
    import numpy as np

    n = matrix.shape[0]
    order, rank = _strongest_first(matrix, n)
    keep = rank < TOP
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(matrix.indptr))[keep]
    slots = rank[keep]
    terms = np.full((n, TOP), _NO_TERM, np.uint32)
    weights = np.zeros((n, TOP), np.float32)
    terms[rows, slots] = matrix.indices[order[keep]]
    weights[rows, slots] = matrix.data[order[keep]]
    np.concatenate([terms.view(np.uint8), weights.view(np.uint8)], axis=1).tofile(path)


def _write_postings(folder: Path, matrix) -> None:
    import numpy as np

    by_term = matrix.tocsc()
    by_term.sort_indices()
    n_terms = by_term.shape[1]
    order, rank = _strongest_first(by_term, n_terms)
    keep = rank < POSTINGS
    picked = order[keep]
    lengths = np.minimum(np.diff(by_term.indptr), POSTINGS)
    np.concatenate([[0], np.cumsum(lengths)]).astype(np.uint64).tofile(folder / "post_ptr.u64")
    by_term.indices[picked].astype(np.uint32).tofile(folder / "post_rows.u32")
    by_term.data[picked].astype(np.float32).tofile(folder / "post_w.f32")


def read_matrix(folder: Path, rows: int, n_terms: int):
    """The tf-idf matrix of a generation (numpy, scipy), memory-mapped."""
    import numpy as np
    import scipy.sparse as sp

    data = np.fromfile(folder / "x_data.f32", np.float32)
    indices = np.fromfile(folder / "x_indices.i32", np.int32)
    indptr = np.fromfile(folder / "x_indptr.i64", np.int64)
    return sp.csr_matrix((data, indices, indptr), shape=(rows, n_terms))


def read_arrays(folder: Path):
    """ids, hashes and idf of a generation (numpy)."""
    import numpy as np

    return (np.fromfile(folder / "ids.i64", np.int64), np.fromfile(folder / "hashes.u64", np.uint64),
            np.fromfile(folder / "idf.f32", np.float32))
