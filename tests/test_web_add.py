"""`catalog add` against recorded answers of arXiv and Crossref (tests/data/web/, replayed by
tests/webserver.py): the paper and every field the answer carries, a second add that changes
nothing and asks nothing, merging into a paper already there, and one line for each way the
web fails (unknown ids, 429s, HTML for JSON, a body cut short, no connection)."""

from __future__ import annotations

import json

import pytest

from tests import webserver
from tests.test_sharing import shared  # noqa: F401  (a fixture)


@pytest.fixture
def web(tmp_path, monkeypatch):
    replay, server = webserver.start()
    monkeypatch.setenv("CATALOG_WEB_BASE", replay.base)
    monkeypatch.setenv("CATALOG_WEB_CACHE", str(tmp_path / "web-cache"))
    monkeypatch.setenv("CATALOG_CONTACT", "reader@example.org")
    monkeypatch.setenv("CATALOG_WEB_TIMEOUT", "5")
    yield replay
    server.shutdown()
    server.server_close()


def show(run_cli, key: str) -> str:
    out = run_cli("show", key)
    assert out.exit_code == 0, out.output
    return out.output


def added(run_cli, *args: str) -> list[dict]:
    out = run_cli("add", "--json", *args)
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_an_arxiv_id_adds_the_paper_with_what_arxiv_says(run_cli, web):
    [result] = added(run_cli, "arXiv:1111.2011v2")
    assert result["outcome"] == "new"
    assert result["pdf_url"] == "https://arxiv.org/pdf/1111.2011v2"
    key = result["paper"]["key"]
    text = show(run_cli, key)
    assert "Quantum Criticality for Extended Nodes on a Bethe Lattice" in text
    assert "James M. Murray, Adrian Del Maestro, Zlatko Tesanovic" in text
    assert "DOI: 10.1103/physrevb.85.115117" in text and "arXiv: 1111.2011" in text
    assert "Perron-Frobenius uniform mode" in text  # the abstract
    assert "/arxiv/api/query?id_list=1111.2011" in text  # the source: the API's answer
    assert "PDF: https://arxiv.org/pdf/1111.2011v2" in text
    assert result["paper"]["year"] == 2011
    # arXiv's documented politeness: who is asking, with the contact the user set
    assert all("reader@example.org" in r["user_agent"] and r["user_agent"].startswith("catalog/")
               for r in web.requests)


@pytest.mark.parametrize("form", ["1605.08386", "arXiv:1605.08386", "https://arxiv.org/abs/1605.08386v1",
                                  "https://arxiv.org/pdf/1605.08386v1", "10.48550/arXiv.1605.08386",
                                  "https://doi.org/10.48550/arXiv.1605.08386"])
def test_every_form_of_an_arxiv_id_names_the_same_paper(run_cli, web, form):
    [result] = added(run_cli, form)
    assert result["outcome"] == "new"
    assert result["paper"]["title"] == "Heat-bath random walks with Markov bases"
    assert [r["query"]["id_list"] for r in web.requests] == ["1605.08386"]


def test_old_style_arxiv_ids(run_cli, web):
    [result] = added(run_cli, "astro-ph/0601001", "quant-ph/0201082v1")[:1]
    assert result["paper"]["title"].startswith("Frequency of Hot Jupiters and Very Hot Jupiters")


def test_a_doi_adds_crossrefs_record(run_cli, web):
    [result] = added(run_cli, "https://doi.org/10.1371/journal.pone.0033693")
    key = result["paper"]["key"]
    assert result["paper"]["title"] == ("Methylphenidate Exposure Induces Dopamine Neuron Loss and "
                                         "Activation of Microglia in the Basal Ganglia of Mice")
    assert result["paper"]["venue"] == "PLoS ONE" and result["paper"]["year"] == 2012
    text = show(run_cli, key)
    assert "Shankar Sadasivan, Brooks B. Pond, Amar K. Pani" in text
    assert "DOI: 10.1371/journal.pone.0033693" in text and "Type: journal article" in text
    # Crossref's updated-by: the publisher's correction notice, with its date
    assert "Correction of 2012-05-08: https://doi.org/10.1371/annotation/c76da2c1-ccb8-4797-94c1-359d3ceceeda" in text
    detail = json.loads(run_cli("show", key, "--json").stdout)
    assert detail["notices"] == [{"kind": "correction", "doi": "10.1371/annotation/c76da2c1-ccb8-4797-94c1-359d3ceceeda",
                                  "label": "Correction", "updated": "2012-05-08"}]
    # Crossref's polite pool: the contact goes along as mailto
    assert web.requests[0]["query"] == {"mailto": "reader@example.org"}


