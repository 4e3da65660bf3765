"""SQLite's full-text index as the store sees it: its tables, the columns of `paper` it holds
and their bm25 weights, and a word quoted for MATCH. sqlite/fts.py compiles queries over it,
lists/ ranks and reads it, the migrations made it (and keep their own frozen copy)."""

from __future__ import annotations

from catalog.searching.query import Text

FTS_TABLE = "paper_fts"  # the words as written (unicode61): exact forms, prefixes, vocabulary
STEM_TABLE = "paper_stem"  # the same columns, stemmed (porter): other word forms (migration 0008)
VOCAB_TABLE = "paper_vocab"  # fts5vocab over paper_fts: the indexed words and their papers
PAGE_TABLE = "page_fts"  # the text of attached files' pages, stemmed (migration 0015)
TOKENIZER = "unicode61 remove_diacritics 2"  # paper_fts's (migration 0001)
STEM_TOKENIZER = "porter unicode61 remove_diacritics 2"
# Indexed columns of `paper`, in FTS5 column order, with their bm25 weights: a hit in a title
# or tag counts for more than one in the abstract.
FTS_COLUMNS = {
    "user_title": 10.0,
    "title": 10.0,
    "headline": 6.0,
    "abstract_text": 1.0,
    "authors": 3.0,
    "tags_text": 8.0,
    "notes_text": 2.0,
    "search_extra": 1.0,
}
# The weights as bm25()'s arguments.
WEIGHTS = ", ".join(str(w) for w in FTS_COLUMNS.values())


def fts_phrase(text: Text) -> str:
    """A word or phrase (a prefix with `*`) as an FTS5 string: never FTS5 syntax."""
    return '"' + text.text.replace('"', '""') + '"' + ("*" if text.prefix else "")
