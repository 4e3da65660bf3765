"""Every field a user imported is kept (issue 29): each record of a BibTeX, RIS, CSL-JSON or
CSV file is stored as its file wrote it, `catalog show` and the `paper_fields` view list its
fields, keywords become tags, and an export in the same format writes the record back, field
by field, after the normalisation docs/formats.md describes."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest

from catalog.ingest.bibtex import read_bibtex
from catalog.ingest.jsonfile import read_json
from catalog.ingest.ris import read_ris
from catalog.library import Catalog

DATA = Path(__file__).resolve().parent / "data"
LIBRARIES = DATA / "libraries"


def _round_trip(catalog: Catalog, source: Path, fmt: str, suffix: str, tmp_path: Path) -> Path:
    report = catalog.import_paths([source])
    assert report.errors == []
    exported = tmp_path / f"export{suffix}"
    catalog.exchange.export("", fmt, exported)
    return exported


def _bibtex_entries(path: Path) -> dict[str, tuple]:
    """Each entry as the catalog reads it (the file's @string macros expanded, crossref
    resolved): entry type and fields, by cite key."""
    return {r.kept.cite_key: (r.kept.entry_type, [tuple(f) for f in r.kept.fields])
            for r in read_bibtex(path).records}


@pytest.mark.parametrize("name", ["libraries/cdl-sample.bib", "libraries/jabref.bib", "zotero.bib",
                                  "scholar.bib", "libraries/arxiv-forms.bib",
                                  # real exports (libraries/SOURCE.toml): Zotero through Better
                                  # BibTeX, biblatex's own examples
                                  "libraries/bbt-zotero.bib", "libraries/biblatex-examples.bib",
                                  # JabRef's example library and its test library (groups, @Comment metadata)
                                  "libraries/jabref-chocolate.bib", "libraries/jabref-complex.bib"])
def test_a_bibtex_library_comes_back_field_by_field(empty_catalog, tmp_path, name):
    source = DATA / name
    exported = _round_trip(empty_catalog, source, "bibtex", ".bib", tmp_path)
    before, after = _bibtex_entries(source), _bibtex_entries(exported)
    assert after == before


def test_fields_a_catalog_used_to_drop_are_written_as_the_file_had_them(empty_catalog, tmp_path):
    text = _round_trip(empty_catalog, LIBRARIES / "cdl-sample.bib", "bibtex", ".bib", tmp_path).read_text()
    entry = _lines(text[text.index("@article{AntoEtal24,"):].split("\n}\n")[0])
    for written in ("journal = {Journal of Cognitive Neuroscience}", "number = 11", "pages = {2368--2385}",
                    "volume = 36", "year = 2024"):
        assert written in entry, written
    book = _lines(text[text.index("@book{Thor13,"):].split("\n}\n")[0])
    assert "publisher = {Teachers College, Columbia {University}}" in book


def _lines(entry: str) -> list[str]:
    return [line.strip().removesuffix(",") for line in entry.splitlines()]


def test_a_month_macro_stays_a_macro_and_a_long_journal_name_stays_long(empty_catalog, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text("@string{pre = \"Proceedings of \"}\n"
                      "@article{lee2020memory,\n  title = {Memory and sleep},\n  author = {Lee, Ann},\n"
                      "  journal = {Journal of Machine Learning Research},\n  month = jan # \"~1\",\n"
                      "  note = pre # jan,\n  isbn = {978-3-16-148410-0},\n  editor = {Kim, Bo},\n"
                      "  subtitle = {A review},\n  mendeley-groups = {Thesis/Ch1},\n  year = 2020\n}\n")
    text = _round_trip(empty_catalog, source, "bibtex", ".bib", tmp_path).read_text()
    lines = _lines(text)
    for written in ("journal = {Journal of Machine Learning Research}", 'month = jan # "~1"',
                    "note = {Proceedings of } # jan", "isbn = {978-3-16-148410-0}", "editor = {Kim, Bo}",
                    "subtitle = {A review}", "mendeley-groups = {Thesis/Ch1}"):
        assert written in lines, written
    assert text.startswith("@article{lee2020memory,")


@pytest.mark.parametrize("name", ["library.ris", "scopus-sciencedirect.ris"])  # the second: real exports
def test_a_ris_library_comes_back_tag_by_tag(empty_catalog, tmp_path, name):
    source = LIBRARIES / name
    exported = _round_trip(empty_catalog, source, "ris", ".ris", tmp_path)
    before = {r.kept.fields[0][1] + r.kept.fields[1][1]: r.kept for r in read_ris(source).records}
    after = {r.kept.fields[0][1] + r.kept.fields[1][1]: r.kept for r in read_ris(exported).records}
    assert after.keys() == before.keys()
    for name, kept in before.items():
        # The export adds the record's cite key (ID); nothing else changes.
        assert after[name].entry_type == kept.entry_type
        assert [f for f in after[name].fields if f[0] != "ID"] == kept.fields


def test_a_csl_json_library_comes_back_item_by_item(empty_catalog, tmp_path):
    source = DATA / "zotero.json"
    exported = _round_trip(empty_catalog, source, "csljson", ".json", tmp_path)
    before = {r.title: dict(r.kept.fields) for r in read_json(source).records}
    after = {r.title: dict(r.kept.fields) for r in read_json(exported).records}
    assert after.keys() == before.keys()
    for title, item in before.items():
        # Zotero's item URIs are not cite keys: the export names each item by one.
        mine = {k: v for k, v in after[title].items() if k != "id"}
        theirs = {k: v for k, v in item.items() if k != "id"}
        assert mine == theirs


def test_keywords_become_tags_and_go_back_as_written(empty_catalog, tmp_path):
    exported = _round_trip(empty_catalog, LIBRARIES / "library.ris", "ris", ".ris", tmp_path)
    paper = empty_catalog.exchange.export_papers("working memory adolescents")[0]
    assert set(paper.tags) == {"sleep", "memory"}
    assert "KW  - sleep\nKW  - memory\n" in exported.read_text()
    empty_catalog.tag([paper.key], ["thesis"])
    again = tmp_path / "again.ris"
    empty_catalog.exchange.export("working memory adolescents", "ris", again)
    assert {line for line in again.read_text().splitlines() if line.startswith("KW")} == {
        "KW  - memory", "KW  - sleep", "KW  - thesis"}


def test_a_bibtex_keyword_with_spaces_is_one_tag(empty_catalog, tmp_path):
    source = tmp_path / "refs.bib"
    source.write_text("@article{a1,\n  title = {Sparse codes},\n  keywords = {machine learning, {V1}; vision},\n"
                      "  year = 2020\n}\n")
    empty_catalog.import_paths([source])
    assert set(empty_catalog.exchange.export_papers("")[0].tags) == {"machine-learning", "V1", "vision"}
    out = io.StringIO()
    empty_catalog.exchange.export("", "bibtex", stream=out)
    assert "keywords = {machine learning, {V1}; vision}" in _lines(out.getvalue())


def test_show_and_sql_list_every_field(empty_catalog, tmp_path):
    empty_catalog.import_paths([LIBRARIES / "cdl-sample.bib"])
    key = empty_catalog.exchange.export_papers("polygonal approximation plane curves")[0].key
    detail = empty_catalog.get(key)
    (record,) = detail.records
    assert (record.format, record.entry_type, record.cite_key) == ("bibtex", "article", "Rame72")
    assert record.values("pages") == ["244--256"] and record.values("Number") == ["3"]
    assert detail.as_json()["records"][0]["fields"][0] == ["author", "U Ramer"]
    conn = sqlite3.connect(empty_catalog.path)
    try:
        rows = conn.execute("SELECT name, value FROM paper_fields WHERE key = ? ORDER BY n", (key,)).fetchall()
    finally:
        conn.close()
    assert rows[:3] == [("author", "U Ramer"), ("journal", "Computer Graphics and Image Processing"),
                        ("number", "3")]


def test_the_cli_shows_the_fields(tmp_path):
    from click.testing import CliRunner

    from catalog.cli import main

    db = str(tmp_path / "c.db")
    runner = CliRunner()
    assert runner.invoke(main, ["--db", db, "import", str(LIBRARIES / "cdl-sample.bib")]).exit_code == 0
    key = json.loads(runner.invoke(main, ["--db", db, "search", "polygonal approximation", "--json"]).output)
    result = runner.invoke(main, ["--db", db, "show", key["papers"][0]["key"]])
    assert result.exit_code == 0, result.output
    assert "pages = 244--256" in result.output and "(article Rame72)" in result.output


def test_kept_records_travel_with_a_copy(tmp_path):
    catalog = Catalog.open(tmp_path / "a.db")
    try:
        catalog.import_paths([LIBRARIES / "library.ris"])
        counts = catalog.admin.copy_to(str(tmp_path / "b.db"))
    finally:
        catalog.close()
    assert counts["kept_record"] == 5  # the record of only an author and a year too
    copy = Catalog.open(tmp_path / "b.db")
    try:
        assert all(p.records for p in copy.exchange.export_papers(""))
    finally:
        copy.close()


# --- cite keys are the user's ------------------------------------------------------------------

def test_a_cite_key_finds_its_paper_and_stays_through_merges(empty_any, tmp_path):
    """`citekey:` and the cite key typed as the whole query find the paper, on both backends;
    a record that merges in later keeps its own key findable, and the paper's key does not move."""
    catalog = empty_any
    catalog.import_paths([LIBRARIES / "cdl-sample.bib"])
    (hit,) = catalog.search("citekey:rame72", snippets=False)
    assert "polygonal" in hit.title
    assert catalog.search("Rame72", snippets=False)[0].key == hit.key
    assert catalog.search("DBLP:conf/none/x2020", snippets=False) == []
    again = tmp_path / "again.bib"
    again.write_text("@article{ramer1972polygon,\n  title = {An iterative procedure for the polygonal"
                     " approximation of plane curves},\n  author = {Ramer, Urs},\n  year = 1972,\n"
                     "  doi = {10.1016/S0146-664X(72)80017-0}\n}\n")
    report = catalog.import_paths([again])
    assert (report.new, report.known) == (0, 1)
    assert [p.key for p in catalog.search("citekey:ramer1972polygon", snippets=False)] == [hit.key]
    out = io.StringIO()
    catalog.exchange.export(f"key:{hit.key}", "bibtex", stream=out)
    assert out.getvalue().startswith("@article{Rame72,")


