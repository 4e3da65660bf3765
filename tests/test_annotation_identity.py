"""Annotations never move to another paper (issue 29): a catalog rebuilt from its own BibTeX,
CSL-JSON or RIS export takes its annotations file back with every tag and note on its own
paper, same-title pairs included; an entry two papers could be is refused, not guessed."""

from __future__ import annotations

import json

import pytest

from catalog.library import Catalog

PAIR = r"""@incollection{craik1992human,
  title = {Human memory},
  author = {Craik, Fergus I. M. and Jacoby, Larry L.},
  booktitle = {Annual Review of Psychology},
  year = 1992
}
@article{zacks2000human,
  title = {Human memory},
  author = {Zacks, Rose T. and Hasher, Lynn},
  journal = {Psychological Science},
  year = 2000
}
@article{other2001,
  title = {Sleep and memory consolidation},
  author = {Stickgold, Robert},
  journal = {Nature},
  year = 2001,
  doi = {10.1038/nature04286}
}
"""
FORMATS = {"bibtex": ".bib", "csljson": ".json", "ris": ".ris", "csv": ".csv", "jsonl": ".jsonl"}  # every format a catalog reads back


@pytest.fixture
def annotated(tmp_path):
    source = tmp_path / "pair.bib"
    source.write_text(PAIR)
    catalog = Catalog.open(tmp_path / "original.db")
    catalog.import_paths([source])
    for paper in catalog.exchange.export_papers(""):
        catalog.tag([paper.key], [f"y{paper.year}"])
        catalog.add_note(paper.key, f"read in {paper.year}")
    yield catalog
    catalog.close()


def _where_they_landed(catalog: Catalog) -> dict[int, tuple]:
    return {p.year: (p.tags, p.notes) for p in catalog.exchange.export_papers("")}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_rebuilt_catalog_takes_every_annotation_back_onto_its_paper(annotated, tmp_path, fmt):
    exported = tmp_path / f"export{FORMATS[fmt]}"
    annotated.exchange.export("", fmt, exported)
    mine = tmp_path / "mine.json"
    annotated.exchange.export_annotations(mine)
    fresh = Catalog.open(tmp_path / "fresh.db")
    try:
        fresh.import_paths([exported])
        assert {p.key for p in fresh.exchange.export_papers("")} == {p.key for p in annotated.exchange.export_papers("")}
        report = fresh.exchange.import_annotations(mine)
        assert (report.matched, report.ambiguous, report.not_found) == (3, [], [])
        assert _where_they_landed(fresh) == {
            1992: (("y1992",), ("read in 1992",)), 2000: (("y2000",), ("read in 2000",)),
            2001: (("y2001",), ("read in 2001",))}
    finally:
        fresh.close()


def test_without_keys_the_year_and_authors_tell_a_same_title_pair_apart(annotated, tmp_path):
    mine = tmp_path / "mine.json"
    annotated.exchange.export_annotations(mine)
    document = json.loads(mine.read_text())
    for entry in document["papers"]:  # a colleague's catalog: other keys, other fingerprints
        entry["key"], entry["fingerprint"], entry["cite_key"] = "zzzzzzz", "0" * 32, None
    mine.write_text(json.dumps(document))
    fresh = Catalog.open(tmp_path / "fresh.db")
    try:
        source = tmp_path / "pair.bib"
        fresh.import_paths([source])
        report = fresh.exchange.import_annotations(mine)
        assert (report.matched, report.ambiguous) == (3, [])
        assert _where_they_landed(fresh)[1992] == (("y1992",), ("read in 1992",))
        assert _where_they_landed(fresh)[2000] == (("y2000",), ("read in 2000",))
    finally:
        fresh.close()


def test_an_entry_two_papers_could_be_is_refused_with_one_line(annotated, tmp_path):
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps({"format": "catalog-annotations", "version": 1, "papers": [
        {"key": "zzzzzzz", "title": "Human memory", "tags": ["wrong"], "notes": ["which one?"]}]}))
    before = _where_they_landed(annotated)
    report = annotated.exchange.import_annotations(mine)
    assert report.matched == 0 and len(report.ambiguous) == 1
    assert "2 papers have this title" in report.ambiguous[0] and "\n" not in report.ambiguous[0]
    assert "ambiguous (not applied)" in report.summary()
    assert _where_they_landed(annotated) == before
