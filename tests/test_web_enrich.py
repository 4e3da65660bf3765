"""`catalog enrich` against recorded arXiv answers: an untitled paper whose abstract arXiv
has (reworded a little, as conference lists do) gets its title and authors; another paper on
the same topic is refused and left as it was; ids are looked up by id; the user's title and
the paper's abstract stay; --dry-run changes nothing; each fill is a source `show` lists."""

from __future__ import annotations

import json
import re

import pytest

from catalog.importing.enrich import THRESHOLD, alike
from tests.test_web_add import web  # noqa: F401  (a fixture)

# arXiv 2405.13786's abstract as a conference list might print it: the first sentence reworded.
SAME = ("Test case prioritisation (TCP) is an important task in regression testing that keeps quality as "
        "software evolves. Machine learning has become a common way to achieve it. In particular, "
        "learning-to-rank (LTR) algorithms provide an effective method of ordering and prioritising test "
        "cases. However, their use poses a challenge in terms of explainability, both globally at the model "
        "level and locally for particular results. Here, we present and discuss scenarios that require "
        "different explanations and how the particularities of TCP (multiple builds over time, test case and "
        "test suite variations, etc.) could influence them. We include a preliminary experiment to analyse "
        "the similarity of explanations, showing that they do not only vary depending on test case-specific "
        "predictions, but also on the relative ranks.")
# Another paper on the same topic, in its own words: it shares words with 2405.13786, not sentences.
NEAR_MISS = ("Regression testing of evolving software needs test case prioritisation, and learning-to-rank "
             "models now order test cases in many continuous integration pipelines. We ask whether the "
             "explanations such rankers give can be trusted by engineers: we compare global and local "
             "explanation methods across builds of three industrial systems, measure how stable they are "
             "when test suites change, and find that explanations of learning-to-rank models for "
             "prioritisation drift with every build, which limits their use in practice.")


@pytest.fixture
def listed(tmp_path, run_cli):
    listing = tmp_path / "icse.txt"
    listing.write_text(f"ICSE 2024 Papers\n\n{SAME}\n\n{NEAR_MISS}\n", encoding="utf-8")
    assert run_cli("import", str(listing)).exit_code == 0
    papers = json.loads(run_cli("list", "--json").stdout)
    keys = {}
    for p in papers:
        detail = json.loads(run_cli("show", p["key"], "--json").stdout)
        keys["same" if detail["abstract"].startswith("Test case") else "near"] = p["key"]
    return keys


def test_the_threshold_tells_the_same_abstract_from_a_near_miss():
    from catalog.fetching import arxiv
    from tests.webserver import DATA

    [theirs] = [f.record.abstract for f in arxiv.entries((DATA / "arxiv" / "search_testing.xml").read_bytes(), "o")
                if f.record.arxiv_id == "2405.13786"]
    assert alike(SAME, theirs) >= 0.8 > THRESHOLD
    assert alike(NEAR_MISS, theirs) < THRESHOLD / 2


def test_an_untitled_paper_gets_its_title_and_authors_and_the_near_miss_is_refused(run_cli, web, listed):
    out = run_cli("enrich", "--json")
    assert out.exit_code == 0, out.output
    done = {e["key"]: e for e in json.loads(out.stdout)}
    same, near = done[listed["same"]], done[listed["near"]]
    assert same["outcome"] == "filled" and "abstracts 0.9" in same["evidence"]
    assert {"title", "authors", "arxiv_id"} <= set(same["filled"])
    assert near["outcome"] == "no match"
    assert "Towards Explainable Test Case Prioritisation" in near["evidence"] and "below 0.5" in near["evidence"]

    shown = json.loads(run_cli("show", listed["same"], "--json").stdout)
    assert shown["title"] == "Towards Explainable Test Case Prioritisation with Learning-to-Rank Models"
    assert shown["authors"] == "Aurora Ramírez, Mario Berrios, José Raúl Romero, Robert Feldt"
    # the people are the catalog's people: author: finds the paper by a family name
    assert [p["key"] for p in json.loads(run_cli("list", "author:Ramírez", "--json").stdout)] == [listed["same"]]
    assert shown["arxiv_id"] == "2405.13786"
    assert shown["abstract"] == SAME  # its own abstract stays
    assert shown["pdf_url"] == "https://arxiv.org/pdf/2405.13786v1"
    assert shown["venue"] == "ICSE" and shown["year"] == 2024 and shown["kind"] is None
    text = run_cli("show", listed["same"]).output
    assert "/arxiv/api/query?search_query=" in text and "(merged: enrich: abstracts 0.9" in text
    assert re.search(r"\(fetched from arXiv on \d{4}-\d\d-\d\d\) \(merged: enrich: abstracts 0\.9\d alike\)", text)

    untouched = json.loads(run_cli("show", listed["near"], "--json").stdout)
    assert untouched["title"] == untouched["headline"]  # still its derived headline
    assert untouched["authors"] is None and untouched["arxiv_id"] is None


