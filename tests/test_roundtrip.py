"""Round trips (issue 17, item 13): every real-world-like library, exported in every format a
catalog can read back, and imported into a fresh catalog, gives the same papers with the same
fields. And the same keys (issue 10, item 7): a key is a paper's identity, so every paper keeps
its key and fingerprint, and an annotations file made before applies to all of them."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog.library import Catalog
from catalog.text.tex import render
from tests.conftest import SEEDS

LIBRARIES = Path(__file__).resolve().parent / "data" / "libraries"
FIXTURES = sorted(p.name for p in LIBRARIES.iterdir() if p.suffix != ".toml")  # not SOURCE.toml
FORMATS = {"bibtex": ".bib", "csljson": ".json", "ris": ".ris", "csv": ".csv", "jsonl": ".jsonl"}


def fields(catalog: Catalog) -> list[tuple]:
    """Each paper as a user sees it: title, authors, venue, year, DOI, arXiv id, URL and the
    abstract as shown (`\\%` in a paper list and `%` from BibTeX both show %; RIS holds one
    line per field, so line breaks count as spaces)."""
    return sorted(((p.title, p.authors, p.venue, p.year, p.doi, p.arxiv_id, p.url,
                    " ".join(render(p.abstract).split())) for p in catalog.exchange.export_papers("")), key=repr)


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
    original.exchange.export("", fmt, exported)
    fresh = Catalog.open(tmp_path / "fresh.db")
    try:
        report = fresh.import_paths([exported])
        assert (report.errors, report.warnings) == ([], [])
        assert fields(fresh) == fields(original)
        # Every kind of publication a paper has comes back; csv and jsonl also keep "not known"
        # (the other formats write such a paper as they always did, and it returns with the
        # kind that says: a paper list's conference paper returns as one).
        known = {p.key: p.kind for p in original.exchange.export_papers("") if p.kind or fmt in ("csv", "jsonl")}
        assert {p.key: p.kind for p in fresh.exchange.export_papers("") if p.key in known} == known
        assert set(known.values()) - {None} or name in ("seeds", "arxiv-ids.json")
    finally:
        fresh.close()


def test_organisations_are_one_author_in_bibtex(originals):
    out = io.StringIO()
    originals["zotero-library.csv"].exchange.export("school health", "bibtex", stream=out)
    assert "author = {{Centers for Disease Control and Prevention}}" in out.getvalue()


def test_dois_are_written_as_they_are(originals):
    out = io.StringIO()
    originals["zotero-library.csv"].exchange.export("escaped identifiers", "bibtex", stream=out)
    assert "doi = {10.1000/ab\\cd.2020}" in out.getvalue() and "%5C" not in out.getvalue()


def test_old_exports_with_encoded_dois_find_the_paper(originals, tmp_path):
    catalog = originals["zotero-library.csv"]
    path = tmp_path / "old.bib"
    path.write_text("@misc{old, title = {Escaped identifiers in old records}, doi = {10.1000/ab%5Ccd.2020}}\n")
    report = catalog.import_paths([path])
    assert (report.new, report.known) == (0, 1)


# --- keys -------------------------------------------------------------------------------------

# Abstracts with what a BibTeX round trip changes: escapes, braces, accents, URLs.
TRICKY_LIST = """TRICKY 2025 Papers

We improve accuracy by 12\\% and cut cost by 50% on R\\&D tasks for item \\#3 in snake\\_case code.

