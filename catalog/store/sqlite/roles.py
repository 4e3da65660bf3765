"""The roles of a SQLite transaction that SQLite does its own way: bulk loads into the FTS5
indexes (Imports), the index's words for suggestions (Search), and the papers' texts streamed
for discovery (Discovery). The rest of each role is the shared SQL (store/imports.py,
ranked.py, discovery.py)."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager

from catalog.store.base import RankedLists
from catalog.store.discovery import DiscoveryQueries
from catalog.store.edits import EditQueries
from catalog.store.imports import ImportQueries
from catalog.store.ranked import RankedSearch
from catalog.rules import now
from catalog.store.rows import PageHit, PaperText, WordCount, chunks
from catalog.store.sqlite import fts

# Page cache of a bulk import (KiB): the key and fingerprint indexes take random inserts,
# and the 2 MB default sends their pages to disk and back.
BULK_CACHE_KIB = 32 * 1024
_FETCH = 2000
# The index's words (fts5vocab), in a temp table: private to this connection, and allowed in
# a read transaction.
VOCAB_TABLE = f"temp.{fts.FTS_TABLE}_vocab"


# The triggers that copy a paper's tags onto paper.tags_text, one tag row at a time (0001).
TAG_ROW_TRIGGERS = ("paper_tag_insert", "paper_tag_delete")


class SqliteEdits(EditQueries):
    """Edits, with tags changed on many papers at once."""

    def change_tags(self, adds, removes) -> None:
        """The tag-row triggers stand aside while the rows change (as bulk_load's insert
        trigger does), and each paper's tags text is written once: each such write indexes
        the paper again. DDL is transactional: other connections never see the triggers
        missing, and a rollback restores them."""
        ids = sorted({pid for pid, _ in (*adds, *removes)})
        if not ids:
            return
        triggers = self.conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?)",
            TAG_ROW_TRIGGERS).all()
        for trigger in triggers:
            self.conn.execute(f"DROP TRIGGER {trigger['name']}")
        self.conn.executemany("INSERT INTO tag(name) VALUES (?) ON CONFLICT DO NOTHING",
                              [(name,) for name in dict.fromkeys(name for _, name in adds)])
        self.conn.executemany("INSERT INTO paper_tag(paper_id, tag_id) SELECT ?, id FROM tag WHERE name = ?"
                              " ON CONFLICT DO NOTHING", adds)
        self.conn.executemany("DELETE FROM paper_tag WHERE paper_id = ? AND tag_id = (SELECT id FROM tag WHERE name = ?)",
                              removes)
        stamp = now()
        for part, marks in chunks(ids):
            self.conn.execute(f"UPDATE paper SET tags_text = {fts.TAGS_TEXT_OF.format(pid='paper.id')},"
                              f" updated_at = ? WHERE id IN ({marks})", (stamp, *part))
        for trigger in triggers:
            self.conn.execute(trigger["sql"])


class SqliteImports(ImportQueries):
    """Imports, with bulk loads that index the new papers in one statement; `lists` hears of
    them (its changed papers)."""

    def __init__(self, conn, user: str, lists: RankedLists):
        super().__init__(conn, user)
        self.lists = lists

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Within this write transaction, make many inserts into `paper` cheap.

        The per-row FTS insert trigger is dropped (the caller indexes new rows with
        `index_papers_from`) and created again from its own stored SQL before the caller
        commits; the page cache is larger meanwhile. Other connections never see the trigger
        missing: DDL is transactional, and a crash or a rollback restores it with everything else.
        """
        marks = ", ".join("?" * len(fts.INSERT_TRIGGERS))
        triggers = self.conn.execute(
            f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ({marks})",
            fts.INSERT_TRIGGERS).all()
        cache = self.conn.execute("PRAGMA cache_size").scalar()
        self.conn.execute(f"PRAGMA cache_size = {-BULK_CACHE_KIB}")
        for trigger in triggers:
            self.conn.execute(f"DROP TRIGGER {trigger['name']}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA cache_size = {int(cache)}")
        # Not in `finally`: after an error the caller rolls back, which restores the triggers.
        for trigger in triggers:
            self.conn.execute(trigger["sql"])

    def index_papers_from(self, first_id: int) -> None:
        """Index papers with id >= first_id in one statement (the bulk-import path)."""
        cols = ", ".join(fts.FTS_COLUMNS)
        for table in (fts.FTS_TABLE, fts.STEM_TABLE):
            self.conn.execute(
                f"INSERT INTO {table}(rowid, {cols}) SELECT id, {cols} FROM paper WHERE id >= ?",
                (first_id,))
        self.lists.changes.mark_new(first_id)