def test_dry_run_changes_nothing(run_cli, web, listed, db_path):
    before = run_cli("show", listed["same"], "--json").stdout
    out = run_cli("enrich", "--dry-run")
    assert out.exit_code == 0, out.output
    assert f"{listed['same']}  would fill title, authors" in out.stdout
    assert "Towards Explainable Test Case Prioritisation" in out.stdout
    assert run_cli("show", listed["same"], "--json").stdout == before


def test_enriching_again_changes_nothing_and_asks_nothing(run_cli, web, listed):
    assert run_cli("enrich").exit_code == 0
    asked = len(web.requests)
    again = json.loads(run_cli("enrich", "--json").stdout)
    # the filled paper has all it lacked; only the near miss is looked for, from the cache
    assert [e["key"] for e in again] == [listed["near"]] and len(web.requests) == asked


def test_the_users_title_stays_and_a_split_undoes_it(run_cli, web, listed):
    assert run_cli("title", listed["same"], "My name for it").exit_code == 0
    assert run_cli("enrich", listed["same"][:7]).exit_code == 0
    shown = json.loads(run_cli("show", listed["same"], "--json").stdout)
    assert shown["user_title"] == "My name for it" and shown["authors"].startswith("Aurora Ramírez")
    assert run_cli("split", listed["same"]).exit_code == 0
    assert json.loads(run_cli("show", listed["same"], "--json").stdout)["authors"] is None


def test_a_paper_with_an_arxiv_id_is_looked_up_by_it(run_cli, web, tmp_path):
    records = tmp_path / "mine.json"
    records.write_text(json.dumps([{"abstract": "Graphs on lattice points are studied whose edges come from "
                                    "a finite set of allowed moves of arbitrary length.", "arxiv_id": "1605.08386"}]))
    assert run_cli("import", str(records)).exit_code == 0
    [done] = json.loads(run_cli("enrich", "--json").stdout)
    assert done["outcome"] == "filled" and done["evidence"] == "its arXiv id"
    assert done["found_title"] == "Heat-bath random walks with Markov bases"
    assert [r["query"] for r in web.requests] == [{"id_list": "1605.08386", "max_results": "1"}]


def test_a_match_whose_id_is_another_papers_is_refused(run_cli, web, listed):
    records_added = run_cli("add", "--json", "arXiv:1605.08386")
    assert records_added.exit_code == 0
    # pretend the search answered with a paper already in the catalog: enrich must not give
    # its arXiv id to a second paper
    from catalog.fetching import arxiv
    from tests.webserver import DATA

    feed = (DATA / "arxiv" / "search_testing.xml").read_bytes().replace(b"2405.13786", b"1605.08386")
    web.script("/arxiv/api/query", [(200, feed, {"Content-Type": "application/atom+xml"})])
    out = run_cli("enrich", listed["same"][:7], "--json")
    [done] = json.loads(out.stdout)
    assert done["outcome"] == "refused" and "arXiv:1605.08386 is paper" in done["evidence"]
    assert json.loads(run_cli("show", listed["same"], "--json").stdout)["authors"] is None
    del arxiv


