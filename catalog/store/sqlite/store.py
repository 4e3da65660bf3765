"""The SQLite backend: a catalog file, its connections and transactions, and the SQL that only
SQLite runs (FTS5 search, bulk loads, pragmas, doctor's checks)."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

from catalog.errors import CatalogError, StoreError
from catalog.query import RELEVANCE, Query, QueryError, Sort, Text
from catalog.results import Facets, SearchHit
from catalog.store import rows
from catalog.store.base import Store
from catalog.store.discovery import DiscoveryQueries
from catalog.store.edits import EditQueries
from catalog.store.imports import ImportQueries
from catalog.store.papers import PaperReads
from catalog.store.sqlite import files, fts, migrations, readonly
from catalog.store.sqlite.connection import Connection, Pool, plain_connection, stoppable, store_error
from catalog.store.sqlite.maintenance import Maintenance
from catalog.store.sqlite.topk import TopLists
from catalog.store.sqlite.vocabulary import Vocabulary

# PRAGMA user_version of the default catalog once the bundled seeds are fully imported. Seeding
# imports several files; a process killed half-way leaves this unset and the next run finishes.
SEEDED = 1
# Page cache of a bulk import (KiB): the key and fingerprint indexes take random inserts,
# and the 2 MB default sends their pages to disk and back.
BULK_CACHE_KIB = 32 * 1024
_FETCH = 2000
# Papers holding only some of the words are listed when fewer than this many hold them all.
SOME_BELOW = 50


class SqliteTx(PaperReads, EditQueries, ImportQueries, DiscoveryQueries, Maintenance, Vocabulary, TopLists):
    """One transaction on a catalog file: every query the program runs, by name."""

    def __init__(self, conn: Connection):
        self.conn = conn

    # --- search -------------------------------------------------------------------------------

    def search(self, query: Query, *, limit: int = 50, offset: int = 0,
               with_text: bool = False, partial: bool = True,
               sort: Sort = RELEVANCE) -> list[SearchHit]:
        """The page of papers `query` finds, best first (newest first without words) or in
        `sort`'s order. `with_text`: each hit carries its rendered abstract, for snippets.
        limit -1: all.

        Papers holding every word come first: in the form typed, then in other forms, then
        through acronyms. When fewer than SOME_BELOW papers hold them all, papers holding
        some of the words follow (`partial`), marked "some"; in another order than relevance,
        only the papers holding every word."""
        return [SearchHit(row["id"], rows.summary(row, match), row["text"], row["score"])
                for row, match in self._ranked_rows(query, limit, offset, with_text, partial, sort)]

    def search_ids(self, query: Query) -> list[int]:
        """The ids of every paper holding all of `query`'s words, in search order (no
        summaries built: at 100k papers that halves the time)."""
        return [row["id"] for row, _ in self._ranked_rows(query, -1, 0, False, False, RELEVANCE)]

    def _ranked_rows(self, query: Query, limit: int, offset: int, with_text: bool, partial: bool,
                     sort: Sort) -> list[tuple[object, str | None]]:
        """The rows of `search`'s page, each with its match ("all", "some", None listing)."""
        compiled = self._compile(query)
        if compiled.match is None or sort.field != "relevance":
            sql, params = fts.search_sql(compiled, limit=limit, offset=offset, with_text=with_text,
                                         sort=sort)
            match = None if compiled.match is None else "all"
            return [(row, match) for row in self._run(sql, params, query)]
        found_rows: list[tuple[object, str | None]] = []
        skip, matching_all = offset, 0
        # Worst first: the tiers backwards, each one worst first ("some" then comes first).
        for tier in fts.TIERS[::-1] if sort.reverse else fts.TIERS:
            need = limit - len(found_rows) if limit >= 0 else -1
            if need == 0:
                break
            if fts.tier_expression(compiled, tier) is None:
                continue
            if tier == "some" and not self._with_some(query, compiled, partial,
                                                      None if sort.reverse else matching_all):
                continue
            found = self.ranked_page_from_lists(compiled, tier, need, skip, with_text, sort)
            if found is None:  # no list proves this page (topk.py): rank every match
                sql, params = fts.search_sql(compiled, limit=need, offset=skip, with_text=with_text,
                                             tier=tier, sort=sort)
                found = self._run(sql, params, query)
            found_rows += [(row, "some" if tier == "some" else "all") for row in found]
            # Where the next tier starts: this one is exhausted (the page is not full yet).
            if found:
                size, skip = skip + len(found), 0
            elif skip:
                size = self._run(*fts.count_sql(compiled, tier), query)[0][0]
                skip -= size
            else:
                size = 0
            matching_all += size
        return found_rows

    def _with_some(self, query: Query, compiled: fts.CompiledQuery, partial: bool,
                   matching_all: int | None) -> bool:
        """Whether papers holding only some of the words are listed: when asked (`partial`),
        fewer than SOME_BELOW papers hold them all (`matching_all`, counted when None) and
        every word is in some paper."""
        if not partial:
            return False
        if matching_all is None:
            matching_all = self.count(query)
        return matching_all < SOME_BELOW and not self._unknown_word(compiled)

    def count(self, query: Query, *, partial: bool = False) -> int:
        """Papers holding every word (in any form, or through acronyms); `partial`: all that
        `search` lists, with the papers holding only some of the words when those are few."""
        compiled = self._compile(query)
        if compiled.match is not None and self._has_prefix(query):
            # A prefix of a word is not always a prefix of its stem (interpretab*): tier by tier.
            total = sum(self._run(*fts.count_sql(compiled, tier), query)[0][0]
                        for tier in ("exact", "forms", "wide") if fts.tier_expression(compiled, tier))
        else:
            total = self._run(*fts.count_sql(compiled), query)[0][0]
        if (partial and total < SOME_BELOW and fts.tier_expression(compiled, "some")
                and not self._unknown_word(compiled)):
            total += self._run(*fts.count_sql(compiled, "some"), query)[0][0]
        return total

    @staticmethod
    def _has_prefix(query: Query) -> bool:
        return any(o.prefix for c in query.clauses for o in c.options if isinstance(o, Text))

    def _unknown_word(self, compiled: fts.CompiledQuery) -> bool:
        """Whether a word of the query is in no paper (a typo, most likely: "did you mean"
        says more than papers holding the other words would)."""
        return any(not self._run(f"SELECT 1 FROM {fts.STEM_TABLE} WHERE {fts.STEM_TABLE} MATCH ? LIMIT 1",
                                 [word], Query())
                   for word in compiled.words)

    def _compile(self, query: Query) -> fts.CompiledQuery:
        return fts.compile_query(query, self._acronyms_for(query))

    def acronyms_for(self, query: Query) -> dict[str, list[str]]:
        """What the query's words and runs of words also stand for (the acronyms search
        widens them by): for marking those forms in snippets and the reading pane."""
        return self._acronyms_for(query)

    def _acronyms_for(self, query: Query) -> dict[str, list[str]]:
        """What the query's words and runs of words also stand for, by the acronyms the
        abstracts define: "SAE" -> ["Sparse Autoencoders"], "large language model" -> ["LLM"]."""
        from catalog.acronyms import long_key, short_form, winners

        texts = fts.acronym_candidates(query)
        if not texts:
            return {}
        shorts = {t: s for t in texts if (s := short_form(t))}
        keys = {t: k for t in texts if len(k := long_key(t)) >= 6 and not t.isalnum()}
        if not shorts and not keys:
            return {}
        won = winners(self.acronyms_named(sorted(set(shorts.values())), sorted(set(keys.values()))))
        out: dict[str, list[str]] = {}
        for text, short in shorts.items():
            if short.lower() in won:
                out[text] = [won[short.lower()][1]]
        by_key: dict[str, list[str]] = {}
        for short, (key, _) in won.items():
            by_key.setdefault(key, []).append(short)
        for text, key in keys.items():
            if key in by_key:
                out[text] = out.get(text, []) + [s.upper() for s in by_key[key]]
        return out

    def result_facets(self, query: Query, *, partial: bool = False) -> Facets:
        """Venue-year, status, rating and tag counts of the papers `query` finds (tags
        including their children), with the saved searches; `total`: how many it finds.
        The papers are those `count` counts: with `partial`, those `search` lists by relevance
        (papers holding some of the words too, when few hold them all)."""
        compiled = self._compile(query)
        total, tiers = self.count(query), []
        if compiled.match is not None:
            some = (partial and fts.tier_expression(compiled, "some") is not None
                    and self._with_some(query, compiled, partial, total))
            if some or self._has_prefix(query):  # tier by tier, as count does
                tiers = [t for t in fts.TIERS[:-1] if fts.tier_expression(compiled, t)]
            if some:
                tiers.append("some")
                total += self._run(*fts.count_sql(compiled, "some"), query)[0][0]
        ids, params = fts.ids_sql(compiled, tiers)
        # Many results: scan the narrow indexes; few: look up each one's row.
        sql = fts.facet_sql(ids, scan=total * 8 > self.paper_count())
        run = lambda name: self._run(sql[name], params, query)  # noqa: E731
        others = tuple((r["status"], r["papers"]) for r in run("statuses"))
        unread = total - sum(n for _, n in others)
        return Facets(
            venues=tuple((r["venue"], r["year"], r["papers"]) for r in run("venues")),
            tags=self.tags_with_children((ids, params)),
            statuses=((("unread", unread),) if unread else ()) + others,
            ratings=tuple((r["rating"], r["papers"]) for r in run("ratings")),
            saved=self.saved_searches(), total=total)

    def papers_titled(self, title: str, limit: int = 20) -> list:
        """Rows (dedupe's FACT_COLUMNS) of papers whose real title holds `title` as a phrase."""
        built = fts.titled_sql(title, limit)
        return [] if built is None else self._run(*built, Query(source=title))

    def _run(self, sql: str, params: list, query: Query) -> list:
        try:
            return self.conn.execute(sql, params).all()
        except StoreError as exc:
            # Quoting makes this unreachable; keep the promise of one line anyway.
            raise QueryError(f"cannot search for {query.source!r}: {str(exc).splitlines()[0]}") from None

    @contextmanager
    def stoppable(self, stop: Callable[[], bool] | None) -> Iterator[None]:
        """Statements inside stop (Interrupted) as soon as `stop()` is true."""
        with stoppable(self.conn.raw, stop):
            yield

    # --- bulk loads ------------------------------------------------------------------------------

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
        for name, _ in triggers:
            self.conn.execute(f"DROP TRIGGER {name}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA cache_size = {int(cache)}")
        # Not in `finally`: after an error the caller rolls back, which restores the triggers.
        for _, sql in triggers:
            self.conn.execute(sql)

    def index_papers_from(self, first_id: int) -> None:
        """Index papers with id >= first_id in one statement (the bulk-import path)."""
        cols = ", ".join(fts.FTS_COLUMNS)
        for table in (fts.FTS_TABLE, fts.STEM_TABLE):
            self.conn.execute(
                f"INSERT INTO {table}(rowid, {cols}) SELECT id, {cols} FROM paper WHERE id >= ?",
                (first_id,))
        self.mark_new_papers(first_id)  # the ranked lists' dirty set (topk.py)

    # --- discovery ---------------------------------------------------------------------------------

    def text_version(self) -> tuple[int, int, str]:
        """(papers, max id, a stamp that changes when a known paper's text may have): imports
        add a source row, retitling sets user_title (a partial index holds those papers).
        Tags, ratings and statuses change none of these."""
        count, max_id = self.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM paper").one()
        sources = self.conn.execute("SELECT count(*), coalesce(max(id), 0) FROM source").one()
        titled = self.conn.execute("SELECT count(*), coalesce(max(updated_at), '') FROM paper"
                                   " WHERE user_title IS NOT NULL").one()
        return count, max_id, f"sources {sources[0]}/{sources[1]}; titles {titled[0]}/{titled[1]}"

    def paper_texts(self, ids: Collection[int] | None = None, *, after_id: int = 0
                    ) -> Iterator[tuple[int, str, str]]:
        """(id, title, rendered abstract) in id order, streamed; the title is the user's or
        the real one (not the headline: made from the abstract, it would count words twice)."""
        wanted = None if ids is None else set(ids)
        cursor = self.conn.raw.execute(
            "SELECT id, coalesce(user_title, title, '') AS title, abstract_text FROM paper"
            " WHERE id > ? ORDER BY id", (after_id,))
        while batch := cursor.fetchmany(_FETCH):
            for row in batch:
                if wanted is None or row["id"] in wanted:
                    yield row["id"], row["title"], row["abstract_text"]