def test_a_papers_own_cite_key_is_bibtexs_then_a_citable_id_of_another_file():
    from catalog.ingest.citekeys import FileKey, own_key

    # BibTeX's key wins over an older CSL-JSON id; among the others, the oldest citable one.
    assert own_key([FileKey("csl-json", "smith-2020"), FileKey("bibtex", "Smith20")]) == "Smith20"
    assert own_key([FileKey("ris", "smith-ris"), FileKey("csl-json", "smith-csl")]) == "smith-ris"
    # A bare number is a key only in BibTeX; a link or a key with a space is none.
    assert own_key([FileKey("ris", "1137631")]) is None
    assert own_key([FileKey("ris", "1137631"), FileKey("bibtex", "1137631")]) == "1137631"
    assert own_key([FileKey("csl-json", "http://zotero.org/users/1/items/AB"), FileKey("ris", "a b")]) is None
    assert own_key([FileKey("bibtex", None), FileKey("csl-json", "kept")]) == "kept"
    assert own_key([]) is None


def test_a_paper_without_a_key_gets_one_once(empty_catalog, tmp_path):
    source = tmp_path / "papers.json"
    source.write_text(json.dumps([{"title": "Attention is all you need", "author": "Ashish Vaswani and Noam Shazeer",
                                   "year": 2017, "abstract": "The dominant sequence transduction models."}]))
    empty_catalog.import_paths([source])
    paper = empty_catalog.exchange.export_papers("")[0]
    assert paper.cite_key == "vaswani2017attention"
    empty_catalog.set_title(paper.key, "Transformers")
    assert empty_catalog.exchange.export_papers("")[0].cite_key == "vaswani2017attention"


