"""The words of the search index, for "did you mean" suggestions (catalog/searching/suggest.py).

Read through FTS5's `fts5vocab` over the index's terms, as indexed (folded to lower case, without
diacritics). When the index stems its terms, the surface words users type are what
suggestions need: `papers_with_word` and `vocabulary` are the two places to point at them.
"""

from __future__ import annotations

from collections.abc import Iterator

from catalog.store.sqlite.fts import FTS_TABLE

VOCAB_TABLE = f"temp.{FTS_TABLE}_vocab"


class Vocabulary:
    """Mixed into SqliteTx, which provides `self.conn`."""

    def _vocab_table(self) -> str:
        # A temp table: private to this connection, and allowed in a read transaction.
        self.conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE}"
                          f" USING fts5vocab(main, {FTS_TABLE}, row)")
        return VOCAB_TABLE

    def papers_with_word(self, word: str, at_most: int, *, prefix: bool = False) -> int:
        """How many papers hold this (folded) word (with `prefix`, a word starting with it),
        counted up to `at_most`: a common word stops early instead of ranking its papers."""
        return self.conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? LIMIT ?)",
            ('"' + word.replace('"', '""') + '"' + ("*" if prefix else ""), at_most)).scalar()

    def vocabulary(self) -> Iterator[tuple[str, int]]:
        """(word, papers holding it) for the words of the index that start with a Latin letter
        (numbers, ids and CJK runs are no typos to fix), in word order. Reads most of the index
        (about a second at 100k papers): the caller caches it, by `vocabulary_stamp`."""
        table = self._vocab_table()
        cursor = self.conn.raw.execute(f"SELECT term, doc FROM {table} WHERE term >= 'a' AND term < '{{'")
        while batch := cursor.fetchmany(5000):
            for term, doc in batch:
                yield term, doc

    def vocabulary_stamp(self) -> str:
        """Changes when papers are imported or their text changes, from indexes alone (no
        count of the papers: that reads the whole table). Tags and notes written since are
        left out of suggestions until then."""
        newest = self.conn.execute("SELECT coalesce(max(id), 0) FROM paper").scalar()
        sources = self.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM source").one()
        titled = self.conn.execute("SELECT count(*), coalesce(max(updated_at), '') FROM paper"
                                   " WHERE user_title IS NOT NULL").one()
        return f"{newest}/{sources[0]}/{sources[1]}/{titled[0]}/{titled[1]}"
