"""Top-k without scoring every match (issue 16): impact-ordered lists for frequent words and prefixes.

bm25 scores every paper a word matches before the first page can be shown: 0.7 us a match, so a
word in half of a million papers costs ~350 ms, a one-letter prefix over a second. For such
words (and prefixes) the catalog keeps the best LIST_SIZE papers of the exact tier (paper_fts,
the words as written) in `term_top`, in ranking order, with their bm25 scores: the query's own
`ORDER BY bm25, rowid LIMIT LIST_SIZE`, so the list is the full ranking's head by construction.
A search reads the list in order, applies its filters to those papers, and stops at the page.

Honest ranking: bm25 depends on the whole collection (paper count, average length, how many
papers hold the word), so any write to the index can change every score. Each list carries the
FTS5 structure record of paper_fts (`paper_fts_data` id 10, whose write counter changes with every
write to the index) and the column weights it was built with; a list whose stamp is the current
one is read as stored. A page is served from a list only when the list proves it: the list holds
every match, or the filtered list still fills the page (any paper not listed ranks after every
listed one), or the filters leave few papers and each of them is scored (topfew.py). Otherwise
the full query runs.

Deep lists: a word or prefix in DEEP_SHARE of the papers or more keeps its best DEEP_LIST_SIZE,
so that filters passing a few percent of its papers still fill a page from its list (at 1M
`attention venue:ICML year:2016..2020`). Only a filtered page of that word walks past the first
LIST_SIZE, and only when the filters passed enough of those to make it worth it; whatever reads
a list for a bound (ANDs, phrases, topfew.py, doctor) reads its first LIST_SIZE, the LIST_SIZE-th
score the bound, as if the list ended there (any paper after it ranks after that one).

After edits and small imports (the stamp moved): the papers whose indexed text changed since
the lists were last all rebuilt are in `term_top_dirty` (triggers; the bulk import marks its new
papers), with their text then and now in two small FTS5 tables. A search rescores the list's
papers (their term frequency and length are kept: bm25 recomputed bit for bit, `bm25()` below)
and the changed papers that match now, under the current statistics, and serves the page when
a bound proves no other paper can reach it (`rescored`: of a deep list, its first LIST_SIZE,
then the whole list when that does not prove a filtered page; once per search). Past
DIRTY_LIMIT changed papers, or when anything does not add up, the full query runs, and the
next refresh rebuilds the lists.

ANDs and phrases of frequent words are answered from these lists by topand.py, and when those do
not prove the page, from a list of their own (keyed by the query's MATCH expression, which holds a
space where a word's never does), ranked by the first search that needs it (topand.py).

Which words get lists, ranking and writing them, refresh and doctor's checks are topbuild.py's.
Imports refresh the lists (Store.refresh_top_lists), most frequent first, within a time budget
(a share of the import's own time; the rest stay stale and the full query serves them);
`catalog doctor` reports stale lists of words and checks the head of a few lists against the
full ranking, and `--fix` rebuilds them (a stale list of an AND or a phrase is no problem: the
next search of it ranks it again; --fix drops those).
"""

from __future__ import annotations

import json
import math
import os

from catalog.searching.query import Text
from catalog.store.sqlite.fts import (FTS_COLUMNS, FTS_TABLE, READER_JOIN, SUMMARY_COLUMNS, CompiledQuery,
                                      fts_phrase)