def test_citekey_regen_lists_every_change_and_keeps_file_keys(tmp_path):
    from click.testing import CliRunner

    from catalog.cli import main

    source = tmp_path / "papers.json"
    source.write_text(json.dumps([
        {"title": "Attention is all you need", "author": "Ashish Vaswani", "year": 2017, "abstract": "a b c"},
        {"id": "mine2019", "type": "article-journal", "title": "Sleep", "author": [{"family": "Lee", "given": "A"}],
         "issued": {"date-parts": [[2019]]}, "abstract": "d e f"}]))
    db = str(tmp_path / "c.db")
    runner = CliRunner()
    assert runner.invoke(main, ["--db", db, "import", str(source)]).exit_code == 0
    bad = runner.invoke(main, ["--db", db, "citekey", "pattern", "year+nonsense"])
    assert bad.exit_code == 1 and "auth.lower" in bad.output
    assert runner.invoke(main, ["--db", db, "citekey", "pattern", "auth+title3+year"]).output.strip() == \
        "auth+title3+year"
    result = runner.invoke(main, ["--db", db, "citekey", "regen"])
    assert result.exit_code == 0
    lines = [line for line in result.output.splitlines() if "->" in line]
    assert len(lines) == 1 and lines[0].endswith("vaswani2017attention -> VaswaniAttentionAllYou2017")
    assert "1 cite key changed" in result.output
    again = runner.invoke(main, ["--db", db, "citekey", "regen"])
    assert "0 cite keys changed" in again.output


