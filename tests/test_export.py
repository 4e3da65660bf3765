"""Exports read back by the real parsers, round trips through JSONL and CSV, and the CLI."""

from __future__ import annotations

import csv
import io
import json
import logging
import sqlite3
import warnings
from pathlib import Path

import pytest

from catalog.library import Catalog

DATA = Path(__file__).resolve().parent / "data"

TRICKY = [
    {"title": "Rock & Roll: 50% of x_1 #1 {sets} in C++",
     "abstract": "We cut loss by 50% with $\\mathcal{O}(n^{2})$ cost, **bold** claims, _emphasis_, "
                 "a [link](http://x.y) and \\textbf{TeX} for 5$ {unbalanced",
     "authors": ["Jörg Müller", "Ana de la Cruz", "Ng"], "year": 2024, "venue": "ICML",
     "doi": "10.1234/rock_roll", "url": "https://example.org/a_b?x=1&y=2"},
    {"title": "Back\\slash ~tilde^ and } closing {",
     "abstract": "Markdown *stars* <b>html</b> | pipes | and `code` with $$x^2$$ display.",
     "authors": "Turing, Alan and Hopper, Grace", "year": 2023, "venue": "NeurIPS", "arxiv_id": "2301.00001"},
    {"abstract": "A paper list abstract about $\\ell_1$ sparse coding, without a title.", "venue": "ICLR", "year": 2024},
    {"title": "Scaling Laws for Neural Language Models", "authors": ["Jared Kaplan"], "year": 2020,
     "arxiv_id": "2001.08361"},
    {"title": "Scaling laws for autoregressive generative modeling", "authors": ["Jared Kaplan", "Tom Henighan"],
     "year": 2020, "abstract": "We identify empirical scaling laws for the cross-entropy loss in four domains."},
    {"title": "Scaling Laws for Reward Model Overoptimization", "authors": ["Leo Gao"], "year": 2020,
     "abstract": "In reinforcement learning from human feedback, it is common to optimize against a reward model."},
]


@pytest.fixture
def tricky(tmp_path: Path):
    source = tmp_path / "tricky.jsonl"
    source.write_text("".join(json.dumps(item) + "\n" for item in TRICKY))
    catalog = Catalog.open(tmp_path / "tricky.db")
    report = catalog.import_paths([source])
    assert (report.new, report.errors, report.warnings) == (len(TRICKY), [], [])
    keys = {p.title or p.headline: p.key for p in catalog.exchange.export_papers("")}
    rock = keys[TRICKY[0]["title"]]
    catalog.tag([rock], ["toread", "project/thesis"])
    catalog.add_note(rock, "First note: check *this* <b>claim</b>.\n\nSecond paragraph.")
    catalog.add_note(rock, "Another note")
    catalog.set_status([rock], "reading")
    catalog.set_rating([rock], 4)
    back = keys[TRICKY[1]["title"]]
    catalog.set_status([back], "read")
    catalog.set_rating([back], 2)
    catalog.tag([back], ["done"])
    untitled = next(k for title, k in keys.items() if title.startswith("A paper list"))
    catalog.set_title(untitled, "Sparse $\\ell_1$ coding & friends")
    catalog.set_status([keys["Scaling Laws for Neural Language Models"]], "queued")
    catalog.set_status([keys["Scaling Laws for Reward Model Overoptimization"]], "skipped")
    yield catalog
    catalog.close()


def export(catalog: Catalog, fmt: str, query: str = "") -> str:
    out = io.StringIO()
    catalog.exchange.export(query, fmt, stream=out)
    return out.getvalue()


# --- each format, read back by its own parser -----------------------------------------------------

