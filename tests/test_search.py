from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog.searching.query import QueryError, parse
from tests.conftest import key_of


# The query language on both backends (SQLite's FTS5, PostgreSQL's tsvector).
@pytest.fixture
def seeded(seeded_any):
    return seeded_any


@pytest.fixture
def empty_catalog(empty_any):
    return empty_any

HOSTILE = ['multi-agent', 'c++', "don't", '20.04', '"', 'OR', '*', 'a:b', 'NOT', '-', '""',
           '(', ')', 'AND OR NOT', 'foo OR', '"unclosed phrase', 'year:', 'tag:', '^', "'",
           'NEAR(a b)', 'a NEAR b', '{x}', 'col:val', 'x*y', '***', '-*', '\\', '%', '_']


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_give_results_or_an_explanation(seeded, query):
    try:
        seeded.search(query)
    except QueryError as exc:
        assert "\n" not in str(exc) and str(exc)


def test_words_phrases_or_not_prefix(seeded):
    both = {p.key for p in seeded.search("attention weights", limit=100)}
    phrase = {p.key for p in seeded.search('"attention weights"', limit=100)}
    assert phrase and phrase <= both
    either = {p.key for p in seeded.search("hessian OR sparse", limit=100)}
    assert either >= {p.key for p in seeded.search("hessian", limit=100)}
    assert either >= {p.key for p in seeded.search("sparse", limit=100)}
    without = {p.key for p in seeded.search("attention -weights", limit=100)}
    assert without and not without & phrase
    assert {p.key for p in seeded.search("attention NOT weights", limit=100)} == without
    assert seeded.search("interpretab*")
    assert not seeded.search("interpretab")


def test_ranked_with_snippets(seeded):
    hits = seeded.search("influence functions")
    assert "\x02" in hits[0].snippet
    assert "influence" in hits[0].title.lower() or "BIF" in hits[0].title


def test_math_is_findable_as_typed(seeded):
    target = key_of(seeded, "MCR2")
    for typed in ("MCR^2", "MCR", "MCR²"):
        assert target in {p.key for p in seeded.search(typed)}, typed


def test_filters(seeded):
    assert {p.venue for p in seeded.search("venue:ICLR", limit=100)} == {"ICLR"}
    assert len(seeded.search("venue:iclr", limit=100)) == 38
    assert len(seeded.search("year:2026", limit=100)) == 90
    assert len(seeded.search("year:2024..2025", limit=100)) == 0
    assert len(seeded.search("year:2024..2026 venue:ICML", limit=100)) == 52
    key = key_of(seeded, "MCR2")
    seeded.set_rating([key], 5)
    seeded.set_status([key], "read")
    seeded.add_note(key, "good")
    assert [p.key for p in seeded.search("rating:>=4")] == [key]
    assert [p.key for p in seeded.search("status:read")] == [key]
    assert [p.key for p in seeded.search("has:notes")] == [key]
    assert len(seeded.search("-status:read", limit=100)) == 89


def test_tag_filter_includes_children(seeded):
    a, b = (p.key for p in seeded.search("venue:ICLR", limit=2))
    seeded.tag([a], ["project/thesis"])
    seeded.tag([b], ["project"])
    assert {p.key for p in seeded.search("tag:project")} == {a, b}
    assert {p.key for p in seeded.search("tag:project/thesis")} == {a}
    assert {p.key for p in seeded.search("tag:proj")} == set()


def test_tags_and_notes_are_searchable_including_chinese(seeded):
    key = key_of(seeded, "MCR2")
    seeded.tag([key], ["读书会"])
    seeded.add_note(key, "这篇论文的证明很漂亮, rate reduction")
    for query in ("读书会", "读书", "证明", "论文", "tag:读书会", "漂亮 MCR"):
        assert [p.key for p in seeded.search(query)] == [key], query
    assert seeded.search("rate reduction")[0].key == key


def test_bad_filter_values_explain_themselves(seeded):
    for query, words in (("year:abc", "year"), ("rating:9", "1-5"), ("status:done", "unread"),
                         ("has:video", "notes")):  # has:pdf is one now (attached files)
        with pytest.raises(QueryError, match=words):
            seeded.search(query)


def test_empty_query_lists_everything(seeded):
    assert len(seeded.search("", limit=1000)) == 90
    assert seeded.count("") == 90
    assert seeded.count("venue:ICML") == 52


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_random_strings_never_raise_anything_but_query_errors(seeded, query):
    try:
        parse(query)
        seeded.search(query, limit=5)
    except QueryError as exc:
        assert str(exc) and "\n" not in str(exc)



@pytest.mark.parametrize("query", ["0 \x000", "language\x00mod*", '"language\x00models"'])
def test_a_nul_in_a_query_separates_words_as_it_does_in_the_text(seeded, query):
    """FTS5 would read its MATCH string only up to the NUL (`unterminated string`)."""
    spaced = query.replace("\x00", " ")
    assert [p.key for p in seeded.search(query, limit=20)] == [p.key for p in seeded.search(spaced, limit=20)]

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(HOSTILE + ["venue:ICML", "year:2026", "tag:x", "-", "OR", "NOT",
                                           "model", "lang*", '"a b"', "中文"]), max_size=6))
