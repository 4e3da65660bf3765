"""The FTS5 compiler as a pure function: query text in, SQL and parameters out (in the manner
of sqlite-utils' search_sql tests). Exact strings, so any change to the SQL is deliberate."""

from __future__ import annotations

import pytest

from catalog.searching.query import QueryError, Sort, parse
from catalog.store.sqlite.fts import compile_query, count_sql, facet_sql, ids_sql, search_sql

_TAGGED = "SELECT pt.paper_id FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE "
_MARKED = "SELECT paper_id FROM paper_reader WHERE reader = ? AND "
_READER = "LEFT JOIN paper_reader r ON r.paper_id = p.id AND r.reader = ?"


@pytest.mark.parametrize("query, match", [
    ("sparse attention", '("sparse") AND ("attention")'),
    ('"language models" -survey', '("language models")'),  # -survey: see below
    ("hessian OR fisher", '("hessian" OR "fisher")'),
    ("interpret*", '("interpret"*)'),
    ("c++ multi-agent 20.04", '("c++") AND ("multi-agent") AND ("20.04")'),  # never FTS5 syntax
    ('say "hi', '("say") AND ("hi")'),
    ('a""b', '("a""""b")'),  # each quote inside a word is doubled, never closing the phrase
])
def test_words_become_quoted_fts5_phrases(query, match):
    compiled = compile_query(parse(query))
    assert (compiled.match, compiled.where, compiled.params) == (match, [], [])
    assert compiled.forms == match  # the same words, matched in any form by the stemmed index


def test_negated_words_hold_in_any_form_in_every_tier():
    compiled = compile_query(parse('"language models" -survey'))
    assert compiled.exclude == [("paper_stem", '("survey")')]
    sql, params = search_sql(compiled, limit=10)
    assert " AND +rowid NOT IN (SELECT rowid FROM paper_stem WHERE paper_stem MATCH ?)" in sql
    assert params == ['("language models")', '("survey")', 10, 0, ""]  # the reader last


def test_exact_words_match_only_the_unstemmed_index():
    compiled = compile_query(parse("=LLM neuron"))
    assert compiled.match == '("LLM") AND ("neuron")'
    assert compiled.forms == '("neuron")'
    assert compiled.where == ["p.id IN (SELECT rowid FROM paper_fts WHERE paper_fts MATCH ?)"]
    assert compiled.params == ['("LLM")']
    alone = compile_query(parse("=LLM"))
    assert (alone.match, alone.forms, alone.where) == ('("LLM")', None, [])
    assert count_sql(alone) == ("SELECT count(*) FROM paper_fts WHERE paper_fts MATCH ?", ['("LLM")'])


def test_acronyms_widen_words_and_long_forms():
    acronyms = {"SAE": ["sparse autoencoder"], "large language model": ["LLM"]}
    compiled = compile_query(parse("SAE large language model"), acronyms)
    assert compiled.forms == '("SAE") AND ("large") AND ("language") AND ("model")'
    assert compiled.wide == '("SAE" OR "sparse autoencoder") AND (("large" AND "language" AND "model") OR "LLM")'
    # A long form is one word for papers holding some of them: its words, or a short form.
    assert compiled.words == ['("SAE" OR "sparse autoencoder")', '(("large" AND "language" AND "model") OR "LLM")']
    assert compiled.word_texts == ["SAE", "large language model"]
    # The count is of papers holding every word in some form, acronyms included.
    assert count_sql(compiled) == ("SELECT count(*) FROM paper_stem WHERE paper_stem MATCH ?", [compiled.wide])
    assert compile_query(parse("SAE*"), acronyms).wide is None  # prefixes are not expanded


