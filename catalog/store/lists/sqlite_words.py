"""Reading SQLite's ranked lists of words and prefixes, and following edits by rescoring.

A word's list (`term_top`) holds the best papers of the exact tier (paper_fts, the words as
written) in ranking order with their bm25 scores: the query's own `ORDER BY bm25, rowid LIMIT
n`, so it is the full ranking's head by construction. A search reads it in order, applies its
filters to those papers, and serves the page when the list proves it: the list holds every
match, or the filtered list still fills the page (any paper not listed ranks after every
listed one). Otherwise the full query runs.

bm25 depends on the whole collection (paper count, average length, how many papers hold the
word), so any write to the index can change every score. Each list carries the index's stamp
(records.py) and the column weights it was ranked with; a list whose stamp is the current one is
read as stored. After edits and small imports the papers whose indexed text changed since the
lists were last all ranked are in `term_top_dirty` (triggers; bulk imports mark theirs), with
their text then and now in two small FTS5 tables: a search rescores the list's papers (their
term frequency and length are kept: bm25 recomputed bit for bit, scoring.py) and the changed
papers that match now under the current statistics, and serves the page when a bound proves
no other paper can reach it (`rescored`). Past DIRTY_LIMIT changed papers, or when anything
does not add up, the full query runs, and the next refresh ranks the lists again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from catalog.store.compiler import CompiledQuery
from catalog.store.lists import scoring
from catalog.store.lists.records import IndexRecords
from catalog.store.lists.scoring import LIST_SIZE, SLACK, bm25, idf, ranked
from catalog.store.fts5 import FTS_COLUMNS, FTS_TABLE, WEIGHTS
from catalog.store.rows import READER_JOIN, SUMMARY_COLUMNS

TOP_TABLE = "term_top"  # (term, position, paper_id, score, freq, length): each list in ranking order
STATE_TABLE = "term_top_state"  # one row a list: its stamp, weights, how many listed and matching
# Edits and small imports (migration 0010's triggers, mark_new): the papers whose indexed text
# changed since the lists were last all ranked, their text then (an FTS5 table: which of them
# matched a word then) and now (and its word instances).
DIRTY_TABLE, WAS_TABLE, NOW_TABLE, NOW_WORDS = "term_top_dirty", "term_top_was", "term_top_now", "term_top_now_words"
DIRTY_LIMIT = 2000  # the migration's: past it the lists are no longer rescored but ranked again
# A row of STATE_TABLE that is no list (keys start with "("): how many papers the catalog had
# when the words and prefixes were last chosen.
CHOSEN_AT = "#papers"
COLUMN_WEIGHT = dict(FTS_COLUMNS)
# The exact tier's full ranking of a key (fts.search_sql's order), its head.
RANKED = (f"SELECT rowid AS id, bm25({FTS_TABLE}, {WEIGHTS}) AS score FROM {FTS_TABLE}"
          f" WHERE {FTS_TABLE} MATCH ? ORDER BY score, rowid LIMIT ?")


@dataclass(frozen=True)
class ListState:
    """A list's row of STATE_TABLE: the index's stamp and the totals it was ranked on, how many
    papers it lists and how many matched (`base`: the matches at the last full ranking, from
    which rescoring counts; None when the list cannot be rescored)."""

    key: str
    stamp: bytes | None
    weights: str
    listed: int
    matches: int
    papers: int | None
    tokens: int | None
    base: int | None

    @property
    def complete(self) -> bool:
        """Whether the list holds every paper that matched."""
        return self.listed >= self.matches


def read_state(conn, key: str) -> ListState | None:
    """The state of `key`'s list ranked with the current weights, or None."""
    row = conn.execute(f"SELECT term, stamp, weights, listed, matches, papers, tokens, base FROM {STATE_TABLE}"
                       " WHERE term = ?", (key,)).first()
    if row is None or row["weights"] != WEIGHTS:
        return None
    return ListState(row["term"], row["stamp"], row["weights"], row["listed"], row["matches"], row["papers"],
                     row["tokens"], row["base"])


