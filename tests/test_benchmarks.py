"""The benchmarks must not rot: CI runs a small version of the whole runner (no timing asserts)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_benchmark_runner_smoke(tmp_path):
    # 2,000 papers: every section and row of the report (at 10,000 the smoke took 86 s of a
    # loaded run; the figures are not what it checks).
    size = os.environ.get("CATALOG_BENCH_SMOKE_SIZE", "2000")
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--size", size, "--repeats", "1",
         "--search-repeats", "3", "--quick", "--work", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    report = out.stdout
    for heading in ("### Import", "### Search in-process", "### Search as a whole process", "### TUI",
                    "### Ranking quality", "### Did you mean", "### Text on long"):
        assert heading in report
    for row in ("| catalog import |", "| sqlite-utils insert + enable-fts |", "| catalog search |",
                "| catalog import: files stored (before ranking lists) |", "| catalog import: ranking lists |",
                "| catalog's SQL alone (rows prepared beforehand) |",
                "| common term `model` | 50 |", "launch to first results",
                "| BM25 en_stem, any word |"):
        assert row in report, row


def test_ready_benchmark_smoke(tmp_path):
    """benchmarks/ready.py on a small wide library: it imports, then times every query class."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.ready", "--size", "1500", "--wide", "--rounds", "1",
         "--work", str(tmp_path / "ready")],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "### Ready when the import returns: 1,500 papers (wide BibTeX library)" in out.stdout
    assert "| rare word `hessian` |" in out.stdout and "| frequent word + tag `model tag:toread` |" in out.stdout


def test_import_cost_benchmark_smoke(tmp_path):
    """benchmarks/import_cost.py: raw sqlite3 and `catalog import` from this checkout and from
    another (here the same folder, through PYTHONPATH), then the profile of the importer."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.import_cost", "--size", "1200", "--rounds", "1",
         "--against", str(REPO), "--work", str(tmp_path / "cost")],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "| 1 | this checkout |" in out.stdout and f"| 1 | {REPO} |" in out.stdout
    lists = subprocess.run([sys.executable, "-m", "benchmarks.import_cost", "--lists", str(tmp_path / "cost" / "side0.db")],
                           cwd=REPO, capture_output=True, text=True, timeout=600)
    assert lists.returncode == 0, lists.stderr[-3000:]
    assert "| words | 0 |" in lists.stdout and "| prefixes | 0 |" in lists.stdout  # too small for lists
    profiled = subprocess.run(
        [sys.executable, "-m", "benchmarks.import_cost", "--size", "1200", "--profile", "--work", str(tmp_path / "p")],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert profiled.returncode == 0, profiled.stderr[-3000:]
    assert "_import_file" in profiled.stdout


def test_similar_build_benchmark_smoke(tmp_path):
    """benchmarks/similar_build.py: an import, the discovery cache built and then updated by
    a second import, its size against the catalog's."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.similar_build", "--size", "1000", "--work", str(tmp_path / "sb")],
        cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    row = next(line for line in out.stdout.splitlines() if line.startswith("| this checkout |"))
    share = float(row.split("|")[6].strip().rstrip("%"))  # the cache against the catalog
    assert 0 < share <= 25, row
    assert "import of 1,000 more" in out.stdout