def test_crossref_abstracts_lose_their_jats_markup(run_cli, web):
    [result] = added(run_cli, "10.1038/srep16696")
    text = show(run_cli, result["paper"]["key"])
    assert "Oligomers of alpha-synuclein are toxic to cells" in text
    assert "jats" not in text and "Abstract" not in text  # the heading went with the markup


def test_adding_again_asks_nothing_and_changes_nothing(run_cli, web, db_path):
    first = added(run_cli, "arXiv:1111.2011", "10.1371/journal.pone.0033693")
    asked = len(web.requests)
    again = added(run_cli, "arXiv:1111.2011", "10.1371/journal.pone.0033693")
    assert [a["outcome"] for a in again] == ["unchanged", "unchanged"]
    assert [a["paper"]["key"] for a in again] == [f["paper"]["key"] for f in first]
    assert len(web.requests) == asked  # the cache answered
    assert run_cli("list").output.count("\n") == 2


def test_the_cache_gone_the_same_answer_still_changes_nothing(run_cli, web, tmp_path, monkeypatch):
    added(run_cli, "arXiv:1605.08386")
    monkeypatch.setenv("CATALOG_WEB_CACHE", str(tmp_path / "another-cache"))
    [again] = added(run_cli, "arXiv:1605.08386")
    assert again["outcome"] == "unchanged" and len(web.requests) == 2
    assert json.loads(run_cli("sql", "--json", "SELECT count(*) AS n FROM source").stdout)[0]["n"] == 1


def test_a_paper_already_there_gains_the_fields_it_lacked_and_keeps_the_users(run_cli, web, tmp_path):
    bib = tmp_path / "mine.bib"
    bib.write_text("@misc{x, title = {My own name for it}, eprint = {1111.2011}, archivePrefix = {arXiv}}\n")
    assert run_cli("import", str(bib)).exit_code == 0
    key = json.loads(run_cli("list", "--json").stdout)[0]["key"]
    [result] = added(run_cli, "https://arxiv.org/abs/1111.2011v2")
    assert result["outcome"] == "updated" and result["paper"]["key"] == key
    assert {"authors", "doi"} <= set(result["filled"])
    text = show(run_cli, key)
    assert "My own name for it" in text and "Quantum Criticality" not in text.splitlines()[0]
    assert "James M. Murray" in text and "Perron-Frobenius" in text


def test_from_a_file_one_per_line(run_cli, web, tmp_path):
    listing = tmp_path / "ids.txt"
    listing.write_text("# my reading list\narXiv:1605.08386\n\n10.1371/journal.pone.0033693  # PLoS\n")
    results = added(run_cli, "--from", str(listing))
    assert [r["outcome"] for r in results] == ["new", "new"]


def test_what_names_no_paper_is_refused_before_anything_is_fetched(run_cli, web, db_path):
    out = run_cli("add", "arXiv:1605.08386", "not-an-id")
    assert out.exit_code == 1 and out.output.count("\n") == 1
    assert "'not-an-id' is not a DOI, an arXiv id" in out.output
    assert web.requests == [] and not db_path.exists()


def test_ids_nobody_knows_make_no_new_catalog(run_cli, web, db_path):
    out = run_cli("add", "10.1371/notarealdoi", "arXiv:0000.0000")
    assert out.exit_code == 1 and out.output.count("\n") == 2 and not db_path.exists()


def test_unknown_ids_fail_one_line_each_and_the_rest_are_added(run_cli, web):
    out = run_cli("add", "10.1371/notarealdoi", "arXiv:0000.0000", "arXiv:1605.08386")
    assert out.exit_code == 1
    lines = out.output.strip().splitlines()
    assert lines[0] == "catalog: 10.1371/notarealdoi: neither Crossref nor DataCite knows the DOI 10.1371/notarealdoi"
    assert lines[1] == "catalog: arXiv:0000.0000: arXiv has no paper 0000.0000"
    assert "Heat-bath random walks" in lines[2]
    # Crossref did not know it, so DataCite was asked
    assert [r["path"] for r in web.requests[:2]] == ["/crossref/works/10.1371/notarealdoi",
                                                     "/datacite/dois/10.1371/notarealdoi"]


