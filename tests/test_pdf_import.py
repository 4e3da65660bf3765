"""Importing PDFs: matched to the papers already here by DOI or arXiv id on their front pages
(never one only their reference list names), else by title and abstract; the others become
papers of their own; a re-run changes nothing, a run cut short is completed by the next; a
real paper (pdf.js's tracemonkey) finds its BibTeX entry; files without text are reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.importing import pdfs
from catalog.parts.files import Files
from catalog.library import Catalog
from tests.pdfmaker import make

DATA = Path(__file__).resolve().parent / "data" / "pdf"
SEEDS = Path(__file__).resolve().parent.parent / "seeds"
INTRO = ("1 Introduction\nRecent work has studied how models represent what they read, and how that "
         "changes with scale, data and training objectives. ") * 3
TRACEMONKEY_BIB = """@inproceedings{gal2009trace,
  title = {Trace-based Just-in-Time Type Specialization for Dynamic Languages},
  author = {Gal, Andreas and Eich, Brendan and Shaver, Mike and Anderson, David},
  booktitle = {Proceedings of the 30th ACM SIGPLAN Conference on Programming Language Design and Implementation},
  year = {2009},
  abstract = {Dynamic languages such as JavaScript are more difficult to compile than statically typed ones.
  Since no concrete type information is available, traditional compilers need to emit generic code that can
  handle all possible type combinations at runtime. We present an alternative compilation technique for
  dynamically-typed languages that identifies frequently executed loop traces at run-time and then generates
  machine code on the fly that is specialized for the actual dynamic types occurring on each path through the
  loop.}
}
"""


def paper_pdf(path: Path, title: str, abstract: str, *, doi: str | None = None, arxiv: str | None = None,
              cited: tuple[str, ...] = (), intro_doi: str | None = None) -> Path:
    """A paper as a PDF: a header, its title, authors, abstract and introduction on page 1
    (its own DOI or arXiv stamp there when given, another paper's DOI in the introduction
    with `intro_doi`), and a reference list on page 2 citing `cited`."""
    stamp = f"arXiv:{arxiv}v2 [cs.LG] 3 Feb 2026\n" if arxiv else ""
    own = f"DOI: {doi}\n" if doi else ""
    intro = INTRO + (f"As shown before (doi:{intro_doi}), this matters.\n" if intro_doi else "")
    page1 = f"{stamp}Published as a conference paper\n{title}\nAnonymous Authors\n{own}Abstract\n{abstract}\n{intro}"
    page2 = "2 Method\nWe follow earlier work closely.\nReferences\n" + "\n".join(
        f"[{n}] A. Author. Some earlier paper. {ref}" for n, ref in enumerate(cited, 1))
    return make(path, [page1, page2])


@pytest.fixture
def library(seeded: Catalog, tmp_path: Path):
    """The seeds, and ten papers with DOIs and titles (BibTeX), each with its own words."""
    entries = []
    for n in range(10):
        entries.append(
            f"@article{{p{n}, title={{Lattice Method {n} for Quokka Number {n} Estimation}}, author={{Ann Author{n}}},"
            f" year={{2025}}, doi={{10.5555/quokka.{n}}}, abstract={{We estimate quokka numbers with lattice method {n}."
            f" The estimate {n} uses counts from {n + 3} islands and a prior on colony size {n * 7}.}}}}")
    bib = tmp_path / "quokka.bib"
    bib.write_text("\n".join(entries) + "\n")
    assert not seeded.import_paths([bib]).errors
    return seeded


def dois(catalog: Catalog) -> dict[str, str]:
    return {catalog.search(f"10.5555/quokka.{n}", limit=1)[0].key: f"10.5555/quokka.{n}" for n in range(10)}


def attached(catalog: Catalog) -> dict[str, list[str]]:
    """paper key -> names of its attached files, for every paper with any."""
    from catalog.attachments.attaching import missing  # noqa: F401  (the module the files come from)

    with catalog.store.read() as tx:
        every = tx.papers.every_attachment()
    found: dict[str, list[str]] = {}
    for key, a in every:
        found.setdefault(key, []).append(a.name)
    return found


def test_a_folder_of_pdfs_is_matched_attached_or_added(library, tmp_path, run_cli):
    folder = tmp_path / "Papers"
    folder.mkdir()
    by_doi = dois(library)
    keys = list(by_doi)
    expected = {}
    # Papers with a DOI: each prints its own on page 1 and cites the next two only in its references.
    for n, key in enumerate(keys):
        detail = library.get(key)
        cited = tuple(by_doi[keys[(n + i) % len(keys)]] for i in (1, 2))
        name = f"q{n}.pdf"
        paper_pdf(folder / name, detail.title, detail.abstract, doi=by_doi[key] if n % 2 == 0 else None, cited=cited)
        expected[name] = key
    # Seed papers (no titles, no identifiers): known by their abstract alone.
    with library.store.read() as tx:
        seeds = [key for key in tx.papers.all_keys() if key not in by_doi][:40]
    for n, key in enumerate(seeds):
        detail = library.get(key)
        name = f"s{n}.pdf"
        paper_pdf(folder / name, detail.headline, detail.abstract, cited=(by_doi[keys[n % 10]],))
        expected[name] = key
    # Papers the catalog does not have: one prints an arXiv id, one cites a catalog paper's DOI
    # in its introduction.
    paper_pdf(folder / "new1.pdf", "Wombat Burrow Acoustics in Dry Seasons",
              "We record wombat burrows across four dry seasons and model how sound travels in them, "
              "finding that burrow length predicts echo decay better than soil type does.", arxiv="2602.01234")
    paper_pdf(folder / "new2.pdf", "Echidna Foraging Paths Under Heat Stress",
              "We track echidnas foraging under heat stress with small tags and show that their paths "
              "shorten and straighten as the day warms, unlike those of other insectivores.",
              intro_doi=by_doi[keys[0]])
    before = library.stats().papers
    result = run_cli("import", "--verbose", str(folder))
    assert result.exit_code == 0, result.output
    assert "PDFs: 50 attached to papers already here, 2 new papers from their own text" in result.stderr
    files = attached(library)
    wrong = {name: key for key, names in files.items() for name in names if expected.get(name, key) != key}
    assert wrong == {}
    assert all(name in files.get(key, []) for name, key in expected.items())
    assert library.stats().papers == before + 2
    new1 = library.search("wombat burrow acoustics", limit=1)[0]
    detail = library.get(new1.key)
    assert detail.arxiv_id == "2602.01234" and detail.title == "Wombat Burrow Acoustics in Dry Seasons"
    assert detail.sources[0].path.endswith("new1.pdf")
    new2 = library.get(library.search("echidna foraging", limit=1)[0].key)
    assert new2.doi is None  # the DOI its introduction cites is another paper's
    assert files[new2.summary.key] == ["new2.pdf"]
    # Again: nothing changes.
    again = run_cli("import", str(folder))
    assert "PDFs: 0 attached to papers already here, 0 new papers from their own text, 52 attached before" in again.stderr
    assert attached(library) == files and library.stats().papers == before + 2


def test_a_doi_only_in_the_reference_list_attaches_nothing(library, tmp_path):
    by_doi = dois(library)
    target = list(by_doi)[3]
    pdf = paper_pdf(tmp_path / "other.pdf", "Platypus Electroreception in Murky Water",
                    "We measure platypus electroreception in murky water and find thresholds far below "
                    "those reported for clear streams, which changes how we read their hunting.",
                    cited=(by_doi[target],) * 3)
    [report] = library.files.import_pdfs([pdf])
    assert report.new == 1 and target not in attached(library)


def test_the_real_tracemonkey_paper_finds_its_bibtex_entry(seeded, tmp_path, run_cli):
    bib = tmp_path / "pldi.bib"
    bib.write_text(TRACEMONKEY_BIB)
    assert not seeded.import_paths([bib]).errors
    key = seeded.search("trace-based just-in-time", limit=1)[0].key
    result = run_cli("add", str(DATA / "tracemonkey-page1.pdf"))
    assert result.exit_code == 0, result.output
    assert f"attached to {key} (same abstract and title)" in result.stderr
    assert [a.name for a in seeded.files.attachments(key)] == ["tracemonkey-page1.pdf"]
    found = json.loads(run_cli("search", "--in", "text", "Mozilla", "--json").output)["papers"]
    assert [p["key"] for p in found] == [key] and found[0]["page"] == 1


def test_a_real_paper_not_in_the_catalog_becomes_one_from_its_text(seeded):
    [report] = seeded.files.import_pdfs([DATA / "tracemonkey-page1.pdf"])
    assert report.new == 1
    found = seeded.search("trace-based just-in-time", limit=1)[0]
    detail = seeded.get(found.key)
    assert detail.title == "Trace-based Just-in-Time Type Specialization for Dynamic Languages"
    assert detail.abstract.startswith("Dynamic languages such as JavaScript are more difficult to compile")
    assert detail.summary.year == 2009


def test_files_without_text_are_one_line_each_and_change_nothing(seeded, tmp_path, run_cli):
    folder = tmp_path / "bad"
    folder.mkdir()
    for name in ("scanned.pdf", "encrypted.pdf"):
        (folder / name).write_bytes((DATA / name).read_bytes())
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really")
    make(folder / "scan500.pdf", [""] * 500)
    before = seeded.stats()
    result = run_cli("import", str(folder))
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("catalog: ")]
    assert len(lines) == 4 and all("not imported" in line for line in lines)
    assert "Traceback" not in result.output
    assert seeded.stats() == before and attached(seeded) == {}


def test_a_run_cut_short_is_completed_by_the_next(library, tmp_path, monkeypatch):
    folder = tmp_path / "Papers"
    folder.mkdir()
    animals = ("numbat", "bilby", "dunnart")
    foods = ("termites", "seeds", "beetles")
    for n in range(3):
        paper_pdf(folder / f"n{n}.pdf", f"The {animals[n].title()} Diet Across {n + 3} Seasons",
                  f"We follow {animals[n]}s through {n + 3} seasons and count the {foods[n]} they eat each night, "
                  f"then relate what {animals[n]}s eat to rainfall, burrow depth and the age of each animal.")
    real_attach = Files.attach_file
    calls = []

    def dies_on_the_second(self, key, path, **kwargs):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt  # killed after the paper was made, before its file came
        return real_attach(self, key, path, **kwargs)

    monkeypatch.setattr(Files, "attach_file", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        library.import_paths([folder])
    monkeypatch.setattr(Files, "attach_file", real_attach)
    assert sorted(n for names in attached(library).values() for n in names) == ["n0.pdf"]
    before = library.stats().papers
    report = library.import_paths([folder])
    assert not report.errors, report.merges
    assert len(report.merges) == 2, report.merges
    files = attached(library)
    assert sorted(n for names in files.values() for n in names) == ["n0.pdf", "n1.pdf", "n2.pdf"]
    assert library.stats().papers == before + 1, report.merges  # n1
    assert all(len(names) == 1 for names in files.values())


def test_add_takes_pdf_files_beside_identifiers(run_cli, tmp_path):
    missing = run_cli("add", str(tmp_path / "nowhere.pdf"))  # not a file: an identifier that is none
    assert missing.exit_code == 1 and missing.output.count("\n") == 1 and "Traceback" not in missing.output
    made = run_cli("add", str(paper_pdf(tmp_path / "kowari.pdf", "Kowari Dens in the Channel Country",
                                       "We map kowari dens across the channel country and find that den sites cluster "
                                       "on gibber plains near drainage lines, away from the dunes the species avoids.")))
    assert made.exit_code == 0, made.output
    assert "new paper" in made.stderr


def test_two_papers_with_the_same_evidence_are_not_guessed_between():
    abstract = pdfs.pdf.compare("We estimate quokka numbers with lattice methods on islands, " * 4)
    front = pdfs.pdf.compare("Quokka Numbers\nAbstract\n" + "We estimate quokka numbers with lattice methods on islands, " * 4)
    facts = pdfs.pdf.PdfFacts(front=front)
    twins = [pdfs.Candidate(1, "aaaa111", "", abstract), pdfs.Candidate(2, "bbbb222", "", abstract)]
    choice = pdfs.choose(facts, twins)
    assert choice is not None and choice.paper_id is None and "aaaa111" in choice.evidence
