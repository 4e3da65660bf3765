"""The pure parts of SQLite's ranked lists (catalog/store/lists/scoring.py), and the FTS5
records they read (lists/records.py) pinned against what FTS5 itself says: a SQLite whose FTS5
wrote its records otherwise, or scored otherwise, fails here rather than in a ranking."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter

import pytest

from catalog.store.lists import scoring
from catalog.store.lists.records import IndexRecords, varint_sum, varints
from catalog.store.sqlite.connection import Connection
from catalog.store.sqlite.fts import FTS_COLUMNS

WEIGHTS = ", ".join(str(w) for w in FTS_COLUMNS.values())
TEXTS = [
    {"title": "Sparse attention", "abstract_text": "Attention that is sparse, and sparse again."},
    {"title": "Models of language", "abstract_text": "A language model; language models of language.",
     "tags_text": "toread sparse"},
    {"headline": "Nothing about it", "abstract_text": "Graphs, graphs and more graphs " * 40},
    {"title": "Attention", "authors": "Ann Attention", "notes_text": "sparse notes"},
]


@pytest.fixture
def index():
    raw = sqlite3.connect(":memory:", isolation_level=None)
    raw.row_factory = sqlite3.Row
    raw.execute(f"CREATE VIRTUAL TABLE paper_fts USING fts5({', '.join(FTS_COLUMNS)},"
                " tokenize='unicode61 remove_diacritics 2')")
    for n, text in enumerate(TEXTS, 1):
        columns = ", ".join(text)
        raw.execute(f"INSERT INTO paper_fts(rowid, {columns}) VALUES (?, {', '.join('?' * len(text))})",
                    (n, *text.values()))
    raw.execute("CREATE VIRTUAL TABLE words USING fts5vocab(paper_fts, 'instance')")
    yield Connection(raw)
    raw.close()


def test_the_records_say_what_fts5vocab_counts(index):
    records = IndexRecords(index)
    tokens = {r["doc"]: r["n"] for r in index.execute("SELECT doc, count(*) AS n FROM words GROUP BY doc")}
    assert records.totals() == (len(TEXTS), sum(tokens.values()))
    assert records.lengths([1, 3]) == {1: tokens[1], 3: tokens[3]}
    assert records.lengths() == tokens


def test_the_stamp_changes_with_every_write_and_only_then(index):
    records = IndexRecords(index)
    before = records.stamp()
    index.execute("SELECT * FROM paper_fts WHERE paper_fts MATCH 'sparse'").all()
    assert records.stamp() == before
    index.execute("INSERT INTO paper_fts(rowid, title) VALUES (9, 'one more')")
    assert records.stamp() != before


@pytest.mark.parametrize("word", ["sparse", "attention", "language", "graphs"])
def test_bm25_recomputed_is_fts5s_bit_for_bit(index, word):
    """A word's score from its frequency (column weights applied), the paper's length and the
    collection's totals is FTS5's own; and the frequency recovered from a score gives it back."""
    records = IndexRecords(index)
    papers, tokens = records.totals()
    lengths = records.lengths()
    found = index.execute(f"SELECT rowid AS id, bm25(paper_fts, {WEIGHTS}) AS score FROM paper_fts"
                          " WHERE paper_fts MATCH ?", (word,)).all()
    weight = scoring.idf(papers, len(found))
    weighted = dict(zip(FTS_COLUMNS, FTS_COLUMNS.values()))
    for row in found:
        freq = sum(weighted[r["col"]] for r in index.execute(
            "SELECT col FROM words WHERE term = ? AND doc = ?", (word, row["id"])).all())
        assert scoring.bm25(weight, freq, lengths[row["id"]], tokens / papers) == row["score"]
        assert scoring.frequency_of(row["score"], weight, lengths[row["id"]], tokens / papers) == freq


def test_an_and_adds_its_terms_in_order_as_fts5_does(index):
    both = index.execute(f"SELECT rowid AS id, bm25(paper_fts, {WEIGHTS}) AS score FROM paper_fts"
                         " WHERE paper_fts MATCH 'sparse AND attention'").all()
    for row in both:
        terms = [-index.execute(f"SELECT bm25(paper_fts, {WEIGHTS}) FROM paper_fts WHERE paper_fts MATCH ?"
                                " AND rowid = ?", (word, row["id"])).scalar() for word in ("sparse", "attention")]
        assert scoring.and_score(terms) == row["score"]


def test_varints_decode_sqlites_encoding():
    assert varints(bytes([0x05, 0x81, 0x00, 0x7F])) == [5, 128, 127]
    assert varints(bytes([0xFF] * 8 + [0x01])) == [(2 ** 56 - 1) << 8 | 1]


def test_a_papers_length_is_the_sum_of_its_columns_however_long():
    """varint_sum (the fast sum of one- and two-byte varints) agrees with decoding each one,
    for columns of every size SQLite encodes in one, two, three or more bytes."""
    def encoded(value: int) -> bytes:
        groups = [value & 0x7F]
        while value := value >> 7:
            groups.append(value & 0x7F)
        return bytes([0x80 | g for g in groups[:0:-1]] + [groups[0]])

    sizes = [0, 1, 127, 128, 200, 16383, 16384, 2 ** 21, 3]
    for start in range(len(sizes)):
        columns = (sizes[start:] + sizes[:start])[:8]
        blob = b"".join(map(encoded, columns))
        assert varints(blob) == columns
        assert varint_sum(blob) == sum(columns)


def test_a_rescored_bound_is_never_beaten_by_a_paper_ranked_below_the_last():
    """A paper ranked at or below the list's last one (a lower term part then) cannot score
    better than the bound now, whatever the average length did."""
    weight, avgdl_then = scoring.idf(1000, 50), 120.0
    last = scoring.saturation(3.0, 100, avgdl_then)
    for avgdl_now in (60.0, 120.0, 240.0):
        bound = scoring.rescored_bound(weight, last, avgdl_then, avgdl_now)
        for freq, length in ((3.0, 100), (2.0, 50), (1.0, 10), (3.0, 400)):
            if scoring.saturation(freq, length, avgdl_then) <= last:
                assert scoring.bm25(weight, freq, length, avgdl_now) >= bound


def _every_prefix_added(words, at_least):
    """scoring.candidates as it was: every prefix of every word counted, then kept or not."""
    prefixes = Counter()
    for term, n in words:
        for length in range(1, len(term) + 1):
            prefixes[term[:length]] += n
    out = [(scoring.key_of(term), n) for term, n in words if n >= at_least]
    out += [(scoring.key_of(p, prefix=True), n) for p, n in prefixes.items() if n >= at_least]
    return sorted(out, key=lambda kn: (-kn[1], kn[0]))


@pytest.mark.parametrize("seed", range(5))
def test_the_words_and_prefixes_chosen_are_those_every_prefix_counted_gives(seed):
    """Only the prefixes of prefixes that qualify are looked at: the same keys and counts,
    in the same order, as counting every prefix of every word (words that start others,
    one letter, non-ASCII, digits; thresholds from one paper to more than all)."""
    rng = random.Random(seed)
    letters = "abcdeé中9"
    words = {"".join(rng.choice(letters[:rng.randint(2, len(letters))]) for _ in range(rng.randint(1, 7)))
             for _ in range(3000)}
    words = [(w, rng.choice((1, 2, 5, 40, 300))) for w in sorted(words)]
    rng.shuffle(words)
    total = sum(n for _, n in words)
    for at_least in (1, 3, 50, 400, 2000, total // 3, total, total + 1):
        assert scoring.candidates(words, at_least) == _every_prefix_added(words, at_least)


def test_which_words_get_lists_and_how_deep():
    words = [("model", 600), ("models", 300), ("moon", 20), ("the", 900)]
    chosen = dict(scoring.candidates(words, 500))
    assert chosen == {'("the")': 900, '("the"*)': 900, '("th"*)': 900, '("t"*)': 900,
                      '("model")': 600, '("mo"*)': 920, '("m"*)': 920, '("mod"*)': 900, '("mode"*)': 900,
                      '("model"*)': 900}
    assert list(chosen)[:3] == ['("m"*)', '("mo"*)', '("mod"*)']  # most papers first
    assert scoring.list_depth(100, 1000) == scoring.DEEP_LIST_SIZE
    assert scoring.list_depth(99, 1000) == scoring.LIST_SIZE
    assert scoring.catalog_resized(1000, 1250) is False and scoring.catalog_resized(1000, 1251) is True
    assert scoring.catalog_resized(1000, 800) is False and scoring.catalog_resized(1000, 799) is True


def test_an_import_ranks_first_the_lists_typing_reads():
    from catalog.tui.querytext import PREFIX_FROM, typed_query

    assert scoring.TYPED_FROM == PREFIX_FROM and typed_query("sparse at") == "sparse "
    assert [scoring.typed(k) for k in ('("a"*)', '("in"*)', '("int"*)', '("a")', '("in") AND ("a"*)',
                                       '("é"*)')] == [False, False, True, True, True, True]


def test_keys_of_words_prefixes_and_several_words():
    assert scoring.key_of("model") == '("model")' and scoring.key_of("mod", prefix=True) == '("mod"*)'
    assert scoring.term('("model")') == ("model", False) and scoring.term('("mod"*)') == ("mod", True)
    assert scoring.term('("modèle")') is None  # FTS5's folding, not this program's
    assert not scoring.of_several('("model")') and scoring.of_several('("a") AND ("b")')


def test_a_smaller_catalog_keeps_lists_for_what_matches_a_large_share_of_it():
    """A real library of 16,373 papers: its words and prefixes in a fifth of it get lists (the
    slowest key typed, `the*`, ranked 5,433 matches); from 100,000 papers on, as before."""
    assert scoring.min_matches(16_373) == 3_274
    assert scoring.min_matches(5_000) == scoring.SMALL_FLOOR  # below it ranking all is quick
    assert scoring.min_matches(100_000) == scoring.MIN_MATCHES == scoring.min_matches(300_000)
    assert scoring.min_matches(1_000_000) == scoring.MIN_MATCHES_BIG
    assert scoring.keeps_lists(16_373) and scoring.keeps_lists(3_000)
    assert not scoring.keeps_lists(2_999) and not scoring.keeps_lists(90)


@pytest.mark.parametrize("papers", [10_000, 100_000, 1_000_000])
def test_how_deep_a_list_is_goes_by_the_share_of_papers_a_word_matches(papers):
    share = scoring.DEEP_SHARE
    assert scoring.list_depth(int(papers * share), papers) == scoring.DEEP_LIST_SIZE
    assert scoring.list_depth(int(papers * share) - 1, papers) == scoring.LIST_SIZE
    assert scoring.list_depth(0, 0) == scoring.LIST_SIZE


# Which queries a list can serve: a word or prefix, an AND of them, a phrase of words.

@pytest.mark.parametrize("query, key", [
    ("model", '("model")'), ("Model", '("model")'), ("interp*", '("interp"*)'),
    ('"language models"', None), ("a OR b", None), ("model -x", None),
    ("=model", '("model")'), ("venue:ICML", None),
])
def test_which_queries_a_list_can_serve(query, key):
    from catalog.searching.query import parse
    from catalog.store.sqlite.fts import compile_query

    assert scoring.word_key(compile_query(parse(query))) == key


@pytest.mark.parametrize("query, keys", [
    ("sparse attention", ['("sparse")', '("attention")']), ("Language mo*", ['("language")', '("mo"*)']),
    ("model venue:ICML the", ['("model")', '("the")']), ("model", None), ('"language models" x', None),
    ("model model", None), ("model -the", None), ("model OR the", None), ("model (the OR a)", None),
])
def test_which_and_queries_lists_can_serve(query, keys):
    from catalog.searching.query import parse
    from catalog.store.sqlite.fts import compile_query

    assert scoring.and_keys(compile_query(parse(query))) == keys


@pytest.mark.parametrize("query, keys", [
    ('"language models"', ['("language")', '("models")']), ('"Model of the model"', ['("model")', '("of")', '("the")']),
    ('"model"', None), ('"multi-agent model"', None), ('x "language models"', None), ('"language models" -x', None),
])
def test_which_phrases_lists_can_serve(query, keys):
    from catalog.searching.query import parse
    from catalog.store.sqlite.fts import compile_query

    assert scoring.phrase_keys(compile_query(parse(query))) == keys
