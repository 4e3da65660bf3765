"""The roles of a PostgreSQL transaction that a server does its own way: venue counts grouped
without case (Papers), COPY and array parameters for imports (Imports), the index's words
from the exact vector (Search), and the papers' texts streamed for discovery (Discovery).
The rest of each role is the shared SQL (store/papers.py, imports.py, ranked.py,
discovery.py)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager

from catalog.searching.query import Text
from catalog.rules import now
from catalog.store.discovery import DiscoveryQueries
from catalog.store.edits import EditQueries
from catalog.store.imports import FACT_COLUMNS, PAPER_COLUMNS, ImportQueries
from catalog.store.papers import PaperReads
from catalog.store.postgres import search
from catalog.store.ranked import RankedSearch
from catalog.results import VenueCount
from catalog.store.rows import PageHit, PaperFacts, PaperText, ValueOwner, WordCount, paper_facts

_FETCH = 2000


class PostgresPapers(PaperReads):
    def venue_counts(self) -> tuple[VenueCount, ...]:
        """Papers per venue and year, newest year first (search.venue_counts_sql)."""
        return tuple(VenueCount(r["venue"], r["year"], r["papers"]) for r in self.conn.execute(search.venue_counts_sql()))


class PostgresEdits(EditQueries):
    """Edits, with tags changed on many papers in one statement each (array parameters)."""

    def change_tags(self, adds, removes) -> None:
        """Each paper written once: its tags text as the changed rows will make it (what
        catalog_tags_text() reads: its tags by name) and its `updated_at`, in one statement,
        before the tag rows change; their statement triggers (migration 0020) then find each
        paper's tags text as it is and write nothing. (Each write of a paper computes both its
        vectors and adds every word of it to both GIN indexes: a paper row fills most of a
        page, so no update of it is HOT.)"""
        add_ids, add_names = [pid for pid, _ in adds], [name for _, name in adds]
        remove_ids, remove_names = [pid for pid, _ in removes], [name for _, name in removes]
        ids = sorted({*add_ids, *remove_ids})
        if adds:
            self.conn.execute("INSERT INTO tag(name) SELECT DISTINCT unnest(?::citext[]) ON CONFLICT DO NOTHING",
                              (add_names,))
        self.conn.execute(
            "UPDATE paper p SET updated_at = ?, tags_text = x.tags FROM (SELECT i.id,"
            " coalesce(string_agg(t.name::text, ' ' ORDER BY t.name), '') AS tags FROM unnest(?::int[]) AS i(id)"
            " LEFT JOIN (SELECT pt.paper_id, pt.tag_id FROM paper_tag pt WHERE pt.paper_id = ANY(?::int[])"
            " EXCEPT SELECT r.pid, t.id FROM unnest(?::int[], ?::citext[]) AS r(pid, name) JOIN tag t ON t.name = r.name"
            " UNION SELECT a.pid, t.id FROM unnest(?::int[], ?::citext[]) AS a(pid, name) JOIN tag t ON t.name = a.name)"
            " AS r ON r.paper_id = i.id LEFT JOIN tag t ON t.id = r.tag_id GROUP BY i.id) AS x WHERE p.id = x.id",
            (now(), ids, ids, remove_ids, remove_names, add_ids, add_names))
        # One statement: the triggers of both run after both, on the tags as they end up (two
        # statements would show the triggers the tags in between, to be written).
        self.conn.execute(
            "WITH removed AS (DELETE FROM paper_tag pt USING unnest(?::int[], ?::citext[]) AS r(pid, name), tag t"
            " WHERE t.name = r.name AND pt.tag_id = t.id AND pt.paper_id = r.pid RETURNING 1)"
            " INSERT INTO paper_tag(paper_id, tag_id) SELECT a.pid, t.id"
            " FROM unnest(?::int[], ?::citext[]) AS a(pid, name) JOIN tag t ON t.name = a.name"
            " ON CONFLICT DO NOTHING", (remove_ids, remove_names, add_ids, add_names))


class PostgresImports(ImportQueries):
    """Imports through COPY, and lookups with one array parameter each."""

    # --- bulk loads: a trigger computes the search vectors row by row, so there is nothing to defer

    # Within an import's transaction only (SET LOCAL): GIN indexes collect new entries in a
    # pending list and merge it into the index when it outgrows gin_pending_list_limit (4 MB by
    # default: many small merges during a large import); the commit does not wait for its WAL
    # to reach the disk (a crash can lose the last imported file, never consistency).
    BULK_SETTINGS = (("gin_pending_list_limit", "64MB"), ("work_mem", "64MB"),
                     ("synchronous_commit", "off"))

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        for name, value in self.BULK_SETTINGS:
            self.conn.execute(f"SET LOCAL {name} = '{value}'")
        yield

    def index_papers_from(self, first_id: int) -> None:
        pass

    def insert_papers(self, papers, keys, stamp) -> list[int]:
        """New papers through COPY, ids max+1 onwards (this transaction holds the write lock),
        then the id sequence moved past them."""
        first = self.max_paper_id() + 1
        columns = ("id", "key", *PAPER_COLUMNS, "tags_text", "notes_text", "added_at", "updated_at")
        with self.conn.raw.cursor() as cursor:
            with cursor.copy(f"COPY paper ({', '.join(columns)}) FROM STDIN") as copy:
                for n, (key, paper) in enumerate(zip(keys, papers)):
                    copy.write_row((first + n, key, *paper, "", "", stamp, stamp))
            cursor.execute("SELECT setval(pg_get_serial_sequence('paper', 'id'), greatest(max(id), 1))"
                           " FROM paper")
        return list(range(first, first + len(papers)))

    # --- an import's lookups and provenance: one statement with arrays each --------------------
    # The shared SQL (store/imports.py) sends chunks of `IN (?, ?, ...)` and one INSERT per
    # record; psycopg parses each long placeholder list anew and pipelines 10,000 INSERTs
    # for 10,000 records (4 s of a 10,000-paper import under load). An array parameter is
    # one placeholder; unnest() inserts them all at once.

    def existing_keys(self, keys: Iterable[str]) -> set[str]:
        return set(self.conn.execute("SELECT key FROM paper WHERE key = ANY(?)", (list(keys),)).scalars())

    def papers_with_values(self, column: str, values: Iterable[str]) -> list[ValueOwner]:
        assert column in ("doi", "arxiv_id", "fingerprint")
        return [ValueOwner(r[column], r["id"]) for r in self.conn.execute(
            f"SELECT {column}, id FROM paper WHERE {column} = ANY(?)", (list(values),))]

    def paper_facts(self, ids: Iterable[int]) -> dict[int, PaperFacts]:
        return {row["id"]: paper_facts(row) for row in self.conn.execute(
            f"SELECT {FACT_COLUMNS} FROM paper WHERE id = ANY(?::int[])", (list(ids),))}

    def add_provenance(self, places: Iterable[tuple[int, int, int]]) -> None:
        columns = [list(column) for column in zip(*places)]
        if columns:
            self.conn.execute(
                "INSERT INTO provenance(paper_id, source_id, position)"
                " SELECT * FROM unnest(?::int[], ?::int[], ?::int[]) ON CONFLICT DO NOTHING", columns)

    def citekeys_taken(self, keys: Iterable[str]) -> set[str]:
        # citext: `= ANY` of one array the unique index serves (chunks of `IN` lists of 500
        # citext values took 52 ms each, 9.7 s of a 100k import)
        return {k.lower() for k in self.conn.execute(
            "SELECT key FROM citekey WHERE key = ANY(?::citext[])", (list(keys),)).scalars()}

    def add_citekeys(self, rows: Iterable[tuple[int, str, bool]]) -> None:
        # One statement a batch, not one INSERT a paper (100,000 statements: 14 s on the
        # server at 100k, and a round trip each).
        columns = [list(column) for column in zip(*rows)]
        if columns:
            self.conn.execute(
                "INSERT INTO citekey(paper_id, key, generated)"
                " SELECT * FROM unnest(?::int[], ?::citext[], ?::boolean[]) ON CONFLICT DO NOTHING", columns)

    def ids_copied(self) -> None:
        """After rows arrived with their ids (copying.py): each id sequence moves past them."""
        for table in ("source", "paper", "paper_merge", "tag", "note", "saved_search"):
            self.conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), greatest(max(id), 1))"
                              f" FROM {table}")


class PostgresSearch(RankedSearch):
    """Search, with the words as written (the exact vector) for typo suggestions
    (catalog/searching/suggest.py)."""

    def papers_with_word(self, word: str, at_most: int, *, prefix: bool = False) -> int:
        """How many papers hold this (folded) word, or with `prefix` a word starting with it,
        counted up to `at_most`."""
        phrase = search.tsquery_phrase(Text(word, prefix=prefix))
        if phrase is None:
            return 0
        return self.conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM paper WHERE search_vector @@ to_tsquery('{search.CONFIG}', ?)"
            " LIMIT ?) AS found", (phrase, at_most)).scalar()

    def pages(self, query, limit: int, paper_id: int | None = None) -> list[PageHit]:
        match = search.page_tsquery(query)
        if match is None:
            return []
        one = "" if paper_id is None else " AND a.paper_id = ?"
        return [PageHit(r["paper_id"], r["attachment_id"], r["page"], r["text"], r["score"]) for r in self.conn.execute(
            "SELECT a.paper_id, ap.attachment_id, ap.page, ap.text, -ts_rank(ap.text_vector, q) AS score"
            f" FROM attachment_page ap JOIN attachment a ON a.id = ap.attachment_id, to_tsquery('{search.STEMS}', ?) q"
            f" WHERE ap.text_vector @@ q{one} ORDER BY score, ap.id LIMIT ?",
            (match, *(() if paper_id is None else (paper_id,)), limit))]

    def vocabulary(self) -> Iterator[WordCount]:
        """The words starting with a Latin letter, in word order, through ts_stat over every
        paper's vector (slow on a large catalog: the caller caches it by `vocabulary_stamp`)."""
        cursor = self.conn.execute(
            "SELECT word, ndoc FROM ts_stat('SELECT search_vector FROM paper')"
            " WHERE word >= 'a' AND word < '{' ORDER BY word COLLATE \"C\"")._cursor
        while batch := cursor.fetchmany(5000):
            for row in batch:
                yield WordCount(row["word"], row["ndoc"])


class PostgresDiscovery(DiscoveryQueries):
    """Discovery, with the papers' texts streamed from the server."""

    def paper_texts(self, ids: Collection[int] | None = None, *, after_id: int = 0
                    ) -> Iterator[PaperText]:
        wanted = None if ids is None else set(ids)
        cursor = self.conn.execute(
            "SELECT id, coalesce(user_title, title, '') AS title, abstract_text FROM paper"
            " WHERE id > ? ORDER BY id", (after_id,))._cursor
        while batch := cursor.fetchmany(_FETCH):
            for row in batch:
                if wanted is None or row["id"] in wanted:
                    yield PaperText(row["id"], row["title"], row["abstract_text"])
