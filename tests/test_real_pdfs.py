"""51 real papers' PDFs (tests/data/pdf/papers/, where SOURCE.md says whose they are) brought
into a catalog that already holds their papers, typed from each file (catalog.bib there),
beside decoys: papers on the same topics by the same people, and two whose DOIs only one
file's reference list prints. `catalog import DIR` must attach each file to its own paper and
none to another, read the text of every file that has some, and report each of the rest in one
line; the text it read then finds a paper by a phrase of its body."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalog.attachments import pdftext
from catalog.ingest import pdf
from catalog.library import Catalog

DATA = Path(__file__).resolve().parent / "data" / "pdf"
PAPERS = DATA / "papers"
FILES = sorted(PAPERS.glob("*.pdf"))
UNREADABLE = ("scanned.pdf", "encrypted.pdf")


def attachments(catalog: Catalog) -> dict[str, list]:
    """cite key of each paper with files -> its attachments."""
    with catalog.store.read() as tx:
        every = tx.papers.every_attachment()
    found: dict[str, list] = {}
    for key, attachment in every:
        found.setdefault(cite_key(catalog, key), []).append(attachment)
    return found


def attached(catalog: Catalog) -> dict[str, list[str]]:
    return {cite: [a.name for a in found] for cite, found in attachments(catalog).items()}


def cite_key(catalog: Catalog, key: str) -> str | None:
    """The key catalog.bib gave the paper (None: a paper of the seeds, or made from a file)."""
    return next((r.cite_key for r in catalog.get(key).records if r.format == "bibtex"), None)


def key_of(catalog: Catalog, cite: str) -> str:
    with catalog.store.read() as tx:
        keys = tx.papers.all_keys()
    return next(key for key in keys if cite_key(catalog, key) == cite)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The 51 papers, a scanned page and an encrypted file, as a user's folder of downloads."""
    target = tmp_path / "Downloads"
    target.mkdir()
    for path in [*FILES, *(DATA / name for name in UNREADABLE)]:
        shutil.copy(path, target / path.name)
    (target / "truncated.pdf").write_bytes((PAPERS / "bitcoin.pdf").read_bytes()[:4000])  # a download cut short
    return target


@pytest.fixture
def library(seeded: Catalog) -> Catalog:
    report = seeded.import_paths([PAPERS / "catalog.bib"])
    assert not report.errors, report.errors
    return seeded


def test_the_corpus_is_what_the_issue_asks_for():
    """At least 50 real papers, of which at least 20 print no DOI or arXiv id; one prints DOIs
    of two catalog papers in its reference list only."""
    printed = {}
    for path in FILES:
        text = pdftext.read(path)
        assert text.state == "text", path
        facts = pdf.facts(text.pages, text.metadata)
        printed[path.stem] = (*facts.dois, *facts.arxiv_ids)
    assert len(printed) >= 50
    assert sum(not ids for ids in printed.values()) >= 20
    references = "\n".join(pdftext.read(PAPERS / "helicobacter-anaemia.pdf").pages[1:])
    assert "10.1111/j.1523-5378.2008.00617.x" in references and "10.1111/j.1572-0241.2005.30252.x" in references
    assert printed["helicobacter-anaemia"] == ("10.1136/pgmj.2009.089987",)


def test_each_real_pdf_is_attached_to_its_own_paper_and_no_other(library, folder, run_cli):
    before = library.stats().papers
    result = run_cli("import", "--verbose", str(folder))
    assert result.exit_code == 1, result.output  # three files could not be read
    assert f"0 new, {len(FILES)} already known, 3 errors ({len(FILES) + 3} files)" in result.stderr
    files = attached(library)
    expected = {path.stem: [path.name] for path in FILES}
    assert files == expected  # each file on its own paper; none on a decoy, none anywhere else
    assert library.stats().papers == before
    problems = [line for line in result.stderr.splitlines() if line.startswith("catalog: ")]
    assert sorted(line.split(": ")[1].rsplit("/", 1)[1] for line in problems) == [
        "encrypted.pdf", "scanned.pdf", "truncated.pdf"]
    assert all(line.endswith("not imported") for line in problems)
    # The text of every file, each page of it.
    read = attachments(library)
    for path in FILES:
        [attachment] = read[path.stem]
        assert attachment.text_state == "text" and attachment.pages == pdftext.read(path).page_count, path.name
    # Again: nothing changes.
    again = run_cli("import", str(folder))
    assert f"{len(FILES)} attached before" in again.stderr, again.stderr
    assert attached(library) == expected and library.stats().papers == before


def test_a_phrase_of_one_papers_body_finds_it_first_with_its_page(library, folder, run_cli):
    assert run_cli("import", str(folder)).exit_code == 1
    phrase = '"counting the number of occurrences of each word"'  # MapReduce, section 2.1, page 2
    assert phrase.strip('"') not in library.get(key_of(library, "mapreduce")).abstract
    found = json.loads(run_cli("search", phrase, "--json").output)["papers"]
    assert found[0]["key"] == key_of(library, "mapreduce") and found[0]["page"] == 2
    assert "counting the number of occurrences of each word" in found[0]["page_snippet"]
    # The words without quotes, as a user types them: the same paper first, the same page.
    loose = json.loads(run_cli("search", "counting occurrences of each word in a large collection of documents",
                               "--json").output)["papers"]
    assert (loose[0]["key"], loose[0]["page"]) == (key_of(library, "mapreduce"), 2)



def test_papers_made_from_real_files_get_the_titles_they_print(empty_catalog):
    """The files of papers the catalog lacks become papers titled as page 1 prints them in its
    largest type, not with the running head, the journal's name or the authors' line."""
    import re

    typed = dict(re.findall(r"@article\{([^,]+),\n  title = \{(.*?)\},", (PAPERS / "catalog.bib").read_text()))
    reports = empty_catalog.files.import_pdfs(FILES)
    assert sum(r.new for r in reports) == len(FILES)
    with empty_catalog.store.read() as tx:
        keys = tx.papers.all_keys()
    made = {Path(empty_catalog.get(key).sources[0].path).stem: empty_catalog.get(key).title for key in keys}
    right = {stem for stem, title in made.items() if pdf.compare(title or "") == pdf.compare(typed[stem])}
    # Below the running head of ACL's proceedings; above the authors; a journal's name skipped.
    assert {"P07-1088", "bohnet09", "bitcoin", "mapreduce", "timp-r-package", "psychogeriatrics"} <= right
    assert len(right) >= 46, sorted(set(made) - right)  # 24 of 51 from page 1's lines alone
    # Their abstracts end where the abstract ends: at "Author Keywords", at a first section
    # of any name ("1 Background"), not pages later.
    from catalog.importing.pdfs import _runs

    entries = {}
    for entry in re.split(r"(?m)^@", (PAPERS / "catalog.bib").read_text()):
        found = re.search(r"\{([^,]+),\n(?:.*\n)*  abstract = \{(.*)\}\n\}", entry)
        if found:
            entries[found[1]] = found[2]
    whole = {stem: text for stem, text in entries.items() if stem in made and len(text.split()) > 60}
    abstracts = {Path(empty_catalog.get(key).sources[0].path).stem: empty_catalog.get(key).abstract for key in keys}
    agree = set()
    for stem, text in whole.items():
        want, got = _runs(pdf.compare(text).split()), _runs(pdf.compare(abstracts[stem]).split())
        if len(want & got) > 0.9 * len(want) and len(want & got) > 0.9 * len(got):
            agree.add(stem)
    assert {"neuronal-processing", "seung08"} <= agree
    assert len(agree) >= len(whole) - 3, sorted(set(whole) - agree)