class SqliteSearch(RankedSearch):
    """Search, with the words of the index for "did you mean" (catalog/searching/suggest.py),
    read through FTS5's fts5vocab as indexed (folded to lower case, without diacritics), and
    the pages of attached files (page_fts)."""

    def pages(self, query, limit: int, paper_id: int | None = None) -> list[PageHit]:
        match = fts.page_match(query)
        if match is None:
            return []
        if paper_id is not None:  # one paper's pages: few, read as they are
            rows = self.conn.execute(
                f"SELECT a.paper_id, ap.attachment_id, ap.page, ap.text, bm25({fts.PAGE_TABLE}) AS score"
                f" FROM {fts.PAGE_TABLE} JOIN attachment_page ap ON ap.id = {fts.PAGE_TABLE}.rowid"
                f" JOIN attachment a ON a.id = ap.attachment_id WHERE {fts.PAGE_TABLE} MATCH ? AND a.paper_id = ?"
                f" ORDER BY score LIMIT ?", (match, paper_id, limit))
        else:
            # Rank the matching pages by id and score alone, then read the text of the best:
            # sorting every matching page with its text (a frequent word: thousands of pages)
            # was most of the search (docs/benchmarks.md, PDF text).
            rows = self.conn.execute(
                f"SELECT a.paper_id, ap.attachment_id, ap.page, ap.text, best.score FROM"
                f" (SELECT rowid AS id, rank AS score FROM {fts.PAGE_TABLE} WHERE {fts.PAGE_TABLE} MATCH ?"
                f" ORDER BY rank LIMIT ?) AS best"
                f" JOIN attachment_page ap ON ap.id = best.id JOIN attachment a ON a.id = ap.attachment_id"
                f" ORDER BY best.score", (match, limit))
        return [PageHit(r["paper_id"], r["attachment_id"], r["page"], r["text"], r["score"]) for r in rows]

    def papers_with_word(self, word: str, at_most: int, *, prefix: bool = False) -> int:
        """How many papers hold this (folded) word (with `prefix`, a word starting with it),
        counted up to `at_most`: a common word stops early instead of ranking its papers."""
        return self.conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {fts.FTS_TABLE} WHERE {fts.FTS_TABLE} MATCH ? LIMIT ?)",
            ('"' + word.replace('"', '""') + '"' + ("*" if prefix else ""), at_most)).scalar()

    def vocabulary(self) -> Iterator[WordCount]:
        """The words of the index that start with a Latin letter (numbers, ids and CJK runs
        are no typos to fix), in word order. Reads most of the index: the caller caches it, by
        `vocabulary_stamp`."""
        self.conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE}"
                          f" USING fts5vocab(main, {fts.FTS_TABLE}, row)")
        cursor = self.conn.raw.execute(f"SELECT term, doc FROM {VOCAB_TABLE} WHERE term >= 'a' AND term < '{{'")
        while batch := cursor.fetchmany(5000):
            for row in batch:
                yield WordCount(row["term"], row["doc"])


class SqliteDiscovery(DiscoveryQueries):
    """Discovery, with the papers' texts streamed from the file."""

    def paper_texts(self, ids: Collection[int] | None = None, *, after_id: int = 0
                    ) -> Iterator[PaperText]:
        """Each paper's id, title and rendered abstract in id order, streamed; the title is the user's or
        the real one (not the headline: made from the abstract, it would count words twice)."""
        wanted = None if ids is None else set(ids)
        cursor = self.conn.raw.execute(
            "SELECT id, coalesce(user_title, title, '') AS title, abstract_text FROM paper"
            " WHERE id > ? ORDER BY id", (after_id,))
        while batch := cursor.fetchmany(_FETCH):
            for row in batch:
                if wanted is None or row["id"] in wanted:
                    yield PaperText(row["id"], row["title"], row["abstract_text"])