def test_each_tier_leaves_out_the_papers_of_the_one_before():
    compiled = compile_query(parse("sparse attention"), {"sparse": ["x"]}, reader="ann")
    tiers = {t: search_sql(compiled, limit=5, tier=t) for t in ("forms", "wide", "some")}
    assert tiers["forms"][0].count("NOT IN (SELECT rowid FROM paper_fts WHERE paper_fts MATCH ?)") == 1
    assert tiers["forms"][1] == ['("sparse") AND ("attention")'] * 2 + [5, 0, "ann"]
    assert tiers["wide"][1] == ['("sparse" OR "x") AND ("attention")', '("sparse") AND ("attention")', 5, 0, "ann"]
    some_sql, some_params = tiers["some"]
    assert some_sql.count("? * (+rowid IN (SELECT rowid FROM paper_stem WHERE paper_stem MATCH ?))") == 2
    # Each word held counts by its weight (the store sets them by rarity; 1 each without).
    assert some_params == [1.0, '("sparse" OR "x")', 1.0, '("attention")', '("sparse" OR "x") OR ("attention")',
                           '("sparse" OR "x") AND ("attention")', 5, 0, "ann"]
    compiled.weights = [2.5, 0.7]
    assert search_sql(compiled, limit=5, tier="some")[1][:4] == [2.5, '("sparse" OR "x")', 0.7, '("attention")']


@pytest.mark.parametrize("query, where, params", [
    ("venue:ICML year:2024..2026", ["(p.venue = ?)", "(p.year BETWEEN ? AND ?)"], ["ICML", 2024, 2026]),
    ("year:>=2025", ["(p.year >= ?)"], [2025]),
    ("tag:project", [f"(p.id IN ({_TAGGED}t.name = ? OR t.name LIKE ? ESCAPE '\\'))"], ["project", "project/%"]),
    ("tag:a_b%", [f"(p.id IN ({_TAGGED}t.name = ? OR t.name LIKE ? ESCAPE '\\'))"], ["a_b%", "a\\_b\\%/%"]),
    # Status and rating are the reader's own (paper_reader; the reader is the first parameter).
    ("status:unread", [f"(p.id NOT IN ({_MARKED}status != 'unread'))"], ["ann"]),
    ("status:read", [f"(p.id IN ({_MARKED}status = ?))"], ["ann", "read"]),
    ("rating:>=4 has:notes", [f"(p.id IN ({_MARKED}rating IS NOT NULL AND rating >= ?))",
                              "(p.id IN (SELECT paper_id FROM note))"], ["ann", 4]),
    ("has:rating", [f"(p.id IN ({_MARKED}rating IS NOT NULL))"], ["ann"]),
    ("topic:3", ["(p.id IN (SELECT paper_id FROM topic WHERE scope = '' AND number = ?))"], [3]),
    ("-survey", ["p.id NOT IN (SELECT rowid FROM paper_stem WHERE paper_stem MATCH ?)"], ['("survey")']),
])
def test_filters_become_where_clauses_with_parameters(query, where, params):
    compiled = compile_query(parse(query), reader="ann")
    assert (compiled.match, compiled.where, compiled.params) == (None, where, params)


def test_chinese_words_match_spaced_characters_and_user_text():
    compiled = compile_query(parse("模型"))
    assert compiled.match is None
    assert compiled.params == ['search_extra : "模 型"', "模型", "模型", "模型"]
    assert compiled.where[0].startswith("((p.id IN (SELECT rowid FROM paper_fts WHERE paper_fts MATCH ?)")


def test_ranked_search_sql():
    sql, params = search_sql(compile_query(parse("sparse venue:ICML"), reader="ann"), limit=50, offset=100)
    assert sql == (
        "WITH top AS (SELECT rowid AS id, bm25(paper_fts, 10.0, 10.0, 6.0, 1.0, 3.0, 8.0, 2.0, 1.0) AS score"
        " FROM paper_fts WHERE paper_fts MATCH ? AND +rowid IN (SELECT p.id FROM paper p WHERE (p.venue = ?))"
        " ORDER BY score, rowid LIMIT ? OFFSET ?)"
        " SELECT p.id, p.key, coalesce(p.user_title, p.title, p.headline) AS title, p.venue, p.year,"
        " coalesce(r.status, 'unread') AS status, r.rating, p.tags_text, p.notes_text != '' AS has_notes,"
        " p.authors, NULL AS text, top.score AS score"
        f" FROM top CROSS JOIN paper p {_READER} WHERE p.id = top.id ORDER BY top.score, top.id")
    assert params == ['("sparse")', "ICML", 50, 100, "ann"]