def test_offline_enrich_is_one_line(run_cli, listed, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_WEB_BASE", "http://127.0.0.1:9")
    monkeypatch.setenv("CATALOG_WEB_CACHE", str(tmp_path / "cache"))
    out = run_cli("enrich")
    assert out.exit_code == 1 and out.output.startswith("catalog: cannot reach 127.0.0.1:9") and out.output.count("\n") == 1


def test_updates_find_the_published_version_of_a_preprint(run_cli, web, tmp_path):
    """arXiv's record of 1111.2011 now names the DOI of its Phys. Rev. B version: --updates
    asks again (not from the cache) and the preprint gains the DOI: one paper, both ids."""
    preprint = tmp_path / "preprint.json"
    preprint.write_text(json.dumps([{"title": "Quantum Criticality for Extended Nodes on a Bethe Lattice in the "
                                     "Large Connectivity Limit", "authors": "James M. Murray", "arxiv_id": "1111.2011"}]))
    assert run_cli("import", str(preprint)).exit_code == 0
    assert json.loads(run_cli("enrich", "--json").stdout) == []  # lacks nothing enrich looks for
    [done] = json.loads(run_cli("enrich", "--updates", "--json").stdout)
    assert done["outcome"] == "filled" and "doi" in done["filled"]
    [again] = json.loads(run_cli("enrich", "--updates", "--json").stdout) or [None]
    assert again is None  # it has its DOI now
    assert len(web.requests) == 1
    [paper] = json.loads(run_cli("list", "--json").stdout)
    shown = json.loads(run_cli("show", paper["key"], "--json").stdout)
    assert (shown["doi"], shown["arxiv_id"]) == ("10.1103/physrevb.85.115117", "1111.2011")
    assert run_cli("search", "10.1103/PhysRevB.85.115117").stdout.startswith(paper["key"])


def test_search_words_skip_math_commands_and_links():
    from catalog.importing.enrich import search_words

    abstract = (r"We bound the $\mathcal{O}(n^2)$ regret of \textbf{bandits} with heavy-tailed rewards, "
                "see https://github.com/someone/repository, improving regularization guarantees substantially.")
    assert search_words(abstract) == ["regret", "bandits", "rewards", "improving", "regularization",
                                      "guarantees", "substantially"]  # no mathcal, textbf, github


def test_nothing_found_with_every_word_is_asked_again_with_fewer(run_cli, web, listed):
    empty = (b"<?xml version='1.0' encoding='UTF-8'?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">"
             b"<title>arXiv Query</title></feed>")
    web.script("/arxiv/api/query", [(200, empty, {"Content-Type": "application/atom+xml"})])
    out = run_cli("enrich", listed["same"], "--json")
    [done] = json.loads(out.stdout)
    assert done["outcome"] == "filled"
    first, second = (r["query"]["search_query"] for r in web.requests)
    assert first.count("all:") == 7 and second.count("all:") == 4


def test_a_paper_arxiv_does_not_have_is_found_on_openreview(run_cli, web, listed):
    # Written after OpenReview's documented answer to /notes/search (no client library keeps
    # a recorded one): the near miss's own submission, and another on the topic.
    def note(nid, title, abstract):
        return {"id": nid, "forum": nid, "pdate": 1714521600000, "content": {
            "title": {"value": title}, "abstract": {"value": abstract},
            "authors": {"value": ["Ana Ruiz", "Søren Kierkegaard"]}, "venue": {"value": "ICSE 2024"},
            "pdf": {"value": f"/pdf/{nid}.pdf"}}}
    answer = {"notes": [note("other0001", "Ranking tests", SAME.replace("Test case", "Regression test", 1)[:200]),
                        note("abcd12345", "Do Explanations of Test Rankers Drift?", NEAR_MISS)], "count": 2}
    web.script("/openreview/notes/search", [(200, json.dumps(answer).encode(), {"Content-Type": "application/json"})])
    [done] = json.loads(run_cli("enrich", listed["near"], "--json").stdout)
    assert done["outcome"] == "filled" and done["evidence"] == "abstracts 1.00 alike (OpenReview)"
    assert done["found_title"] == "Do Explanations of Test Rankers Drift?"
    shown = json.loads(run_cli("show", listed["near"], "--json").stdout)
    assert shown["authors"] == "Ana Ruiz, Søren Kierkegaard" and shown["url"] == "https://openreview.net/forum?id=abcd12345"
    assert shown["pdf_url"] == "https://openreview.net/pdf/abcd12345.pdf"
    search = next(r for r in web.requests if r["path"] == "/openreview/notes/search")
    assert search["query"]["source"] == "forum" and search["query"]["term"]


def test_an_openreview_that_answers_with_a_web_page_leaves_arxivs_verdict(run_cli, web, listed):
    web.script("/openreview/notes/search", [(200, b"<!DOCTYPE html><html>down</html>", {"Content-Type": "text/html"})])
    [done] = json.loads(run_cli("enrich", listed["near"], "--json").stdout)
    assert done["outcome"] == "no match" and "closest on arXiv" in done["evidence"]
