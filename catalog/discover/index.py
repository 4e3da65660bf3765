"""The cache on disk: written with numpy when features are built, read with the standard
library alone, so a `similar` on a fresh cache imports neither numpy nor scikit-learn
(numpy's import alone would take a later `similar`'s whole budget).

A cache is a folder of flat native-endian arrays, one generation at a time:

    CURRENT          the name of the current generation folder (replaced atomically)
    lock             held by the one process building
    g-*/manifest.json  format, what it was built from (CatalogVersion), sizes, counters
        ids.i64        row -> paper id, ascending (a paper's row is found by bisection)
        hashes.u64     row -> length and CRC-32 of the paper's text (what an update compares)
        top_terms.u32  row -> its TOP strongest terms (padded with _NO_TERM), strongest first
        top_w.u8       and their weights (codes, below)
        col_ptr.u64    term -> where its column starts in col_*
        col_lo.u16     the whole tf-idf matrix stored once, by term (CSC): each term's papers,
        col_hi.u8      strongest first (equal weights: lower row first), a row as its low 16
        col_w.u8       bits and its high ones (u16 beyond 2**24 rows: manifest "row_high"),
                       and the weight's code. The first POSTINGS of a column are what
                       `similar` reads; recommend, topics and updates read it all (numpy).
        terms_ptr.u64  term -> where its text starts in terms.utf8
        terms.utf8     the terms, back to back
        idf.f32        term -> idf (for projecting new papers)
        models/*.f64   classifiers `recommend` trained on this generation: a weight per
                       term, then the intercept (recommend.py; named by model_key)

A weight is one byte: code q stands for 2 ** ((q - 255) / LEVELS), LEVELS codes an octave,
from 1 down to about 0.004 (weights of l2-normalised tf-idf rows of abstracts lie between
0.02 and 0.4); a weight is at most 1.1% off, and below the range it counts as the smallest.
Four bytes an entry instead of the sixteen of format 2 (the matrix by row in float32, and its
strongest entries again by term as postings): docs/benchmarks.md has the sizes and what the
rounding costs in same-topic neighbours.

Writers (one at a time: the engine holds a lock) build a new generation beside the current
one and then replace CURRENT, so a reader sees either the old cache or the new one, never
half of one. Old generations are removed after the switch (a reader that still has one open
keeps reading it: POSIX keeps an unlinked file alive while it is mapped). A cache of another
format (format 2, before the weights were stored once) is not opened: the engine rebuilds it.
"""

from __future__ import annotations

import bisect
import json
import mmap
import os
import sys
from array import array
from itertools import repeat
from operator import lshift, or_
from pathlib import Path

FORMAT = 3  # 3: the matrix once, by term, weights in a byte; 2: float32 matrix and postings
TOP = 32  # terms kept per paper: the query of `similar` (Lucene's MoreLikeThis takes 25)
POSTINGS = 2000  # papers read per term, strongest first: bounds the work of one query
LEVELS = 32  # weight codes per octave
WEIGHTS = tuple(2.0 ** ((q - 255) / LEVELS) for q in range(256))  # code -> weight
_NO_TERM = 0xFFFFFFFF  # padding in top_terms.u32 for papers with fewer than TOP terms
BLOCK = 2_000_000  # entries sorted or read at once (~100 MB of temporary arrays)
SMALL_ROWS = 1 << 24  # rows whose high bits fit in a byte


class Index:
    """One generation of the cache, memory-mapped; pure Python."""

    def __init__(self, folder: Path, manifest: dict):
        self.folder = folder
        self.manifest = manifest
        self._ids = self._array("ids.i64", "q")
        self._top_terms = self._array("top_terms.u32", "I")
        self._top_w = self._array("top_w.u8", "B")
        self._col_ptr = self._array("col_ptr.u64", "Q")
        self._col_lo = self._array("col_lo.u16", "H")
        self._col_hi = self._array(f"col_hi.{_HIGH[manifest['row_high']]}", manifest["row_high"])
        self._col_w = self._array("col_w.u8", "B")
        self._terms_ptr = self._array("terms_ptr.u64", "Q")
        self._terms = self._array("terms.utf8", "B")

    @classmethod
    def open(cls, cache_dir: Path) -> Index | None:
        """The current generation, or None when there is none or it cannot be used."""
        try:
            name = (cache_dir / "CURRENT").read_text(encoding="utf-8").strip()
            folder = cache_dir / name
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            if (manifest.get("format") != FORMAT or manifest.get("byteorder") != sys.byteorder
                    or manifest.get("row_high") not in _HIGH):
                return None
            return cls(folder, manifest)
        except (OSError, ValueError, KeyError, TypeError):
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
        terms = self._top_terms[row * TOP:(row + 1) * TOP]
        codes = self._top_w[row * TOP:(row + 1) * TOP]
        return [(t, WEIGHTS[c]) for t, c in zip(terms, codes) if t != _NO_TERM]

    def postings(self, term: int) -> tuple[memoryview, memoryview]:
        """The rows where `term` weighs most (at most POSTINGS), strongest first, and the code
        of its weight in each (WEIGHTS[code] is the weight: `similar` scales the 256 weights
        once per term instead of each of up to 64,000 entries)."""
        start = self._col_ptr[term]
        end = min(self._col_ptr[term + 1], start + POSTINGS)
        return self._rows(start, end), self._col_w[start:end]

    def _rows(self, start: int, end: int):
        if sys.byteorder != "little":
            return array("I", map(or_, map(lshift, self._col_hi[start:end], repeat(16)),
                                  self._col_lo[start:end]))
        # Each row's bytes put together as a uint32 by strided copies, in C, rather than a shift
        # and an or per row in Python (a `similar` reads up to 64,000 rows).
        low = self._col_lo[start:end].cast("B")
        high = self._col_hi[start:end].cast("B")
        rows = bytearray(4 * (end - start))
        rows[0::4], rows[1::4] = low[0::2], low[1::2]
        if self._col_hi.format == "B":
            rows[2::4] = high
        else:
            rows[2::4], rows[3::4] = high[0::2], high[1::2]
        return memoryview(rows).cast("I")

    def term(self, term: int) -> str:
        return bytes(self._terms[self._terms_ptr[term]:self._terms_ptr[term + 1]]).decode("utf-8")