def test_listing_and_counting_sql():
    compiled = compile_query(parse("venue:ICML"), reader="ann")
    sql, params = search_sql(compiled, limit=20, with_text=True)
    assert sql == ("SELECT p.id, p.key, coalesce(p.user_title, p.title, p.headline) AS title, p.venue,"
                   " p.year, coalesce(r.status, 'unread') AS status, r.rating, p.tags_text,"
                   " p.notes_text != '' AS has_notes, p.authors, p.abstract_text AS text, NULL AS score"
                   f" FROM paper p {_READER} WHERE (p.venue = ?) ORDER BY p.year DESC, p.id DESC LIMIT ? OFFSET ?")
    assert params == ["ann", "ICML", 20, 0]
    assert count_sql(compiled) == ("SELECT count(*) FROM paper p WHERE (p.venue = ?)", ["ICML"])
    assert count_sql(compile_query(parse("sparse"))) == (
        "SELECT count(*) FROM paper_stem WHERE paper_stem MATCH ?", ['("sparse")'])


_SUMMARY = ("SELECT p.id, p.key, coalesce(p.user_title, p.title, p.headline) AS title, p.venue,"
            " p.year, coalesce(r.status, 'unread') AS status, r.rating, p.tags_text, p.notes_text != '' AS has_notes,"
            " p.authors, NULL AS text, NULL AS score")


@pytest.mark.parametrize("sort, order", [
    ("relevance", "p.year DESC, p.id DESC"),  # without words: newest first
    ("-relevance", "p.year ASC NULLS LAST, p.id ASC"),
    ("year", "p.year DESC, p.id DESC"),
    ("-year", "p.year ASC NULLS LAST, p.id ASC"),
    ("rating", "r.rating DESC NULLS LAST, p.year DESC, p.id DESC"),  # the reader's rating
    ("-rating", "r.rating ASC NULLS LAST, p.year DESC, p.id DESC"),
    ("title", "coalesce(p.user_title, p.title, p.headline) COLLATE NOCASE ASC, p.id ASC"),
    ("-title", "coalesce(p.user_title, p.title, p.headline) COLLATE NOCASE DESC, p.id DESC"),
    ("added", "p.id DESC"),
    ("-added", "p.id ASC"),
])
def test_sorted_listing_sql(sort, order):
    sql, params = search_sql(compile_query(parse("venue:ICML"), reader="ann"), limit=20, sort=Sort.parse(sort))
    assert sql == f"{_SUMMARY} FROM paper p {_READER} WHERE (p.venue = ?) ORDER BY {order} LIMIT ? OFFSET ?"
    assert params == ["ann", "ICML", 20, 0]


def test_sorted_search_sorts_every_match_then_pages():
    # Every paper holding the words in some form (the stemmed index), none of the partial ones.
    sql, params = search_sql(compile_query(parse("sparse venue:ICML"), reader="ann"), limit=50, offset=100,
                             sort=Sort("rating"))
    assert sql == (
        "WITH hits AS (SELECT rowid AS id FROM paper_stem WHERE paper_stem MATCH ?"
        " AND +rowid IN (SELECT p.id FROM paper p WHERE (p.venue = ?)))"
        f" {_SUMMARY} FROM hits CROSS JOIN paper p {_READER} WHERE p.id = hits.id"
        " ORDER BY r.rating DESC NULLS LAST, p.year DESC, p.id DESC LIMIT ? OFFSET ?")
    assert params == ['("sparse")', "ICML", "ann", 50, 100]


def test_reversed_relevance_ranks_worst_first():
    sql, _ = search_sql(compile_query(parse("sparse")), limit=50, sort=Sort("relevance", reverse=True))
    assert "ORDER BY score DESC, rowid DESC LIMIT ? OFFSET ?)" in sql
    assert sql.endswith("ORDER BY top.score DESC, top.id DESC")


def test_sort_names_and_cycle():
    assert str(Sort.parse("-Year")) == "-year" and Sort.parse("-year").reverse
    assert Sort.parse("") == Sort()
    assert [str(s) for s in _cycle(Sort(), 6)] == ["relevance", "year", "rating", "title", "added", "relevance"]
    assert Sort("year").toggled("year") == Sort("year", reverse=True)
    assert Sort("year", reverse=True).toggled("title") == Sort("title")
    with pytest.raises(QueryError, match="sort by relevance, year, rating, title, added"):
        Sort.parse("author")


