"""The fetching layer on its own: what counts as an identifier, the client's rate limits,
retries and cache (with a clock and sleep of the test's own, so nothing waits), the parsers on
recorded answers, and that commands which do not fetch neither load it nor open a socket."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from catalog.errors import CatalogError
from catalog.fetching import arxiv, crossref, datacite, openreview
from catalog.fetching.http import Client, FetchError, Response
from catalog.fetching.identifiers import Identifier, parse
from catalog.fetching.records import BadAnswer
from catalog.fetching.settings import Settings

DATA = Path(__file__).parent / "data" / "web"
SEEDS = Path(__file__).resolve().parent.parent / "seeds"


@pytest.mark.parametrize("text, kind, value", [
    ("arXiv:1706.03762v5", "arxiv", "1706.03762"),
    ("https://arxiv.org/abs/1706.03762v5", "arxiv", "1706.03762"),
    ("https://export.arxiv.org/pdf/1706.03762.pdf", "arxiv", "1706.03762"),
    ("10.48550/ARXIV.1706.03762", "arxiv", "1706.03762"),
    ("hep-th/9901001v2", "arxiv", "hep-th/9901001"),
    ("https://openreview.net/forum?id=rJXMpikCZ", "openreview", "rJXMpikCZ"),
    ("https://openreview.net/pdf?id=rJXMpikCZ", "openreview", "rJXMpikCZ"),
    ("doi:10.1371/journal.pone.0033693", "doi", "10.1371/journal.pone.0033693"),
    ("https://dx.doi.org/10.1007%2F978-3-030-58452-8_13", "doi", "10.1007/978-3-030-58452-8_13"),
    (" 10.1145/3368089.3409741 ", "doi", "10.1145/3368089.3409741"),
])
def test_identifiers(text, kind, value):
    assert parse(text) == Identifier(kind, value)


@pytest.mark.parametrize("text", ["attention is all you need", "https://example.org/paper.pdf",
                                  "https://openreview.net/group?id=ICLR.cc", "10.12/x", "arXiv:"])
def test_what_is_not_an_identifier(text):
    with pytest.raises(CatalogError, match="is not a DOI, an arXiv id"):
        parse(text)


class Clock:
    """Time that moves only when the client sleeps."""

    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def client(tmp_path, answers: list[Response], clock: Clock | None = None, base=None) -> Client:
    clock = clock or Clock()
    made = Client(Settings("me@example.org", base, tmp_path / "cache", 5.0), sleep=clock.sleep, clock=clock)
    queue = list(answers)

    def once(url, accept, service, limit=0):
        made.requests += 1
        made._stamp(service)
        return queue.pop(0)

    made._once = once  # type: ignore[method-assign]
    return made


def ok(url="https://export.arxiv.org/api/query?id_list=1", body=b"<feed/>", status=200, retry_after=None):
    return Response(url, status, body, "application/atom+xml", retry_after=retry_after)


def test_arxiv_is_asked_at_most_once_every_three_seconds_across_runs(tmp_path):
    clock = Clock()
    first = client(tmp_path, [ok(), ok()], clock)
    first.get("arxiv", "/api/query", {"id_list": "1"})
    clock.now += 1.0
    first.get("arxiv", "/api/query", {"id_list": "2"})  # a second request, 1 s later: waits 2 s
    assert clock.slept == [2.0]
    later = client(tmp_path, [ok()], clock)  # another process, right after: waits too
    later.get("arxiv", "/api/query", {"id_list": "3"})
    assert clock.slept == [2.0, 3.0]


def test_a_replay_server_is_not_rate_limited(tmp_path):
    clock = Clock()
    made = client(tmp_path, [ok(), ok()], clock, base="http://127.0.0.1:9")
    made.get("arxiv", "/api/query", {"id_list": "1"})
    made.get("arxiv", "/api/query", {"id_list": "2"})
    assert clock.slept == []


def test_429_waits_as_told_then_backs_off_then_gives_up(tmp_path):
    clock = Clock()
    made = client(tmp_path, [ok(status=429, retry_after=7.0), ok(status=503), ok(status=503), ok(status=503)], clock)
    with pytest.raises(FetchError, match=r"export.arxiv.org is unavailable \(503\); try again later"):
        made.get("arxiv", "/api/query", {"id_list": "1"})
    waits = [s for s in clock.slept if s not in (3.0,)]
    assert waits[:1] == [7.0] and made.requests == 4


def test_a_retry_after_of_hours_is_not_waited_for(tmp_path):
    made = client(tmp_path, [ok(status=429, retry_after=3600.0)])
    with pytest.raises(FetchError, match="is limiting requests"):
        made.get("crossref", "/works/10.1/x")
    assert made.requests == 1


def test_answers_are_cached_and_errors_are_not(tmp_path):
    made = client(tmp_path, [ok(status=500), ok(body=b"<feed>1</feed>")])
    assert made.get("arxiv", "/api/query", {"id_list": "1"}).status == 500
    assert made.get("arxiv", "/api/query", {"id_list": "1"}).body == b"<feed>1</feed>"
    again = client(tmp_path, [])  # a new run: nothing left to answer with but the cache
    answer = again.get("arxiv", "/api/query", {"id_list": "1"})
    assert answer.cached and answer.body == b"<feed>1</feed>" and again.requests == 0


def test_a_cache_file_cut_short_is_asked_again(tmp_path):
    made = client(tmp_path, [ok(body=b"<feed>whole</feed>"), ok(body=b"<feed>again</feed>")])
    made.get("arxiv", "/api/query", {"id_list": "1"})
    [body] = (tmp_path / "cache").rglob("*.body")
    body.write_bytes(b"<feed>wh")
    assert made.get("arxiv", "/api/query", {"id_list": "1"}).body == b"<feed>again</feed>"


def test_arxiv_feed_with_versions_doi_and_journal_ref():
    [found] = arxiv.entries((DATA / "arxiv" / "1111.2011v2.xml").read_bytes(), "origin")
    r = found.record
    assert (r.arxiv_id, r.doi, r.year, r.venue) == ("1111.2011", "10.1103/physrevb.85.115117", 2011, "arXiv")
    assert r.title == "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    assert r.extra["journal_ref"] == "Phys. Rev. B 85, 115117 (2012)"
    assert found.pdf_url == "https://arxiv.org/pdf/1111.2011v2"


def test_arxiv_error_entry_and_empty_feed():
    with pytest.raises(BadAnswer, match="arXiv says: incorrect id format for abc"):
        arxiv.entries((DATA / "arxiv" / "abc.xml").read_bytes(), "origin")
    assert arxiv.entries((DATA / "arxiv" / "0000.0000.xml").read_bytes(), "origin") == []
    with pytest.raises(BadAnswer, match="not a feed"):
        arxiv.entries(b"<?xml version='1.0'?><feed><entry><title>Cut", "origin")


def test_crossref_work():
    found = crossref.work((DATA / "crossref" / "10.1109_icdcsw.2003.1203662.json").read_bytes(), "origin")
    assert found.record.kind == "conference" and found.record.doi == "10.1109/icdcsw.2003.1203662"
    assert found.record.title == "Accurate and explicit differentiation of wireless and congestion losses"


def test_datacite_doi_with_non_ascii_creators():
    body = (b'{"data": {"id": "10.5281/zenodo.1", "type": "dois", "attributes": {"doi": "10.5281/ZENODO.1",'
            b' "creators": [{"name": "M\xc3\xbcller, J\xc3\xb6rg", "givenName": "J\xc3\xb6rg", "familyName": "M\xc3\xbcller"},'
            b' {"name": "Consortium for Things", "nameType": "Organizational"}],'
            b' "titles": [{"title": "A dataset"}, {"title": "Sub", "titleType": "Subtitle"}],'
            b' "publisher": "Zenodo", "publicationYear": 2021, "types": {"resourceTypeGeneral": "Dataset"},'
            b' "descriptions": [{"description": "What it holds.", "descriptionType": "Abstract"}]}}}')
    r = datacite.doi_record(body, "origin").record
    assert (r.title, r.authors, r.year, r.doi) == ("A dataset", "Jörg Müller, Consortium for Things", 2021, "10.5281/zenodo.1")


def test_openreview_note_v2_and_v1():
    v2 = (b'{"notes": [{"id": "abc123XYZ", "forum": "abc123XYZ", "pdate": 1706745600000, "content": {'
          b'"title": {"value": "A paper"}, "authors": {"value": ["Ana Ruiz", "Li Wei"]},'
          b'"abstract": {"value": "We show things."}, "venue": {"value": "ICLR 2024 poster"},'
          b'"pdf": {"value": "/pdf/0123456789abcdef.pdf"}}}]}')
    found = openreview.note(v2, "origin", "abc123XYZ")
    assert (found.record.title, found.record.authors, found.record.venue, found.record.year) == (
        "A paper", "Ana Ruiz, Li Wei", "ICLR", 2024)
    assert found.record.url == "https://openreview.net/forum?id=abc123XYZ"
    assert found.pdf_url == "https://openreview.net/pdf/0123456789abcdef.pdf"
    v1 = b'{"notes": [{"id": "r1", "forum": "r1", "content": {"title": "Old", "abstract": "Text.", "authors": ["A B"]}}]}'
    assert openreview.note(v1, "origin", "r1").record.title == "Old"
    with pytest.raises(BadAnswer, match="OpenReview has no note nope"):
        openreview.note(b'{"notes": []}', "origin", "nope")


def test_an_openreview_note_with_several_revisions_gives_its_current_version():
    # Written after OpenReview's documented shapes (no client library keeps a recorded one):
    # an answer holding the forum's earlier revision (a note of its own, `referent` the
    # submission, as API 1 lists them) before the submission at its current version.
    revision = {"id": "rev0001", "forum": "sub0001", "referent": "sub0001", "version": 1, "content": {
        "title": {"value": "Early title"}, "abstract": {"value": "An earlier abstract."},
        "authors": {"value": ["Ana Ruiz"]}, "venue": {"value": "Submitted to ICLR 2024"}}}
    current = {"id": "sub0001", "forum": "sub0001", "version": 3, "pdate": 1706745600000, "content": {
        "title": {"value": "The Final Title"}, "abstract": {"value": "The abstract as published."},
        "authors": {"value": ["Ana Ruiz", "Zoë Wójcik"]}, "venue": {"value": "ICLR 2024 oral"},
        "pdf": {"value": "/pdf/final.pdf"}}}
    found = openreview.note(json.dumps({"notes": [revision, current]}).encode(), "origin", "sub0001")
    r = found.record
    assert (r.title, r.abstract, r.authors, r.venue, r.year) == (
        "The Final Title", "The abstract as published.", "Ana Ruiz, Zoë Wójcik", "ICLR", 2024)
    assert found.pdf_url == "https://openreview.net/pdf/final.pdf"
    # a submission not yet accepted is nobody's venue
    pending = dict(current, content={**current["content"], "venue": {"value": "Submitted to ICLR 2025"}})
    assert openreview.note(json.dumps({"notes": [pending]}).encode(), "o", "sub0001").record.venue is None


_NO_SOCKETS = """
import os, runpy, sys
def refuse(event, args):
    if event.startswith("socket."):
        os.write(2, f"SOCKET OPENED: {event}\\n".encode())
        os._exit(97)
