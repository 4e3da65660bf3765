"""SQLite's ranked lists for searches of several frequent words, and for a frequent word under
filters few papers pass: pages proven from the words' lists, or from a list of their own.

AND of frequent words (`sparse attention`, `language model*`): FTS5's bm25 of an AND query is
the sum of its phrases' bm25 terms, so a paper in none of the words' lists scores at most the
sum of the lists' bounds (each list's last score, or after edits its rescored bound). The
papers of the lists that match the whole query are scored, and the page is served when its
last paper beats that sum (`SeveralWords.proven_page`). Asked for bm25, FTS5 first counts each
phrase's papers over the whole index, which for a prefix merges its whole match list (over a
second for `language mod*` at a million papers), so the terms are computed here instead: a listed paper's is
its score in that word's list, and a paper missing from a list is tokenized again (Retokenized)
and scored by scoring.bm25 with the word's IDF from its list's count. When anything cannot be
computed exactly, FTS5 scores the lists' papers (the query restricted to their ids).

A phrase of such words (`"language models"`): its frequency in a paper is at most each word's,
so outside the lists its term part is at most the smallest of the words' bounds on theirs,
times the phrase's own IDF (its papers counted).

Lists of their own: when the words' lists do not prove the page of an AND of frequent words,
for any phrase of them, for an AND whose proof FTS5 would score, and for an AND or phrase a
word has no list for whose words together match as many papers as a word needs for a list,
the search ranks the query's best LIST_SIZE papers instead of its page (every match is scored
either way) and serves its page from them; its caller keeps that list after the read
(store.lists.keep). Its key is the exact tier's MATCH expression and it is read as a word's
list while its stamp is the current one: never rescored (tags and notes are indexed, so any
edit makes it stale; the next search, or a refresh, ranks it again).

ANDs with a prefix (`sparse att*`, as typed): the store's memo remembers the heads it ranked
or proved (memo.py), and the next letter typed (`sparse atte*`) is proven from them when its
words' lists do not (sqlite_prefixes.py). One that the lists of its words (all frequent) did
not prove, ranked in full, is also kept in the catalog as a list of its own (`the mod*` in a
large catalog: both words in most papers, every match ranked), read like an AND's, so any
process reads its page and proves the letters typed after it from its head; typing keeps a
list for the letters whose proof fails (a word's first ones), not one for each.

A frequent word with filters few papers pass (`model tag:toread`): when the filters leave few
papers (at most one per FEW_PER_MATCH matches of the word, counted with a LIMIT), every one of
them that matches is scored (FewFiltered), so the page is exact with no bound.
"""

from __future__ import annotations

import json
import math

from catalog.store.compiler import CompiledQuery
from catalog.store.lists import scoring
from catalog.store.lists.records import IndexRecords
from catalog.store.lists.memo import ListMemo
from catalog.store.lists.scoring import LIST_SIZE, SLACK, and_score, bm25, idf, ranked
from catalog.store.lists.sqlite_prefixes import LongerPrefix
from catalog.store.lists.sqlite_words import (RANKED, STATE_TABLE, WEIGHTS, ChangedPapers, ListState, WordLists,
                                              frequencies, read_state)
from catalog.store.fts5 import FTS_COLUMNS, FTS_TABLE, TOKENIZER

# Papers missing from some of an AND's lists are tokenized again to score them: a temporary
# contentless FTS5 table of this connection (allowed in a read transaction) with paper_fts's
# tokenizer, and its words (~0.2 ms a paper at 1M papers). Scored in batches, best first, until
# the rest cannot reach the page; past a budget (a paper per 1,000 matches of the query's
# words) the full ranking runs instead.
TEXT_TABLE, TEXT_WORDS = "temp.term_and_text", "temp.term_and_words"
BATCH, RESCORE_PER_MATCH, RESCORE_AT_LEAST = 32, 0.001, 256
# Ranked in full, a prefix AND is remembered this deep: ranking 1,000 costs what ranking 50
# does (every match is scored either way); the TUI asks for a page of 200 after its first 50,
# and the deeper the head, the more letters typed after it it proves (sqlite_prefixes.py).
REMEMBER_DEPTH = LIST_SIZE
# Tokenizing a paper again costs 0.06-0.2 ms at 1M papers, ranking a match in full 0.3-4 us: a
# paper for every 500 matches spends at most about what the full query would.
FEW_PER_MATCH = 0.002


