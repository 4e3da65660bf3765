"""Round trips (issue 17, item 13): every real-world-like library, exported in every format a
catalog can read back, and imported into a fresh catalog, gives the same papers with the same
fields."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from catalog.library import Catalog
from catalog.text import render
from tests.conftest import SEEDS

LIBRARIES = Path(__file__).resolve().parent / "data" / "libraries"
FIXTURES = sorted(p.name for p in LIBRARIES.iterdir())
FORMATS = {"bibtex": ".bib", "csljson": ".json", "ris": ".ris", "csv": ".csv", "jsonl": ".jsonl"}


def fields(catalog: Catalog) -> list[tuple]:
    """Each paper as a user sees it: title, authors, venue, year, DOI, arXiv id, URL and the
    abstract as shown (`\\%` in a paper list and `%` from BibTeX both show %; RIS holds one
    line per field, so line breaks count as spaces)."""
    return sorted(((p.title, p.authors, p.venue, p.year, p.doi, p.arxiv_id, p.url,
                    " ".join(render(p.abstract).split())) for p in catalog.export_papers("")), key=repr)


@pytest.fixture(scope="module")
def originals(tmp_path_factory) -> dict[str, Catalog]:
    out = {}
    for name in FIXTURES + ["seeds"]:
        catalog = Catalog.open(tmp_path_factory.mktemp("original") / "catalog.db")
        report = catalog.import_paths([SEEDS if name == "seeds" else LIBRARIES / name])
        assert report.errors == [], report.errors
        out[name] = catalog
    yield out
    for catalog in out.values():
        catalog.close()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", FIXTURES + ["seeds"])
def test_export_then_import_gives_the_same_papers(originals, tmp_path, name, fmt):
    original = originals[name]
    exported = tmp_path / f"export{FORMATS[fmt]}"
    original.export("", fmt, exported)
    fresh = Catalog.open(tmp_path / "fresh.db")
    try:
        report = fresh.import_paths([exported])
        assert (report.errors, report.warnings) == ([], [])
        assert fields(fresh) == fields(original)
    finally:
        fresh.close()


def test_organisations_are_one_author_in_bibtex(originals):
    out = io.StringIO()
    originals["zotero-library.csv"].export("school health", "bibtex", stream=out)
    assert "author = {{Centers for Disease Control and Prevention}}" in out.getvalue()


def test_dois_are_written_as_they_are(originals):
    out = io.StringIO()
    originals["zotero-library.csv"].export("escaped identifiers", "bibtex", stream=out)
    assert "doi = {10.1000/ab\\cd.2020}" in out.getvalue() and "%5C" not in out.getvalue()


def test_old_exports_with_encoded_dois_find_the_paper(originals, tmp_path):
    catalog = originals["zotero-library.csv"]
    path = tmp_path / "old.bib"
    path.write_text("@misc{old, title = {Escaped identifiers in old records}, doi = {10.1000/ab%5Ccd.2020}}\n")
    report = catalog.import_paths([path])
    assert (report.new, report.known) == (0, 1)
