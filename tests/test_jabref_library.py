"""Real JabRef libraries (tests/data/libraries/SOURCE.toml): JabRef's own example library
(jabref-chocolate.bib: biblatex fields, `groups` and `readstatus`, a `grouping` tree in an
@Comment) and the library its tests read (jabref-complex.bib: ACM's numeric cite keys, BibDesk
fields, @Preamble, @String, free text between entries, TeX accents, names with von and Jr.).
What a user importing them would check: every entry a paper, the keys they cite, the authors,
nothing to warn about."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from tests.test_real_libraries import papers

LIBRARIES = Path(__file__).resolve().parent / "data" / "libraries"
CHOCOLATE = LIBRARIES / "jabref-chocolate.bib"
COMPLEX = LIBRARIES / "jabref-complex.bib"


def by_key(catalog) -> dict:
    return {p.cite_key: p for p in papers(catalog)}


def test_every_entry_is_a_paper_with_its_key_and_no_warning(empty_catalog):
    report = empty_catalog.import_paths([CHOCOLATE, COMPLEX])
    assert (report.new, report.errors) == (15 + 20, [])
    assert [w for f in report.files for w in f.warnings] == [] and [m for f in report.files for m in f.merges] == []
    keys = by_key(empty_catalog)
    assert {"Corti_2009", "Di_Renzo_2012", "Fulton_1969", "deBraga2001", "00000000"} <= keys.keys()
    # ACM's numeric keys, as the file has them: \cite{1137631} keeps working after an export.
    assert {"1102917", "1137631", "1251435", "10250999", "1025014"} <= keys.keys()
    again = empty_catalog.import_paths([CHOCOLATE, COMPLEX])
    assert (again.new, again.known) == (0, 35)


def test_authors_read_as_people_write_them(empty_catalog):
    empty_catalog.import_paths([CHOCOLATE, COMPLEX])
    keys = by_key(empty_catalog)
    # `Fulton, James E., Jr.`: the suffix written last, not a first name "Jr."
    assert keys["Fulton_1969"].authors.startswith("James E. Fulton Jr., Gerd Plewig")
    # The file writes "Lüscher" decomposed (u + a combining diaeresis); typed either way, found.
    assert unicodedata.normalize("NFC", keys["Corti_2009"].authors).endswith("Thomas F. Lüscher")
    assert [p.key for p in empty_catalog.search("author:Lüscher")] == [keys["Corti_2009"].key]
    assert keys["10250999"].authors == ("Eric von Hippel, Joseph M. Reagle Jr., John F. Sherry Jr., "
                                        "Johan A van den Huevel Jr.")
    assert keys["1137631"].authors.startswith("Gustav Boström, Jaana Wäyrynen, Marine Bodén")
    assert keys["Fulton_1969"].title == "Effect of Chocolate on Acne Vulgaris"


def test_one_doi_pasted_onto_two_papers_keeps_both(empty_catalog, tmp_path):
    """The test library gives `Article with complex Authornames` the DOI of `Password
    Memorability and Security` (10.1109/MSP.2004.81): other title, no author shared. Both
    stay, in the file and against a catalog that has one of them."""
    empty_catalog.import_paths([COMPLEX])
    keys = by_key(empty_catalog)
    assert keys["10250999"].doi == keys["1025014"].doi == "10.1109/msp.2004.81"
    assert keys["1025014"].title == "Password Memorability and Security: Empirical Results"
    later = tmp_path / "later.bib"
    later.write_text("@article{yan, title = {Password memorability and security: empirical results},\n"
                     "  author = {Yan, J.}, doi = {10.1109/MSP.2004.81}}\n", encoding="utf-8")
    report = empty_catalog.import_paths([later])
    assert (report.new, report.known) == (0, 1)
    assert len(papers(empty_catalog)) == 20


def test_groups_read_status_and_numeric_keys_travel_with_an_export(empty_catalog, tmp_path):
    """JabRef's groups are not tags yet (see the report of real29); they come back as written,
    so JabRef reading the export finds its groups. tests/test_kept_fields.py compares both
    libraries field by field."""
    empty_catalog.import_paths([CHOCOLATE, COMPLEX])
    out = tmp_path / "out.bib"
    empty_catalog.exchange.export("", "bibtex", out)
    text = out.read_text(encoding="utf-8")
    parker = text[text.index("{Parker_2006,"):]
    parker = parker[:parker.index("\n}")]
    assert "groups = {Used}" in " ".join(parker.split()) and "readstatus = {read}" in " ".join(parker.split())
    assert "{1137631," in text and "{1025014," in text and "{10250999," in text