def _cycle(sort, n):
    out = []
    for _ in range(n):
        out.append(sort)
        sort = sort.next()
    return out


def test_ids_of_every_match():
    # Facets count the papers holding every word in some form, as the count does.
    assert ids_sql(compile_query(parse("sparse venue:ICML"))) == (
        "SELECT rowid FROM paper_stem WHERE paper_stem MATCH ?"
        " AND +rowid IN (SELECT p.id FROM paper p WHERE (p.venue = ?))", ['("sparse")', "ICML"])
    assert ids_sql(compile_query(parse("year:2026"))) == (
        "SELECT p.id FROM paper p WHERE (p.year = ?)", [2026])


def test_facet_counts_read_an_index_when_results_are_many():
    few, many = facet_sql("IDS", scan=False), facet_sql("IDS", scan=True)
    assert few["venues"] == ("SELECT coalesce(venue, '?') AS venue, year, count(*) AS papers FROM paper"
                             " WHERE id IN (IDS) GROUP BY venue, year ORDER BY year DESC, venue COLLATE NOCASE")
    assert many["venues"] == ("SELECT coalesce(venue, '?') AS venue, year, count(*) AS papers FROM paper"
                              " INDEXED BY ix_paper_venue_year WHERE id IN (IDS) GROUP BY venue, year"
                              " ORDER BY year DESC, venue COLLATE NOCASE")
    # Statuses and ratings are the reader's (the first parameter): their rows are few.
    assert many["statuses"] == few["statuses"] == (
        "SELECT status, count(*) AS papers FROM paper_reader WHERE reader = ?"
        " AND status != 'unread' AND paper_id IN (IDS) GROUP BY status")
    assert many["ratings"] == few["ratings"] == (
        "SELECT rating, count(*) AS papers FROM paper_reader WHERE reader = ?"
        " AND rating IS NOT NULL AND paper_id IN (IDS) GROUP BY rating ORDER BY rating DESC")


def test_ids_of_some_tiers_add_up():
    # Tier by tier (a prefix, partial matches): each leaves out the papers of those before.
    sql, params = ids_sql(compile_query(parse("graph neu*")), ["exact", "some"])
    assert sql == ("SELECT rowid FROM paper_fts WHERE paper_fts MATCH ? UNION ALL"
                   " SELECT rowid FROM paper_stem WHERE paper_stem MATCH ?"
                   " AND +rowid NOT IN (SELECT rowid FROM paper_stem WHERE paper_stem MATCH ?)")
    assert len(params) == 3


def test_postgres_joins_alternatives_that_are_sets_of_ids_into_one_set():
    from catalog.store.postgres import search as pg

    compiled = pg.compile_query(parse("tag:x OR status:read"), reader="ann")
    assert compiled.where == [
        "p.id IN (SELECT pt.paper_id FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id"
        " WHERE t.name = ? OR t.name LIKE ? ESCAPE '\\' UNION ALL"
        " SELECT paper_id FROM paper_reader WHERE reader = ? AND status = ?)"]
    assert compiled.params == ["x", "x/%", "ann", "read"]
    # A test on the row (the year) keeps the OR.
    assert pg.compile_query(parse("tag:x OR year:2020")).where[0].startswith("(p.id IN (")
    assert not pg._id_set("p.id IN (SELECT 1) OR p.id IN (SELECT 2)")


def test_connecting_words_are_optional_in_every_tier_and_list_no_paper_alone():
    from catalog.store.sqlite.fts import tier_expression

    compiled = compile_query(parse("sparse via attention"))
    assert compiled.match == compiled.forms == '("sparse") AND ("attention")'
    assert compiled.words == ['("sparse")', '("via")', '("attention")'] and compiled.connecting == [False, True, False]
    assert tier_expression(compiled, "some") == '("sparse") OR ("attention")'  # `via` alone lists nothing
    assert compile_query(parse("sparse =via attention")).match == '("sparse") AND ("via") AND ("attention")'
    assert compile_query(parse("via")).match == '("via")'  # alone, a word like any
    assert compile_query(parse("via attention")).words == []  # one word naming a topic: no "some" tier
