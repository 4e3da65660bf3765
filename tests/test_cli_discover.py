"""`catalog similar`, `recommend` and `topics` as a user runs them: quality on the seeds (the
seven papers about sparse autoencoders), JSON fields, one-line errors, doctor's view of the
cache, and the offline guarantee (a whole process that would stop at its first socket)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from catalog.cli import main
from tests.test_discover import sae_keys_in, seeds_db  # noqa: F401  (a fixture)

SEEDS = Path(__file__).resolve().parent.parent / "seeds"


@pytest.fixture
def db(seeds_db, tmp_path) -> Path:
    path = tmp_path / "catalog.db"
    path.write_bytes(seeds_db.read_bytes())
    return path


@pytest.fixture
def cli(db):
    def run(*args: str):
        return CliRunner().invoke(main, ["--db", str(db), *args])

    return run


@pytest.fixture(scope="module")
def sae_keys(seeds_db) -> list[str]:
    return sae_keys_in(seeds_db)


def _json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _one_line_error(result, text: str):
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("catalog: "), result.stderr
    assert text in result.stderr, result.stderr
    assert "Traceback" not in result.output


# --- similar ------------------------------------------------------------------------------


def test_similar_finds_the_other_sae_papers(cli, sae_keys):
    shared = {key: sum(p["key"] in sae_keys for p in _json(cli("similar", key, "--limit", "5", "--json")))
              for key in sae_keys}
    assert sum(shared.values()) >= 14, shared  # of 35; random neighbours: about 2
    assert sum(n >= 3 for n in shared.values()) >= 3, shared


def test_similar_prints_score_paper_and_shared_terms(cli, sae_keys):
    papers = _json(cli("similar", sae_keys[1], "-n", "3", "--json"))
    assert len(papers) == 3
    assert set(papers[0]) >= {"key", "title", "venue", "year", "score", "why"}
    assert papers[0]["why"] and 0 < papers[0]["score"] <= 1
    text = cli("similar", sae_keys[1], "-n", "3")
    assert text.exit_code == 0
    lines = text.stdout.splitlines()
    assert len(lines) == 3  # piped: one line per paper, its reason on the same line
    assert papers[0]["key"] in lines[0] and "shares: " + ", ".join(papers[0]["why"]) in lines[0]


def test_similar_of_an_unknown_key(cli):
    _one_line_error(cli("similar", "qqqqqqq"), "no paper with key 'qqqqqqq'")


# --- recommend ----------------------------------------------------------------------------


def test_recommend_a_tag(cli, sae_keys):
    assert cli("tag", *sae_keys[:3], "+sae").exit_code == 0
    papers = _json(cli("recommend", "sae", "--limit", "10", "--json"))
    keys = [p["key"] for p in papers]
    assert len(keys) == 10 and not set(keys) & set(sae_keys[:3])
    assert sum(k in sae_keys for k in keys[:5]) >= 2, keys
    assert all(set(p) >= {"key", "title", "venue", "year", "score", "why"} for p in papers)
    lines = cli("recommend", "sae", "-n", "2").stdout.splitlines()
    assert len(lines) == 2 and "for: " in lines[0]


def test_recommend_with_filters_and_without_a_tag(cli, sae_keys):
    assert cli("rate", *sae_keys[:2], "5").exit_code == 0
    venue = _json(cli("show", sae_keys[4], "--json"))["venue"]
    papers = _json(cli("recommend", f"venue:{venue}", "--json"))
    assert papers and {p["venue"] for p in papers} == {venue}
    assert not {p["key"] for p in papers} & set(sae_keys[:2])


def test_recommend_errors_are_one_line(cli, sae_keys):
    _one_line_error(cli("recommend"), "no paper is rated 4-5 or marked read")
    _one_line_error(cli("recommend", "thesis"), "no paper is tagged 'thesis'")
    cli("tag", sae_keys[0], "+one")
    _one_line_error(cli("recommend", "one"), "only 1 paper is tagged 'one'")
    cli("tag", sae_keys[1], "+one")
    _one_line_error(cli("recommend", "one", "venue:Nowhere"), "no papers match 'venue:Nowhere'")
    _one_line_error(cli("recommend", "one", "year:1999"), "no papers match")


# --- topics -------------------------------------------------------------------------------


def test_topics_group_every_paper_once_and_keep_the_sae_papers_together(cli, db, sae_keys):
    topics = _json(cli("topics", "--json"))
    assert 4 <= len(topics) <= 20
    keys = [p["key"] for t in topics for p in t["papers"]]
    assert len(keys) == len(set(keys)) == 90
    assert max(sum(p["key"] in sae_keys for p in t["papers"]) for t in topics) >= 5
    for t in topics:
        assert t["size"] == len(t["papers"]) and 1 <= len(t["label"].split(", ")) <= 3
    stored = cli("sql", "SELECT number, label, count(*) AS n FROM topic WHERE scope = ''"
                        " GROUP BY number ORDER BY number", "--json")
    assert [(r["number"], r["label"], r["n"]) for r in _json(stored)] == [
        (t["number"], t["label"], t["size"]) for t in topics]


def test_topics_text_shows_labels_sizes_and_some_papers(cli):
    result = cli("topics", "--papers", "2")
    assert result.exit_code == 0
    heads = [line for line in result.stdout.splitlines() if not line.startswith("    ")]
    assert 4 <= len(heads) <= 20 and all("papers)" in h for h in heads)
    assert "--papers 0 lists all" in result.stdout


def test_topics_of_nothing(cli):
    _one_line_error(cli("topics", "venue:Nowhere"), "no papers match 'venue:Nowhere'")


# --- the cache ----------------------------------------------------------------------------


def test_doctor_reports_the_discovery_cache(cli, sae_keys):
    assert "discovery cache: not built yet" in cli("doctor").stdout
    cli("similar", sae_keys[0])
    out = cli("doctor")
    assert out.exit_code == 0 and "discovery cache: up to date (90 papers" in out.stdout


def test_an_import_keeps_a_cache_in_use_up_to_date(cli, tmp_path, sae_keys):
    cli("similar", sae_keys[0])
    extra = tmp_path / "extra.txt"
    extra.write_text("NEWCONF 2026 Papers\n\nWe train sparse autoencoders on the residual "
                     "stream to find interpretable features and study feature splitting.\n")
    assert cli("import", str(extra)).exit_code == 0
    assert "discovery cache: up to date (91 papers" in cli("doctor").stdout
    new = _json(cli("search", "residual stream feature splitting", "--json"))["papers"][0]["key"]
    assert sum(p["key"] in sae_keys for p in _json(cli("similar", new, "-n", "5", "--json"))) >= 2


# --- offline ------------------------------------------------------------------------------

_NO_SOCKETS = """
import os, runpy, sys
def refuse(event, args):
    if event.startswith("socket."):
        os.write(2, f"SOCKET OPENED: {event}\\n".encode())
        os._exit(97)
sys.addaudithook(refuse)
sys.argv = ["catalog", *sys.argv[1:]]
runpy.run_module("catalog", run_name="__main__")
"""


def _offline(args, db: Path):
    return subprocess.run([sys.executable, "-c", _NO_SOCKETS, "--db", str(db), *args],
                          capture_output=True, text=True, env={**os.environ})


def test_the_guard_stops_a_process_that_opens_a_socket(tmp_path):
    code = _NO_SOCKETS.replace('runpy.run_module("catalog", run_name="__main__")',
                               "import socket; socket.socket()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 97 and "SOCKET OPENED" in out.stderr


def test_discovery_opens_no_socket_from_a_fresh_catalog(tmp_path, sae_keys):
    db = tmp_path / "offline.db"
    for args in (["import", str(SEEDS)], ["similar", sae_keys[0]], ["rate", *sae_keys[:2], "5"],
                 ["recommend"], ["topics"], ["doctor"]):
        out = _offline(args, db)
        assert out.returncode == 0, (args, out.stderr)
