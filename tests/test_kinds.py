"""What kind of publication a paper is (catalog/ingest/kinds.py, `paper.kind`): read from each
format's own type names, kept through merges and copies, written back by every export, so
a journal article imported from Zotero, JabRef or Mendeley leaves as a journal article."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from pathlib import Path

import pytest

from catalog.export import bibtex, csljson, ris
from catalog.library import Catalog
from catalog.results import ExportPaper

DATA = Path(__file__).resolve().parent / "data"
LIBRARIES = DATA / "libraries"

JMLR = "@article{a1, title={Deep Learning}, author={Doe, J.}, year={2020}, journal={JMLR}}\n"


def kinds(catalog: Catalog, query: str = "") -> dict[str, str | None]:
    return {p.citation_title: p.kind for p in catalog.exchange.export_papers(query)}


def export(catalog: Catalog, fmt: str, query: str = "") -> str:
    out = io.StringIO()
    catalog.exchange.export(query, fmt, stream=out)
    return out.getvalue()


def paper(kind: str | None, venue: str | None = "JMLR", **extra) -> ExportPaper:
    values = dict(key="k1", fingerprint="f", title="Deep Learning", headline="", user_title=None,
                  authors="J. Doe", venue=venue, year=2020, status="unread", rating=None, tags=(),
                  notes=(), doi=None, arxiv_id=None, url=None, abstract="", added_at=datetime(2024, 1, 1),
                  kind=kind)
    values.update(extra)
    return ExportPaper(**values)


# --- the report that started it ------------------------------------------------------------------

def test_a_journal_article_leaves_as_a_journal_article(empty_catalog, tmp_path):
    (tmp_path / "lib.bib").write_text(JMLR)
    assert empty_catalog.import_paths([tmp_path / "lib.bib"]).errors == []
    out = export(empty_catalog, "bibtex", "year:2020")
    assert out.startswith("@article{") and "journal = {JMLR}" in out
    assert "booktitle" not in out and "JMLR 2020" not in out and "year = 2020" in out
    lines = export(empty_catalog, "ris").splitlines()
    assert "TY  - JOUR" in lines and "JO  - JMLR" in lines and "CPAPER" not in "\n".join(lines)
    assert json.loads(export(empty_catalog, "csljson"))[0]["type"] == "article-journal"


# --- import: each format's own names --------------------------------------------------------------

def test_ris_types(empty_catalog):
    empty_catalog.import_paths([LIBRARIES / "library.ris"])
    assert kinds(empty_catalog) == {
        "Sleep deprivation and working memory in adolescents": "article",
        "Reducing the dimensionality of data with neural networks": "conference",
        "Global report on physical activity": "report",
        "Attention is all you need": "preprint",  # UNPB with an arXiv link
        "Nobody (2001)": "article",  # no title: named by its author and year
    }


def test_zotero_csv_item_types(empty_catalog):
    empty_catalog.import_paths([LIBRARIES / "zotero-library.csv"])
    with open(LIBRARIES / "zotero-library.csv", encoding="utf-8-sig") as f:
        given = {row["Title"]: row["Item Type"] for row in csv.DictReader(f)}
    named = {"journalArticle": "article", "report": "report", "conferencePaper": "conference",
             "preprint": "preprint"}
    found = kinds(empty_catalog)
    assert {t: found.get(t) for t in given} == {t: named[v] for t, v in given.items()}


def test_csl_json_types(empty_catalog):
    empty_catalog.import_paths([DATA / "zotero.json", LIBRARIES / "generic.json"])
    found = kinds(empty_catalog)
    assert found["Home"] is None  # webpage
    assert found["Deep residual learning for image recognition"] == "conference"
    assert found["Adam: A Method for Stochastic Optimization"] == "preprint"  # `article` + arXiv number
    assert {found[t] for t in found if t.lower() == "human memory"} == {"chapter"}
    assert {found[t] for t in found if t.lower() == "exercise and mental health"} == {"article"}
    assert {found[t] for t in found if t.lower() == "pattern classification"} == {"book"}


def test_bibtex_entry_types(empty_catalog, tmp_path):
    path = tmp_path / "types.bib"
    path.write_text("""
