"""Retractions, withdrawals and corrections (paper_notice) as a reader meets them: flagged in
every list (`catalog list`, `search`, `--json`), the TUI's list row and reading pane, and the
notes of BibTeX, RIS, CSL-JSON, Markdown and Markdown vault exports.

The papers come from the recorded answers (tests/data/web/): PLOS ONE's with its real
correction notice, arXiv's 1605.08386 with its comment worded as arXiv words a withdrawal,
and Scientific Reports' with its `updated-by` made a retraction (Crossref's shape, kept)."""

from __future__ import annotations

import json

import pytest

from tests import webserver
from tests.test_web_add import web  # noqa: F401  (a fixture)

DATA = webserver.DATA
PLOS, SREP, ARXIV = "10.1371/journal.pone.0033693", "10.1038/srep16696", "arXiv:1605.08386"
RETRACTION = "10.1038/srep99999"


def _withdrawn_arxiv() -> bytes:
    return (DATA / "arxiv" / "1605.08386.xml").read_bytes().replace(
        b"<arxiv:comment>20 pages, 3 figures</arxiv:comment>",
        b"<arxiv:comment>This paper has been withdrawn by the authors due to an error</arxiv:comment>")


def _retracted_srep() -> bytes:
    answer = json.loads((DATA / "crossref" / "10.1038_srep16696.json").read_bytes())
    answer["message"]["updated-by"] = [{"DOI": RETRACTION, "type": "retraction", "label": "Retraction",
                                        "source": "publisher", "updated": {"date-parts": [[2019, 3, 1]]}}]
    return json.dumps(answer).encode()


@pytest.fixture
def flagged(web, run_cli):  # noqa: F811  (the fixture imported above)
    """Keys of the corrected, withdrawn and retracted papers, and one with no notice."""
    web.script("/arxiv/api/query", [(200, _withdrawn_arxiv(), {"Content-Type": "application/atom+xml"})])
    web.script(f"/crossref/works/{SREP}", [(200, _retracted_srep(), {"Content-Type": "application/json"})])
    out = run_cli("add", "--json", PLOS, ARXIV, SREP, "10.1109/icdcsw.2003.1203662")
    assert out.exit_code == 0, out.output
    keys = [a["paper"]["key"] for a in json.loads(out.stdout)]
    return dict(zip(("corrected", "withdrawn", "retracted", "plain"), keys))


def test_list_and_search_flag_each_paper_with_its_notice(run_cli, flagged):
    lines = {line.split()[0]: line for line in run_cli("list").output.splitlines() if line.strip()}
    assert lines[flagged["retracted"]].split()[1] == "RETRACTED"
    assert lines[flagged["withdrawn"]].split()[1] == "WITHDRAWN"
    assert lines[flagged["corrected"]].split()[1] == "CORRECTED"
    assert not any(w in lines[flagged["plain"]] for w in ("RETRACTED", "WITHDRAWN", "CORRECTED"))
    # a search by the paper's DOI (a paper it names) and by its words
    assert run_cli("search", SREP).output.split()[1] == "RETRACTED"


def test_json_lists_carry_the_flag(run_cli, flagged):
    listed = {p["key"]: p["notice"] for p in json.loads(run_cli("list", "--json").stdout)}
    assert listed == {flagged["corrected"]: "corrected", flagged["withdrawn"]: "withdrawn",
                      flagged["retracted"]: "retracted", flagged["plain"]: None}
    shown = json.loads(run_cli("show", flagged["retracted"], "--json").stdout)
    assert shown["notice"] == "retracted"
    assert shown["notices"] == [{"kind": "retraction", "doi": RETRACTION, "label": "Retraction",
                                 "updated": "2019-03-01"}]


def test_a_search_by_words_flags_too(run_cli, flagged):
    title = json.loads(run_cli("show", flagged["retracted"], "--json").stdout)["title"]
    papers = json.loads(run_cli("search", "--json", " ".join(title.split()[:4])).stdout)["papers"]
    assert papers[0]["key"] == flagged["retracted"] and papers[0]["notice"] == "retracted"


def test_the_tui_row_leads_with_the_flag_and_the_pane_says_why(empty_catalog, web):  # noqa: F811
    from catalog.tui.widgets.detail import NOTHING, paper_content
    from catalog.tui.widgets.rows import Columns, RowStyles, row

    web.script(f"/crossref/works/{SREP}", [(200, _retracted_srep(), {"Content-Type": "application/json"})])
    [added] = empty_catalog.web.add_identifiers([SREP])
    [summary] = empty_catalog.first_page("", limit=10).rows
    assert summary.notice == "retracted"
    text = row(summary, Columns.fit(100), RowStyles.plain(), marked=False).plain
    assert text[3:].startswith("RETRACTED ") and summary.title[:20] in text
    pane = paper_content(empty_catalog.get(added.paper.key), NOTHING).plain
    assert f"Retraction of 2019-03-01: doi {RETRACTION}" in pane
    # and `m`'s list of similar papers
    from catalog.results import RelatedPaper
    from catalog.tui.screens.similar import _line

    related = RelatedPaper(summary.key, summary.title, summary.venue, summary.year, 0.5, ("x",), summary)
    assert _line(related).plain.startswith("0.50  RETRACTED ")


