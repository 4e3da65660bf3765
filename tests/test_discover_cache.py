"""The discovery cache on disk (catalog/discover/index.py): its size beside the catalog, a cache
of the earlier format, and weights that survive an update as they were stored."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

pytest.importorskip("sklearn")

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from catalog.cli import main  # noqa: E402
from catalog.discover import index as index_files  # noqa: E402
from catalog.library import Catalog  # noqa: E402
from tests.test_discover import fresh_engine, sae, seeds_db  # noqa: E402,F401  (fixtures)

REPO = Path(__file__).resolve().parent.parent


def _cache_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def test_the_cache_is_under_a_quarter_of_the_catalog(tmp_path):
    sys.path.insert(0, str(REPO))
    from benchmarks import corpus

    files = corpus.write_paper_lists(3000, tmp_path / "lists", per_file=1500)
    catalog = Catalog.open(tmp_path / "c.db")
    assert not catalog.import_paths(files).errors
    catalog.close()
    engine = fresh_engine(tmp_path / "c.db", tmp_path / "cache")
    index = engine.current()
    cached = _cache_bytes(tmp_path / "cache")
    catalog_bytes = sum(f.stat().st_size for f in tmp_path.glob("c.db*"))
    # Measured when written: 22.5% at 3,000 papers, 19.1% at 100,000 (format 2: 57%).
    assert cached <= 0.25 * catalog_bytes, (cached, catalog_bytes)
    # Each weight once, in 4 bytes; a paper's top terms 5 bytes each; a term about 34 bytes.
    entries = index.manifest["entries"]
    assert cached <= 4 * entries + index.rows * (index_files.TOP * 5 + 16) + index.n_terms * 40


def _format_2_generation(cache: Path) -> None:
    """What the cache of the last release looked like: float32 matrix and postings."""
    old = cache / "g-format2"
    old.mkdir(parents=True)
    for name in ("ids.i64", "hashes.u64", "top.bin", "post_ptr.u64", "post_rows.u32", "post_w.f32",
                 "terms_ptr.u64", "terms.utf8", "idf.f32", "x_data.f32", "x_indices.i32", "x_indptr.i64"):
        (old / name).write_bytes(b"\0" * 64)
    (old / "manifest.json").write_text(json.dumps({
        "format": 2, "byteorder": sys.byteorder, "version": {"count": 0, "max_id": 0, "data": 0},
        "rows": 8, "terms": 7, "top": 32, "postings": 2000, "full_build_rows": 8, "changed_since_full": 0}))
    (cache / "CURRENT").write_text("g-format2")


def test_a_cache_of_the_earlier_format_is_rebuilt_without_a_word(seeds_db, tmp_path, sae):  # noqa: F811
    from catalog.store import open_store

    expected = fresh_engine(seeds_db, tmp_path / "fresh").similar(sae[0], 5)
    cache = open_store(seeds_db).cache_dir()
    _format_2_generation(cache)
    keys = dict(sqlite3.connect(seeds_db).execute("SELECT id, key FROM paper").fetchall())
    engine = fresh_engine(seeds_db, cache)
    assert engine.status().state == "missing"  # what doctor says: it is not read
    result = CliRunner().invoke(main, ["--db", str(seeds_db), "similar", keys[sae[0]], "--limit", "5", "--json"])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    assert [p["key"] for p in json.loads(result.stdout)] == [keys[s.paper_id] for s in expected]
    assert engine.similar(sae[0], 5) == expected
    assert engine.status().state == "fresh"
    assert [p.name for p in cache.glob("g-*")] != ["g-format2"] and len(list(cache.glob("g-*"))) == 1


def test_stored_weights_are_close_and_stay_as_stored_through_an_update(tmp_path):
    rng = np.random.default_rng(3)
    dense = rng.random((40, 30), np.float32) * (rng.random((40, 30)) < 0.3)
    dense[5] = 0  # a paper without a kept term
    norms = np.linalg.norm(dense, axis=1, keepdims=True)
    dense = np.divide(dense, norms, out=np.zeros_like(dense), where=norms > 0)
    first = index_files.write(tmp_path / "a", ids=np.arange(1, 41), hashes=np.zeros(40),
                              matrix=sp.csr_matrix(dense), terms=[f"t{i}" for i in range(30)],
                              idf=np.ones(30), version={}, counters={})
    manifest = json.loads((first / "manifest.json").read_text())
    stored = index_files.read_rows(first, manifest).toarray()
    assert np.array_equal(stored > 0, dense > 0)
    big = dense > 0.01  # within the codes' range: at most 1.1% off
    assert np.all(np.abs(stored[big] - dense[big]) <= 0.011 * dense[big])
    again = index_files.write(tmp_path / "b", ids=np.arange(1, 41), hashes=np.zeros(40),
                              matrix=sp.csr_matrix(stored), terms=[f"t{i}" for i in range(30)],
                              idf=np.ones(30), version={}, counters={})
    assert np.array_equal(index_files.read_rows(again, manifest).toarray(), stored)  # as an update does


def test_weights_that_round_alike_keep_the_order_of_their_exact_values(tmp_path):
    # 40 terms within 1% of each other (one code), the later ones stronger: a paper's TOP
    # strongest are the 32 strongest, as before the weights were rounded, not the 32 first.
    weights = np.linspace(0.1505, 0.1525, 40, dtype=np.float32)
    assert len(set(index_files.encode(weights).tolist())) == 1
    folder = index_files.write(tmp_path / "c", ids=np.arange(1, 3), hashes=np.zeros(2),
                               matrix=sp.csr_matrix(np.vstack([weights, weights[::-1]])),
                               terms=[f"t{i}" for i in range(40)], idf=np.ones(40), version={}, counters={})
    index = index_files.Index.open(tmp_path / "c")
    assert index.folder == folder
    assert [t for t, _ in index.top_terms(0)] == list(range(39, 7, -1))
    assert [t for t, _ in index.top_terms(1)] == list(range(32))
    rows, _ = index.postings(0)
    assert list(rows) == [1, 0]  # the paper where the term weighs more comes first


def test_rows_past_16_million_keep_their_high_bits(seeds_db, tmp_path, sae, monkeypatch):  # noqa: F811
    expected = fresh_engine(seeds_db, tmp_path / "bytes").similar(sae[0], 10)
    monkeypatch.setattr(index_files, "SMALL_ROWS", 4)  # every catalog "large": two high bytes
    engine = fresh_engine(seeds_db, tmp_path / "shorts")
    assert engine.similar(sae[0], 10) == expected
    assert engine.current().manifest["row_high"] == "H"
    assert engine.recommend(sae[:3], limit=5) == fresh_engine(seeds_db, tmp_path / "bytes").recommend(sae[:3], limit=5)
