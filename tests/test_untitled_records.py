"""Records with neither title nor abstract (issue 29): a physics reference (journal, volume,
page), a Zotero row of authors and a year. Each is imported under a headline built from its
fields, never exported as a title, kept through a round trip; only a record with nothing to
name it by is skipped, with a line saying which and why, and the exit status says so."""

from __future__ import annotations

import json
from pathlib import Path

from catalog.importing import derived
from catalog.library import Catalog

PHYSICS = """@article{smith1992, author = {Smith, J. and Doe, A.}, journal = {Phys. Rev. B},
  volume = {45}, pages = {1234--1240}, year = {1992}}
@article{prl97, journal = {Phys. Rev. Lett.}, volume = {78}, pages = {1396}, year = {1997}}
@article{nothing, year = {2001}}
@misc{doionly, doi = {10.1103/PhysRevLett.78.1396x}}
"""


def _headlines(catalog: Catalog) -> dict[str, str]:
    return {p.cite_key: p.headline for p in catalog.exchange.export_papers("") if p.title is None}


def test_a_reference_without_title_is_named_by_its_fields(run_cli, db_path, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text(PHYSICS)
    done = run_cli("import", str(source))
    assert done.exit_code == 1  # one entry could not be imported: the exit status says so
    skipped = [line for line in done.stderr.splitlines() if "skipped" in line]
    assert skipped == [f"catalog: {source}:4: entry 'nothing' has no title or abstract, nor a venue, authors "
                       "or identifier to name it by; skipped"]
    assert "3 new" in done.stderr
    catalog = Catalog.open(db_path)
    try:
        assert _headlines(catalog) == {"smith1992": "Phys. Rev. B 45, 1234 (1992)",
                                       "prl97": "Phys. Rev. Lett. 78, 1396 (1997)",
                                       "doionly": "doi:10.1103/physrevlett.78.1396x"}
        with catalog.store.read() as tx:
            assert derived.stale(tx) == []  # `catalog doctor` sees nothing to derive again
    finally:
        catalog.close()
    assert run_cli("search", "Phys Rev Lett").stdout.count("Phys. Rev. Lett. 78, 1396 (1997)") == 1
    exported = run_cli("export", "-f", "bibtex").stdout
    assert "title" not in exported and "pages = {1234--1240}" in exported  # the headline is no title


def test_ris_and_csl_json_records_of_authors_and_a_year(empty_catalog, tmp_path):
    (tmp_path / "refs.ris").write_text("TY  - JOUR\nAU  - Nobody, Some\nPY  - 2001\nER  - \n\n"
                                       "TY  - JOUR\nJO  - J. Chem. Phys.\nVL  - 98\nSP  - 5648\nPY  - 1993\nER  - \n")
    (tmp_path / "refs.json").write_text(json.dumps([
        {"id": "k1", "type": "article-journal", "container-title": "Nature", "volume": "521",
         "page": "436-444", "issued": {"date-parts": [[2015]]}},
        {"id": "k2", "type": "article-journal", "author": [{"family": "Lee", "given": "Ann"},
                                                             {"family": "Kim", "given": "Bo"}]}]))
    report = empty_catalog.import_paths([tmp_path / "refs.ris", tmp_path / "refs.json"])
    assert (report.new, report.errors, report.warnings) == (4, [], [])
    shown = sorted(p.headline for p in empty_catalog.exchange.export_papers(""))
    assert shown == ["J. Chem. Phys. 98, 5648 (1993)", "Lee, Kim", "Nature 521, 436 (2015)", "Nobody (2001)"]


def test_a_bibtex_round_trip_keeps_their_keys_and_headlines(tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text(PHYSICS)
    first = Catalog.open(tmp_path / "first.db")
    again = Catalog.open(tmp_path / "again.db")
    try:
        first.import_paths([source])
        first.exchange.export("", "bibtex", tmp_path / "out.bib")
        again.import_paths([tmp_path / "out.bib"])
        before = {p.key: p.headline for p in first.exchange.export_papers("")}
        assert {p.key: p.headline for p in again.exchange.export_papers("")} == before
        # Without the catalog's own key field, the same fields give the same key too.
        bare = tmp_path / "bare.bib"
        bare.write_text("\n".join(line for line in (tmp_path / "out.bib").read_text().splitlines()
                                  if "catalogkey" not in line))
        third = Catalog.open(tmp_path / "third.db")
        try:
            third.import_paths([bare])
            assert {p.key for p in third.exchange.export_papers("")} == set(before)
        finally:
            third.close()
    finally:
        first.close()
        again.close()