def _export(run_cli, fmt: str, tmp_path, key: str) -> str:
    path = tmp_path / f"out.{fmt}"
    out = run_cli("export", "--format", fmt, "-o", str(path), "--force", key)
    assert out.exit_code == 0, out.output
    return path.read_text("utf-8")


def test_exports_write_the_notices_in_their_notes(run_cli, flagged, tmp_path):
    key = flagged["retracted"]
    said = f"Retraction of 2019-03-01: https://doi.org/{RETRACTION}"
    bib = _export(run_cli, "bibtex", tmp_path, key)
    assert f"note = {{{said}}}" in bib, bib
    ris = _export(run_cli, "ris", tmp_path, key)
    assert f"N1  - {said}" in ris.splitlines()
    [item] = json.loads(_export(run_cli, "csljson", tmp_path, key))
    assert item["note"] == said
    md = _export(run_cli, "markdown", tmp_path, key)
    assert f"**Retracted**: [Retraction of 2019-03-01](<https://doi.org/{RETRACTION}>)" in md
    vault = tmp_path / "vault"
    assert run_cli("export", "--format", "vault", "-o", str(vault), key).exit_code == 0
    page = (vault / f"{key}.md").read_text("utf-8")
    assert page.index(f"**Retracted**: [Retraction of 2019-03-01](<https://doi.org/{RETRACTION}>)") < page.index("## Abstract")
    # a paper without notices gets no note
    assert "note" not in json.loads(_export(run_cli, "csljson", tmp_path, flagged["plain"]))[0]
    assert "N1  -" not in _export(run_cli, "ris", tmp_path, flagged["plain"])


def test_lists_and_exports_flag_on_both_backends(empty_any, web):  # noqa: F811
    web.script(f"/crossref/works/{SREP}", [(200, _retracted_srep(), {"Content-Type": "application/json"})])
    [retracted, corrected, plain] = empty_any.web.add_identifiers([SREP, PLOS, "10.1109/icdcsw.2003.1203662"])
    flags = {p.key: p.notice for p in empty_any.first_page("", limit=10).rows}
    assert flags == {retracted.paper.key: "retracted", corrected.paper.key: "corrected", plain.paper.key: None}
    assert [p.notice for p in empty_any.search(SREP)] == ["retracted"]  # a paper named by its DOI
    exported = {p.key: p.notice_note for p in empty_any.exchange.export_papers()}
    assert exported[retracted.paper.key] == f"Retraction of 2019-03-01: https://doi.org/{RETRACTION}"
    assert exported[plain.paper.key] == ""


def test_flagged_papers_are_found_by_their_notice_on_both_backends(empty_any, web):  # noqa: F811
    web.script(f"/crossref/works/{SREP}", [(200, _retracted_srep(), {"Content-Type": "application/json"})])
    [retracted, corrected, plain] = empty_any.web.add_identifiers([SREP, PLOS, "10.1109/icdcsw.2003.1203662"])
    keys = lambda query: {p.key for p in empty_any.search(query, limit=50)}  # noqa: E731
    assert keys("notice:retracted") == keys("notice:retraction") == {retracted.paper.key}
    assert keys("notice:grave") == {retracted.paper.key}
    assert keys("notice:corrected") == {corrected.paper.key}
    assert keys("has:notice") == {retracted.paper.key, corrected.paper.key}
    assert keys("-has:notice") == {plain.paper.key}
    assert keys("notice:withdrawn") == set()
    assert empty_any.count("has:notice") == 2


def test_cli_lists_flagged_papers_and_explains_a_bad_value(run_cli, flagged):
    listed = json.loads(run_cli("list", "--json", "has:notice").stdout)
    assert {p["key"]: p["notice"] for p in listed} == {
        flagged["corrected"]: "corrected", flagged["withdrawn"]: "withdrawn", flagged["retracted"]: "retracted"}
    grave = {p["key"] for p in json.loads(run_cli("list", "--json", "notice:grave").stdout)}
    assert grave == {flagged["withdrawn"], flagged["retracted"]}
    bad = run_cli("list", "notice:bogus")
    assert bad.exit_code != 0 and "notice:bogus: expected one of retracted, withdrawn" in bad.output
    assert "Traceback" not in bad.output and len(bad.output.strip().splitlines()) == 1