TOP_TABLE = "term_top"  # (term, position, paper_id, score): each list in ranking order
STATE_TABLE = "term_top_state"  # (term, stamp, weights, listed, matches): one row a list
LIST_SIZE = 1000  # papers kept per word: pages, and room for filters to reject most of them
# Words and prefixes in at least DEEP_SHARE of the papers keep their best DEEP_LIST_SIZE: a filter
# passing a share s of a word's papers needs about 50 / s of its best to fill a page (at 1M
# papers `attention venue:ICML year:2016..2020` passes 4.5% of `attention`'s 230,901: ~1,100),
# and such a word is the slowest to rank in full when the list is short. Only a filtered page of
# the word alone walks past LIST_SIZE (_listed_rows, _rescored_rows); whatever reads a list for a
# bound (the AND proofs, fewfilter, doctor) reads its first LIST_SIZE, the LIST_SIZE-th score its
# bound, as if the list were LIST_SIZE long: their cost does not grow. A share, not a count, so
# the rule is the same at any catalog size.
DEEP_SHARE, DEEP_LIST_SIZE = 0.10, 2000
# A deep list's papers past LIST_SIZE are walked for a filtered page only when, at the rate its
# first LIST_SIZE passed the filters, the whole list would hold at least this share of the page
# (a filter few papers pass goes to topfew.py at once, without walking 2,000 papers for nothing).
DEEPER_HOPE = 0.75
# Which words and prefixes get a list: those matching at least this many papers, where bm25
# over every match takes ~14 ms or more (0.7 us a match): with a filter's join on each match,
# what is not listed still ranks in about 20 ms at 100k (from 25,000, `attention venue:ICML
# year:2016..2020`, 22,840 papers of the word, took 20-23 ms). Prefixes count the papers of their
# words (an upper bound of the papers they match). A catalog smaller than this keeps none.
MIN_MATCHES = 20_000
# In a big catalog a match costs more to rank (its doclists and rows no longer stay in cache):
# at 1M papers `hessian`, in 24,572 papers, took 65-100 ms in full (3-4 us a match), so there a
# list is kept from this many papers on (at 100k ranking 10,000 matches takes under 15 ms).
BIG_CATALOG, MIN_MATCHES_BIG = 400_000, 10_000
# Off: every search ranks every match (benchmarks compare against that; CATALOG_TOPK_LISTS=off
# does it for a whole process, such as the TUI's benchmark).
ENABLED = os.environ.get("CATALOG_TOPK_LISTS", "on") != "off"

# Edits and small imports (migration 0010's triggers, the bulk import's mark_new_papers): the
# papers whose indexed text changed since the lists were last all rebuilt, their text then
# (an FTS5 table: which of them matched a word then) and now (and its word instances).
DIRTY_TABLE, WAS_TABLE, NOW_TABLE, NOW_WORDS = "term_top_dirty", "term_top_was", "term_top_now", "term_top_now_words"
DIRTY_LIMIT = 2000  # the migration's: past it the lists are no longer rescored but rebuilt
K1, B = 1.2, 0.75  # FTS5's bm25 constants (fts5_aux.c)
SLACK = 1e-9  # relative margin on the bound: it must never be below a true score
_COLUMN_WEIGHT = dict(FTS_COLUMNS)

# Filtered pages of a word or prefix its list did not serve (the filtered list too short, the
# filters passing too many papers to score each), on an index as it was: the same page again
# goes straight to the full ranking. At 100k `model tag:toread` walked the list of 1,000 and
# counted the tag's papers for nothing, 5-6 ms on a ranking of 15 ms, every time. Only ever a
# reason not to serve from the list, never a wrong page (a status or rating, not indexed, may
# change meanwhile: the full ranking still applies it).
_UNSERVED: set[tuple] = set()

# A row of STATE_TABLE that is no list (list keys start with "("): how many papers the catalog
# had when the words and prefixes were last chosen.
CHOSEN_AT = "#papers"
_WEIGHTS = ", ".join(str(w) for w in FTS_COLUMNS.values())
_STAMP = f"SELECT block FROM {FTS_TABLE}_data WHERE id = 10"
# The exact tier's full ranking of one word or prefix (fts.search_sql's order), its head.
_RANKED = (f"SELECT rowid, bm25({FTS_TABLE}, {_WEIGHTS}) AS score FROM {FTS_TABLE}"
           f" WHERE {FTS_TABLE} MATCH ? ORDER BY score, rowid LIMIT ?")


def _varints(blob: bytes) -> list[int]:
    """SQLite's varints, one after another (FTS5's averages and docsize records)."""
    out, i = [], 0
    while i < len(blob):
        value = 0
        for j in range(9):
            byte = blob[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        out.append(value)
    return out


def idf(papers: int, matches: int) -> float:
    """FTS5's bm25 IDF, as fts5_aux.c computes it (in C doubles, same order)."""
    value = math.log((papers - matches + 0.5) / (matches + 0.5))
    return 1e-6 if value <= 0.0 else value


def saturation(freq: float, length: int, avgdl: float) -> float:
    """bm25's term part of one paper: increasing in `freq`, decreasing in `length`."""
    return (freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * length / avgdl))


def bm25(weight: float, freq: float, length: int, avgdl: float) -> float:
    """FTS5's bm25() of a one-phrase query, bit for bit (fts5Bm25Function): `weight` the IDF."""
    return -1.0 * (0.0 + weight * saturation(freq, length, avgdl))


def _term(key: str) -> tuple[str, bool] | None:
    """(word, is a prefix) of a list key `("word")` / `("word"*)`, None unless plain ASCII."""
    prefix = key.endswith('"*)')
    word = key[2:-3] if prefix else key[2:-2]
    return (word, prefix) if word.isascii() and word.isalnum() else None


