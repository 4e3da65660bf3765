"""A real CSL-JSON library (tests/data/libraries/bbt-zotero.csl.json, SOURCE.toml): a user's
Zotero library on sport and gender as Better BibTeX's "Better CSL JSON" writes it: 26 items
(journal articles, chapters with editors, a book, web pages and a newspaper article by
organisations), `citation-key`, Zotero's short DOIs (`10/bqwfc8`) beside doi.org links.
What a user importing it would check: every item a paper, its key, its authors, its DOI,
nothing to warn about, and an export that gives the items back."""

from __future__ import annotations

from pathlib import Path

from catalog.ingest.jsonfile import read_json
from tests.test_real_libraries import papers

LIBRARY = Path(__file__).resolve().parent / "data" / "libraries" / "bbt-zotero.csl.json"


def by_key(catalog) -> dict:
    return {p.cite_key: p for p in papers(catalog)}


def test_every_item_is_a_paper_with_its_key_and_no_warning(empty_catalog):
    report = empty_catalog.import_paths([LIBRARY])
    assert (report.new, report.errors) == (26, [])
    assert [w for f in report.files for w in f.warnings] == [] and [m for f in report.files for m in f.merges] == []
    keys = by_key(empty_catalog)
    assert len(keys) == 26 and {"duncan2002", "jackson2013", "jackson2013a", "timeusa2019a"} <= keys.keys()
    assert keys["duncan2002"].authors == "Margaret Carlisle Duncan, Michael A. Messner"
    assert keys["duncan2002"].venue == "MediaSport"
    assert keys["courtofarbitrationforsport2019"].authors == "Court of Arbitration for Sport"
    assert (keys["pink2013"].title, keys["pink2013"].year) == ("Doing visual ethnography", 2013)
    assert (empty_catalog.import_paths([LIBRARY]).new, empty_catalog.import_paths([LIBRARY]).known) == (0, 26)


def test_a_short_doi_beside_a_doi_link_gives_the_paper_its_doi(empty_catalog, tmp_path):
    """Zotero writes `"DOI": "10/bqwfc8"` (a short DOI, which names no paper without asking
    doi.org) and `"URL": "https://doi.org/10.1177/0193723507307819"`: the link's DOI is the
    paper's, so a later file with that DOI finds it. 12 of the 16 articles have such a link."""
    empty_catalog.import_paths([LIBRARY])
    keys = by_key(empty_catalog)
    assert keys["laurendeau2008"].doi == "10.1177/0193723507307819"
    assert sum(1 for p in keys.values() if p.doi) == 12
    assert keys["fink2015"].doi is None  # a short DOI and a publisher's link: nothing to go on
    later = tmp_path / "later.bib"
    later.write_text("@article{l, title = {Women could be every bit as good as guys},\n"
                     "  doi = {10.1177/0193723507307819}}\n", encoding="utf-8")
    assert (empty_catalog.import_paths([later]).known, len(papers(empty_catalog))) == (1, 26)


def test_the_library_comes_back_item_by_item(empty_catalog, tmp_path):
    empty_catalog.import_paths([LIBRARY])
    exported = tmp_path / "out.json"
    empty_catalog.exchange.export("", "csljson", exported)
    before = {r.kept.cite_key: dict(r.kept.fields) for r in read_json(LIBRARY).records}
    after = {r.kept.cite_key: dict(r.kept.fields) for r in read_json(exported).records}
    assert after == before
