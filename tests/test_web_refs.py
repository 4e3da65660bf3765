"""`catalog refs` and `cited-by` against recorded answers: Semantic Scholar's pages followed,
the papers the catalog holds marked with their keys, Crossref's deposited reference list when
Semantic Scholar has none, and one line for a paper with no identifier to look it up by."""

from __future__ import annotations

import json

from tests.test_web_add import added, web  # noqa: F401  (a fixture)


def _paper_with_doi(run_cli, tmp_path, doi: str, title: str) -> str:
    records = tmp_path / f"{doi.replace('/', '_')}.json"
    records.write_text(json.dumps([{"title": title, "doi": doi}]))
    assert run_cli("import", str(records)).exit_code == 0
    return next(p["key"] for p in json.loads(run_cli("list", "--json").stdout) if p["title"] == title)


def test_references_from_semantic_scholar_over_two_pages(run_cli, web, tmp_path):
    key = _paper_with_doi(run_cli, tmp_path, "10.2139/ssrn.2250500", "The Miracle of Microfinance?")
    out = run_cli("refs", key, "--json")
    assert out.exit_code == 0, out.output
    linked = json.loads(out.stdout)
    assert linked["service"] == "Semantic Scholar" and len(linked["references"]) == 67
    assert linked["references"][0]["title"] == ("Group lending or individual lending? Evidence from a "
                                                "randomised field experiment in Mongolia")
    assert [r["query"]["offset"] for r in web.requests] == ["0", "50"]
    assert web.requests[0]["query"]["fields"] == "title,abstract,authors,year,venue,externalIds"


def test_citing_papers_stop_at_the_cap(run_cli, web, tmp_path, monkeypatch):
    from catalog.fetching import citations

    monkeypatch.setattr(citations, "MAX_PAPERS", 200)
    key = _paper_with_doi(run_cli, tmp_path, "10.2139/ssrn.2250500", "The Miracle of Microfinance?")
    out = run_cli("cited-by", key)
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert len(lines) == 200 and lines[0].startswith("-        We’ve got you covered!")
    assert "200 papers citing it from Semantic Scholar; 0 in the catalog" in out.stderr


def test_references_from_crossref_marked_when_in_the_catalog(run_cli, web, tmp_path):
    [plos] = added(run_cli, "10.1371/journal.pone.0033693")
    cited = _paper_with_doi(run_cli, tmp_path, "10.1038/sj.npp.1301164", "Stimulants: Therapeutic actions in ADHD.")
    out = run_cli("refs", plos["paper"]["key"], "--json")
    assert out.exit_code == 0, out.output
    linked = json.loads(out.stdout)
    assert linked["service"] == "Crossref" and len(linked["references"]) == 70
    first = linked["references"][0]
    assert (first["key"], first["doi"], first["year"], first["authors"]) == (cited, "10.1038/sj.npp.1301164", 2006, "AF Arnsten")
    assert sum(1 for r in linked["references"] if r["key"]) == 1
    text = run_cli("refs", plos["paper"]["key"]).stdout
    assert text.startswith(f"{cited}  Stimulants: Therapeutic actions in ADHD.  2006  DOI 10.1038/sj.npp.1301164")


def test_a_paper_without_identifiers(run_cli, web, tmp_path):
    listing = tmp_path / "l.txt"
    listing.write_text("ICLR 2026 Papers\n\nWe study a thing with a method of our own on many graphs.\n")
    assert run_cli("import", str(listing)).exit_code == 0
    [paper] = json.loads(run_cli("list", "--json").stdout)
    out = run_cli("cited-by", paper["key"])
    assert out.exit_code == 1 and out.output == (f"catalog: paper {paper['key']} has no DOI or arXiv id to look it "
                                                 f"up by (catalog enrich {paper['key']} may find one)\n")
    assert web.requests == []


def test_fetch_pdf_attaches_arxivs_pdf_once(run_cli, web, tmp_path):
    from tests.webserver import DATA

    pdf = (DATA.parent / "pdf" / "tracemonkey-page1.pdf").read_bytes()
    [paper] = added(run_cli, "arXiv:1605.08386")
    web.script("/files/arxiv.org/pdf/1605.08386v1", [(200, pdf, {"Content-Type": "application/pdf"})])
    out = run_cli("fetch-pdf", "--json")
    assert out.exit_code == 0, out.output
    [done] = json.loads(out.stdout)
    assert done["outcome"] == "attached" and done["url"] == "https://arxiv.org/pdf/1605.08386v1"
    assert done["location"].endswith(".pdf")
    # its text is searched: the page's words find the paper
    assert run_cli("search", '"type specialization"').stdout.startswith(paper["paper"]["key"])
    [again] = json.loads(run_cli("fetch-pdf", "--json").stdout)
    assert again["outcome"] == "had one" and web.requests[-1]["path"] == "/files/arxiv.org/pdf/1605.08386v1"
    assert sum(r["path"].startswith("/files/") for r in web.requests) == 1


def test_fetch_pdf_refuses_a_web_page(run_cli, web):
    [paper] = added(run_cli, "arXiv:1605.08386")
    web.script("/files/arxiv.org/pdf/1605.08386v1", [(200, b"<html>Sign in</html>", {"Content-Type": "text/html"})])
    out = run_cli("fetch-pdf")
    assert out.exit_code == 1
    assert (f"catalog: {paper['paper']['key']}: https://arxiv.org/pdf/1605.08386v1 gave no PDF (200, text/html)"
            in out.stderr)
    assert json.loads(run_cli("show", paper["paper"]["key"], "--json").stdout)["attachments"] == []