class SqliteStore(Store):
    """A catalog file."""

    def __init__(self, path: Path, pool: Pool):
        self.path = path
        self.location = str(path)
        self.pool = pool
        self._watch: sqlite3.Connection | None = None
        self._watch_lock = threading.Lock()

    @classmethod
    def open(cls, path: Path, *, notify=lambda message: None, catch_up: bool = True) -> "SqliteStore":
        """The catalog at `path`, created when nothing is there and migrated when it is older.
        A file that is not a catalog, is damaged or cannot be opened is refused with one line
        before anything writes to it (no table, no migration, no journal-mode switch).
        `catch_up`: derive the text of abstracts edited by hand since (doctor does it itself)."""
        state = files.inspect_file(path)
        problem = files.refusal(path, state)
        if problem:
            raise CatalogError(problem)
        migrations.refuse_newer(path, state.revision)
        if state.kind == "new":
            files.prepare_new(path)
        pool = Pool(path)
        migrations.ensure_schema(pool, state.revision, notify=notify)
        store = cls(path, pool)
        if catch_up:
            store.catch_up()
        return store

    # --- transactions ------------------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[SqliteTx]:
        with self._errors(), self.pool.read() as conn:
            yield SqliteTx(conn)

    @contextmanager
    def write(self, *, catch_up: bool = True) -> Iterator[SqliteTx]:
        with self._errors(), self.pool.write() as conn:
            tx = SqliteTx(conn)
            if catch_up and (edited := tx.papers_to_rederive()):
                from catalog.derived import refresh

                refresh(tx, edited)
            yield tx

    @contextmanager
    def checking(self) -> Iterator[SqliteTx]:
        """A write transaction that is always rolled back: doctor's checks change nothing."""
        with self._errors(), self.pool.checking() as conn:
            yield SqliteTx(conn)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's errors as the store's: a read-only file is the user's to fix (one line),
        anything else a StoreError with SQLite's message."""
        try:
            yield
        except (sqlite3.Error, StoreError) as exc:
            if "readonly" in str(exc):
                raise CatalogError(f"{self.path} is read-only: this command changes the catalog "
                                   "(make the file and its folder writable, or work on a copy)") from None
            if isinstance(exc, StoreError):
                raise
            raise store_error(exc) from exc

    def catch_up(self) -> None:
        """Derive the text of papers whose abstract was edited by hand (in the sqlite3 shell)
        since; one small read when there are none. A read-only catalog is left as it is."""
        with self.read() as tx:
            if not tx.papers_to_rederive():
                return
        try:
            with self.write():
                pass  # write() does it
        except CatalogError:
            pass

    def close(self) -> None:
        self.pool.close()
        with self._watch_lock:
            if self._watch is not None:
                self._watch.close()
                self._watch = None

    # --- the catalog as a whole ----------------------------------------------------------------------

    def is_seeded(self) -> bool:
        with self.pool.connection() as conn:
            return conn.execute("PRAGMA user_version").scalar() == SEEDED

    def mark_seeded(self) -> None:
        with self.write() as tx:
            tx.conn.execute(f"PRAGMA user_version = {SEEDED}")

    def data_version(self) -> int:
        """SQLite's data_version, read on a connection of its own: it changes when any other
        connection (another process, or this one's writes through the pool) commits."""
        with self._watch_lock:
            if self._watch is None:
                self._watch = plain_connection(self.path, check_same_thread=False)
            return self._watch.execute("PRAGMA data_version").fetchone()[0]

    def backup(self, target: Path) -> None:
        with self._errors():
            files.copy_database(self.path, target)

    def run_sql(self, statement: str, *, stop: Callable[[], bool] | None = None
                ) -> tuple[list[str], list[tuple]]:
        conn = readonly.read_only_connection(self.path)
        try:
            with stoppable(conn, stop):
                return readonly.run(conn, statement)
        finally:
            conn.close()

    def refresh_top_lists(self, *, budget: float | None, rescored: bool | None = None) -> tuple[int, int]:
        from catalog.store.sqlite import topk

        with self._errors():
            return topk.refresh(self, budget=budget, rescored=rescored)

    def top_lists_behind(self) -> bool:
        from catalog.store.sqlite import topk

        with self._errors():
            return topk.behind(self)

    def schema_revision(self) -> str | None:
        return migrations.current(self.path)

    def cache_dir(self) -> Path:
        from platformdirs import user_cache_path

        key = hashlib.sha256(str(self.path.resolve()).encode("utf-8")).hexdigest()[:16]
        return user_cache_path("catalog", appauthor=False) / "discover" / key