Models such as {BERT} and {GPT}-2 by M\\"uller and {\\"O}zt{\\"u}rk need $\\mathcal{O}(n^2)$ memory, see \\url{https://example.org/a_b_c?x=1%2} for code.

A Markdown-escaped 96\\\\% gain with \\{braces\\} and a \\textbf{bold} claim, plus \\emph{emphasis} of 3\\$ costs.
"""

def test_every_readable_format_is_covered():
    from catalog.ingest import formats
    from catalog.export import FORMATS as WRITTEN

    readable = {fmt for fmt, (_, suffix) in WRITTEN.items() if suffix in formats.SUFFIXES - formats.PAPER_LIST_SUFFIXES}
    assert readable == set(FORMATS)


@pytest.fixture(scope="module")
def annotated(tmp_path_factory) -> tuple[Catalog, Path]:
    folder = tmp_path_factory.mktemp("original")
    (folder / "tricky.txt").write_text(TRICKY_LIST)
    catalog = Catalog.open(folder / "catalog.db")
    report = catalog.import_paths([SEEDS, folder / "tricky.txt"])
    assert not report.errors and report.new == 93, report
    papers = catalog.exchange.export_papers("")
    escaped = [p.key for p in papers if "\\" in p.abstract or "{" in p.abstract]
    assert len(escaped) >= 10
    for i, key in enumerate(escaped):  # annotate exactly the papers whose text a round trip changes
        catalog.tag([key], ["escaped", f"n{i}"])
        catalog.add_note(key, f"note {i}")
        catalog.set_rating([key], 1 + i % 5)
        catalog.set_status([key], "reading")
    catalog.set_title(escaped[0], "My own title")
    catalog.exchange.export_annotations(folder / "annotations.json")
    yield catalog, folder
    catalog.close()


def _identity(catalog: Catalog) -> dict[str, tuple]:
    return {p.key: (p.fingerprint, p.abstract.replace("\\", "").replace("{", "").replace("}", "")[:40])
            for p in catalog.exchange.export_papers("")}


def _annotations(catalog: Catalog) -> dict[str, tuple]:
    return {p.key: (p.tags, p.notes, p.status, p.rating, p.user_title) for p in catalog.exchange.export_papers("")}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_round_trip_keeps_every_key_and_the_annotations_apply(annotated, tmp_path, fmt):
    catalog, folder = annotated
    exported = tmp_path / f"papers{FORMATS[fmt]}"
    catalog.exchange.export("", fmt, exported)
    fresh = Catalog.open(tmp_path / "fresh.db")
    try:
        report = fresh.import_paths([exported])
        assert (report.new, report.errors, report.warnings) == (93, [], []), report
        before, after = _identity(catalog), _identity(fresh)
        assert sorted(after) == sorted(before)  # every key
        assert {k: v[0] for k, v in after.items()} == {k: v[0] for k, v in before.items()}  # fingerprints
        applied = fresh.exchange.import_annotations(folder / "annotations.json")
        assert (applied.not_found, applied.conflicts) == ([], []), applied
        if fmt in ("csv", "jsonl"):  # they carry tags, notes and status themselves
            return
        assert _annotations(fresh) == _annotations(catalog)
    finally:
        fresh.close()


def test_url_arguments_are_written_without_escaped_underscores(annotated, tmp_path):
    catalog, _ = annotated
    target = tmp_path / "refs.bib"
    catalog.exchange.export("", "bibtex", target)
    text = target.read_text()
    assert "\\url{https://github.com/wenjie1835/Local_Amotized_SAEs}" in text
    assert "\\url{https://example.org/a_b_c?x=1%2}" in text
    assert "Local\\_Amotized" not in text


def test_a_second_bibtex_round_trip_keeps_them_too(annotated, tmp_path):
    catalog, _ = annotated
    keys = sorted(_identity(catalog))
    current = catalog
    for generation in range(2):
        exported = tmp_path / f"gen{generation}.bib"
        current.exchange.export("", "bibtex", exported)
        fresh = Catalog.open(tmp_path / f"gen{generation}.db")
        fresh.import_paths([exported])
        assert sorted(_identity(fresh)) == keys, generation
        if current is not catalog:
            current.close()
        current = fresh
    current.close()


PIECES = ["12\\%", "50%", "R\\&D", "R&D", "\\#3", "#3", "snake\\_case", "a_b", "{BERT}", "{{GPT}}", "M\\\"uller",
          "{\\\"O}", "\\c{c}", "{\\ss}", "$x_{1}^{2}$", "$\\mathcal{O}(n)$", "\\textbf{bold}", "\\emph{e}",
          "\\url{https://x.org/a_b?q=1%2}", "96\\\\%", "\\{x\\}", "3\\$", "5$", "{unbalanced", "closing}",
          "\\textbackslash{}", "~", "^", "word", "Word", " ", "\n", "--", "``q''"]


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=14).map(" ".join))
def test_the_fingerprint_survives_any_number_of_bibtex_round_trips(abstract):
    from catalog.importing.dedupe import fingerprint_of
    from catalog.export.bibtex import abstract as exported
    from catalog.ingest.fields import tidy_abstract, unescape_text

    text = abstract.strip()
    for _ in range(3):
        again = tidy_abstract(unescape_text(exported(text)))  # what export + import make of it
        assert fingerprint_of(again) == fingerprint_of(text), (text, again)
        text = again