sys.addaudithook(refuse)
sys.argv = ["catalog", *sys.argv[1:]]
try:
    runpy.run_module("catalog", run_name="__main__")
except SystemExit as exc:
    loaded = sorted(m for m in sys.modules if m.startswith("catalog.fetching") or m == "urllib.request")
    print("FETCHING", loaded, file=sys.stderr)
    raise
"""


def test_commands_that_do_not_fetch_open_no_socket_and_load_no_fetching(tmp_path):
    db = tmp_path / "c.db"
    env = {**os.environ, "CATALOG_DISCOVER_REFRESH": "inline"}
    for args in (["import", str(SEEDS)], ["search", "attention"], ["list"], ["stats"], ["doctor"],
                 ["export", "--format", "bibtex", "-o", str(tmp_path / "out.bib")]):
        out = subprocess.run([sys.executable, "-c", _NO_SOCKETS, "--db", str(db), *args],
                             capture_output=True, text=True, env=env)
        assert out.returncode == 0, (args, out.stderr)
        assert "FETCHING []" in out.stderr, (args, out.stderr)


def test_crossref_names_the_arxiv_preprint_and_the_notices():
    message = json.loads((DATA / "crossref" / "10.1371_journal.pone.0033693.json").read_bytes())
    found = crossref.work(json.dumps(message).encode(), "origin")
    assert found.record.arxiv_id is None
    assert found.notices == (("correction", "10.1371/annotation/c76da2c1-ccb8-4797-94c1-359d3ceceeda",
                              "Correction", "2012-05-08"),)
    # the same work as Crossref gives one whose preprint is on arXiv (relation.has-preprint)
    message["message"]["relation"] = {"has-preprint": [{"id-type": "doi", "id": "10.48550/arXiv.1203.01234",
                                                         "asserted-by": "subject"}]}
    assert crossref.work(json.dumps(message).encode(), "origin").record.arxiv_id == "1203.01234"


def test_a_withdrawn_arxiv_paper_carries_a_withdrawal_notice():
    # the recorded answer for 1605.08386, its comment as arXiv words a withdrawal
    body = (DATA / "arxiv" / "1605.08386.xml").read_bytes().replace(
        b"<arxiv:comment>20 pages, 3 figures</arxiv:comment>",
        b"<arxiv:comment>This paper has been withdrawn by the authors due to an error in Lemma 3</arxiv:comment>")
    [found] = arxiv.entries(body, "origin")
    assert found.notices == (("withdrawal", "10.48550/arxiv.1605.08386", "Withdrawn on arXiv", "2016-05-26"),)
    [plain] = arxiv.entries((DATA / "arxiv" / "1605.08386.xml").read_bytes(), "origin")
    assert plain.notices == ()