def list_key(compiled: CompiledQuery) -> str | None:
    """The list that could serve this query's exact tier: its MATCH expression for one plain
    word or prefix (lowercased when ASCII, as the index folds it); None for anything else."""
    match = compiled.match
    if match is None or compiled.exclude or " " in match.strip("()").strip('"*'):
        return None
    inner = match[1:-1] if match.startswith("(") and match.endswith(")") else None
    if inner is None or inner.count('"') != 2 or not inner.startswith('"'):
        return None  # ORs, several words, NOT, phrases, quotes inside
    return match.lower() if match.isascii() else match


def compound(key: str) -> bool:
    """Whether a list's key is an AND's or a phrase's (topand.py): a word's holds no space."""
    return " " in key


def key_of(term: str, prefix: bool = False) -> str:
    return "(" + fts_phrase(Text(term, prefix=prefix)) + ")"


def list_depth(matches: int, papers: int) -> int:
    """How many papers a word's or prefix's list keeps: DEEP_LIST_SIZE for those in DEEP_SHARE
    of the papers or more, else LIST_SIZE."""
    return DEEP_LIST_SIZE if papers and matches >= DEEP_SHARE * papers else LIST_SIZE


def _worth_deeper(found: int, need: int, listed: int, complete: bool) -> bool:
    """Whether to walk a deep list past its first LIST_SIZE papers for a filtered page: it holds
    every match (the walk is the answer), or at the rate its first LIST_SIZE passed the filters
    (`found` of the `need` the page needs) the whole list would come near filling the page."""
    return complete or found * listed >= DEEPER_HOPE * need * LIST_SIZE


def min_matches(papers: int) -> int:
    """How many papers a word or prefix must match to get a list, in a catalog this big."""
    return MIN_MATCHES_BIG if papers >= BIG_CATALOG else MIN_MATCHES


