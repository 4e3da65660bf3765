"""Libraries as other tools write them (issue 17): nothing is lost or merged by mistake, and each
field comes through as the file says. The fixtures in tests/data/libraries are made up in the
shapes JabRef, Mendeley, Zotero, DBLP, Semantic Scholar and d2l's bibliography write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.ingest import fields

LIBRARIES = Path(__file__).resolve().parent / "data" / "libraries"


def papers(catalog) -> list:
    return catalog.exchange.export_papers("")


def titled(catalog) -> dict:
    out: dict = {}
    for p in papers(catalog):
        out.setdefault(p.title, []).append(p)
    return out


def write_bib(tmp_path: Path, text: str, name: str = "refs.bib") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- 1. placeholder abstracts are no evidence; different DOIs never merge -------------------------

def test_placeholder_abstracts_do_not_merge_different_papers(empty_catalog):
    report = empty_catalog.import_paths([LIBRARIES / "jabref.bib"])
    assert report.errors == []
    by_title = titled(empty_catalog)
    # Five "Not Available" papers with five DOIs, two "Keywords", two "Details of the
    # publication", two sharing a long boilerplate sentence: each its own paper.
    for title in ("Dust grains in cold molecular clouds", "Stellar winds of hot massive stars",
                  "Magnetic fields in spiral galaxies", "Accretion disks around young stars",
                  "Radio emission from pulsars", "Ranking search results with click data",
                  "Query expansion for short texts", "Introduction to soil science",
                  "Principles of hydrology", "Coastal erosion after storms",
                  "Sediment transport in estuaries"):
        assert len(by_title.get(title, [])) == 1, title
    dois = {p.doi for p in papers(empty_catalog) if p.doi}
    assert len(dois) == 5


def test_a_placeholder_abstract_in_a_later_file_finds_no_paper(empty_catalog, tmp_path):
    empty_catalog.import_paths([LIBRARIES / "jabref.bib"])
    before = len(papers(empty_catalog))
    later = write_bib(tmp_path, "@article{x, title = {Ice on Europa}, doi = {10.1000/europa},\n"
                                "  abstract = {Not Available}}\n"
                                "@article{y, title = {Dust on Mars}, abstract = {Not Available}}\n")
    report = empty_catalog.import_paths([later])
    assert (report.new, report.known) == (2, 0)
    assert len(papers(empty_catalog)) == before + 2


def test_different_dois_stay_apart_even_with_one_real_abstract(empty_catalog, tmp_path):
    abstract = ("We measure the thermal conductivity of thin copper films between ten and three "
                "hundred kelvin and compare it with the bulk value.")
    path = write_bib(tmp_path, f"@article{{a, title = {{Copper films}}, doi = {{10.1000/a}}, abstract = {{{abstract}}}}}\n"
                               f"@article{{b, title = {{Copper films}}, doi = {{10.1000/b}}, abstract = {{{abstract}}}}}\n")
    assert empty_catalog.import_paths([path]).new == 2


def test_a_real_abstract_still_merges(empty_catalog, tmp_path):
    abstract = ("We measure the thermal conductivity of thin copper films between ten and three "
                "hundred kelvin and compare it with the bulk value.")
    (tmp_path / "list.txt").write_text(f"ICML 2024 Papers\n\n{abstract}\n")
    path = write_bib(tmp_path, f"@article{{a, title = {{Copper films}}, author = {{Ng, Ada}}, abstract = {{{abstract}}}}}\n")
    empty_catalog.import_paths([tmp_path / "list.txt"])
    report = empty_catalog.import_paths([path])
    assert (report.new, report.known) == (0, 1)
    [paper] = papers(empty_catalog)
    assert (paper.title, paper.venue, paper.authors) == ("Copper films", "ICML", "Ada Ng")


# --- 2. a title alone merges only when nothing contradicts it ----------------------------------

def test_generic_titles_merge_only_without_contradictions(empty_catalog):
    report = empty_catalog.import_paths([LIBRARIES / "generic.json"])
    assert report.errors == []
    by_title = titled(empty_catalog)
    assert len(by_title["Home"]) == 4  # four web pages: four URLs
    assert sorted(p.year for p in by_title["Human memory"]) == [1992, 2000]
    assert sorted(p.year for p in by_title["Exercise and mental health"]
                  + by_title.get("Exercise and Mental Health", [])) == [1990, 2017]
    assert sorted(p.year for p in by_title["Pattern classification"]
                  + by_title.get("Pattern Classification", [])) == [1973, 2001]  # two editions
    # Nothing contradicts the two records of the Transformer paper: one paper.
    [attention] = by_title["Attention is all you need"]
    assert (attention.authors, attention.venue) == ("Ashish Vaswani", "NeurIPS")
    assert report.new == 11


def test_a_title_match_against_the_catalog_checks_for_contradictions(empty_catalog, tmp_path):
    empty_catalog.import_paths([LIBRARIES / "generic.json"])
    later = tmp_path / "later.json"
    later.write_text(json.dumps([
        {"title": "Human memory", "author": [{"family": "Tulving", "given": "Endel"}], "issued": {"date-parts": [[1985]]}},
        {"title": "Human Memory", "author": [{"family": "Craik", "given": "F."}], "issued": {"date-parts": [[1992]]},
         "abstract": "A chapter on how memory changes with age, covering encoding, retrieval and the role of attention."},
        {"title": "Home", "URL": "https://www.example-lab.org"},
    ]))
    report = empty_catalog.import_paths([later])
    assert (report.new, report.known) == (1, 2)
    craik = next(p for p in titled(empty_catalog)["Human memory"] if p.year == 1992)
    assert craik.abstract.startswith("A chapter on how memory changes")


# --- 3. cite keys need not be unique -------------------------------------------------------------

def test_empty_and_repeated_cite_keys_import_every_entry(empty_catalog):
    """Every entry is a paper; a cite key another paper has already gets a suffix, said once."""
    report = empty_catalog.import_paths([LIBRARIES / "mendeley.bib"])
    assert (report.new, report.errors) == (5, [])
    assert report.warnings == [f"{LIBRARIES / 'mendeley.bib'}:33: cite key 'Smith2019' is another paper's"
                               " already; this paper's is 'Smith2019-2'"]
    assert {p.title for p in papers(empty_catalog)} == {
        "Sleep deprivation and working memory in adolescents", "School exercise programmes and attention",
        "Coral bleaching across the Pacific", "River discharge from space", "Street trees and summer heat"}


# --- 5. Zotero CSV authors ----------------------------------------------------------------------------

def test_zotero_csv_authors_are_separated_by_semicolons(empty_catalog):
    report = empty_catalog.import_paths([LIBRARIES / "zotero-library.csv"])
    assert report.errors == []
    by_title = {p.title: p for p in papers(empty_catalog)}
    assert by_title["Sleep deprivation and working memory in adolescents"].authors == "Shane Burke"
    assert by_title["Night shifts and reaction time in nurses"].authors == "Shane Burke, Ann Smith"
    assert by_title["School health guidelines to promote healthy eating and physical activity"].authors == (
        "Centers for Disease Control and Prevention")


@pytest.mark.parametrize("raw, expected", [
    ("Burke, Shane", "Shane Burke"),
    ("Kingma, Diederik P.", "Diederik P. Kingma"),
    ("Ada Lovelace, Grace Hopper", "Ada Lovelace, Grace Hopper"),
])
def test_one_last_first_name_is_one_person(raw, expected):
    assert fields.any_authors(raw) == expected


# --- 6. crossref ---------------------------------------------------------------------------------------

def test_crossref_children_inherit_from_their_proceedings(empty_catalog):
    report = empty_catalog.import_paths([LIBRARIES / "dblp.bib"])
    assert report.errors == []
    by_title = {p.title: p for p in papers(empty_catalog)}
    adam = by_title["Adam: A Method for Stochastic Optimization"]
    assert (adam.venue, adam.year, adam.arxiv_id) == ("ICLR", 2015, "1412.6980")
    batchnorm = by_title["Batch Normalization: Accelerating Deep Network Training by Reducing Internal Covariate Shift"]
    assert (batchnorm.venue, batchnorm.year) == ("ICML", 2015)
    assert batchnorm.doi is None  # the volume's DOI is not the paper's


# --- 7. TeX logos ------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, shown", [
    (r"The {\TeX}book", "The TeXbook"),
    (r"\LaTeX: A Document Preparation System", "LaTeX: A Document Preparation System"),
    (r"Using \LaTeX\ and Bib\TeX{} together", "Using LaTeX and BibTeX together"),
    (r"\XeLaTeX{} and \LuaTeX", "XeLaTeX and LuaTeX"),
])
def test_tex_logos_stay_in_titles(raw, shown):
    assert fields.tex_to_text(raw) == shown


def test_tex_logos_survive_import(empty_catalog):
    empty_catalog.import_paths([LIBRARIES / "jabref.bib"])
    found = {p.title for p in papers(empty_catalog)}
    assert {"The TeXbook", "LaTeX: A Document Preparation System"} <= found


# --- 8. arXiv ids wherever exports put them ----------------------------------------------------------

def test_arxiv_ids_in_journal_eprint_volume_and_urls(empty_catalog):
    report = empty_catalog.import_paths([LIBRARIES / "arxiv-forms.bib"])
    assert (report.new, report.errors) == (6, [])
    assert sorted(p.arxiv_id for p in papers(empty_catalog)) == [
        "1206.5538", "1409.0473", "1412.6980", "1706.03762", "1810.04805", "2005.14165"]
    assert {p.venue for p in papers(empty_catalog)} == {"arXiv"}


def test_the_same_preprint_from_two_files_merges_by_arxiv_id(empty_catalog):
    empty_catalog.import_paths([LIBRARIES / "arxiv-forms.bib"])
    report = empty_catalog.import_paths([LIBRARIES / "arxiv-ids.json"])
    assert (report.new, report.known) == (0, 6)


# --- 9. math and quotes in titles ------------------------------------------------------------------

@pytest.mark.parametrize("raw, shown", [
    (r"Viscosity of water at 25~$^\circ$C", "Viscosity of water at 25 °C"),
    (r"L$^\natural$-convex functions", "L♮-convex functions"),
    (r"``Excitons'' in layered semiconductors", "“Excitons” in layered semiconductors"),
    (r"A $^{13}$C study at 30$^{\circ}$C", "A ¹³C study at 30°C"),
])
def test_math_and_quotes_in_titles_render(raw, shown):
    assert fields.tex_to_text(raw) == shown


def test_abstracts_render_degrees_and_quotes_the_same_way():
    from catalog.text import tex

    assert tex.render(r"at 25~$^\circ$C, an ``exciton'' and L$^\natural$") == "at 25 °C, an “exciton” and L♮"


def test_rendered_titles_export_without_tex_escapes(empty_catalog):
    """A title read from BibTeX goes back as its entry wrote it: TeX intact, not escaped again."""
    import io

    empty_catalog.import_paths([LIBRARIES / "jabref.bib"])
    out = io.StringIO()
    empty_catalog.exchange.export("water", "bibtex", stream=out)
    assert r"title = {Viscosity of water at 25~$^\circ$C" in out.getvalue()
    assert "textasciicircum" not in out.getvalue()


# --- 10. @string concatenation keeps spaces --------------------------------------------------------

def test_string_macros_keep_their_trailing_space(empty_catalog):
    empty_catalog.import_paths([LIBRARIES / "jabref.bib"])
    ranking = next(p for p in papers(empty_catalog) if p.title == "Ranking search results with click data")
    assert ranking.venue == "Proceedings of the Conference on Information Retrieval"


# --- 11. one broken field does not lose the entry ----------------------------------------------------

def test_an_unbalanced_brace_in_another_field_recovers_the_entry(empty_catalog):
    report = empty_catalog.import_paths([LIBRARIES / "jabref.bib"])
    by_title = {p.title: p for p in papers(empty_catalog)}
    freight = by_title["Freight logistics in practice"]
    assert (freight.authors, freight.year) == ("Quentin Price", 2019)
    assert freight.abstract.startswith("A practical account of how freight moves")
    assert "A study after the broken entry" in by_title
    name = str(LIBRARIES / "jabref.bib")
    [warning] = [w for w in report.warnings if "Price2019" in w]
    assert warning.startswith(f"{name}:139: entry 'Price2019'") and "publisher" in warning
    assert "unbalanced" in warning


def test_an_entry_that_cannot_be_recovered_is_still_reported(tmp_path, empty_catalog):
    path = write_bib(tmp_path, "@article{ok, title = {Fine}}\n\n@article{bad,\n  title = {Broken {title},\n"
                               "  year = {2019}\n}\n")
    report = empty_catalog.import_paths([path])
    assert report.new == 1
    [warning] = report.warnings
    assert warning.startswith(f"{path}:3: entry 'bad' cannot be read") and "title" in warning


# --- 12. abstracts lose the file's line-wrap indentation --------------------------------------------

def test_abstracts_lose_line_wrap_indentation(empty_catalog):
    empty_catalog.import_paths([LIBRARIES / "jabref.bib"])
    excitons = next(p for p in papers(empty_catalog) if "Excitons" in (p.title or ""))
    assert excitons.abstract == ("We measure exciton binding energies in layered semiconductors with optical "
                                 "spectroscopy and find that screening by the substrate lowers them by a third.")
    assert "  " not in empty_catalog.get(excitons.key).abstract_text


def test_paragraph_breaks_in_abstracts_stay(tmp_path, empty_catalog):
    path = write_bib(tmp_path, "@article{p, title = {Two paragraphs},\n  abstract = {First paragraph\n"
                               "      goes on here.\n\n      Second paragraph.}}\n")
    empty_catalog.import_paths([path])
    [paper] = papers(empty_catalog)
    assert paper.abstract == "First paragraph goes on here.\n\nSecond paragraph."


# --- 14. RIS ------------------------------------------------------------------------------------------

def test_ris_import(empty_catalog):
    path = LIBRARIES / "library.ris"
    report = empty_catalog.import_paths([path])
    # Record 5 has only an author and a year: imported, shown by them (it used to be skipped).
    assert (report.new, report.errors, report.warnings) == (5, [], [])
    by_title = {p.title: p for p in papers(empty_catalog)}
    sleep = by_title["Sleep deprivation and working memory in adolescents"]
    assert (sleep.authors, sleep.venue, sleep.year, sleep.doi) == (
        "Shane Burke, Ann Smith", "Journal of Sleep Research", 2019, "10.1000/mendeley.1")
    assert sleep.abstract.startswith("We show that sleep deprivation")
    hinton = by_title["Reducing the dimensionality of data with neural networks"]
    assert (hinton.authors, hinton.venue, hinton.year, hinton.url) == (
        "Geoffrey E. Hinton, Ruslan Salakhutdinov", "NeurIPS", 2006, "https://example.org/hinton2006")
    assert hinton.abstract.startswith("High-dimensional data can be converted")
    who = by_title["Global report on physical activity"]
    assert (who.authors, who.year) == ("World Health Organization", 2022)
    attention = by_title["Attention is all you need"]
    assert (attention.arxiv_id, attention.url) == ("1706.03762", None)


def test_ris_entries_merge_with_other_formats(empty_catalog):
    empty_catalog.import_paths([LIBRARIES / "mendeley.bib"])
    report = empty_catalog.import_paths([LIBRARIES / "library.ris"])
    assert (report.new, report.known) == (4, 1)


def test_a_file_that_is_not_ris_is_one_line_error(run_cli, tmp_path):
    path = tmp_path / "notes.ris"
    path.write_text("just some notes\nnothing like RIS\n")
    result = run_cli("import", str(path))
    assert result.exit_code == 1
    assert f"catalog: {path}: no RIS records found (expected lines like 'TY  - JOUR')" in result.stderr
    assert "Traceback" not in result.output
