"""Importing BibTeX, JSON/JSONL and CSV: field mapping, bad entries, deduplication and merging."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from catalog.importing.importer import expand
from catalog.ingest import fields
from catalog.ingest.bibtex import read_bibtex
from catalog.ingest.records import IngestError
from tests.conftest import key_of

DATA = Path(__file__).resolve().parent / "data"


def by_title(catalog) -> dict:
    return {p.title: p for p in catalog.exchange.export_papers("")}


def fts_ok(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute("INSERT INTO paper_fts(paper_fts, rank) VALUES ('integrity-check', 1)")
    finally:
        conn.close()


# --- field normalisation ------------------------------------------------------------------------

@pytest.mark.parametrize("raw, expected", [
    ("Vaswani, Ashish and Shazeer, Noam", "Ashish Vaswani, Noam Shazeer"),
    ("Kaiser, {\\L}ukasz and M{\\\"u}ller, J{\\\"o}rg and others", "Łukasz Kaiser, Jörg Müller, et al."),
    ("Jared Kaplan and Sam McCandlish", "Jared Kaplan, Sam McCandlish"),
    ("King, Jr., Martin Luther", "Martin Luther King Jr."),
    ("{Google DeepMind} and Doe, Jane", "Google DeepMind, Jane Doe"),
])
def test_bibtex_names_read_first_last(raw, expected):
    assert fields.bibtex_authors(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    (["Ada Lovelace", "Grace Hopper"], "Ada Lovelace, Grace Hopper"),
    ([{"family": "He", "given": "Kaiming"}, {"literal": "OpenAI"}], "Kaiming He, OpenAI"),
    ("Vaswani, Ashish; Shazeer, Noam", "Ashish Vaswani, Noam Shazeer"),
    ("Turing, Alan and Hopper, Grace", "Alan Turing, Grace Hopper"),
    ("Ada Lovelace, Grace Hopper", "Ada Lovelace, Grace Hopper"),
    ("", None),
])
def test_authors_from_json_and_csv(raw, expected):
    assert fields.any_authors(raw) == expected


def test_identifiers_from_where_exports_put_them():
    assert fields.arxiv_id("arXiv preprint arXiv:1412.6980") == "1412.6980"
    assert fields.arxiv_id("http://arxiv.org/abs/2001.08361v3") == "2001.08361"
    assert fields.arxiv_id("arXiv:1810.04805 [cs]") == "1810.04805"
    assert fields.arxiv_id("10.48550/arXiv.1810.04805") == "1810.04805"
    assert fields.arxiv_id("hep-th/9901001v2", bare=True) == "hep-th/9901001"
    assert fields.arxiv_id("Neural Networks") is None
    assert fields.doi("https://doi.org/10.1016/J.NEUNET.2014.09.003") == "10.1016/j.neunet.2014.09.003"
    assert fields.year({"date-parts": [["2017", 1, 29]]}) == 2017
    assert fields.year("Dec 2017") == 2017 and fields.year("n.d.") is None
    assert fields.venue("Proceedings of the 31st {International} {Conference} on {Neural} "
                        "{Information} {Processing} {Systems}") == "NeurIPS"
    assert fields.venue("Neural Networks") == "Neural Networks"


# --- BibTeX ----------------------------------------------------------------------------------------

def test_zotero_scholar_and_arxiv_bibtex(empty_catalog):
    report = empty_catalog.import_paths([DATA / "zotero.bib", DATA / "arxiv.bib"])
    assert (report.new, report.errors, report.warnings) == (4, [], [])
    papers = by_title(empty_catalog)
    attention = papers["Attention is all you need"]
    assert attention.authors.startswith("Ashish Vaswani, Noam Shazeer") and "Łukasz Kaiser" in attention.authors
    assert (attention.venue, attention.year) == ("NeurIPS", 2017)
    assert "the Transformer, based" in attention.abstract  # braces protecting capitals are gone
    bert = papers["BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"]
    assert (bert.arxiv_id, bert.doi, bert.venue) == ("1810.04805", "10.48550/arxiv.1810.04805", "arXiv")
    assert "80.5% (7.7% point" in bert.abstract  # BibTeX escapes undone
    assert "80.5% (7.7%" in empty_catalog.get(bert.key).abstract_text
    schmidhuber = papers["Deep learning in neural networks: An overview"]
    assert (schmidhuber.authors, schmidhuber.doi, schmidhuber.abstract) == (
        "Jürgen Schmidhuber", "10.1016/j.neunet.2014.09.003", "")
    kaplan = papers["Scaling Laws for Neural Language Models"]
    # Its url only restated the arXiv id: the catalog derives that link (exports write it).
    assert (kaplan.arxiv_id, kaplan.url, kaplan.year) == ("2001.08361", None, 2020)
    assert kaplan.link == "https://arxiv.org/abs/2001.08361"
    # Real titles show instead of headlines, and are searchable.
    [hit] = empty_catalog.search("scaling laws")
    assert hit.title == "Scaling Laws for Neural Language Models"
    # Google Scholar's entries: the arXiv id from "arXiv preprint arXiv:...", and the
    # Transformer paper found again by its title (the Scholar entry has no abstract).
    report = empty_catalog.import_paths([DATA / "scholar.bib"])
    assert (report.new, report.known) == (2, 1)
    adam = by_title(empty_catalog)["Adam: A method for stochastic optimization"]
    assert (adam.arxiv_id, adam.venue, adam.authors) == ("1412.6980", "arXiv", "Diederik P Kingma, Jimmy Ba")
    assert by_title(empty_catalog)["Deep residual learning for image recognition"].venue == "CVPR"


def test_broken_bibtex_skips_bad_entries_with_lines(empty_catalog, db_path):
    report = empty_catalog.import_paths([DATA / "broken.bib"])
    assert report.errors == []
    assert report.new == 4
    # missing2020 has an author and a year, no title: imported under the headline they give
    assert sorted(by_title(empty_catalog), key=str) == [
        "A Good First Entry", "A Good Second Entry with a % sign", "A Good Third Entry", None]
    assert "Nobody (2020)" in [p.headline for p in empty_catalog.exchange.export_papers("")]
    name = str(DATA / "broken.bib")
    warnings = report.warnings
    assert warnings[0].startswith(f"{name}:17: entry 'unbalanced2019' cannot be read")
    assert warnings[1].startswith(f"{name}:29: entry 'nocomma2018' cannot be read")
    assert len(warnings) == 2
    second = by_title(empty_catalog)["A Good Second Entry with a % sign"]
    assert second.abstract == "We study $\\mathcal{O}(n^{2})$ things with 50% fewer BERT layers."
    fts_ok(db_path)


@pytest.mark.parametrize("content, message", [
    ("just some text, no entries\n", "no BibTeX entries found"),
    ("@article{only, title = {never closed\n", "cannot be read"),
    ("@misc{a, year = 2020}\n@misc{b, note = {x}}\n", "no usable entries"),
])
def test_unreadable_bibtex_fails_as_a_whole(tmp_path, content, message):
    path = tmp_path / "refs.bib"
    path.write_text(content)
    with pytest.raises(IngestError) as err:
        read_bibtex(path)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_bibtex_merges_into_a_paper_from_a_paper_list(seeded, db_path, tmp_path):
    key = key_of(seeded, "MCR2")
    seeded.tag([key], ["toread"])
    seeded.add_note(key, "check the proof")
    seeded.set_status([key], "reading")
    seeded.set_rating([key], 5)
    before = seeded.get(key)
    assert before.title is None
    bib = tmp_path / "mine.bib"
    bib.write_text(
        "@inproceedings{wright2026white,\n"
        "  title = {White-Box Transformers via Sparse Rate {Reduction}},\n"
        "  author = {Wright, John and Ma, Yi},\n"
        "  booktitle = {International Conference on Machine Learning},\n"
        "  doi = {10.5555/WB.2026},\n"
        "  year = {2026},\n"
        "  abstract = {" + before.abstract + "}\n}\n")
    report = seeded.import_paths([bib])
    assert (report.new, report.known, report.merged, report.errors) == (0, 1, 1, [])
    after = seeded.get(key)  # the key did not change
    assert after.title == "White-Box Transformers via Sparse Rate Reduction"
    assert after.summary.title == after.title  # shown instead of the headline
    assert (after.authors, after.doi) == ("John Wright, Yi Ma", "10.5555/wb.2026")
    assert after.summary.tags == ("toread",) and [n.body for n in after.notes] == ["check the proof"]
    assert (after.summary.status, after.summary.rating) == ("reading", 5)
    assert (after.summary.venue, after.summary.year) == (before.summary.venue, before.summary.year)
    assert after.abstract == before.abstract
    assert [p.key for p in seeded.search("white box sparse rate") if p.match == "all"] == [key]
    fts_ok(db_path)
    # A user title still wins, and a later source never overwrites a filled field.
    seeded.set_title(key, "My name for it")
    # (One author shared: a DOI on another title by strangers is another paper, tests/test_jabref_library.py.)
    bib.write_text("@misc{x, title = {Another Title}, author = {Wright, J. and Else, Someone}, doi = {10.5555/wb.2026}}\n")
    report = seeded.import_paths([bib])
    assert (report.new, report.known, report.merged) == (0, 1, 0)
    again = seeded.get(key)
    assert (again.summary.title, again.title, again.authors) == (
        "My name for it", "White-Box Transformers via Sparse Rate Reduction", "John Wright, Yi Ma")


def test_a_title_only_entry_gains_its_abstract_later(empty_catalog, tmp_path):
    (tmp_path / "a.bib").write_text("@misc{a, title = {Learning to Count Sheep}, year = 2024}\n")
    # An abstract long enough to identify the paper (a short one is no evidence: dedupe.MIN_WORDS).
    abstract = "We count sheep with a transformer trained on drone images of twelve farms."
    (tmp_path / "b.json").write_text(
        '[{"title": "Learning to count sheep!", "abstract": "' + abstract + '"}]')
    (tmp_path / "c.txt").write_text(f"NeurIPS 2024 Papers\n\n{abstract}\n")
    assert empty_catalog.import_paths([tmp_path / "a.bib"]).new == 1
    key = empty_catalog.exchange.export_papers("")[0].key
    report = empty_catalog.import_paths([tmp_path / "b.json"])
    assert (report.new, report.merged) == (0, 1)
    # The fingerprint now follows the abstract, so the paper list finds the same paper.
    report = empty_catalog.import_paths([tmp_path / "c.txt"])
    assert (report.new, report.known, report.merged) == (0, 1, 1)
    [paper] = empty_catalog.exchange.export_papers("")
    assert (paper.key, paper.title, paper.venue, paper.year) == (key, "Learning to Count Sheep", "NeurIPS", 2024)


def test_same_title_different_doi_is_another_paper(empty_catalog, tmp_path):
    (tmp_path / "a.bib").write_text(
        "@misc{a, title = {On Things}, doi = {10.1000/workshop}}\n@misc{b, title = {On things}, doi = {10.1000/main}}\n"
        "@misc{c, title = {On Things}}\n")
    report = empty_catalog.import_paths([tmp_path / "a.bib"])
    assert report.new == 2  # c is the first one (same title, no DOI to tell them apart)


def test_duplicates_within_one_file_fold(empty_catalog, tmp_path):
    lines = [f'{{"title": "Paper {i}", "abstract": "Abstract number {i}.", "doi": "10.9999/{i}"}}' for i in range(3)]
    lines.append('{"title": "Paper 1 (again)", "doi": "10.9999/1", "authors": ["Ada Lovelace"]}')
    (tmp_path / "x.jsonl").write_text("\n".join(lines) + "\n")
    report = empty_catalog.import_paths([tmp_path / "x.jsonl"])
    assert report.new == 3
    assert by_title(empty_catalog)["Paper 1"].authors == "Ada Lovelace"


# --- JSON and CSV ---------------------------------------------------------------------------------

def test_zotero_csv(empty_catalog):
    report = empty_catalog.import_paths([DATA / "zotero.csv"])
    # Row 3 has a journal and a year, no title: imported as "Neural Networks (2015)"
    assert (report.new, report.errors, report.warnings) == (3, [], [])
    papers = by_title(empty_catalog)
    attention = papers["Attention is all you need"]
    assert (attention.authors, attention.venue, attention.year) == (
        "Ashish Vaswani, Noam Shazeer, Niki Parmar", "NeurIPS", 2017)
    kaplan = papers["Scaling Laws for Neural Language Models"]
    assert (kaplan.arxiv_id, kaplan.venue, kaplan.authors) == ("2001.08361", "arXiv", "Jared Kaplan, Sam McCandlish")
    assert papers[None].headline == "Neural Networks (2015)"


def test_csl_json_from_zotero_merges_with_bibtex(empty_catalog):
    empty_catalog.import_paths([DATA / "scholar.bib"])
    report = empty_catalog.import_paths([DATA / "zotero.json"])
    assert (report.new, report.known, report.merged) == (0, 2, 2)
    name = str(DATA / "zotero.json")
    assert report.warnings[0].startswith(f"{name}:") and "item 3 has no title or abstract" in report.warnings[0]
    assert "item 4 is str, not an object" in report.warnings[1]
    adam = by_title(empty_catalog)["Adam: A method for stochastic optimization"]
    assert adam.abstract.startswith("We introduce Adam")  # filled in
    assert adam.year == 2014  # kept: never overwritten
    resnet = by_title(empty_catalog)["Deep residual learning for image recognition"]
    assert resnet.url.startswith("https://openaccess.thecvf.com/")


def test_jsonl_with_a_field_map(run_cli, db_path):
    path = DATA / "custom.jsonl"
    result = run_cli("import", str(path), "--map", "title=name", "--map", "abstract=summary",
                     "--map", "authors=writers", "--map", "year=when", "--map", "venue=where")
    assert result.exit_code == 1, result.output  # entries were skipped: the rest imports, the exit says so
    assert f"catalog: {path}:3: not valid JSON" in result.stderr
    assert f"catalog: {path}:4: item 3 has no title or abstract, nor a venue, authors or identifier to name it by; skipped" in result.stderr
    assert "2 new, 0 already known, 0 errors, 2 warnings (1 file)" in result.stderr
    from catalog.library import Catalog

    catalog = Catalog.open(db_path)
    papers = by_title(catalog)
    moe = papers["Sparse mixtures of experts at scale"]
    assert (moe.authors, moe.year, moe.venue, moe.url) == (
        "Ada Lovelace, Grace Hopper", 2022, "ICML", "https://example.org/moe")
    assert papers["Retrieval for long contexts"].authors == "Alan Turing, Grace Hopper"
    catalog.close()


def test_import_errors_are_one_line(run_cli, tmp_path):
    run_cli("import", str(DATA / "arxiv.bib"))
    (tmp_path / "bad.json").write_text('[{"title": "a"},\n {"title": }]\n')
    (tmp_path / "cols.csv").write_text("name,text\nA,B\n")
    (tmp_path / "bin.bib").write_bytes(b"%PDF-1.7 binary")
    cases = [
        (("import", str(tmp_path / "bad.json")), f"{tmp_path / 'bad.json'}:2: not valid JSON"),
        (("import", str(tmp_path / "cols.csv")), "no title or abstract column"),
        (("import", str(tmp_path / "cols.csv"), "--map", "title=nope"), "no column 'nope'"),
        (("import", str(tmp_path / "bin.bib")), "binary file"),
        (("import", str(tmp_path / "cols.csv"), "--map", "colour=name"), "unknown field 'colour'"),
        (("import", str(tmp_path / "cols.csv"), "--map", "title"), "write it as field=column"),
    ]
    for args, message in cases:
        result = run_cli(*args)
        assert result.exit_code == 1, args
        assert message in result.stderr, (args, result.stderr)
        errors = [line for line in result.stderr.splitlines() if line.startswith("catalog:")]
        assert len(errors) == 1 and "Traceback" not in result.output
    # --map names a column the file holds: the same CSV imports.
    result = run_cli("import", str(tmp_path / "cols.csv"), "--map", "title=name", "--map", "abstract=text")
    assert result.exit_code == 0 and "1 new" in result.stderr


def test_folders_include_every_importable_format(tmp_path):
    for name in ("a.bib", "b.json", "c.jsonl", "d.csv", "e.txt", "f.png", "g.ris"):
        (tmp_path / name).write_text("x")
    assert sorted(p.name for p in expand([tmp_path])) == ["a.bib", "b.json", "c.jsonl", "d.csv", "e.txt", "g.ris"]


def test_reimporting_a_bibtex_file_changes_nothing(empty_catalog, db_path):
    empty_catalog.import_paths([DATA / "zotero.bib"])
    report = empty_catalog.import_paths([DATA / "zotero.bib"])
    assert (report.new, report.known, report.merged, report.warnings) == (0, 3, 0, [])


def test_later_batches_find_and_fill_papers_of_earlier_ones(empty_catalog, db_path, tmp_path, monkeypatch):
    from catalog.importing import prepare

    monkeypatch.setattr(prepare, "BATCH", 2)
    rows = [
        {"title": "First Paper", "abstract": "The first abstract.", "doi": "10.1000/one"},
        {"title": "Second Paper", "abstract": "The second abstract."},
        {"title": "Third Paper", "abstract": "The third abstract."},
        {"doi": "10.1000/one", "title": "First paper", "authors": "Ada Lovelace"},  # fills batch 1's paper
        {"title": "second paper", "url": "https://example.org/2"},  # found by title through the index
    ]
    path = tmp_path / "batched.jsonl"
    path.write_text("".join(__import__("json").dumps(r) + "\n" for r in rows))
    report = empty_catalog.import_paths([path])
    assert (report.new, report.known, report.merged) == (3, 2, 2)
    papers = by_title(empty_catalog)
    assert papers["First Paper"].authors == "Ada Lovelace"
    assert papers["Second Paper"].url == "https://example.org/2"
    fts_ok(db_path)
    assert [p.title for p in empty_catalog.search("lovelace")] == ["First Paper"]