def test_a_429_is_waited_out(run_cli, web):
    web.script("/arxiv/api/query", [(429, b"Rate exceeded.", {"Retry-After": "0"})])
    [result] = added(run_cli, "arXiv:1605.08386")
    assert result["outcome"] == "new" and len(web.requests) == 2


def test_a_service_that_stays_busy_is_one_line_and_nothing_changes(run_cli, web, db_path, monkeypatch):
    from catalog.fetching import http

    monkeypatch.setattr(http, "BACKOFF", 0.0)
    web.script("/arxiv/api/query", [(503, b"busy", {})] * 4)
    out = run_cli("add", "arXiv:1605.08386")
    assert out.exit_code == 1
    assert out.output == f"catalog: arXiv:1605.08386: {web.base.removeprefix('http://')} is unavailable (503); try again later\n"
    assert len(web.requests) == 4  # the first try and three more
    assert run_cli("list", "--json").stdout.strip() in ("", "[]")


def test_an_html_page_where_json_was_expected(run_cli, web):
    web.script("/crossref/works/10.1038/srep16696",
               [(200, b"<!DOCTYPE html><html><body>Maintenance</body></html>", {"Content-Type": "text/html"})])
    out = run_cli("add", "10.1038/srep16696")
    assert out.exit_code == 1
    assert "answered with a web page, not a record" in out.output and out.output.count("\n") == 1


def test_a_body_cut_short(run_cli, web):
    web.script("/crossref/works/10.1038/srep16696", [(200, None, {"Content-Length": "5000"})])
    out = run_cli("add", "10.1038/srep16696")
    assert out.exit_code == 1 and "cut short" in out.output and out.output.count("\n") == 1


