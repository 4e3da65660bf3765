"""Offline, every command that fetches exits non-zero with one line and changes nothing: add
(identifiers and --from), enrich (and --updates, --dry-run), refs, cited-by, fetch-pdf. The
commands that do not fetch open no socket (tests/test_fetching.py runs them with sockets
forbidden)."""

from __future__ import annotations

import json
import socket

import pytest


@pytest.fixture
def offline(tmp_path, monkeypatch) -> int:
    """Every service at a port nobody listens on; the port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("CATALOG_WEB_BASE", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("CATALOG_WEB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CATALOG_WEB_TIMEOUT", "5")
    return port


@pytest.fixture
def papers(run_cli, tmp_path) -> str:
    """Two papers from a file: a preprint (an arXiv id, no DOI), and an untitled one with neither."""
    records = tmp_path / "mine.json"
    records.write_text(json.dumps([
        {"title": "Heat-bath random walks", "arxiv_id": "1605.08386",
         "abstract": "Graphs on lattice points are studied whose edges come from a finite set of moves."},
        {"abstract": "We study the mixing behaviour of random walks on fibers of integer matrices and "
                     "state conditions under which the walk is an expander in fixed dimension."}]))
    assert run_cli("import", str(records)).exit_code == 0
    return next(p["key"] for p in json.loads(run_cli("list", "--json").stdout) if p["title"] == "Heat-bath random walks")


@pytest.mark.parametrize("args", [
    ["add", "arXiv:2301.00001"], ["add", "--from", "{ids}"], ["enrich"], ["enrich", "--dry-run"],
    ["enrich", "--updates"], ["refs", "{key}"], ["cited-by", "{key}"], ["fetch-pdf"],
], ids=lambda a: " ".join(a))
def test_every_fetching_command_offline_is_one_line_and_changes_nothing(run_cli, offline, papers, tmp_path, args):
    ids = tmp_path / "ids.txt"
    ids.write_text("10.1371/journal.pone.0033693\narXiv:2301.00001\n")
    before = [run_cli("show", p["key"], "--json").stdout for p in json.loads(run_cli("list", "--json").stdout)]
    out = run_cli(*[a.format(ids=ids, key=papers) for a in args])
    assert out.exit_code == 1
    assert out.output.startswith(f"catalog: cannot reach 127.0.0.1:{offline} (") and out.output.count("\n") == 1
    assert "Traceback" not in out.output
    after = [run_cli("show", p["key"], "--json").stdout for p in json.loads(run_cli("list", "--json").stdout)]
    assert after == before