def test_bibtex_parses_cleanly_in_bibtexparser(tricky, caplog):
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    text = export(tricky, "bibtex")
    with caplog.at_level(logging.DEBUG, logger="bibtexparser"), warnings.catch_warnings():
        warnings.simplefilter("error")
        library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert library.failed_blocks == []
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    entries = {e.key: e for e in library.entries}
    assert len(entries) == len(TRICKY)
    # Unique, readable keys made once, at import: first author + year + first word, a/b
    # suffixes for the later repeats; a paper without a title by its headline's first word (a
    # title you give it later does not change its key).
    assert set(entries) == {"muller2024rock", "turing2023backslash", "kaplan2020scaling", "kaplan2020scalinga",
                            "gao2020scaling", "iclr2024-paper"}
    rock = entries["muller2024rock"]
    assert rock.entry_type == "inproceedings"
    fields = {k: f.value for k, f in rock.fields_dict.items()}
    assert (fields["booktitle"], fields["year"]) == ("ICML 2024", "2024")
    # Decoded, the title is the catalog's title again (braces protecting capitals aside).
    assert fields["title"].replace("{", "").replace("}", "") == "Rock & Roll: 50% of x_1 #1 sets in C++"
    assert fields["author"] == "Jörg Müller and Ana de la Cruz and Ng"
    raw = next(e for e in bibtexparser.parse_string(text).entries if e.key == "muller2024rock")
    abstract = raw.fields_dict["abstract"].value
    assert "$\\mathcal{O}(n^{2})$" in abstract  # math passes through readable
    assert "50\\%" in abstract and "\\textbraceleft{}unbalanced" in abstract
    assert raw.fields_dict["keywords"].value == "project/thesis, toread"
    back = {k: f.value for k, f in entries["turing2023backslash"].fields_dict.items()}
    raw_back = next(e for e in bibtexparser.parse_string(text).entries if e.key == "turing2023backslash")
    # Braces out of order cannot be \{ \} (BibTeX counts those too): they are spelled out.
    assert raw_back.fields_dict["title"].value == (
        "Back\\textbackslash{}slash \\textasciitilde{}tilde\\textasciicircum{} and \\textbraceright{} closing "
        "\\textbraceleft{}")
    assert (back["eprint"], back["archiveprefix"]) == ("2301.00001", "arXiv")
    untitled = entries["iclr2024-paper"]  # no real title: the user's stands in for it
    assert untitled.fields_dict["title"].value == "Sparse $\\ell_1$ coding & friends"


def test_bibtex_parses_strictly_in_pybtex(tricky):
    import pybtex.errors
    from pybtex.database import parse_string

    pybtex.errors.set_strict_mode(True)
    try:
        data = parse_string(export(tricky, "bibtex"), "bibtex")
    finally:
        pybtex.errors.set_strict_mode(False)
    assert len(data.entries) == len(TRICKY)
    rock = data.entries["muller2024rock"]
    assert [str(p) for p in rock.persons["author"]] == ["Müller, Jörg", "de la Cruz, Ana", "Ng"]
    assert rock.fields["booktitle"] == "ICML 2024"


