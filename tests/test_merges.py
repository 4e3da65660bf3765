"""What merged, on what evidence, and undoing a wrong merge (issue 17, item 4); and the rule
that importing never yields fewer papers than distinct DOIs (a property test)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog.importing import reader
from catalog.library import Catalog, CatalogError

ABSTRACT = ("We measure the thermal conductivity of thin copper films between ten and three hundred "
            "kelvin and compare it with the bulk value.")


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def folded_file(tmp_path) -> Path:
    return jsonl(tmp_path / "refs.jsonl", [
        {"title": "Deep Sets", "doi": "10.1000/sets", "year": 2017},
        {"title": "Set Transformer", "doi": "10.1000/set-transformer", "year": 2019},
        {"title": "Deep sets", "authors": "Zaheer, Manzil", "doi": "10.1000/sets"},
        {"title": "Copper films", "abstract": ABSTRACT},
        {"abstract": ABSTRACT, "venue": "ICML", "year": 2024},
    ])


def test_the_summary_counts_merges_inside_a_file(run_cli, folded_file):
    result = run_cli("import", str(folded_file))
    assert result.exit_code == 0, result.output
    assert "3 new, 0 already known, 2 merged with an entry above, 0 errors (1 file); " \
           "--verbose lists each merge" in result.stderr


def test_verbose_lists_each_merge_with_its_evidence(run_cli, folded_file, tmp_path):
    result = run_cli("import", "--verbose", str(folded_file))
    lines = result.stderr.splitlines()
    assert f"{folded_file}:3: merged with the entry at line 1 (same DOI 10.1000/sets)" in lines
    assert f"{folded_file}:5: merged with the entry at line 4 (same abstract)" in lines
    assert "--verbose" not in lines[-1]
    again = jsonl(tmp_path / "again.jsonl", [{"title": "Deep Sets", "url": "https://example.org/sets",
                                             "doi": "https://doi.org/10.1000/SETS"}])
    key = json.loads(run_cli("search", "--json", "deep", "sets").stdout)["papers"][0]["key"]
    result = run_cli("import", "-v", str(again))
    assert f"{again}:1: already in the catalog as {key} (same DOI 10.1000/sets)" in result.stderr.splitlines()
    assert "0 new, 1 already known (1 updated)" in result.stderr


def test_merges_prepared_in_the_import_worker_are_kept(empty_catalog, folded_file, db_path, monkeypatch):

    monkeypatch.setattr(reader, "WORKER_MIN_BYTES", 0)  # the worker process prepares the batches
    report = empty_catalog.import_paths([folded_file])
    assert (report.new, report.folded) == (3, 2)
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute("SELECT position, evidence, filled FROM paper_merge ORDER BY position").fetchall()
    finally:
        conn.close()
    assert rows == [(3, "same DOI 10.1000/sets", "authors"), (5, "same abstract", "venue year")]


def test_show_lists_every_source_and_how_it_joined(run_cli, folded_file):
    run_cli("import", str(folded_file))
    key = json.loads(run_cli("search", "--json", "deep", "sets").stdout)["papers"][0]["key"]
    shown = run_cli("show", key).stdout
    assert f"1. from {folded_file.resolve()} #1" in shown
    assert f"2. from {folded_file.resolve()} #3 (merged: same DOI 10.1000/sets)" in shown
    sources = json.loads(run_cli("show", key, "--json").stdout)["sources"]
    assert [s["evidence"] for s in sources] == [None, "same DOI 10.1000/sets"]


@pytest.fixture
def wrong_merge(location, tmp_path):
    """A DOI typo merged two papers: a paper list's abstract, then a BibTeX entry of another
    paper that carries the first one's DOI (on each backend)."""
    catalog = Catalog.open(location)
    first = jsonl(tmp_path / "first.jsonl", [{"abstract": ABSTRACT, "doi": "10.1000/copper", "year": 2020,
                                              "venue": "ICML"}])
    catalog.import_paths([first])
    [paper] = catalog.exchange.export_papers("")
    catalog.tag([paper.key], ["toread"])
    catalog.add_note(paper.key, "check the bulk value")
    catalog.set_status([paper.key], "reading")
    bib = tmp_path / "second.bib"
    bib.write_text("@article{wrong, title = {Grain boundaries in steel}, author = {Ito, Ken},\n"
                   "  doi = {10.1000/copper}, url = {https://example.org/steel}, year = 2020}\n")
    report = catalog.import_paths([bib])
    assert (report.new, report.known) == (0, 1)
    yield catalog, paper.key
    catalog.close()