def test_offline_is_one_line_and_no_catalog_changes(run_cli, tmp_path, monkeypatch, db_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("CATALOG_WEB_BASE", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("CATALOG_WEB_CACHE", str(tmp_path / "cache"))
    out = run_cli("add", "arXiv:1605.08386", "10.1038/srep16696")
    assert out.exit_code == 1
    assert out.output.startswith(f"catalog: cannot reach 127.0.0.1:{port} (")
    assert out.output.count("\n") == 1
    assert not db_path.exists()  # no catalog made for nothing


def test_add_then_enrich_on_both_backends(empty_any, web, tmp_path):
    """The sources, provenance and merges a fetched paper leaves are the same on SQLite and
    PostgreSQL: added once, found again, and enriched into a paper that lacked its authors."""
    [first] = empty_any.add_identifiers(["arXiv:1605.08386"])
    [again] = empty_any.add_identifiers(["https://arxiv.org/abs/1605.08386v1"])
    assert (first.outcome, again.outcome, again.paper.key) == ("new", "unchanged", first.paper.key)
    records = tmp_path / "mine.json"
    records.write_text(json.dumps([{"abstract": "We derive the frequencies of hot Jupiters with 3--5 day periods.",
                                    "arxiv_id": "astro-ph/0601001"}]))
    assert not empty_any.import_paths([records]).errors
    [done] = empty_any.enrich()
    assert done.outcome == "filled" and "authors" in done.filled
    detail = empty_any.get(done.key)
    assert detail.authors and detail.title.startswith("Frequency of Hot Jupiters")
    assert [(s.format, s.evidence) for s in detail.sources] == [("json", None), ("arxiv", "enrich: its arXiv id")]
    assert detail.pdf_url == "https://arxiv.org/pdf/astro-ph/0601001v1"
    [plos] = empty_any.add_identifiers(["10.1371/journal.pone.0033693"])
    assert [n.kind for n in empty_any.get(plos.paper.key).notices] == ["correction"]


def test_a_doi_crossref_does_not_know_comes_from_datacite(run_cli, web):
    lipics, blog = added(run_cli, "10.4230/LIPIcs.TQC.2013.93", "https://doi.org/10.5438/4K3M-NYVG")
    assert lipics["paper"]["title"] == "The Minimum Size of Qubit Unextendible Product Bases"
    assert lipics["paper"]["year"] == 2013 and lipics["source"].endswith("/datacite/dois/10.4230/lipics.tqc.2013.93")
    text = show(run_cli, lipics["paper"]["key"])
    assert "Nathaniel Johnston" in text and "DOI: 10.4230/lipics.tqc.2013.93" in text
    assert "(fetched from DataCite on " in text
    assert blog["paper"]["title"] == "Eating your own Dog Food" and "Martin Fenner" in show(run_cli, blog["paper"]["key"])
    assert [r["path"].split("/")[1] for r in web.requests] == ["crossref", "datacite", "crossref", "datacite"]


def test_a_service_that_does_not_answer_in_time(run_cli, web, monkeypatch):
    from catalog.fetching import http

    monkeypatch.setattr(http, "BACKOFF", 0.0)
    monkeypatch.setenv("CATALOG_WEB_TIMEOUT", "0.2")
    web.script("/crossref/works/10.1038/srep16696", [(200, b"{}", {"X-Delay": "1"})] * 4)
    out = run_cli("add", "10.1038/srep16696")
    assert out.exit_code == 1
    assert out.output.endswith("did not answer within 0.2 s (4 tries); try again later\n")
    assert out.output.count("\n") == 1


def test_an_openreview_link(run_cli, web):
    # No public client library keeps a recorded OpenReview answer; this one is written after
    # the API's documented shape (API 2: each field wrapped as {"value": ...}).
    note = {"notes": [{"id": "rJXMpikCZ", "forum": "rJXMpikCZ", "version": 2, "pdate": 1517443200000, "content": {
        "title": {"value": "Graph Attention Networks"},
        "authors": {"value": ["Petar Veličković", "Guillem Cucurull", "Arantxa Casanova", "Adriana Romero",
                              "Pietro Liò", "Yoshua Bengio"]},
        "abstract": {"value": "We present graph attention networks (GATs), novel neural network architectures that "
                              "operate on graph-structured data, leveraging masked self-attentional layers."},
        "venue": {"value": "ICLR 2018 Conference Poster"}, "pdf": {"value": "/pdf/9d9a7a4ed5bfc1ba4ea0f4ea6c4b2b1ab1a8b5c9.pdf"}}}]}
    web.script("/openreview/notes", [(200, json.dumps(note).encode(), {"Content-Type": "application/json"})])
    [result] = added(run_cli, "https://openreview.net/forum?id=rJXMpikCZ")
    assert web.requests[0]["query"] == {"id": "rJXMpikCZ"}
    assert (result["paper"]["title"], result["paper"]["venue"], result["paper"]["year"]) == (
        "Graph Attention Networks", "ICLR", 2018)
    detail = json.loads(run_cli("show", result["paper"]["key"], "--json").stdout)
    assert detail["authors"] == ("Petar Veličković, Guillem Cucurull, Arantxa Casanova, Adriana Romero, "
                                 "Pietro Liò, Yoshua Bengio")
    assert detail["url"] == "https://openreview.net/forum?id=rJXMpikCZ" and detail["kind"] == "conference"
    assert detail["pdf_url"] == "https://openreview.net/pdf/9d9a7a4ed5bfc1ba4ea0f4ea6c4b2b1ab1a8b5c9.pdf"


def test_a_member_of_a_shared_catalog_adds_and_enriches(web, request):
    """On a server a member (not the owner) writes what a fetched paper brings: its source,
    provenance, PDF link and notices (the new tables reach members by default privileges)."""
    shared = request.getfixturevalue("shared")
    url, as_ = shared
    ann = as_("ann")
    [plos] = ann.add_identifiers(["10.1371/journal.pone.0033693"])
    assert plos.outcome == "new"
    detail = as_("bob").get(plos.paper.key)
    assert [n.kind for n in detail.notices] == ["correction"] and detail.sources[0].format == "crossref"
    [preprint] = ann.add_identifiers(["arXiv:1605.08386"])
    assert as_("bob").get(preprint.paper.key).pdf_url == "https://arxiv.org/pdf/1605.08386v1"


def test_the_tui_reading_pane_shows_the_pdf_link_and_notices(web, empty_catalog):
    from catalog.tui.widgets.detail import NOTHING, paper_content

    [plos, preprint] = empty_catalog.add_identifiers(["10.1371/journal.pone.0033693", "arXiv:1605.08386"])
    shown = paper_content(empty_catalog.get(plos.paper.key), NOTHING).plain
    assert "Correction of 2012-05-08: doi 10.1371/annotation/c76da2c1-ccb8-4797-94c1-359d3ceceeda" in shown
    assert "PDF https://arxiv.org/pdf/1605.08386v1" in paper_content(empty_catalog.get(preprint.paper.key), NOTHING).plain
