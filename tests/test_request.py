"""A search's text parsed once into a SearchRequest (catalog/searching/request.py): Catalog's
search, count, facets, highlighting and suggestions take it and answer as they do for the
text, on both backends; the TUI's first rows and count come in one read."""

from __future__ import annotations

import json

import pytest

from catalog.searching.query import QueryError
from catalog.searching.request import request


@pytest.fixture
def with_doi(seeded_any, tmp_path):
    lines = tmp_path / "doi.jsonl"
    lines.write_text(json.dumps({"title": "Numbat Burrows", "doi": "10.1000/xyz.42",
                                 "abstract": "Numbats dig. See 10.1000/xyz.42 for more."}) + "\n",
                     encoding="utf-8")
    assert seeded_any.import_paths([lines]).new == 1
    return seeded_any


TEXTS = ["sparse autoencoders", "interp*", "graph OR attention venue:ICML -diffusion",
         "https://doi.org/10.1000/xyz.42", "status:unread year:2026", ""]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("sort", ["relevance", "-year"])
def test_a_request_finds_counts_and_facets_what_its_text_does(with_doi, text, sort):
    catalog = with_doi
    asked = request(text, sort)
    papers = [p.key for p in catalog.search(asked, limit=30)]
    assert papers == [p.key for p in catalog.search(text, limit=30, sort=sort)]
    partial = sort == "relevance"  # sorted otherwise, the list holds papers with every word
    assert catalog.count(asked) == catalog.count(text, partial=partial)
    assert catalog.facets(asked) == catalog.facets(text, partial=partial)
    assert catalog.highlight_terms(asked) == catalog.highlight_terms(text)
    if text.startswith("https://doi.org"):
        assert papers[:1] == [catalog.search("Numbat Burrows", limit=1)[0].key]


def test_the_first_rows_and_their_count_come_in_one_read(seeded_any, monkeypatch):
    catalog = seeded_any
    asked = request("model", "year")
    reads = []
    read = catalog.store.read
    monkeypatch.setattr(catalog.store, "read", lambda: reads.append(1) or read())
    page = catalog.first_page(asked, limit=5, counted=True)
    assert len(reads) == 1
    assert [p.key for p in page.rows] == [p.key for p in catalog.search(asked, limit=5, snippets=False)]
    assert page.total == catalog.count(asked) > 5
    assert catalog.first_page(asked, limit=5).total is None  # not counted: more may follow
    every = catalog.first_page(asked, limit=page.total + 10)
    assert every.total == len(every.rows) == page.total  # fewer came than asked: all of them


def test_the_word_being_typed_is_checked_for_typos(seeded):
    """The TUI searches `interpretabilty` as a prefix while it is typed; did-you-mean still
    checks it as a word (a prefix the user ends with * is not)."""
    typed = request("interpretabilty*", completing=True)
    assert [s.alternatives[0] for s in seeded.words.suggest(typed)] == ["interpretability"]
    assert seeded.words.suggest(request("interpretabilty*")) == []
    assert seeded.words.suggest(request("10.1000/xyz.42")) == []  # an identifier is no typo


def test_a_request_is_made_once_and_refuses_what_cannot_mean_anything(seeded):
    with pytest.raises(QueryError, match="unknown filter journal:kim"):
        request("journal:kim")
    with pytest.raises(QueryError, match="cannot sort by 'author'"):
        request("graph", "author")
    assert seeded.words.suggest("journal:kim") == [] and not seeded.highlight_terms("journal:kim")
    with pytest.raises(TypeError):
        seeded.search(request("graph"), sort="year")  # the request has its own order
