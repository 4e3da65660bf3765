"""The cache on disk: written with numpy when features are built, read with the standard
library alone, so a `similar` on a fresh cache imports neither numpy nor scikit-learn
(numpy's import alone would take a later `similar`'s whole budget).

A cache is a folder of flat native-endian arrays, one generation at a time:

    CURRENT          the name of the current generation folder (replaced atomically)
    lock             held by the one process building
    g-*/manifest.json  format, what it was built from (CatalogVersion), sizes, counters
        ids.i64        row -> paper id, ascending (a paper's row is found by bisection)
        hashes.u64     row -> length and CRC-32 of the paper's text (what an update compares)
        top.bin        row -> its TOP strongest terms: TOP uint32 term ids, TOP float32 weights
        post_ptr.u64   term -> where its postings start in post_rows / post_w
        post_rows.u32  postings: the rows holding a term, strongest first, at most POSTINGS
        post_w.f32     and the term's weight in each
        terms_ptr.u64  term -> where its text starts in terms.utf8
        terms.utf8     the terms, back to back
        idf.f32        term -> idf (for projecting new papers)
        x_data.f32, x_indices.i32, x_indptr.i64
                       the whole tf-idf matrix (CSR): what recommend, topics and updates
                       read, memory-mapped, with numpy
        models/*.f64   classifiers `recommend` trained on this generation: a weight per
                       term, then the intercept (recommend.py; named by model_key)

The matrix and the postings are most of its size (docs/benchmarks.md has the current figures).

Writers (one at a time: the engine holds a lock) build a new generation beside the current
one and then replace CURRENT, so a reader sees either the old cache or the new one, never
half of one. Old generations are removed after the switch (a reader that still has one open
keeps reading it: POSIX keeps an unlinked file alive while it is mapped).
"""

from __future__ import annotations

import bisect
import json
import mmap
import os
import sys
from pathlib import Path

FORMAT = 2  # 2: terms counted with the acronyms a text defines spelled out (tokens.py)
TOP = 32  # terms kept per paper: the query of `similar` (Lucene's MoreLikeThis takes 25)
POSTINGS = 2000  # papers kept per term, strongest first: bounds the work of one query
_NO_TERM = 0xFFFFFFFF  # padding in top.bin for papers with fewer than TOP terms
BLOCK = 2_000_000  # entries sorted at once while writing (~100 MB of temporary arrays)


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
    import shutil
    import tempfile

    import numpy as np

    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=".partial-", dir=cache_dir))
    folder = cache_dir / ("g" + partial.name.removeprefix(".partial"))
    try:
        matrix = matrix.tocsr()
        matrix.sort_indices()
        np.asarray(ids, np.int64).tofile(partial / "ids.i64")
        np.asarray(hashes, np.uint64).tofile(partial / "hashes.u64")
        _write_top(partial / "top.bin", matrix)
        _write_postings(partial, matrix)
        encoded = [t.encode("utf-8") for t in terms]
        np.concatenate([[0], np.cumsum([len(e) for e in encoded], dtype=np.uint64)]).astype(
            np.uint64).tofile(partial / "terms_ptr.u64")
        (partial / "terms.utf8").write_bytes(b"".join(encoded))
        np.asarray(idf, np.float32).tofile(partial / "idf.f32")
        matrix.data.astype(np.float32, copy=False).tofile(partial / "x_data.f32")
        matrix.indices.astype(np.int32, copy=False).tofile(partial / "x_indices.i32")
        matrix.indptr.astype(np.int64, copy=False).tofile(partial / "x_indptr.i64")
        manifest = {
            "format": FORMAT, "byteorder": sys.byteorder, "version": version,
            "rows": int(matrix.shape[0]), "terms": len(terms), "top": TOP, "postings": POSTINGS,
            **counters,
        }
        (partial / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        os.rename(partial, folder)
        current = cache_dir / f".CURRENT.{os.getpid()}"
        current.write_text(folder.name, encoding="utf-8")
        os.replace(current, cache_dir / "CURRENT")
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)
        raise
    _remove_old(cache_dir, keep=folder.name)
    return folder


def _remove_old(cache_dir: Path, keep: str) -> None:
    """Earlier generations, and what a writer that was killed left half-written."""
    import shutil

    for old in [*cache_dir.glob("g-*"), *cache_dir.glob(".partial-*")]:
        if old.name != keep:
            shutil.rmtree(old, ignore_errors=True)


