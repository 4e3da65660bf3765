"""Queries that cannot mean anything get one line (QueryError), never an exception of another
kind: empty or unclosed filter values, and filters that do not exist."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from catalog.cli import main
from catalog.searching.query import FILTERS, QueryError, parse

UNFINISHED = ['year:""', 'rating:""', 'year:"', 'attention year:"', 'rating:"', '-year:""', 'year:" ',
              'rating:">', 'year:>', 'rating:>=', 'year:<"']


@pytest.mark.parametrize("query", UNFINISHED)
def test_empty_or_unfinished_filter_values_are_one_line(query):
    with pytest.raises(QueryError) as error:
        parse(query)
    message = str(error.value)
    assert "\n" not in message and query.split()[-1].lstrip("-")[:4] in message


@pytest.mark.parametrize("query", ["journal:kim", "title:attention", 'abstract:"sparse codes"', "-authors:lee",
                                   "attention Journal:Nature"])
def test_an_unknown_filter_lists_the_filters_that_exist(query):
    with pytest.raises(QueryError) as error:
        parse(query)
    message = str(error.value)
    assert "unknown filter" in message and all(name in message for name in FILTERS), message


@pytest.mark.parametrize("query", ['"author:kim"', "3:1", "http://example.com", "re:", "word: x", "中文:模型"])
def test_text_with_a_colon_that_is_no_filter_still_searches(query):
    assert parse(query).has_text


@pytest.mark.parametrize("query", ['year:"2026', "year:..", 'year:"..2025"', "rating:>=4"])
def test_complete_values_still_parse(query):
    assert not parse(query).has_text


@pytest.mark.parametrize("query", ['year:"', 'rating:""', "journal:kim"])
def test_the_cli_prints_one_line(query, tmp_path):
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "c.db"), "search", query])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("catalog: "), result.stderr