_HIGH = {"B": "u8", "H": "u16"}  # a row's high bits: memoryview format -> file suffix


# --- writing (numpy) ------------------------------------------------------------------------


def encode(weights):
    """Weights (positive) as one-byte codes (numpy; float32, BLOCK at a time: the temporary
    arrays stay small beside a matrix of millions of entries)."""
    import numpy as np

    weights = np.asarray(weights, np.float32)
    codes = np.empty(len(weights), np.uint8)
    for start in range(0, len(weights), BLOCK):
        with np.errstate(divide="ignore"):
            part = np.log2(weights[start:start + BLOCK])
        part *= LEVELS
        part += 255
        codes[start:start + BLOCK] = np.clip(np.rint(part), 0, 255)
    return codes


def decoded():
    """Code -> weight as float32 (numpy): what recommend, topics and updates compute with."""
    import numpy as np

    return np.array(WEIGHTS, np.float32)


def write(cache_dir: Path, *, ids, hashes, matrix, terms: list[str], idf, version: dict,
          counters: dict) -> Path:
    """Write a new generation and make it current; returns its folder. Which terms are a
    paper's strongest, and in which order a term's papers come, is decided by the weights as
    given, and the weights are then stored as codes: a fresh build asks the same questions
    format 2 did, with weights at most 1.1% off (weights that round to one code would
    otherwise be tied, and the lower term or row would win). An update that reads the codes
    back and writes them again keeps every weight as it was stored."""
    import shutil
    import tempfile

    import numpy as np

    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=".partial-", dir=cache_dir))
    folder = cache_dir / ("g" + partial.name.removeprefix(".partial"))
    try:
        matrix = matrix.tocsr()
        matrix.sort_indices()
        high = "B" if matrix.shape[0] <= SMALL_ROWS else "H"
        np.asarray(ids, np.int64).tofile(partial / "ids.i64")
        np.asarray(hashes, np.uint64).tofile(partial / "hashes.u64")
        _write_top(partial, matrix)
        _write_columns(partial, matrix, high)
        encoded = [t.encode("utf-8") for t in terms]
        np.concatenate([[0], np.cumsum([len(e) for e in encoded], dtype=np.uint64)]).astype(
            np.uint64).tofile(partial / "terms_ptr.u64")
        (partial / "terms.utf8").write_bytes(b"".join(encoded))
        np.asarray(idf, np.float32).tofile(partial / "idf.f32")
        manifest = {
            "format": FORMAT, "byteorder": sys.byteorder, "version": version,
            "rows": int(matrix.shape[0]), "terms": len(terms), "entries": int(matrix.nnz),
            "top": TOP, "postings": POSTINGS, "levels": LEVELS, "row_high": high, **counters,
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
    for start, end, indices_kept, weights_kept in _strongest_blocks(indptr, indices, data, per_group):
        out_indices[starts[start]:starts[end]] = indices_kept
        out_weights[starts[start]:starts[end]] = weights_kept
    return kept, out_indices, out_weights


def _strongest_blocks(indptr, indices, data, per_group: int):
    """`_strongest` a block at a time: (first group, group after the last, indices, weights)."""
    import numpy as np

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
        yield start, end, indices[lo:hi][picked], weight[picked]
        start = end


def _write_top(folder: Path, matrix) -> None:
    import numpy as np

    n = matrix.shape[0]
    kept, term_ids, weights = _strongest(matrix.indptr, matrix.indices, matrix.data, TOP)
    rows = np.repeat(np.arange(n, dtype=np.int32), kept)
    slots = np.arange(len(rows)) - np.repeat(np.cumsum(kept) - kept, kept)
    terms = np.full((n, TOP), _NO_TERM, np.uint32)
    codes = np.zeros((n, TOP), np.uint8)
    terms[rows, slots] = term_ids
    codes[rows, slots] = encode(weights)
    terms.tofile(folder / "top_terms.u32")
    codes.tofile(folder / "top_w.u8")


def _write_columns(folder: Path, matrix, high: str) -> None:
    """The matrix by term, each column strongest first, every entry kept: written a block at
    a time (no second copy of the matrix beside the one by term)."""
    import numpy as np

    by_term = matrix.tocsc()
    by_term.sort_indices()
    np.asarray(by_term.indptr, np.uint64).tofile(folder / "col_ptr.u64")
    longest = int(np.diff(by_term.indptr).max(initial=0))
    with (open(folder / "col_lo.u16", "wb") as low, open(folder / f"col_hi.{_HIGH[high]}", "wb") as top,
          open(folder / "col_w.u8", "wb") as codes):
        for _, _, rows, weights in _strongest_blocks(by_term.indptr, by_term.indices, by_term.data, longest):
            (rows & 0xFFFF).astype(np.uint16).tofile(low)
            (rows >> 16).astype(np.uint8 if high == "B" else np.uint16).tofile(top)
            encode(weights).tofile(codes)


# --- reading the whole matrix (numpy) -------------------------------------------------------


def column_blocks(folder: Path, manifest: dict):
    """The matrix's entries, about BLOCK at a time, in column order: (first term, the number
    of entries of each term of the block, their rows as int32, their weights' codes) (numpy,
    the files memory-mapped; `decoded()[codes]` are the weights)."""
    import numpy as np

    ptr = np.fromfile(folder / "col_ptr.u64", np.uint64).astype(np.int64)
    high = manifest["row_high"]
    low_rows = _mapped(folder / "col_lo.u16", "uint16")
    high_rows = _mapped(folder / f"col_hi.{_HIGH[high]}", "uint8" if high == "B" else "uint16")
    codes = _mapped(folder / "col_w.u8", "uint8")
    n_terms = len(ptr) - 1
    start = 0
    while start < n_terms:
        end = int(np.searchsorted(ptr, ptr[start] + BLOCK, side="right")) - 1
        end = min(max(end, start + 1), n_terms)
        lo, hi = int(ptr[start]), int(ptr[end])
        yield start, np.diff(ptr[start:end + 1]), _joined_rows(low_rows[lo:hi], high_rows[lo:hi]), codes[lo:hi]
        start = end


def _joined_rows(low, high):
    """Rows as int32 from their low 16 bits and their high ones (numpy): on a little-endian
    machine by two strided copies into the halves of each number, with no temporary arrays."""
    import numpy as np

    if sys.byteorder != "little":
        return low.astype(np.int32) | (high.astype(np.int32) << 16)
    rows = np.empty(len(low), np.int32)
    halves = rows.view(np.uint16)
    halves[0::2] = low
    halves[1::2] = high
    return rows


def read_rows(folder: Path, manifest: dict, rows=None):
    """The tf-idf rows `rows` (ascending row numbers; None: every row) as a scipy CSR matrix,
    float32, in that order. Built by column, then turned once: about 16 bytes an entry at
    the peak."""
    import numpy as np
    import scipy.sparse as sp

    n_rows, n_terms = manifest["rows"], manifest["terms"]
    place = None
    if rows is not None:
        place = np.full(n_rows, -1, np.int32)
        place[np.asarray(rows, np.int64)] = np.arange(len(rows), dtype=np.int32)
        n_rows = len(rows)
    table = decoded()
    counts, kept_rows, kept_weights = [], [], []
    for _, lengths, block_rows, codes in column_blocks(folder, manifest):
        if place is not None:
            block_rows = place[block_rows]
            kept = np.flatnonzero(block_rows >= 0)
            terms = np.searchsorted(np.cumsum(lengths), kept, side="right")
            lengths = np.bincount(terms, minlength=len(lengths))
            block_rows, codes = block_rows[kept], codes[kept]
        counts.append(lengths)
        kept_rows.append(block_rows)
        kept_weights.append(table[codes])
    if not counts:
        return sp.csr_matrix((n_rows, n_terms), dtype=np.float32)
    indptr = np.concatenate([[0], np.cumsum(np.concatenate(counts))])
    del counts
    by_term = sp.csc_matrix((_joined(kept_weights), _joined(kept_rows), indptr), shape=(n_rows, n_terms))
    return by_term.tocsr()


def _joined(parts: list):
    """The arrays of `parts` end to end, the list emptied as it goes (one copy at a time)."""
    import numpy as np

    out = np.empty(sum(len(p) for p in parts), parts[0].dtype)
    at = 0
    while parts:
        part = parts.pop(0)
        out[at:at + len(part)] = part
        at += len(part)
    return out


def row_scores(folder: Path, manifest: dict, weights):
    """Every row's sum of weight x tf-idf (float64), one pass over the columns (numpy only)."""
    import numpy as np

    scores = np.zeros(manifest["rows"], np.float64)
    table = decoded()
    for start, lengths, rows, codes in column_blocks(folder, manifest):
        values = table[codes]
        values *= np.repeat(weights[start:start + len(lengths)], lengths)
        scores += np.bincount(rows, values, minlength=len(scores))
    return scores


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