class TopLists:
    """Mixed into the SQLite transaction, which provides `self.conn`."""

    def top_stamp(self) -> bytes | None:
        return self.conn.execute(_STAMP).scalar()

    def ranked_page_from_lists(self, compiled: CompiledQuery, tier: str, limit: int, offset: int,
                               with_text: bool, sort) -> list | None:
        """The tier walk's one question (store.py): this tier's page (rows as fts.search_sql's)
        from a ranked list, or None when no list proves it: rank every match. Only the exact
        tier in relevance order, best first, has lists."""
        if tier != "exact" or sort.reverse or sort.field != "relevance":
            return None
        return self.top_rows(compiled, limit, offset, with_text)

    def top_rows(self, compiled: CompiledQuery, limit: int, offset: int, with_text: bool) -> list | None:
        """The exact tier's page from a list (rows as fts.search_sql's), or None when no list
        proves it (none for this query, too short for its filters, or the index changed in a
        way rescoring cannot follow)."""
        if not ENABLED or limit < 0:
            return None
        key = list_key(compiled)
        if key is None:
            return self.compound_rows(compiled, limit, offset, with_text)  # topand.py
        state = self.conn.execute(
            f"SELECT stamp, weights, listed, matches, papers, tokens, base FROM {STATE_TABLE} WHERE term = ?",
            (key,)).first()
        if state is None or state[1] != _WEIGHTS:
            return None
        attempt = None
        if compiled.where:  # a filtered page the list did not serve on this index: not again
            attempt = (state[0], self.top_stamp(), self._dirty_count(), key, tuple(compiled.where),
                       tuple(map(str, compiled.params)), compiled.reader, limit, offset)
            if attempt in _UNSERVED:
                return None
        if state[0] != self.top_stamp():  # written to since: rescore (or rank every match)
            rows = self._rescored_rows(key, state, compiled, limit, offset, with_text)
        else:
            rows = self._listed_rows(key, state, compiled, limit, offset, with_text)
        if rows is None and compiled.where:  # filters few papers pass: score each (topfew.py)
            rows = self.few_filtered_rows(key, state[3], compiled, limit, offset, with_text)
        if rows is None and attempt is not None:
            if len(_UNSERVED) >= 256:
                _UNSERVED.clear()
            _UNSERVED.add(attempt)
        return rows

    def _listed_rows(self, key: str, state, compiled: CompiledQuery, limit: int, offset: int,
                     with_text: bool) -> list | None:
        """The page from a list ranked on the index as it is (its stamp the current one), or
        None when the list does not prove it."""
        listed, complete, need = state[2], state[2] >= state[3], offset + limit
        if not complete and not compiled.where and need > listed:
            return None
        if listed > LIST_SIZE and compiled.where:  # a deep list: its first LIST_SIZE, then deeper when worth it
            rows = self._listed_slice(key, compiled, 0, LIST_SIZE, need, with_text)
            if len(rows) < need:
                if not _worth_deeper(len(rows), need, listed, complete):
                    return None  # few pass its filters: fewfilter or the full ranking
                rows += self._listed_slice(key, compiled, LIST_SIZE, listed, need - len(rows), with_text)
                if len(rows) < need and not complete:
                    return None  # the papers after the list could fill the page
            return rows[offset:]
        text = "p.abstract_text" if with_text else "NULL"
        where = "".join(f" AND {w}" for w in compiled.where)
        rows = self.conn.execute(
            f"SELECT {SUMMARY_COLUMNS}, {text} AS text, t.score AS score FROM {TOP_TABLE} t"
            f" CROSS JOIN paper p {READER_JOIN} WHERE t.term = ? AND p.id = t.paper_id{where}"
            " ORDER BY t.position LIMIT ? OFFSET ?",
            [compiled.reader, key, *compiled.params, limit, offset]).all()
        if len(rows) < limit and not complete:
            return None  # the papers after the list could fill the page
        return rows

    def _listed_slice(self, key: str, compiled: CompiledQuery, start: int, stop: int, most: int,
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

    # --- rescoring after edits and small imports ----------------------------------------------

    def _totals(self) -> tuple[int, int]:
        """(papers, tokens) of paper_fts now: its averages record, what bm25 reads."""
        numbers = _varints(self.conn.execute(f"SELECT block FROM {FTS_TABLE}_data WHERE id = 1").scalar() or b"")
        return (numbers[0], sum(numbers[1:1 + len(FTS_COLUMNS)])) if numbers else (0, 0)

    def _lengths(self, ids) -> dict[int, int]:
        """Each paper's length in tokens (all columns), as bm25 reads it (paper_fts_docsize)."""
        rows = self.conn.execute(f"SELECT id, sz FROM {FTS_TABLE}_docsize WHERE id IN"
                                 " (SELECT value FROM json_each(?))", (json.dumps(list(ids)),)).all()
        return {r[0]: sum(_varints(r[1])) for r in rows}

    def _dirty_count(self) -> int:
        return self.conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM {DIRTY_TABLE} LIMIT ?)",
                                 (DIRTY_LIMIT + 1,)).scalar()

    def _now_freqs(self, word: str, prefix: bool, ids: list[int], words: str = NOW_WORDS) -> dict[int, float]:
        """Term frequency (column weights applied, as bm25 counts it) of the word or prefix in
        the changed papers' text now (or in the papers of another fts5vocab instance table)."""
        if prefix:
            cond, params = "term >= ? AND term < ?", [word, word[:-1] + chr(ord(word[-1]) + 1)]
        else:
            cond, params = "term = ?", [word]
        freqs = dict.fromkeys(ids, 0.0)
        for doc, col, n in self.conn.execute(
                f"SELECT doc, col, count(*) FROM {words} WHERE {cond} GROUP BY doc, col", params).all():
            if doc in freqs:
                freqs[doc] += _COLUMN_WEIGHT[col] * n
        return freqs

    def rescored(self, key: str, state, depth: int | None = None
                 ) -> tuple[list[tuple[int, float]], float | None, float] | None:
        """Every paper that could head this list's ranking now, with its exact bm25 score under
        the current statistics, in ranking order, the bound no other matching paper can beat
        (None: there is no other) and the word's IDF now; None when the changes cannot be
        followed. Only the list's first `depth` papers (None: all) are read, as if the list
        ended there: its depth-th paper gives the bound (the papers after it, as any paper not
        listed, ranked at or below it when the list was built).

        Candidates: the listed papers (unchanged since: their stored frequency and length) and
        the changed papers that match now (term_top_now). The word's paper count now is the
        one at the last full rebuild (`base`) minus the changed papers that matched then
        (term_top_was) plus those that match now. Any other matching paper is unchanged and
        ranked at or below the list's last paper when the list was built; its bm25 term part
        can grow only through the average length (bm25 is antitone in length/avgdl): by at
        most avgdl_now / avgdl_then. Its IDF is every paper's, so its score is at least
        -idf_now * last_then * max(1, avgdl_now / avgdl_then)."""
        listed, matches, papers_then, tokens_then, base = state[2:7]
        term = _term(key)
        if base is None or term is None or not papers_then:
            return None
        dirty_ids = tuple(r[0] for r in self.conn.execute(
            f"SELECT paper_id FROM {DIRTY_TABLE} ORDER BY paper_id LIMIT ?", (DIRTY_LIMIT + 1,)).all())
        if len(dirty_ids) > DIRTY_LIMIT:
            return None
        depth = listed if depth is None else min(depth, listed)
        # One search may rescore a list twice (its filtered page, then fewfilter's scores, or
        # a deep list's first LIST_SIZE, then all of it); a write transaction may search,
        # change the index and search again: the memo is keyed by the index's stamp and the
        # changed papers, besides the list's state. The changed papers are scored once, the
        # list's papers read and scored as deep as asked so far.
        memo = self.__dict__.setdefault("_rescored_memo", {})
        seen = (key, tuple(state), self.top_stamp(), dirty_ids)
        if seen not in memo:
            memo[seen] = self._rescored_changes(key, term, state, set(dirty_ids))
        found = memo[seen]
        if found is None:
            return None
        if depth not in found["at"]:
            found["at"][depth] = self._rescored_at(key, found, state, depth)
        return found["at"][depth]

    def _rescored_changes(self, key: str, term: tuple[str, bool], state, dirty: set[int]) -> dict | None:
        """rescored's work on the changed papers: the word's IDF now, the averages, the changed
        papers that match now with their scores; None when they cannot be followed."""
        papers_then, tokens_then, base = state[4:7]
        papers, tokens = self._totals()
        if not papers:
            return None
        avgdl, avgdl_then = tokens / papers, tokens_then / papers_then
        was = self.conn.execute(f"SELECT count(*) FROM {WAS_TABLE} WHERE {WAS_TABLE} MATCH ?", (key,)).scalar()
        now = [r[0] for r in self.conn.execute(f"SELECT rowid FROM {NOW_TABLE} WHERE {NOW_TABLE} MATCH ?",
                                               (key,)).all()]
        weight = idf(papers, base - was + len(now))
        changed = {}
        freqs, lengths = self._now_freqs(*term, now), self._lengths(now)
        for pid in now:
            if pid not in lengths or not freqs[pid]:
                return None  # the index and the changed papers' copy disagree: do not guess
            changed[pid] = bm25(weight, freqs[pid], lengths[pid], avgdl)
        return {"weight": weight, "avgdl": avgdl, "avgdl_then": avgdl_then, "dirty": dirty, "changed": changed,
                "rows": [], "scores": [], "at": {}}

    def _rescored_at(self, key: str, found: dict, state, depth: int
                     ) -> tuple[list[tuple[int, float]], float | None, float] | None:
        """rescored's answer for the list's first `depth` papers (read past those read so far)."""
        listed, matches = state[2:4]
        rows, scores, weight, avgdl = found["rows"], found["scores"], found["weight"], found["avgdl"]
        if len(rows) < depth:
            more = self.conn.execute(f"SELECT paper_id, freq, length FROM {TOP_TABLE} WHERE term = ?"
                                     " AND position >= ? ORDER BY position LIMIT ?",
                                     (key, len(rows), depth - len(rows))).all()
            if any(r[1] is None for r in more):
                return None
            rows += more
            scores += [bm25(weight, r[1], r[2], avgdl) for r in more]
        ranked = {pid: score for (pid, _, _), score in zip(rows[:depth], scores) if pid not in found["dirty"]}
        ranked.update(found["changed"])
        bound = None
        if depth < listed or listed < matches:
            last = saturation(rows[depth - 1][1], rows[depth - 1][2], found["avgdl_then"]) if depth else 0.0
            bound = -(weight * last * max(1.0, avgdl / found["avgdl_then"]) * (1 + SLACK))
        return sorted(ranked.items(), key=lambda kv: (kv[1], kv[0])), bound, weight

    def _rescored_rows(self, key, state, compiled: CompiledQuery, limit: int, offset: int,
                       with_text: bool) -> list | None:
        """The page from a list ranked on an older index, rescored (rescored), or None. A deep
        list is rescored to LIST_SIZE first (its LIST_SIZE-th paper the bound), and whole only
        when that does not prove the page and the whole list is worth it (as _listed_rows)."""
        found = self.rescored(key, state, LIST_SIZE)
        if found is None:
            return None
        ranked, bound, _ = found
        kept = self._filtered(ranked, compiled)
        rows = self._proven_page(kept, bound, compiled, limit, offset, with_text)
        listed, complete, need = state[2], state[2] >= state[3], offset + limit
        if rows is not None or listed <= LIST_SIZE:
            return rows
        beating = sum(1 for _, score in kept if bound is None or score < bound)
        if not _worth_deeper(beating, need, listed, complete):
            return None
        found = self.rescored(key, state)
        if found is None:
            return None
        deep, bound, _ = found
        if compiled.where:  # the filters on the papers not seen yet only
            seen = {pid for pid, _ in ranked}
            passed = {pid for pid, _ in kept} | {pid for pid, _ in self._filtered(
                [(pid, score) for pid, score in deep if pid not in seen], compiled)}
            deep = [(pid, score) for pid, score in deep if pid in passed]
        return self._proven_page(deep, bound, compiled, limit, offset, with_text)

    def _proven_page(self, ranked: list[tuple[int, float]], bound: float | None, compiled: CompiledQuery,
                     limit: int, offset: int, with_text: bool) -> list | None:
        """The page of `ranked` ((paper id, score), in ranking order, filters applied) as rows,
        or None unless no other paper can reach it: none other matches (`bound` None) or the
        page's last paper scores better than `bound`."""
        page = ranked[offset:offset + limit]
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

    def _filtered(self, ranked: list[tuple[int, float]], compiled: CompiledQuery) -> list[tuple[int, float]]:
        if not compiled.where:
            return ranked
        keep = {r[0] for r in self.conn.execute(
            f"SELECT p.id FROM paper p WHERE p.id IN (SELECT value FROM json_each(?)) AND {' AND '.join(compiled.where)}",
            [json.dumps([pid for pid, _ in ranked]), *compiled.params]).all()}
        return [(pid, score) for pid, score in ranked if pid in keep]

    def mark_new_papers(self, first_id: int) -> None:
        """The bulk import's share of the triggers' work: papers from `first_id` are changed
        papers (or, past DIRTY_LIMIT, enough of them to stop rescoring)."""
        if self.conn.execute(f"SELECT 1 FROM {TOP_TABLE} LIMIT 1").first() is None:
            return
        new = self.conn.execute("SELECT count(*) FROM (SELECT 1 FROM paper WHERE id >= ? LIMIT ?)",
                                (first_id, DIRTY_LIMIT + 1)).scalar()
        self.conn.execute(f"INSERT INTO {DIRTY_TABLE}(paper_id) SELECT id FROM paper WHERE id >= ?"
                          " ORDER BY id LIMIT ? ON CONFLICT DO NOTHING", (first_id, DIRTY_LIMIT + 1))
        if self._dirty_count() <= DIRTY_LIMIT and new:
            cols = ", ".join(FTS_COLUMNS)
            self.conn.execute(f"DELETE FROM {NOW_TABLE} WHERE rowid >= ?", (first_id,))
            self.conn.execute(f"INSERT INTO {NOW_TABLE}(rowid, {cols}) SELECT id, {cols} FROM paper WHERE id >= ?",
                              (first_id,))

    def restart_top_changes(self) -> None:
        """Past DIRTY_LIMIT (no list can be rescored): forget the changed papers and what the
        lists knew of them, so that the lists a rebuild ranks from now on follow later edits
        (however long the whole rebuild takes, and whatever is edited meanwhile)."""
        if self._dirty_count() > DIRTY_LIMIT:
            for table in (DIRTY_TABLE, WAS_TABLE, NOW_TABLE):
                self.conn.execute(f"DELETE FROM {table}")
            self.conn.execute(f"UPDATE {STATE_TABLE} SET base = NULL")

    def clear_top_changes(self) -> bool:
        """When every list was ranked on the index as it is now: forget the changed papers
        (each list's base becomes its count). Whether it did."""
        stamp = self.top_stamp()
        # Lists of several words do not count: they are never rescored, so the changed papers
        # are nothing to them.
        if self.conn.execute(f"SELECT 1 FROM {STATE_TABLE} WHERE term != ? AND term NOT LIKE '% %'"
                             " AND stamp IS NOT ? LIMIT 1", (CHOSEN_AT, stamp)).first() is not None:
            return False
        for table in (DIRTY_TABLE, WAS_TABLE, NOW_TABLE):
            self.conn.execute(f"DELETE FROM {table}")
        self.conn.execute(f"UPDATE {STATE_TABLE} SET base = matches WHERE term != ? AND term NOT LIKE '% %'",
                          (CHOSEN_AT,))
        return True
