"""The TUI's pure helpers: query editing, highlighting, rows that line up in any script."""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style

from catalog.searching.highlight import spans
from catalog.results import PaperSummary
from catalog.tui.querytext import filter_token, toggle_filter, typed_query, unfinished_word
from catalog.tui.widgets.rows import Columns, RowStyles, header, row


def test_toggle_filter_adds_replaces_and_removes():
    assert toggle_filter("", "venue:ICML") == "venue:ICML"
    assert toggle_filter("graph", "tag:a") == "graph tag:a"
    assert toggle_filter("graph tag:a", "tag:b") == "graph tag:a tag:b"
    assert toggle_filter("status:read graph", "status:unread") == "graph status:unread"
    assert toggle_filter("graph tag:a", "tag:a") == "graph"
    assert toggle_filter('"a phrase" -status:read', "status:unread") == '"a phrase" -status:read status:unread'
    assert toggle_filter("venue:ICML year:2025", "venue:ICLR year:2026") == "venue:ICLR year:2026"
    assert filter_token("venue", "Some Workshop") == 'venue:"Some Workshop"'


def test_the_word_still_being_typed():
    assert unfinished_word("graph transf") == "transf"
    assert unfinished_word("transformer ") is None
    assert unfinished_word("venue:ICM") is None
    assert unfinished_word('"open phrase') is None
    assert unfinished_word("a OR") is None
    assert unfinished_word("pre*") is None
    assert unfinished_word("-interp") is None and unfinished_word("=interp") is None


def test_the_word_being_typed_is_searched_as_a_prefix_from_three_letters_and_not_before():
    assert typed_query("interp") == "interp*"
    assert typed_query("sparse auto") == "sparse auto*"
    assert typed_query("sparse au") == "sparse "  # two letters: not searched yet
    assert typed_query("a") == typed_query("ab") == ""
    assert typed_query("venue:ICML g") == "venue:ICML "
    assert typed_query("sparse au", finished=True) == "sparse au"  # Enter: an exact word
    assert typed_query("sparse auto ") == "sparse auto "  # a space ends the word
    assert typed_query("sparse au ") == "sparse au "
    for kept in ("venue:ICM", '"open phra', "pre*", "a OR", "-interp", "=interp"):
        assert typed_query(kept) == kept


def test_highlight_terms_skip_negated_words_and_filters(empty_catalog):
    terms = empty_catalog.highlight_terms('graph -tree "neural net" venue:ICML pre*')
    assert terms.phrases == {(("graph",), False), (("neural", "net"), False), (("pre",), True)}
    assert not empty_catalog.highlight_terms("year:abc")


def test_highlight_spans_match_the_way_the_index_does(empty_catalog):
    text = "The MCR² objective; Café-style naïve GRAPHS, graph neural networks."
    highlight_terms = empty_catalog.highlight_terms
    found = lambda query: [text[a:b] for a, b in spans(text, highlight_terms(query))]  # noqa: E731
    assert found("MCR2") == ["MCR²"]
    assert found("cafe") == ["Café"]
    assert found("=graph") == ["graph"]
    assert found("graph") == ["GRAPHS", "graph"]  # other forms too, as the stemmed index finds them
    assert found("graph*") == ["GRAPHS", "graph"]
    assert found('"graph neural"') == ["graph neural"]
    assert found("神经") == []
    assert spans("基于神经网络", highlight_terms("神经")) == [(2, 4)]


def _styles() -> RowStyles:
    return RowStyles.plain()


def test_rows_line_up_with_chinese_titles_and_tags():
    papers = [
        PaperSummary("k1", "大型语言模型的推理能力研究与分析方法综述以及更多内容", "ICML", 2026, "reading", 4, ("项目/论文", "toread")),
        PaperSummary("k2", "A plain English title that is long enough to be cut", "NeurIPS", 2025, "unread", None, ()),
        PaperSummary("k3", "混合 mixed 标题 [bold]x[/] \x1b[31mred", None, None, "read", 5, ("a",)),
    ]
    for width in (60, 80, 120, 200):
        cols = Columns.fit(width, venue=7)
        lines = [header(cols, Style())] + [row(p, cols, _styles(), False) for p in papers]
        assert {cell_len(line.plain) for line in lines} == {cell_len(lines[0].plain)}
        venue_at = [cell_len(line.plain[:line.plain.find(v)]) for line, v in
                    zip(lines, ("Venue", "ICML", "NeurIPS"))]
        assert len(set(venue_at)) == 1, (width, venue_at)
    assert "[bold]x[/]" in lines[3].plain and "\x1b" not in lines[3].plain


def test_keys_query_narrows_a_query_without_changing_its_meaning():
    from catalog.searching.query import parse
    from catalog.tui.querytext import KEY_CHUNK, chunks, keys_query

    keys = ["k1", "k2"]
    for query in ("", "a OR b", "OR x", "AND OR x", "NOT y", '"open phrase', "venue:ICML -tag:x"):
        narrowed = parse(keys_query(keys, query)).clauses
        assert [o.value for o in narrowed[0].options] == keys and not narrowed[0].negated
        assert narrowed[1:] == parse(query.removeprefix("AND ").removeprefix("OR ")).clauses
    assert [len(c) for c in chunks(["k"] * (KEY_CHUNK + 1))] == [KEY_CHUNK, 1]


def test_keys_query_stays_within_sqlite_limits(seeded):
    from catalog.tui.querytext import KEY_CHUNK, keys_query

    keys = [p.key for p in seeded.search("", limit=KEY_CHUNK, snippets=False)]
    many = (keys * (KEY_CHUNK // len(keys) + 1))[:KEY_CHUNK]
    assert {p.key for p in seeded.search(keys_query(many), limit=KEY_CHUNK)} == set(keys)


def test_an_exact_phrase_is_one_token_when_filters_are_toggled(empty_catalog):
    from catalog.tui.querytext import tokens

    assert tokens('="language models" -="sparse coding" x') == ['="language models"', '-="sparse coding"', "x"]
    assert toggle_filter('="language models" venue:ICML', "venue:ICLR") == '="language models" venue:ICLR'
    terms = empty_catalog.highlight_terms('="language models"')
    assert terms.phrases == frozenset({(("language", "models"), False)})
    assert not terms.stems  # this form only: no other forms marked


def test_counts_of_papers_in_messages_have_separators():
    """Tagging every paper of a real library said `Tagged 16378 papers` under a line counting
    `16,378 marked`."""
    from catalog.tui.editing import _count

    assert _count([object()] * 16378) == "16,378 papers"