def frequencies(conn, words_table: str, word: str, prefix: bool, ids: list[int]) -> dict[int, float]:
    """Term frequency (column weights applied, as bm25 counts it) of the word or prefix in these
    papers, from an fts5vocab instance table over their text."""
    if prefix:
        cond, params = "term >= ? AND term < ?", [word, word[:-1] + chr(ord(word[-1]) + 1)]
    else:
        cond, params = "term = ?", [word]
    found = dict.fromkeys(ids, 0.0)
    for row in conn.execute(f"SELECT doc, col, count(*) AS n FROM {words_table} WHERE {cond} GROUP BY doc, col",
                            params).all():
        if row["doc"] in found:
            found[row["doc"]] += COLUMN_WEIGHT[row["col"]] * row["n"]
    return found


class ChangedPapers:
    """The papers whose indexed text changed since the lists were last all ranked."""

    def __init__(self, conn):
        self.conn = conn

    def ids(self) -> tuple[int, ...]:
        """In id order; DIRTY_LIMIT + 1 of them at most (more: too many to rescore)."""
        return tuple(self.conn.execute(f"SELECT paper_id FROM {DIRTY_TABLE} ORDER BY paper_id LIMIT ?",
                                       (DIRTY_LIMIT + 1,)).scalars())

    def count(self) -> int:
        """How many, counted to DIRTY_LIMIT + 1 at most."""
        return self.conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {DIRTY_TABLE} LIMIT ?)",
                                 (DIRTY_LIMIT + 1,)).scalar()

    def too_many(self) -> bool:
        return self.count() > DIRTY_LIMIT

    def matching_then(self, key: str) -> int:
        """How many of them matched `key` before they changed."""
        return self.conn.execute(f"SELECT count(*) FROM {WAS_TABLE} WHERE {WAS_TABLE} MATCH ?", (key,)).scalar()

    def matching_now(self, key: str) -> list[int]:
        return self.conn.execute(f"SELECT rowid FROM {NOW_TABLE} WHERE {NOW_TABLE} MATCH ?", (key,)).scalars()

    def mark_new(self, first_id: int) -> None:
        """The bulk import's share of the triggers' work: papers from `first_id` are changed
        papers (or, past DIRTY_LIMIT, enough of them to stop rescoring)."""
        if self.conn.execute(f"SELECT 1 FROM {TOP_TABLE} LIMIT 1").first() is None:
            return
        new = self.conn.execute("SELECT count(*) FROM (SELECT 1 FROM paper WHERE id >= ? LIMIT ?)",
                                (first_id, DIRTY_LIMIT + 1)).scalar()
        self.conn.execute(f"INSERT INTO {DIRTY_TABLE}(paper_id) SELECT id FROM paper WHERE id >= ?"
                          " ORDER BY id LIMIT ? ON CONFLICT DO NOTHING", (first_id, DIRTY_LIMIT + 1))
        if not self.too_many() and new:
            cols = ", ".join(FTS_COLUMNS)
            self.conn.execute(f"DELETE FROM {NOW_TABLE} WHERE rowid >= ?", (first_id,))
            self.conn.execute(f"INSERT INTO {NOW_TABLE}(rowid, {cols}) SELECT id, {cols} FROM paper WHERE id >= ?",
                              (first_id,))

    def restart(self) -> None:
        """Past DIRTY_LIMIT (no list can be rescored): forget the changed papers and what the
        lists knew of them, so that the lists a refresh ranks from now on follow later edits
        (however long the whole refresh takes, and whatever is edited meanwhile)."""
        if self.too_many():
            self._clear()
            self.conn.execute(f"UPDATE {STATE_TABLE} SET base = NULL")

    def forget(self, stamp: bytes | None) -> bool:
        """When every word's list was ranked on the index as it is now (`stamp`): forget the
        changed papers (each list's base becomes its count). Whether it did. Lists of several
        words do not count: they are never rescored, so the changed papers are nothing to them."""
        if self.conn.execute(f"SELECT 1 FROM {STATE_TABLE} WHERE term != ? AND term NOT LIKE '% %'"
                             " AND stamp IS NOT ? LIMIT 1", (CHOSEN_AT, stamp)).first() is not None:
            return False
        self._clear()
        self.conn.execute(f"UPDATE {STATE_TABLE} SET base = matches WHERE term != ? AND term NOT LIKE '% %'",
                          (CHOSEN_AT,))
        return True

    def _clear(self) -> None:
        for table in (DIRTY_TABLE, WAS_TABLE, NOW_TABLE):
            self.conn.execute(f"DELETE FROM {table}")