# --- smaller losses ------------------------------------------------------------------------------

def test_a_ris_file_ending_inside_a_record_imports_it_and_says_so(empty_catalog, tmp_path):
    source = tmp_path / "cut.ris"
    source.write_text("TY  - JOUR\nTI  - First paper\nAB  - Something about it.\nER  - \n\n"
                      "TY  - JOUR\nTI  - Second paper without its end\nAB  - Another thing.\n")
    report = empty_catalog.import_paths([source])
    assert report.new == 2
    assert report.warnings == [f"{source}:6: the last record has no 'ER  -' line (the file ends inside it);"
                               " it is imported as far as it goes"]


def test_arxiv_ids_in_the_places_scholar_and_others_put_them(tmp_path):
    source = tmp_path / "forms.bib"
    source.write_text(
        "@article{a, title = {A}, journal = {arXiv}, volume = {1810.04805}, year = 2018}\n"
        "@article{b, title = {B}, journal = {arXiv}, number = {1706.03762}, year = 2017}\n"
        "@article{c, title = {C}, journal = {CoRR}, pages = {arXiv:1409.0473}, year = 2014}\n"
        "@article{d, title = {D}, journal = {arXiv preprint hep-th/9901001}, year = 1999}\n"
        "@article{e, title = {E}, journal = {Nature}, volume = {1810.04805}, year = 2018}\n")
    found = {r.title: r.arxiv_id for r in read_bibtex(source).records}
    assert found == {"A": "1810.04805", "B": "1706.03762", "C": "1409.0473", "D": "hep-th/9901001", "E": None}


def test_kept_fields_lose_control_characters_on_the_way_in(empty_catalog, tmp_path):
    source = tmp_path / "evil.ris"
    source.write_text("TY  - JOUR\nTI  - A title\nAB  - An abstract.\nN1  - clear \x1b[2J screen\x07\nER  - \n")
    empty_catalog.import_paths([source])
    out = io.StringIO()
    empty_catalog.exchange.export("", "ris", stream=out)
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert "N1  - clear screen" in out.getvalue()


def test_a_split_off_paper_takes_its_own_cite_key_authors_and_fields(empty_catalog, tmp_path):
    source = tmp_path / "two.bib"
    source.write_text("@article{lee2020a,\n  title = {Memory and sleep},\n  author = {Lee, Ann},\n"
                      "  doi = {10.1000/x1},\n  year = 2020\n}\n"
                      "@article{kim2021b,\n  title = {Memory and sleep},\n  author = {Kim, Bo},\n"
                      "  doi = {10.1000/x1},\n  pages = {1--9},\n  year = 2021\n}\n")
    empty_catalog.import_paths([source])
    (paper,) = empty_catalog.exchange.export_papers("")
    result = empty_catalog.split(paper.key)
    (new,) = result.split_off
    split_off = empty_catalog.exchange.export_papers(f"key:{new.key}")[0]
    assert split_off.cite_key == "kim2021b" and split_off.records[0].values("pages") == ["1--9"]
    assert [p.key for p in empty_catalog.search("author:kim", snippets=False)] == [new.key]
    assert [p.key for p in empty_catalog.search("author:lee", snippets=False)] == [paper.key]