def test_random_mixtures_of_operators_never_raise(seeded, words):
    try:
        seeded.search(" ".join(words), limit=5)
    except QueryError as exc:
        assert str(exc)


def test_chinese_abstracts_and_titles_match_two_character_words(empty_catalog, tmp_path):
    f = tmp_path / "zh.txt"
    f.write_text("CCL 2025 论文列表\n\n本文提出一种新的图神经网络模型评测方法。\n\nAn English abstract about graphs.\n",
                 encoding="utf-8")
    empty_catalog.import_paths([f])
    [zh] = empty_catalog.search("模型")
    assert zh.venue == "CCL" and [p.key for p in empty_catalog.search("神经网络")] == [zh.key]
    assert empty_catalog.search("图神经 -模型") == []
    english = empty_catalog.search("graphs")[0]
    empty_catalog.set_title(english.key, "我的图论笔记")
    assert [p.key for p in empty_catalog.search("图论")] == [english.key]
    assert {p.key for p in empty_catalog.search("图论 OR 模型")} == {english.key, zh.key}


def test_sort_orders_on_a_real_catalog(seeded):
    """Each order puts what a user expects first, for listings and word searches alike;
    unrated papers and unknown years come last both ways."""
    keys = [p.key for p in seeded.search("", limit=5, snippets=False)]
    seeded.set_rating(keys[:3], 2)
    seeded.set_rating([keys[3]], 5)
    for query in ("", "model"):
        by_rating = seeded.search(query, limit=10_000, snippets=False, sort="rating")
        ratings = [p.rating for p in by_rating]
        rated = [r for r in ratings if r is not None]
        assert rated == sorted(rated, reverse=True) and ratings[len(rated):] == [None] * (len(ratings) - len(rated))
        low = [p.rating for p in seeded.search(query, limit=10_000, snippets=False, sort="-rating")]
        assert [r for r in low if r is not None] == sorted(rated)
        titles = [p.title.casefold() for p in seeded.search(query, limit=10_000, snippets=False, sort="title")]
        assert titles == sorted(titles) and len(titles) > 3
        years = [p.year for p in seeded.search(query, limit=10_000, snippets=False, sort="-year") if p.year]
        assert years == sorted(years)
    everything = seeded.search("", limit=10_000, snippets=False, sort="added")
    assert everything[-1].key != everything[0].key
    assert [p.key for p in seeded.search("", limit=10_000, snippets=False, sort="-added")] == \
        [p.key for p in reversed(everything)]
    best = seeded.search("sparse attention", limit=50, snippets=False)
    worst = seeded.search("sparse attention", limit=50, snippets=False, sort="-relevance")
    assert [p.key for p in worst] == [p.key for p in reversed(best)] or len(best) == 50


@pytest.mark.parametrize("query", ["", "model", "tag:project", "attention venue:ICLR", "-model", "status:unread"])
def test_facet_counts_are_those_of_the_results(seeded, query):
    """Each count equals what searching with that facet added finds; a parent tag counts
    its children's papers (tag:project finds project/thesis)."""
    keys = [p.key for p in seeded.search("model", limit=12, snippets=False)]
    seeded.tag(keys[:3], add=["project/thesis"])
    seeded.tag(keys[2:5], add=["project"])
    seeded.tag(keys[6:8], add=["project/grant/x"])
    seeded.set_status(keys[:4], "read")
    seeded.set_rating(keys[3:9], 3)
    facets = seeded.facets(query)
    total = seeded.count(query) if query else seeded.count("")
    assert facets.total == total and facets.catalog_total == 90 and facets.query == query
    assert "project/grant" in facets.tag_names or "project/grant/x" in facets.tag_names
    for tag in facets.tags:
        assert tag.count == seeded.count(f"{query} tag:{tag.name}"), tag
    if query in ("", "model"):
        assert {t.name for t in facets.tags} >= {"project", "project/grant", "project/thesis"}
        assert dict((t.name, t.count) for t in facets.tags)["project"] == 7  # 0-4, 6, 7: each once
    for status, n in facets.statuses:
        assert n == seeded.count(f"{query} status:{status}"), status
    for rating, n in facets.ratings:
        assert n == seeded.count(f"{query} rating:{rating}"), rating
    for venue, year, n in facets.venues:
        assert n == seeded.count(f'{query} venue:"{venue}" year:{year}'), (venue, year)
    assert sum(n for _, _, n in facets.venues) == total


@pytest.mark.parametrize("query", ["interpretab*", "language mod*", "graph neu*", "sparse attention"])
def test_facets_count_the_papers_the_search_lists(seeded, query):
    """A prefix that is no prefix of its stem (interpretab*: interpret), and papers holding
    some of the words after those holding all: the facets count exactly the listed papers."""
    listed = seeded.search(query, limit=-1, snippets=False)
    for partial, papers in ((True, listed), (False, [p for p in listed if p.match != "some"])):
        facets = seeded.facets(query, partial=partial)
        assert facets.total == len(papers) == seeded.count(query, partial=partial) > 0
        assert sum(n for _, _, n in facets.venues) == len(papers)
        assert sum(n for _, n in facets.statuses) == len(papers)