def test_csl_json_is_valid_and_formats_with_citeproc(tricky):
    import jsonschema
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    items = json.loads(export(tricky, "csljson"))
    schema = json.loads((DATA / "csl-data.schema.json").read_text())
    jsonschema.validate(items, schema)
    rock = next(i for i in items if i["id"] == "muller2024rock")
    assert rock["type"] == "paper-conference" and rock["container-title"] == "ICML"
    assert rock["issued"] == {"date-parts": [[2024]]}
    assert rock["author"][:2] == [{"family": "Müller", "given": "Jörg"}, {"family": "de la Cruz", "given": "Ana"}]
    assert rock["author"][2] == {"literal": "Ng"}
    assert (rock["DOI"], rock["URL"]) == ("10.1234/rock_roll", "https://example.org/a_b?x=1&y=2")
    assert rock["abstract"] == TRICKY[0]["abstract"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bib = CitationStylesBibliography(CitationStylesStyle("harvard-cite-them-right", validate=False),
                                         CiteProcJSON(items), formatter.plain)
        for item in items:
            bib.register(Citation([CitationItem(item["id"])]))
        rendered = [str(entry) for entry in bib.bibliography()]
    assert len(rendered) == len(items)
    assert any("Müller" in r and "Rock & Roll" in r and "2024" in r for r in rendered)


def test_ris_reads_back_with_rispy(tricky):
    import rispy

    entries = rispy.loads(export(tricky, "ris"))
    assert len(entries) == len(TRICKY)
    rock = next(e for e in entries if e["id"] == "muller2024rock")
    assert rock["type_of_reference"] == "CPAPER"
    assert rock["title"] == TRICKY[0]["title"]
    assert rock["authors"] == ["Müller, Jörg", "de la Cruz, Ana", "Ng"]
    assert (rock["secondary_title"], rock["year"], rock["doi"]) == ("ICML 2024", "2024", "10.1234/rock_roll")
    assert rock["keywords"] == ["project/thesis", "toread"]
    assert rock["notes"] == ["First note: check *this* <b>claim</b>. Second paragraph.", "Another note"]
    assert next(e for e in entries if e["id"] == "turing2023backslash")["urls"] == ["https://arxiv.org/abs/2301.00001"]


def test_markdown_reading_list(tricky):
    text = export(tricky, "markdown")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Reading (1)", "## Queued (1)", "## Unread (2)", "## Read (1)", "## Skipped (1)"]
    assert "[**Rock & Roll: 50% of x\\_1 \\#1 {sets} in C++**](<https://example.org/a_b?x=1&y=2>)" in text
    assert "Jörg Müller, Ana de la Cruz, Ng · ICML 2024 · ★★★★☆ · `project/thesis` `toread`" in text
    assert "  > First note: check *this* &lt;b>claim&lt;/b>." in text  # notes stay Markdown, not HTML
    assert "Back\\\\slash \\~tilde^ and } closing {" in text
    assert "**Sparse \\$\\\\ell\\_1\\$ coding & friends**" in text  # no math, no emphasis from data
    assert "★★☆☆☆" in text


def test_csv_and_jsonl_have_every_column(tricky):
    expected = ["key", "title", "headline", "user_title", "authors", "venue", "year", "status", "rating",
                "tags", "notes", "doi", "arxiv_id", "url", "abstract", "added_at", "kind"]
    rows = list(csv.DictReader(io.StringIO(export(tricky, "csv"))))
    assert list(rows[0]) == expected and len(rows) == len(TRICKY)
    rock = next(r for r in rows if r["title"] == TRICKY[0]["title"])
    assert (rock["tags"], rock["status"], rock["rating"], rock["year"]) == ("project/thesis toread", "reading", "4", "2024")
    assert rock["abstract"] == TRICKY[0]["abstract"]
    lines = [json.loads(line) for line in export(tricky, "jsonl").splitlines()]
    assert list(lines[0]) == expected and len(lines) == len(TRICKY)
    rock = next(r for r in lines if r["title"] == TRICKY[0]["title"])
    assert rock["tags"] == ["project/thesis", "toread"] and rock["rating"] == 4
    assert rock["notes"][1] == "Another note"
    untitled = next(r for r in lines if r["title"] is None)
    assert untitled["user_title"] == "Sparse $\\ell_1$ coding & friends"


def test_a_query_selects_what_is_exported(tricky):
    assert [r["status"] for r in map(json.loads, export(tricky, "jsonl", "tag:toread").splitlines())] == ["reading"]
    assert len(export(tricky, "jsonl", "scaling").splitlines()) == 3
    assert export(tricky, "bibtex", "nothing-matches-this") == ""
    assert json.loads(export(tricky, "csljson", "nothing-matches-this")) == []


# --- round trips ------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_round_trip_into_a_fresh_catalog(seeded_any, tmp_path, fmt):
    seeded = seeded_any
    from tests.conftest import key_of

    key = key_of(seeded, "MCR2")
    seeded.tag([key], ["toread", "project/thesis"])
    seeded.add_note(key, "check the rate-reduction proof")
    seeded.set_status([key], "reading")
    seeded.set_rating([key], 4)
    other = key_of(seeded, '"increasing the number of neurons"')
    seeded.set_title(other, "Sparse wide nets")
    seeded.saved.save_search("mine", "tag:toread")
    papers = tmp_path / f"papers.{fmt}"
    notes = tmp_path / "annotations.json"
    seeded.exchange.export("", fmt, papers)
    seeded.exchange.export_annotations(notes)

    fresh = Catalog.open(tmp_path / "fresh.db")
    report = fresh.import_paths([papers])
    assert (report.new, report.errors, report.warnings) == (90, [], [])
    fresh.exchange.import_annotations(notes)

    def state(catalog):
        return {p.key: (p.title, p.headline, p.user_title, p.authors, p.venue, p.year, p.abstract, p.status,
                        p.rating, p.tags, p.notes) for p in catalog.exchange.export_papers("")}

    assert state(fresh) == state(seeded)
    assert fresh.saved.saved_searches() == seeded.saved.saved_searches()
    fresh.close()


# --- the CLI ----------------------------------------------------------------------------------

def test_export_cli_writes_files_atomically(run_cli, tmp_path):
    from tests.conftest import SEEDS

    run_cli("import", str(SEEDS))
    target = tmp_path / "out" / "reading.md"
    target.parent.mkdir()
    target.write_text("old contents")
    result = run_cli("export", "year:2026", "-o", str(target))
    assert result.exit_code == 1 and "--force" in result.stderr and target.read_text() == "old contents"
    result = run_cli("export", "year:2026", "-o", str(target), "--force")  # format from the suffix
    assert result.exit_code == 0, result.output
    assert "Exported" in result.stderr and "(markdown)" in result.stderr
    assert target.read_text().startswith("# Reading list")
    assert sorted(p.name for p in target.parent.iterdir()) == ["reading.md"]  # no temporary left behind
    result = run_cli("export", "--format", "bibtex")
    assert result.exit_code == 0 and result.stdout.count("@misc{") == 90  # seed papers: no authors
    result = run_cli("export", "-f", "csv", "-o", str(tmp_path / "papers.txt"))
    assert result.exit_code == 0 and (tmp_path / "papers.txt").read_text().startswith("key,title,")


def test_export_cli_errors_are_one_line(run_cli, empty_catalog, tmp_path):
    cases = [
        (("export", "-o", str(tmp_path / "papers.txt")), "say which format"),
        (("export", "-f", "docx"), "Invalid value"),
        (("export", "-f", "csv", "-o", str(tmp_path / "missing" / "x.csv")), "does not exist"),
        (("export", "-f", "csv", "year:abc"), "expected a year"),
    ]
    for args, message in cases:
        result = run_cli(*args)
        assert result.exit_code != 0, args
        assert message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.output


def test_datasette_finds_the_search_index(seeded, db_path):
    """Datasette's own detection (datasette/utils detect_fts) and search query, without Datasette:
    `datasette catalog.db` then searches the paper table through paper_fts."""
    conn = sqlite3.connect(db_path)
    try:
        [(fts,)] = conn.execute(
            "SELECT name FROM sqlite_master WHERE rootpage = 0 AND ("
            " sql LIKE '%VIRTUAL TABLE%USING FTS%content=\"paper\"%'"
            " OR sql LIKE '%VIRTUAL TABLE%USING FTS%content=[paper]%')").fetchall()
        assert fts == "paper_fts"
        rows = conn.execute("SELECT key FROM paper WHERE rowid IN"
                            " (SELECT rowid FROM paper_fts WHERE paper_fts MATCH ?)", ('"attention"',)).fetchall()
        assert len(rows) >= 5
    finally:
        conn.close()


@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csljson"])
def test_a_derived_headline_is_never_exported_as_a_title(seeded, tmp_path, fmt):
    """A paper list's paper has no title: the headline the catalog derived from its abstract
    is not written as one (issue 29), and a re-import derives the same headline again."""
    (paper,) = [p for p in seeded.exchange.export_papers("") if p.title is None][:1]
    text = export(seeded, fmt, f"key:{paper.key}")
    assert paper.headline not in text.replace("{", "").replace("}", "")
    assert not any(line.lstrip().lower().startswith(("title =", "ti  -")) for line in text.splitlines())
    assert '"title"' not in text
    again = Catalog.open(tmp_path / "again.db")
    try:
        path = tmp_path / f"one.{ {'bibtex': 'bib', 'ris': 'ris', 'csljson': 'json'}[fmt] }"
        path.write_text(text)
        again.import_paths([path])
        (back,) = again.exchange.export_papers("")
        assert (back.key, back.title, back.headline) == (paper.key, None, paper.headline)
    finally:
        again.close()


def test_markdown_shows_a_headline_marked_as_one(seeded):
    paper = next(p for p in seeded.exchange.export_papers("") if p.title is None)
    text = export(seeded, "markdown", f"key:{paper.key}")
    assert "(untitled; headline derived from the abstract)" in text


def test_export_takes_what_search_takes_as_a_whole_query(seeded):
    """`catalog export KEY` wrote an empty file while `catalog search KEY` found the paper."""
    paper = seeded.exchange.export_papers("")[5]
    for query in (paper.key, paper.key[:5], paper.cite_key):
        assert [p.key for p in seeded.exchange.export_papers(query)][:1] == [paper.key], query