@Article{j, title={A journal paper}, journal={Nature}, year=2001}
@InProceedings{c, title={A conference paper}, booktitle={Proceedings of SIGIR}, year=2002}
@conference{c2, title={An old style conference paper}, booktitle={KDD}, year=2002}
@incollection{ch, title={A chapter}, booktitle={A Handbook}, year=2003}
@inbook{ch2, title={Another chapter}, booktitle={A Handbook}, year=2003}
@book{b, title={A book}, publisher={Springer}, year=2004}
@phdthesis{t, title={A thesis}, school={MIT}, year=2005}
@mastersthesis{t2, title={A master's thesis}, school={MIT}, year=2005}
@techreport{r, title={A report}, institution={RAND}, year=2006}
@misc{p, title={A preprint}, eprint={2101.00001}, archiveprefix={arXiv}, year=2021}
@online{p2, title={An online preprint}, eprint={2101.00002}, eprinttype={arxiv}, year=2021}
@article{p3, title={A CoRR paper}, journal={CoRR}, volume={abs/2101.00003}, year=2021}
@misc{m, title={A web page}, howpublished={\\url{https://example.org}}, year=2007}
@patent{u, title={A patent}, year=2008}
""")
    report = empty_catalog.import_paths([path])
    assert (report.errors, report.warnings) == ([], [])
    assert kinds(empty_catalog) == {
        "A journal paper": "article", "A conference paper": "conference",
        "An old style conference paper": "conference", "A chapter": "chapter",
        "Another chapter": "chapter", "A book": "book", "A thesis": "thesis",
        "A master's thesis": "masters", "A report": "report", "A preprint": "preprint",
        "An online preprint": "preprint", "A CoRR paper": "preprint",
        "A web page": None, "A patent": None,
    }


def test_jabref_and_mendeley_libraries(empty_catalog):
    empty_catalog.import_paths([LIBRARIES / "jabref.bib", LIBRARIES / "mendeley.bib"])
    found = kinds(empty_catalog)
    assert found["Dust grains in cold molecular clouds"] == "article"
    assert found["Ranking search results with click data"] == "conference"
    assert found["Introduction to soil science"] == "book"


def test_a_kind_or_type_column_in_csv_and_json(empty_catalog, tmp_path):
    (tmp_path / "list.csv").write_text("title,kind\nFirst paper,article\nSecond paper,thesis\n"
                                       "Third paper,poem\n")
    (tmp_path / "list.jsonl").write_text(
        json.dumps({"title": "Fourth paper", "type": "paper-conference"}) + "\n"
        + json.dumps({"title": "Fifth paper", "type": "article"}) + "\n"  # CSL: not known without arXiv
        + json.dumps({"title": "Sixth paper", "type": "article", "arxiv": "2101.00009"}) + "\n")
    report = empty_catalog.import_paths([tmp_path / "list.csv", tmp_path / "list.jsonl"])
    assert (report.errors, report.warnings) == ([], [])
    assert kinds(empty_catalog) == {"First paper": "article", "Second paper": "thesis", "Third paper": None,
                                    "Fourth paper": "conference", "Fifth paper": None,
                                    "Sixth paper": "preprint"}


def test_paper_lists_say_nothing(seeded):
    assert set(kinds(seeded).values()) == {None}


# --- merges ---------------------------------------------------------------------------------

def test_a_known_kind_is_kept_and_a_missing_one_filled(empty_catalog, tmp_path):
    abstract = "We study deep learning on many benchmarks and report results on twelve of them today."
    (tmp_path / "list.txt").write_text(f"ICML 2020\n\n{abstract}\n")
    (tmp_path / "lib.bib").write_text(
        f"@article{{a, title={{Deep Learning}}, journal={{JMLR}}, year=2020, abstract={{{abstract}}}}}\n"
        "@article{b, title={Other}, journal={JMLR}, year=2020}\n")
    (tmp_path / "later.csv").write_text("title,journal,year\nOther,JMLR,2020\n")
    empty_catalog.import_paths([tmp_path / "list.txt"])
    assert list(kinds(empty_catalog).values()) == [None]
    empty_catalog.import_paths([tmp_path / "lib.bib", tmp_path / "later.csv"])
    assert sorted(kinds(empty_catalog).values()) == ["article", "article"]
    # A paper list naming the paper again adds nothing and takes nothing away.
    (tmp_path / "again.txt").write_text(f"NeurIPS 2021\n\n{abstract}\n")
    empty_catalog.import_paths([tmp_path / "again.txt"])
    assert sorted(kinds(empty_catalog).values()) == ["article", "article"]


def test_split_gives_the_kind_back_to_the_record_that_brought_it(empty_catalog, tmp_path):
    abstract = "We study deep learning on many benchmarks and report results on twelve of them today."
    (tmp_path / "list.txt").write_text(f"ICML 2020\n\n{abstract}\n")
    (tmp_path / "lib.bib").write_text(
        f"@article{{a, title={{Deep Learning}}, journal={{JMLR}}, year=2020, abstract={{{abstract}}}}}\n")
    empty_catalog.import_paths([tmp_path / "list.txt"])
    empty_catalog.import_paths([tmp_path / "lib.bib"])
    (key,) = [p.key for p in empty_catalog.exchange.export_papers("")]
    empty_catalog.split(key)
    assert sorted((p.key == key, p.kind) for p in empty_catalog.exchange.export_papers("")) == [
        (False, "article"), (True, None)]


def test_copy_carries_the_kind(empty_catalog, tmp_path):
    (tmp_path / "lib.bib").write_text(JMLR)
    empty_catalog.import_paths([tmp_path / "lib.bib"])
    empty_catalog.admin.copy_to(tmp_path / "copy.db")
    copied = Catalog.open(tmp_path / "copy.db")
    try:
        assert kinds(copied) == {"Deep Learning": "article"}
    finally:
        copied.close()


def test_both_backends_store_and_export_it(empty_any, tmp_path):
    (tmp_path / "lib.bib").write_text(JMLR + "@phdthesis{t, title={A thesis}, school={MIT}, year=2005}\n")
    empty_any.import_paths([tmp_path / "lib.bib"])
    assert kinds(empty_any) == {"Deep Learning": "article", "A thesis": "thesis"}
    assert "@phdthesis{" in export(empty_any, "bibtex")
    names, rows = empty_any.store.run_sql("SELECT kind FROM papers ORDER BY kind")
    assert (names, [tuple(r) for r in rows]) == (["kind"], [("article",), ("thesis",)])


# --- export: each kind in each format ---------------------------------------------------------------

BIBTEX = {
    "article": ("article", "journal = {JMLR}"),
    "conference": ("inproceedings", "booktitle = {JMLR 2020}"),
    "chapter": ("incollection", "booktitle = {JMLR}"),
    "book": ("book", "series = {JMLR}"),
    "thesis": ("phdthesis", "school = {JMLR}"),
    "masters": ("mastersthesis", "school = {JMLR}"),
    "report": ("techreport", "institution = {JMLR}"),
    "preprint": ("misc", "eprint = {2001.00001}"),
}


@pytest.mark.parametrize("kind", BIBTEX)
def test_bibtex_entry_type_for_each_kind(kind):
    out = io.StringIO()
    bibtex.write([paper(kind, arxiv_id="2001.00001" if kind == "preprint" else None)], out)
    entry_type, field = BIBTEX[kind]
    assert out.getvalue().startswith(f"@{entry_type}{{") and field in out.getvalue()
    assert ("JMLR 2020" in out.getvalue()) == (kind == "conference")


RIS = {"article": ("JOUR", "JO  - JMLR"), "conference": ("CPAPER", "T2  - JMLR 2020"),
       "chapter": ("CHAP", "T2  - JMLR"), "book": ("BOOK", "T2  - JMLR"),
       "thesis": ("THES", "T2  - JMLR"), "masters": ("THES", "M3  - Master's thesis"),
       "report": ("RPRT", "T2  - JMLR"),
       "preprint": ("UNPB", "T2  - JMLR")}


@pytest.mark.parametrize("kind", RIS)
def test_ris_type_for_each_kind(kind):
    out = io.StringIO()
    ris.write([paper(kind)], out)
    lines = out.getvalue().splitlines()
    assert lines[0] == f"TY  - {RIS[kind][0]}" and RIS[kind][1] in lines


CSL = {"article": "article-journal", "conference": "paper-conference", "chapter": "chapter",
       "book": "book", "thesis": "thesis", "masters": "thesis", "report": "report",
       "preprint": "article"}


@pytest.mark.parametrize("kind", CSL)
def test_csl_type_for_each_kind(kind):
    out = io.StringIO()
    csljson.write([paper(kind)], out)
    item = json.loads(out.getvalue())[0]
    assert (item["type"], item["container-title"]) == (CSL[kind], "JMLR")


def test_every_kind_parses_strictly_and_validates():
    """pybtex in strict mode reads every entry type; every CSL item is valid CSL 1.0.2."""
    import jsonschema
    import pybtex.errors
    from pybtex.database import parse_string

    papers = [paper(kind, key=f"k{i}", title=f"Paper {i}", arxiv_id="2001.00001" if kind == "preprint" else None)
              for i, kind in enumerate(BIBTEX)]
    out = io.StringIO()
    bibtex.write(papers, out)
    pybtex.errors.set_strict_mode(True)
    try:
        entries = parse_string(out.getvalue(), "bibtex").entries
    finally:
        pybtex.errors.set_strict_mode(False)
    assert [e.type for e in entries.values()] == [t for t, _ in BIBTEX.values()]
    out = io.StringIO()
    csljson.write(papers, out)
    items = json.loads(out.getvalue())
    jsonschema.validate(items, json.loads((DATA / "csl-data.schema.json").read_text()))
    assert [i["type"] for i in items] == list(CSL.values())


def test_without_a_kind_exports_are_as_before():
    """A paper of a paper list: @inproceedings with "VENUE YEAR", or @misc for arXiv."""
    out = io.StringIO()
    bibtex.write([paper(None), paper(None, venue="arXiv", key="k2", arxiv_id="2001.00001")], out)
    assert out.getvalue().startswith("@inproceedings{") and "booktitle = {JMLR 2020}" in out.getvalue()
    assert "@misc{" in out.getvalue()
    out = io.StringIO()
    ris.write([paper(None)], out)
    assert out.getvalue().startswith("TY  - CPAPER") and "T2  - JMLR 2020" in out.getvalue()


def test_csv_and_jsonl_have_the_kind_column(empty_catalog, tmp_path):
    (tmp_path / "lib.bib").write_text(JMLR)
    empty_catalog.import_paths([tmp_path / "lib.bib"])
    assert next(csv.DictReader(io.StringIO(export(empty_catalog, "csv"))))["kind"] == "article"
    assert json.loads(export(empty_catalog, "jsonl"))["kind"] == "article"


# --- catalog show ------------------------------------------------------------------------------

def test_show_names_the_kind(run_cli, tmp_path):
    (tmp_path / "lib.bib").write_text(JMLR)
    run_cli("import", str(tmp_path / "lib.bib"))
    key = json.loads(run_cli("export", "-f", "jsonl").stdout)["key"]
    shown = run_cli("show", key).stdout
    assert "Type: journal article" in shown.splitlines()
    assert json.loads(run_cli("show", key, "--json").stdout)["kind"] == "article"


MASTERS = {
    "bib": "@mastersthesis{t, title={A master's thesis}, school={MIT}, year=2005}\n"
           "@thesis{u, title={A biblatex one}, type={mathesis}, institution={ETH}, year=2006}\n"
           "@phdthesis{v, title={A doctoral one}, school={MIT}, year=2007}\n",
    "ris": "TY  - THES\nTI  - A master's thesis\nM3  - Master's thesis\nPY  - 2005\nER  - \n\n"
           "TY  - THES\nTI  - A doctoral one\nM3  - Ph.D. thesis\nPY  - 2007\nER  - \n",
    "json": json.dumps([{"type": "thesis", "title": "A master's thesis", "genre": "MSc thesis",
                         "issued": {"date-parts": [[2005]]}},
                        {"type": "thesis", "title": "A doctoral one", "genre": "PhD thesis",
                         "issued": {"date-parts": [[2007]]}}]),
}


@pytest.mark.parametrize("suffix", MASTERS)
def test_a_masters_thesis_stays_one_through_import_and_export(empty_catalog, tmp_path, suffix):
    """A master's thesis came back as @phdthesis: BibTeX's @mastersthesis (biblatex's type
    field, RIS's M3, CSL's genre) is kept apart from a doctoral thesis, and written back."""
    path = tmp_path / f"theses.{suffix}"
    path.write_text(MASTERS[suffix])
    assert empty_catalog.import_paths([path]).errors == []
    found = kinds(empty_catalog)
    assert found.pop("A doctoral one") == "thesis"
    assert set(found.values()) == {"masters"}
    bib = export(empty_catalog, "bibtex", "master")
    assert bib.startswith("@mastersthesis{") and "@phdthesis" not in bib
    assert "@phdthesis{" in export(empty_catalog, "bibtex", "doctoral")
    assert "M3  - Master's thesis" in export(empty_catalog, "ris", "master").splitlines()
    items = json.loads(export(empty_catalog, "csljson", "master"))
    # A CSL item keeps its genre as written ("MSc thesis"); another format's gets CSL's name.
    assert {(i["type"], i["genre"]) for i in items} == {("thesis", "MSc thesis" if suffix == "json" else "Master's thesis")}
    again = tmp_path / "again.bib"  # and back again: still a master's thesis
    again.write_text(bib)
    other = Catalog.open(tmp_path / "other.db")
    try:
        other.import_paths([again])
        assert set(kinds(other).values()) == {"masters"}
    finally:
        other.close()