class TooMany(Exception):
    """Proving the page would tokenize more papers than ranking every match costs."""


class Retokenized:
    """Papers' text tokenized again as paper_fts tokenizes it, for their lengths and term
    frequencies (a temporary table, emptied after each use)."""

    def __init__(self, conn, records: IndexRecords):
        self.conn = conn
        self.records = records
        self.table = IndexRecords(conn, TEXT_TABLE)

    def scores(self, ids: list[int], terms: list[tuple[str, bool]], weights: list[float],
               known: list[dict[int, float]], avgdl: float) -> dict[int, float] | None:
        """The AND scores of these papers (those that hold every word): each word's term from
        `known` (its list's score) or from the text tokenized again; None when the index and
        the text disagree."""
        name = TEXT_TABLE.split(".")[1]
        self.conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {TEXT_TABLE} USING fts5({', '.join(FTS_COLUMNS)},"
                          f" tokenize={TOKENIZER!r}, content='')")
        self.conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {TEXT_WORDS} USING fts5vocab(temp, {name}, 'instance')")
        clear = f"INSERT INTO {TEXT_TABLE}({name}) VALUES ('delete-all')"
        self.conn.execute(clear)
        cols = ", ".join(FTS_COLUMNS)
        self.conn.execute(f"INSERT INTO {TEXT_TABLE}(rowid, {cols}) SELECT id, {cols} FROM paper"
                          " WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
        try:
            lengths = self.records.lengths(ids)
            again = self.table.lengths()  # the index's lengths, or the text is not what it indexed
            freqs = [frequencies(self.conn, TEXT_WORDS, word, prefix, [pid for pid in ids if pid not in scores])
                     for (word, prefix), scores in zip(terms, known)]
        finally:
            self.conn.execute(clear)
        out = {}
        for pid in ids:
            if pid not in lengths or again.get(pid) != lengths[pid]:
                return None
            terms_of = []
            for scores, freq, weight in zip(known, freqs, weights):
                if pid in scores:
                    terms_of.append(-scores[pid])
                elif freq.get(pid):
                    terms_of.append(-bm25(weight, freq[pid], lengths[pid], avgdl))
                else:
                    break  # it lacks this word: no match
            else:
                out[pid] = and_score(terms_of)
        return out


class FewFiltered:
    """A word's page under filters few papers pass, every filtered match scored: the listed
    ones have their score in the list (rescored after changes), the others are tokenized again
    (which also says which of them hold the word). Not asked of FTS5: bm25 through FTS5
    recounts the word's papers for every id, and seeking a prefix's papers by id merges its
    whole match list on each."""

    def __init__(self, conn, words: WordLists, retokenized: Retokenized, records: IndexRecords):
        self.conn = conn
        self.words = words
        self.retokenized = retokenized
        self.records = records

    def page(self, state: ListState, compiled: CompiledQuery, limit: int, offset: int,
             with_text: bool) -> list | None:
        """The exact tier's page; None when the filters pass too many or a score cannot be
        computed exactly."""
        term = scoring.term(state.key)
        most = int(state.matches * FEW_PER_MATCH)
        if not compiled.where or term is None or most < 1:
            return None
        ids = self.conn.execute(f"SELECT p.id FROM paper p WHERE {' AND '.join(compiled.where)} LIMIT ?",
                                [*compiled.params, most + 1]).scalars()
        if len(ids) > most:
            return None
        found = self.words.now(state.key)
        if found is None:
            return None
        listed, _, _, weight = found
        known = dict(listed)
        scores = {pid: known[pid] for pid in ids if pid in known}
        rest = [pid for pid in ids if pid not in known]
        if rest:
            papers, tokens = self.records.totals()
            if not papers:
                return None
            text = self.retokenized.scores(rest, [term], [weight], [{}], tokens / papers)
            if text is None:
                return None
            scores.update(text)  # those holding the word (the others do not match)
        return self.words.proven_page(ranked(scores), None, compiled, limit, offset, with_text)


class SeveralWords:
    """Pages of ANDs and phrases of frequent words in one transaction. `keeping`: this
    transaction may rank lists of their own for its caller to keep (a read on a store that
    may write them); `to_keep` collects them."""

    def __init__(self, conn, words: WordLists, retokenized: Retokenized, records: IndexRecords,
                 changes: ChangedPapers, memo: ListMemo, rank, *, keeping: bool):
        self.conn = conn
        self.words = words
        self.retokenized = retokenized
        self.records = records
        self.changes = changes
        self.memo = memo
        self.rank = rank  # key, size -> a RankedList (sqlite_build.ListBuilder.rank_several)
        self.keeping = keeping
        self.to_keep: list = []
        self._ranked_now: dict[str, tuple[list[tuple[int, float]], bool]] = {}
        self._proven_head: list[tuple[int, float]] | None = None
        self.longer = LongerPrefix(conn, words, retokenized, records, self.head)

    def page(self, compiled: CompiledQuery, limit: int, offset: int, with_text: bool) -> list | None:
        """The exact tier's page of an AND or a phrase of frequent words, or None."""
        phrase = False
        if (keys := scoring.and_keys(compiled)) is None:
            if (keys := scoring.phrase_keys(compiled)) is None:
                return None
            phrase = True
        key = scoring.several_key(compiled, keys, phrase)
        if key is None:
            return self._prefix_and_page(keys, compiled, limit, offset, with_text)
        made = self._ranked_now.get(key)
        if made is not None:  # ranked by an earlier search in this transaction, not kept yet
            return self._made_page(made, compiled, limit, offset, with_text)
        state = read_state(self.conn, key)
        if state is not None and state.stamp == self.records.stamp():
            return self.words.listed_page(state, compiled, limit, offset, with_text)  # None: rank in full
        may_rank = self._may_rank_now(keys, compiled, limit, offset)
        # Straight to ranking a list of its own: for a phrase (its lists' proof counts its
        # papers over the whole index, as long as ranking them), for an AND whose stale list
        # of its own says the words' lists did not prove its page before, and for an AND whose
        # lists' proof would be FTS5's (it counts every word's papers over the index, about
        # what ranking costs) or that a word has no list for.
        straight = may_rank and (phrase or state is not None or self._text_budget(keys) is None)
        rows = None if straight else self.proven_page(keys, compiled, limit, offset, with_text, phrase=phrase)
        if rows is None and may_rank:
            rows = self._rank_now(key, compiled, limit, offset, with_text)
        return rows

    def _prefix_and_page(self, keys: list[str], compiled: CompiledQuery, limit: int, offset: int,
                         with_text: bool) -> list | None:
        """The page of an AND with a prefix (`sparse att*`): from its head this store remembers
        or the catalog keeps (on this index), else (no filter) from the head of the same AND
        with a shorter prefix (`sparse at*`), else from its words' lists, else (no filter)
        ranked in full here, REMEMBER_DEPTH deep, and remembered; when its words all have
        lists, that ranking is also handed to the caller to keep (`to_keep`): a list of its
        own that any process reads. None: the full ranking."""
        memo = None if compiled.where else self._memo_key(keys)
        made = self.head(keys) if memo is not None else self.words.kept_head(" AND ".join(keys))
        if made is not None:
            rows = self._made_page(made, compiled, limit, offset, with_text)
            if rows is not None:
                return rows
        budget = None if memo is None else self._text_budget(keys)
        if budget is not None:  # frequent words (a rare one ranks in a few ms): from a shorter prefix's head
            rows = self.longer.page(keys, compiled, limit, offset, with_text, budget)
            if rows is not None:
                self.memo.remember(memo, (self.longer.head, False))
                return rows
        self._proven_head = None
        rows = self.proven_page(keys, compiled, limit, offset, with_text)
        if memo is None or (rows is None and offset + limit > LIST_SIZE):
            return rows  # a page deep down: ranked in full as it asks, not remembered
        if rows is not None:
            if self._proven_head is not None:
                self.memo.remember(memo, (self._proven_head, False))
            return rows
        if budget is not None and self._may_rank_now(keys, compiled, limit, offset):
            # Frequent words the lists did not prove (`the mod*` in a large catalog): kept, the
            # next search of it, and of the letters typed after it, is read or proven from its
            # head in any process. Those letters are mostly proven from it, so typing keeps a
            # list for a word's first letters, not one for each.
            made_list = self.rank(" AND ".join(keys), REMEMBER_DEPTH)
            self.to_keep.append(made_list)
            best = [(paper_id, score) for _, paper_id, score, _, _ in made_list.rows]
        else:
            best = [(r["id"], r["score"]) for r in self.conn.execute(RANKED, (compiled.match, REMEMBER_DEPTH)).all()]
        made = (best, len(best) < REMEMBER_DEPTH)  # fewer than asked for: every match
        self.memo.remember(memo, made)
        return self._made_page(made, compiled, limit, offset, with_text)

    def head(self, keys: list[str]) -> tuple[list[tuple[int, float]], bool] | None:
        """The head of the AND of `keys` ranked on the index as it is ((paper id, score) in
        ranking order, whether it holds every match): remembered by this store, or kept in the
        catalog (then remembered); None when neither."""
        memo = self._memo_key(keys)
        made = self.memo.remembered(memo)
        if made is None and (made := self.words.kept_head(" AND ".join(keys))) is not None:
            self.memo.remember(memo, made)
        return made

    def _memo_key(self, keys: list[str]) -> tuple:
        """What a remembered head is valid for: the index as it is (the stamp, which every write
        to the index changes, and its totals record), the AND's keys in order."""
        return self.records.stamp(), self.records.averages(), " AND ".join(keys)

    def _may_rank_now(self, keys: list[str], compiled: CompiledQuery, limit: int, offset: int) -> bool:
        """Whether this search may rank the list of its AND or phrase now: it is kept after the
        read (`keeping`), the page is in it, no filter or `-word` (the list is the query's own
        ranking), and its words together match as many papers as a word needs for a list:
        ranking walks all their papers, slow; rare words are quick to rank in full."""
        if not self.keeping or compiled.where or compiled.exclude or offset + limit > LIST_SIZE:
            return False
        return self._words_matches(keys) >= scoring.min_matches(self.records.totals()[0])

    def _words_matches(self, keys: list[str]) -> int:
        """How many papers the words match, added up: a word's list says (as it was ranked),
        the others are counted (each in fewer papers than a list needs)."""
        listed = {r["term"]: r["matches"] for r in self.conn.execute(
            f"SELECT term, matches FROM {STATE_TABLE} WHERE weights = ? AND term IN (SELECT value FROM json_each(?))",
            (WEIGHTS, json.dumps(keys))).all()}
        return sum(listed[key] if key in listed else self.conn.execute(
            f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?", (key,)).scalar() for key in keys)

    def _text_budget(self, keys: list[str]) -> int | None:
        """How many papers an AND's proof may tokenize again; None when FTS5 scores them instead
        (an AND of whole words in a smaller catalog), or a word has no list.

        Tokenizing a paper again costs what ranking ~200 matches in full does. One paper per
        1,000 matches of the words: a page the lists cannot prove wastes at most a fifth of its
        full ranking on trying. FTS5 scores an AND of whole words cheaply in a smaller catalog
        (its words' match lists are short): there, when the budget is under RESCORE_AT_LEAST
        papers, it does. A prefix AND always gets that many: FTS5 would merge the prefix's
        matches."""
        row = self.conn.execute(f"SELECT count(*) AS lists, sum(matches) AS matches FROM {STATE_TABLE}"
                                " WHERE weights = ? AND term IN (SELECT value FROM json_each(?))",
                                (WEIGHTS, json.dumps(keys))).first()
        if row["lists"] < len(keys):
            return None
        budget = int((row["matches"] or 0) * RESCORE_PER_MATCH)
        if budget < RESCORE_AT_LEAST:
            if not any(key.endswith("*)") for key in keys):
                return None
            budget = RESCORE_AT_LEAST
        return budget

    def _rank_now(self, key: str, compiled: CompiledQuery, limit: int, offset: int, with_text: bool) -> list:
        """Rank the list of an AND or phrase for the caller to keep, and serve the page."""
        made_list = self.rank(key)
        self.to_keep.append(made_list)
        made = ([(paper_id, score) for _, paper_id, score, _, _ in made_list.rows],
                made_list.matches <= len(made_list.rows))
        self._ranked_now[key] = made
        return self._made_page(made, compiled, limit, offset, with_text)

    def _made_page(self, made: tuple[list[tuple[int, float]], bool], compiled: CompiledQuery, limit: int,
                   offset: int, with_text: bool) -> list | None:
        """The page from a list ranked here ((paper id, score) in ranking order, whether it
        holds every match): as listed_page reads a stored one."""
        best, complete = made
        best = self.words.filtered(best, compiled)
        if not complete and len(best) < offset + limit:
            return None  # the papers after the list could be on this page
        return self.words.proven_page(best, None, compiled, limit, offset, with_text)

    def proven_page(self, keys: list[str], compiled: CompiledQuery, limit: int, offset: int,
                    with_text: bool, phrase: bool = False) -> list | None:
        """The exact tier's page of an AND of words that all have lists, or of a phrase of
        such words (`phrase`), as rows (fts.search_sql's), or None when the lists do not
        prove it. The papers of the lists that match the query are scored with the same
        scores, bit for bit, as the full ranking: an AND's from the lists and the papers' text
        (_and_scored), a phrase's by FTS5 (_fts_scored)."""
        # Scoring the listed papers costs 20-100 ms at 1M papers; when that did not prove this
        # page on this index, it will not the next time (typing, paging back), nor a page
        # ending further down: go to the full ranking at once.
        attempt = (self.records.stamp(), self.changes.count(), compiled.match, tuple(compiled.where),
                   tuple(map(str, compiled.params)), compiled.reader)
        end = offset + limit
        if not self.memo.may_prove(attempt, end):
            return None
        lists = []
        for key in keys:
            found = self.words.now(key)
            if found is None:
                return None  # a rare word (no list) or one rescoring cannot follow: rank in full
            lists.append(found)
        scores = [dict(best) for best, _, _, _ in lists]
        ids = sorted({pid for known in scores for pid in known})
        if phrase:
            parts = [part for _, _, part, _ in lists]
            if None in parts:
                bound = None  # a word's list holds every paper with it: every phrase match too
            else:
                papers = self.records.totals()[0]
                holding = self.conn.execute(f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?",
                                            (compiled.match,)).scalar()
                bound = -idf(papers, holding) * min(parts) * (1 + SLACK)
                # A listed paper's phrase part is at most its smallest word part (or a word's
                # bound where it is not listed): those that cannot beat the bound do not count.
                best = [min(-known[pid] / weight if pid in known else part
                            for known, (_, _, part, weight) in zip(scores, lists)) for pid in ids]
                hopeful = sum(1 for b in best if b > min(parts) * (1 + SLACK))
        else:
            bounds = [bound for _, bound, _, _ in lists]
            bound = None if None in bounds else sum(bounds) * (1 + SLACK)
            if bound is not None:
                # A listed paper scores at best its known words plus the others' bounds.
                hopeful = sum(1 for pid in ids if sum(known.get(pid, b) for known, b in zip(scores, bounds)) < bound)
        if bound is not None and offset + limit > hopeful:
            return None  # too few listed papers could beat the bound: the lists cannot prove it
        try:
            scored = None if phrase else self._and_scored(keys, lists, bound, compiled, offset + limit)
        except TooMany:
            rows = None  # ranking every match costs less than proving this page would
        else:
            if scored is None:
                scored = self._fts_scored(ids, compiled)
            rows = self.words.proven_page(scored, bound, compiled, limit, offset, with_text)
            if rows is not None:  # its head is the full ranking's too (for _prefix_and_page)
                self._proven_head = scored[:offset + limit]
        if rows is None:
            self.memo.unproven(attempt, end)
        return rows

    def _fts_scored(self, ids: list[int], compiled: CompiledQuery) -> list[tuple[int, float]]:
        """The listed papers that match the query, scored by FTS5 (the query restricted to
        them), filters applied, in ranking order. For bm25 FTS5 counts each phrase's papers
        first: a prefix's whole match list is merged (over a second at 1M papers)."""
        found = self.conn.execute(
            f"SELECT rowid AS id, bm25({FTS_TABLE}, {WEIGHTS}) AS score FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"
            " AND +rowid IN (SELECT value FROM json_each(?))", (compiled.match, json.dumps(ids))).all()
        return self.words.filtered(ranked({r["id"]: r["score"] for r in found}), compiled)

    def _and_scored(self, keys: list[str], lists: list, bound: float | None, compiled: CompiledQuery,
                    depth: int) -> list[tuple[int, float]] | None:
        """The listed papers that match an AND query and could be among its first `depth`
        (filters applied), with their bm25 scores bit for bit as FTS5 ranks the query, in
        ranking order, without asking FTS5 to rank it; None when some part cannot be computed
        exactly (then FTS5 scores them: _fts_scored). Raises TooMany when more papers would
        have to be tokenized again than the budget allows.

        FTS5's bm25 of an AND is -(0.0 + x_1 + x_2 + ...) in its phrases' order, x_i the
        paper's term of phrase i alone: the negated score of that word's (or prefix's) own
        query, which its list holds (or rescored). A paper missing from some lists is scored
        only if it could still reach the page (its known terms plus the other lists' bounds);
        its missing terms come from its own text tokenized again. Papers that cannot reach the
        page are left out: they rank after it."""
        terms = [scoring.term(key) for key in keys]
        if None in terms:
            return None  # not plain ASCII: the tokenizer's folding is FTS5's to apply
        budget = self._text_budget(keys)
        if budget is None:
            return None
        scores = [dict(best) for best, _, _, _ in lists]
        bounds = [b for _, b, _, _ in lists]
        weights = [w for _, _, _, w in lists]
        ids = sorted({pid for known in scores for pid in known})
        keep = {pid for pid, _ in self.words.filtered([(pid, 0.0) for pid in ids], compiled)}
        exact: dict[int, float] = {}
        partial: list[tuple[float, int]] = []  # (best score it could reach, paper)
        for pid in ids:
            if pid not in keep:
                continue
            xs = [-known[pid] if pid in known else None for known in scores]
            if None not in xs:
                exact[pid] = and_score(xs)
                continue
            if any(x is None and b is None for x, b in zip(xs, bounds)):
                continue  # that list holds every paper with its word: this one lacks it
            reach = sum(-b if x is None else x for x, b in zip(xs, bounds))
            partial.append((-reach * (1 + SLACK), pid))
        partial.sort()

        def threshold() -> float:
            """A score the page's last paper reaches at least: only papers that can reach it
            are to be scored."""
            best = sorted(exact.values())
            last = best[depth - 1] if 0 < depth <= len(best) else math.inf
            return last if bound is None else min(last, bound)

        papers, tokens = self.records.totals()
        if not papers:
            return None
        avgdl = tokens / papers
        done, limit, tried = 0, threshold(), []
        while done < len(partial) and partial[done][0] <= limit:
            batch = [pid for reach, pid in partial[done:done + BATCH] if reach <= limit]
            done += len(batch)
            tried += batch
            if done > budget:
                raise TooMany
            found = self.retokenized.scores(batch, terms, weights, scores, avgdl)
            if found is None:
                return None
            exact.update(found)
            limit = threshold()
            if bound is not None and done >= 2 * BATCH:
                # The page needs `depth` papers beating the bound. Those scored so far were the
                # likeliest; if at their rate the rest would not make up the difference, stop
                # trying (only ever a reason to rank in full).
                beating = sum(1 for score in exact.values() if score < bound)
                rate = sum(1 for pid in tried if exact.get(pid, 0.0) < bound) / len(tried)
                hopeful = sum(1 for reach, _ in partial[done:] if reach < bound)
                if beating < depth and beating + rate * hopeful < depth:
                    raise TooMany
        return ranked(exact)