@dataclass
class Rescoring:
    """What rescoring a list learned in one transaction: the word's IDF and the average length
    now and when the list was ranked, the changed papers (and the scores of those matching
    now), and the list's papers read so far with their scores."""

    weight: float
    avgdl: float
    avgdl_then: float
    dirty: set[int]
    changed: dict[int, float]
    rows: list = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    at: dict = field(default_factory=dict)  # depth -> rescored's answer


class WordLists:
    """The lists of words and prefixes, read (and rescored) in one transaction."""

    def __init__(self, conn, records: IndexRecords, changes: ChangedPapers):
        self.conn = conn
        self.records = records
        self.changes = changes
        # One search may rescore a list twice (its filtered page, then the few-papers path's
        # scores, or a deep list's first LIST_SIZE, then all of it); a write transaction may
        # search, change the index and search again: rescorings are kept by the index's stamp
        # and the changed papers, besides the list's state.
        self._rescorings: dict[tuple, Rescoring | None] = {}

    def page(self, state: ListState, compiled: CompiledQuery, limit: int, offset: int,
             with_text: bool) -> list | None:
        """The exact tier's page from this list (rows as fts.search_sql's), or None when the
        list does not prove it (too short for its filters, or the index changed in a way
        rescoring cannot follow)."""
        if state.stamp != self.records.stamp():  # written to since: rescore (or rank every match)
            return self._rescored_page(state, compiled, limit, offset, with_text)
        return self.listed_page(state, compiled, limit, offset, with_text)

    def listed_page(self, state: ListState, compiled: CompiledQuery, limit: int, offset: int,
                    with_text: bool) -> list | None:
        """The page from a list ranked on the index as it is (its stamp the current one), or
        None when the list does not prove it."""
        need = offset + limit
        if not state.complete and not compiled.where and need > state.listed:
            return None
        if state.listed > LIST_SIZE and compiled.where:  # a deep list: its first LIST_SIZE, then deeper when worth it
            rows = self.listed_slice(state.key, compiled, 0, LIST_SIZE, need, with_text)
            if len(rows) < need:
                if not scoring.worth_deeper(len(rows), need, state.listed, state.complete):
                    return None  # few pass its filters: the few-papers path or the full ranking
                rows += self.listed_slice(state.key, compiled, LIST_SIZE, state.listed, need - len(rows), with_text)
                if len(rows) < need and not state.complete:
                    return None  # the papers after the list could fill the page
            return rows[offset:]
        text = "p.abstract_text" if with_text else "NULL"
        where = "".join(f" AND {w}" for w in compiled.where)
        rows = self.conn.execute(
            f"SELECT {SUMMARY_COLUMNS}, {text} AS text, t.score AS score FROM {TOP_TABLE} t"
            f" CROSS JOIN paper p {READER_JOIN} WHERE t.term = ? AND p.id = t.paper_id{where}"
            " ORDER BY t.position LIMIT ? OFFSET ?",
            [compiled.reader, state.key, *compiled.params, limit, offset]).all()
        if len(rows) < limit and not state.complete:
            return None  # the papers after the list could fill the page
        return rows

    def listed_slice(self, key: str, compiled: CompiledQuery, start: int, stop: int, most: int,
                     with_text: bool) -> list:
        """The rows (fts.search_sql's) of a list's papers at positions start..stop-1 that pass
        the filters, in ranking order, at most `most`."""
        text = "p.abstract_text" if with_text else "NULL"
        where = "".join(f" AND {w}" for w in compiled.where)
        return list(self.conn.execute(
            f"SELECT {SUMMARY_COLUMNS}, {text} AS text, t.score AS score FROM {TOP_TABLE} t"
            f" CROSS JOIN paper p {READER_JOIN} WHERE t.term = ? AND t.position >= ? AND t.position < ?"
            f" AND p.id = t.paper_id{where} ORDER BY t.position LIMIT ?",
            [compiled.reader, key, start, stop, *compiled.params, most]).all())

    def now(self, key: str) -> tuple[list[tuple[int, float]], float | None, float | None, float] | None:
        """The papers of one list with their scores under the current statistics (rescored
        after changes, in ranking order); the bound no paper outside it beats on this word
        (None: it holds every match); the same bound on bm25's term part alone (the score
        over the word's IDF: what a phrase holding the word can reach at most in those
        papers); the word's IDF. None when there is no list or it cannot be followed. Only
        the list's first LIST_SIZE papers are read (a deep list's LIST_SIZE-th score the bound):
        what reads a list for a bound costs the same at any depth."""
        state = read_state(self.conn, key)
        if state is None:
            return None
        if state.stamp != self.records.stamp():
            found = self.rescored(state, LIST_SIZE)
            if found is None:
                return None
            best, bound, weight = found
        else:
            rows = self.conn.execute(f"SELECT paper_id, score FROM {TOP_TABLE} WHERE term = ? ORDER BY position"
                                     " LIMIT ?", (key, LIST_SIZE)).all()
            best, weight = [(r["paper_id"], r["score"]) for r in rows], idf(state.papers, state.matches)
            whole = state.complete and len(rows) >= state.listed  # every match, all of it read
            bound = None if whole or not rows else rows[-1]["score"]
        part = None if bound is None else -bound / weight * (1 + SLACK)
        return best, bound, part, weight

    def kept_head(self, key: str) -> tuple[list[tuple[int, float]], bool] | None:
        """The list of several words kept under `key` as ranked on the index as it is: (paper
        id, score) in ranking order, whether it holds every match; None when there is none (or
        it was ranked on an older index: never rescored)."""
        state = read_state(self.conn, key)
        if state is None or state.stamp != self.records.stamp():
            return None
        rows = self.conn.execute(f"SELECT paper_id, score FROM {TOP_TABLE} WHERE term = ? ORDER BY position",
                                 (key,)).all()
        return [(r["paper_id"], r["score"]) for r in rows], state.complete

    # --- after edits and small imports ---------------------------------------------------------

    def rescored(self, state: ListState, depth: int | None = None
                 ) -> tuple[list[tuple[int, float]], float | None, float] | None:
        """Every paper that could head this list's ranking now, with its exact bm25 score under
        the current statistics, in ranking order, the bound no other matching paper can beat
        (None: there is no other) and the word's IDF now; None when the changes cannot be
        followed. Only the list's first `depth` papers (None: all) are read, as if the list
        ended there: its depth-th paper gives the bound (the papers after it, as any paper not
        listed, ranked at or below it when the list was ranked).

        Candidates: the listed papers (unchanged since: their stored frequency and length) and
        the changed papers that match now (term_top_now). The word's paper count now is the
        one at the last full ranking (`base`) minus the changed papers that matched then
        (term_top_was) plus those that match now. Any other matching paper is unchanged and
        ranked at or below the list's last paper when the list was ranked; its score is at
        least scoring.rescored_bound's."""
        term = scoring.term(state.key)
        if state.base is None or term is None or not state.papers:
            return None
        dirty = self.changes.ids()
        if len(dirty) > DIRTY_LIMIT:
            return None
        depth = state.listed if depth is None else min(depth, state.listed)
        seen = (state, self.records.stamp(), dirty)
        if seen not in self._rescorings:
            self._rescorings[seen] = self._rescore_changes(state, term, set(dirty))
        found = self._rescorings[seen]
        if found is None:
            return None
        if depth not in found.at:
            found.at[depth] = self._rescored_at(state, found, depth)
        return found.at[depth]

    def _rescore_changes(self, state: ListState, term: tuple[str, bool], dirty: set[int]) -> Rescoring | None:
        """rescored's work on the changed papers: the word's IDF now, the averages, the changed
        papers that match now with their scores; None when they cannot be followed."""
        papers, tokens = self.records.totals()
        if not papers:
            return None
        avgdl, avgdl_then = tokens / papers, state.tokens / state.papers
        now = self.changes.matching_now(state.key)
        weight = idf(papers, state.base - self.changes.matching_then(state.key) + len(now))
        changed = {}
        freqs, lengths = frequencies(self.conn, NOW_WORDS, *term, now), self.records.lengths(now)
        for pid in now:
            if pid not in lengths or not freqs[pid]:
                return None  # the index and the changed papers' copy disagree: do not guess
            changed[pid] = bm25(weight, freqs[pid], lengths[pid], avgdl)
        return Rescoring(weight, avgdl, avgdl_then, dirty, changed)

    def _rescored_at(self, state: ListState, found: Rescoring, depth: int
                     ) -> tuple[list[tuple[int, float]], float | None, float] | None:
        """rescored's answer for the list's first `depth` papers (read past those read so far)."""
        if len(found.rows) < depth:
            more = self.conn.execute(f"SELECT paper_id, freq, length FROM {TOP_TABLE} WHERE term = ?"
                                     " AND position >= ? ORDER BY position LIMIT ?",
                                     (state.key, len(found.rows), depth - len(found.rows))).all()
            if any(r["freq"] is None for r in more):
                return None
            found.rows += [(r["paper_id"], r["freq"], r["length"]) for r in more]
            found.scores += [bm25(found.weight, r["freq"], r["length"], found.avgdl) for r in more]
        scores = {pid: score for (pid, _, _), score in zip(found.rows[:depth], found.scores)
                  if pid not in found.dirty}
        scores.update(found.changed)
        bound = None
        if depth < state.listed or not state.complete:
            _, freq, length = found.rows[depth - 1] if depth else (None, None, None)
            last = scoring.saturation(freq, length, found.avgdl_then) if depth else 0.0
            bound = scoring.rescored_bound(found.weight, last, found.avgdl_then, found.avgdl)
        return ranked(scores), bound, found.weight

    def _rescored_page(self, state: ListState, compiled: CompiledQuery, limit: int, offset: int,
                       with_text: bool) -> list | None:
        """The page from a list ranked on an older index, rescored, or None. A deep list is
        rescored to LIST_SIZE first (its LIST_SIZE-th paper the bound), and whole only when
        that does not prove the page and the whole list is worth it (as listed_page)."""
        found = self.rescored(state, LIST_SIZE)
        if found is None:
            return None
        best, bound, _ = found
        kept = self.filtered(best, compiled)
        rows = self.proven_page(kept, bound, compiled, limit, offset, with_text)
        if rows is not None or state.listed <= LIST_SIZE:
            return rows
        beating = sum(1 for _, score in kept if bound is None or score < bound)
        if not scoring.worth_deeper(beating, offset + limit, state.listed, state.complete):
            return None
        found = self.rescored(state)
        if found is None:
            return None
        deep, bound, _ = found
        if compiled.where:  # the filters on the papers not seen yet only
            seen = {pid for pid, _ in best}
            passed = {pid for pid, _ in kept} | {pid for pid, _ in self.filtered(
                [(pid, score) for pid, score in deep if pid not in seen], compiled)}
            deep = [(pid, score) for pid, score in deep if pid in passed]
        return self.proven_page(deep, bound, compiled, limit, offset, with_text)

    # --- pages of papers scored here --------------------------------------------------------------

    def proven_page(self, scored: list[tuple[int, float]], bound: float | None, compiled: CompiledQuery,
                    limit: int, offset: int, with_text: bool) -> list | None:
        """The page of `scored` ((paper id, score), in ranking order, filters applied) as rows,
        or None unless no other paper can reach it: none other matches (`bound` None) or the
        page's last paper scores better than `bound`."""
        page = scored[offset:offset + limit]
        if bound is not None and (len(page) < limit or page[-1][1] >= bound):
            return None  # a paper outside the list could be on this page
        if not page:
            return []
        text = "p.abstract_text" if with_text else "NULL"
        values = ", ".join("(?, ?, ?)" for _ in page)
        return self.conn.execute(
            f"WITH page(pos, id, score) AS (VALUES {values})"
            f" SELECT {SUMMARY_COLUMNS}, {text} AS text, page.score AS score FROM page CROSS JOIN paper p"
            f" {READER_JOIN} WHERE p.id = page.id ORDER BY page.pos",
            [*(v for i, (pid, score) in enumerate(page) for v in (i, pid, score)), compiled.reader]).all()

    def filtered(self, scored: list[tuple[int, float]], compiled: CompiledQuery) -> list[tuple[int, float]]:
        """Those of `scored` that pass the query's filters, in the same order."""
        if not compiled.where:
            return scored
        where = " AND ".join(compiled.where)
        keep = set(self.conn.execute(
            f"SELECT p.id FROM paper p WHERE p.id IN (SELECT value FROM json_each(?)) AND {where}",
            [json.dumps([pid for pid, _ in scored]), *compiled.params]).scalars())
        return [(pid, score) for pid, score in scored if pid in keep]
