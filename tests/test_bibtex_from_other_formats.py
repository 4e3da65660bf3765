"""A paper that came from CSL-JSON or RIS exports to BibTeX with its record's fields where
BibTeX has a place for them (issue 29): the container as written, volume, issue, pages (as a
`--` range), publisher, ISSN or ISBN; never the catalog's short venue instead."""

from __future__ import annotations

import io
import json
from pathlib import Path

LIBRARIES = Path(__file__).resolve().parent / "data" / "libraries"


def _entries(catalog) -> dict[str, list[str]]:
    out = io.StringIO()
    catalog.exchange.export("", "bibtex", stream=out)
    return {block.split("{", 1)[1].split(",", 1)[0]: [line.strip().rstrip(",") for line in block.splitlines()[1:]]
            for block in out.getvalue().split("\n\n")}


def test_csl_json_and_ris_fields_reach_bibtex(empty_catalog, tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([{
        "id": "devlin2019bert", "type": "paper-conference", "title": "BERT: Pre-training",
        "author": [{"family": "Devlin", "given": "Jacob"}], "container-title": "Proceedings of NAACL-HLT",
        "page": "4171-4186", "volume": "1", "publisher": "ACL", "issued": {"date-parts": [[2019]]}}]))
    report = empty_catalog.import_paths([tmp_path / "a.json", LIBRARIES / "scopus-sciencedirect.ris"])
    assert (report.errors, report.warnings) == ([], [])
    entries = _entries(empty_catalog)
    bert = entries["devlin2019bert"]
    for written in ("booktitle = {Proceedings of NAACL-HLT}", "pages = {4171--4186}", "volume = 1",
                    "publisher = {ACL}"):
        assert written in bert, (written, bert)
    scopus = next(e for e in entries.values() if "journal = {Journal of the Mechanics and Physics of Solids}" in e)
    for written in ("volume = 52", "number = 10", "pages = {2309--2327}"):
        assert written in scopus, (written, scopus)
    science = next(e for e in entries.values() if "journal = {Acta Materialia}" in e)
    assert "issn = {1359-6454}" in science and "pages = {310--324}" in science