def test_split_undoes_a_wrong_merge_and_keeps_your_annotations(wrong_merge, backend, db_path):
    catalog, key = wrong_merge
    merged = catalog.get(key)
    assert (merged.title, merged.authors) == ("Grain boundaries in steel", "Ken Ito")  # the wrong merge
    result = catalog.split(key)
    assert result.kept.key == key
    [steel] = result.split_off
    kept = catalog.get(key)
    assert (kept.title, kept.authors, kept.url, kept.doi) == (None, None, None, "10.1000/copper")
    assert kept.abstract == ABSTRACT and kept.headline != "Grain boundaries in steel"
    assert (kept.summary.tags, kept.summary.status) == (("toread",), "reading")
    assert [n.body for n in kept.notes] == ["check the bulk value"]
    assert len(kept.sources) == 1
    other = catalog.get(steel.key)
    assert (other.title, other.authors, other.url, other.doi, other.summary.year) == (
        "Grain boundaries in steel", "Ken Ito", "https://example.org/steel", "10.1000/copper", 2020)
    assert (other.summary.tags, other.notes, len(other.sources)) == ((), (), 1)
    assert [p.key for p in catalog.search("grain boundaries")] == [steel.key]
    assert [p.key for p in catalog.search("copper films")] == [key]
    if backend == "sqlite":
        conn = sqlite3.connect(db_path)
        try:
            conn.execute("INSERT INTO paper_fts(paper_fts, rank) VALUES ('integrity-check', 1)")
            assert conn.execute("SELECT count(*) FROM paper_merge").fetchone() == (0,)
        finally:
            conn.close()
    with pytest.raises(CatalogError, match="came from one record"):
        catalog.split(key)


def test_split_from_the_command_line_by_source_number(run_cli, folded_file):
    run_cli("import", str(folded_file))
    key = json.loads(run_cli("search", "--json", "copper").stdout)["papers"][0]["key"]
    result = run_cli("split", key, "1")
    assert result.exit_code == 1 and "source 1 is the paper's own record" in result.stderr
    result = run_cli("split", key, "3")
    assert result.exit_code == 1 and "no source 3" in result.stderr
    result = run_cli("split", key, "2")
    assert result.exit_code == 0, result.output
    assert "Split 1 record off" in result.stderr
    found = json.loads(run_cli("search", "--json", "copper").stdout)["papers"]
    assert len(found) == 2 and {p["key"] for p in found} >= {key}
    assert [p["venue"] for p in found if p["key"] != key] == ["ICML"]


@pytest.mark.parametrize("backend", ["sqlite"])
def test_records_merged_before_the_merge_table_cannot_be_split(wrong_merge, db_path):
    catalog, key = wrong_merge
    conn = sqlite3.connect(db_path)
    conn.execute("DELETE FROM paper_merge")
    conn.commit()
    conn.close()
    with pytest.raises(CatalogError, match="merged before this version"):
        catalog.split(key)


# --- the property: never fewer papers than distinct DOIs ------------------------------------------

TITLES = ["Home", "Human memory", "Introduction", "Exercise and mental health", "Copper films"]
ABSTRACTS = ["", "Not Available", "Keywords", ABSTRACT,
             "No abstract is available for this item; please see the full text on the publisher's website."]
record = st.fixed_dictionaries({}, optional={
    "title": st.sampled_from(TITLES),
    "abstract": st.sampled_from(ABSTRACTS),
    "doi": st.sampled_from([f"10.1000/{i}" for i in range(6)]),
    "arxiv": st.sampled_from(["2001.00001", "2001.00002"]),
    "year": st.sampled_from([1990, 2017, 2018]),
    "authors": st.sampled_from(["Craik, Fergus", "Zacks, Rose", "Craik, Fergus and Zacks, Rose"]),
    "url": st.sampled_from(["https://a.example/", "https://b.example/"]),
}).filter(lambda r: r.get("title") or r.get("abstract"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(record, min_size=1, max_size=12), st.integers(0, 12))
def test_importing_never_yields_fewer_papers_than_distinct_dois(tmp_path_factory, records, cut):
    folder = tmp_path_factory.mktemp("property")
    # Some records in one file, the rest in another: merges inside a file and into the catalog.
    files = [jsonl(folder / "a.jsonl", records[:cut]), jsonl(folder / "b.jsonl", records[cut:])]
    catalog = Catalog.open(folder / "catalog.db")
    try:
        catalog.import_paths([f for f in files if f.stat().st_size])
        papers = catalog.exchange.export_papers("")
        assert len(papers) >= len({r["doi"] for r in records if "doi" in r})
        assert len({p.key for p in papers}) == len(papers)
    finally:
        catalog.close()


def test_two_papers_of_a_file_never_become_one_through_a_catalog_paper(tmp_path):
    """A title-only "Home" is in the catalog; a later file has two "Home" records with different
    DOIs. Each resembles the catalog paper, but they are two papers: one may merge into it,
    never both (found by the property test above)."""
    first = jsonl(tmp_path / "a.jsonl", [{"title": "Home"}])
    home = {"title": "Home", "url": "https://a.example/", "authors": "Craik, Fergus"}
    second = jsonl(tmp_path / "b.jsonl", [{**home, "doi": "10.1000/0"},
                                          {**home, "year": 1990, "arxiv": "2001.00001", "doi": "10.1000/1"}])
    catalog = Catalog.open(tmp_path / "catalog.db")
    try:
        catalog.import_paths([first, second])
        assert sorted(p.doi or "" for p in catalog.exchange.export_papers("")) == ["10.1000/0", "10.1000/1"]
    finally:
        catalog.close()