def _strongest(indptr, indices, data, per_group: int):
    """The strongest `per_group` entries of each row of a CSR matrix (or column of a CSC one),
    strongest first, grouped in order: (kept per group, their indices, their weights).

    Groups are sorted a block of about BLOCK entries at a time by one key: the group in the
    high 32 bits, the weight's bits inverted in the low ones (positive float32 bit patterns
    order like the numbers); the results are written into arrays sized beforehand, so the
    memory needed beyond the matrix stays near the size of what is kept. Equal weights keep
    their order (the lower index first): numpy's default sort orders them by its SIMD path,
    which differs from one CPU to another (on an AVX-512 machine the seeds' SAE papers lost a
    neighbour), so the sort is the stable one."""
    import numpy as np

    kept = np.minimum(np.diff(indptr), per_group)
    starts = np.concatenate([[0], np.cumsum(kept)])
    out_indices = np.empty(int(starts[-1]), np.int32)
    out_weights = np.empty(int(starts[-1]), np.float32)
    n_groups = len(indptr) - 1
    start = 0
    while start < n_groups:
        end = int(np.searchsorted(indptr, indptr[start] + BLOCK, side="right")) - 1
        end = min(max(end, start + 1), n_groups)
        lo, hi = int(indptr[start]), int(indptr[end])
        lengths = np.diff(indptr[start:end + 1])
        group = np.repeat(np.arange(end - start, dtype=np.int64), lengths)
        weight = np.asarray(data[lo:hi], np.float32)
        order = np.argsort((group << 32) | (np.uint32(0xFFFFFFFF) - weight.view(np.uint32)).astype(np.int64), kind="stable")
        rank = np.arange(hi - lo) - np.repeat(indptr[start:end] - lo, lengths)
        picked = order[rank < per_group]
        out_indices[starts[start]:starts[end]] = indices[lo:hi][picked]
        out_weights[starts[start]:starts[end]] = weight[picked]
        start = end
    return kept, out_indices, out_weights


def _write_top(path: Path, matrix) -> None:
    import numpy as np

    n = matrix.shape[0]
    kept, term_ids, weights = _strongest(matrix.indptr, matrix.indices, matrix.data, TOP)
    rows = np.repeat(np.arange(n, dtype=np.int32), kept)
    slots = np.arange(len(rows)) - np.repeat(np.cumsum(kept) - kept, kept)
    terms = np.full((n, TOP), _NO_TERM, np.uint32)
    strengths = np.zeros((n, TOP), np.float32)
    terms[rows, slots] = term_ids
    strengths[rows, slots] = weights
    np.concatenate([terms.view(np.uint8), strengths.view(np.uint8)], axis=1).tofile(path)


def _write_postings(folder: Path, matrix) -> None:
    import numpy as np

    by_term = matrix.tocsc()
    by_term.sort_indices()
    kept, rows, weights = _strongest(by_term.indptr, by_term.indices, by_term.data, POSTINGS)
    del by_term
    np.concatenate([[0], np.cumsum(kept)]).astype(np.uint64).tofile(folder / "post_ptr.u64")
    rows.astype(np.uint32).tofile(folder / "post_rows.u32")
    weights.tofile(folder / "post_w.f32")


def read_matrix(folder: Path, rows: int, n_terms: int):
    """The tf-idf matrix of a generation (numpy, scipy), memory-mapped: read only where used,
    shared with the page cache rather than copied."""
    import scipy.sparse as sp

    return sp.csr_matrix(read_csr_arrays(folder), shape=(rows, n_terms), copy=False)


def read_csr_arrays(folder: Path):
    """The matrix's CSR arrays (data, indices, indptr), memory-mapped, with numpy alone."""
    return tuple(_mapped(folder / name, dtype) for name, dtype in
                 (("x_data.f32", "float32"), ("x_indices.i32", "int32"), ("x_indptr.i64", "int64")))


def _mapped(path: Path, dtype: str):
    import numpy as np

    if path.stat().st_size == 0:
        return np.zeros(0, dtype)
    return np.memmap(path, dtype=dtype, mode="r")


def read_arrays(folder: Path):
    """ids, hashes and idf of a generation (numpy)."""
    import numpy as np

    return (np.fromfile(folder / "ids.i64", np.int64), np.fromfile(folder / "hashes.u64", np.uint64),
            np.fromfile(folder / "idf.f32", np.float32))
