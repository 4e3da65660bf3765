"""Pages of ANDs and phrases of frequent words from their words' ranked lists (issue 16).

topk.py keeps the best papers of each frequent word and prefix; this module answers queries of
several such words from those lists, when they prove the page, and otherwise leaves it to the
full ranking (None).

AND of frequent words (`sparse attention`, `language model*`): FTS5's bm25 of an AND query is
the sum of its phrases' bm25 terms, so a paper in none of the words' lists scores at most the
sum of the lists' bounds (each list's last score, or after edits its rescored bound). The
papers of the lists that match the whole query are scored, and the page is served when its
last paper beats that sum (`and_rows`).

Scoring them without FTS5 (`_and_scored`): asked for bm25, FTS5 first counts each phrase's
papers over the whole index (the IDF), which for a prefix merges its whole match list: 1.2-1.6 s
for `language mod*` at 1M papers, whatever else the query holds. Each term of the sum is known
instead: a listed paper's is its score in that word's list (the word's own query: the same IDF,
frequency and length), and for a paper missing from a list, the word's IDF comes from the
count the list was built with (or rescored), its length from the index (`paper_fts_docsize`),
its frequency from its own text tokenized again by FTS5 (a temporary table): bm25() of topk.py,
bit for bit. Only the papers that could still reach the page are scored so. When that would be
too many (more than ranking in full costs, or at their rate of beating the bound the page is out
of reach), the full ranking runs. When anything cannot be computed exactly, and for ANDs of
whole words in smaller catalogs (where it is cheap), FTS5 scores the listed papers
(`_fts_scored`: the query restricted to their ids), as before.

A phrase of such words (`"language models"`): its frequency in a paper is at most each word's,
so outside the lists its term part is at most the smallest of the words' bounds on theirs,
times the phrase's own IDF (its papers counted); that proves the pages of phrases many papers
hold (a low IDF), the ones slow to rank in full. FTS5 scores the lists' papers. A word without
a list is rare: ranking its matches is cheap, and the full query runs.

Lists of their own: when the words' lists do not prove the page of an AND of frequent words,
for any phrase of them (the proof above counts the phrase's papers: as long as ranking them),
for an AND whose proof FTS5 would score (_fts_scored counts every word's papers over the index:
as long as ranking them), and for an AND or phrase a word has no list for, with no prefix,
filter or `-word`, and its words together in as many papers as a word needs for a list (ranking
walks them all: `sparse attention` at 100k, neither word with a list, 10-30 ms), the search
ranks the query's best LIST_SIZE papers instead of its page (every match is scored either way:
about the same time) and serves its page from them; the store keeps that list (SqliteStore.read, after the
read: a short write transaction, skipped when another writer holds the file or the file is
read-only). Its key is the exact tier's MATCH expression (`("sparse") AND ("attention")`,
`("language models")`) and it is built as a word's (topk's _RANKED on that key: FTS5 ranks an
AND or phrase by its own bm25, so the list is the full ranking's head by construction). Later
searches of those words, with filters too, read it as a word's list while its stamp is the
current one: it is never rescored (bm25 of several phrases after edits is not worth following;
tags and notes are indexed, so any edit makes it stale). A stale one is ranked again by the
next search that needs it, or by refresh after an import, within its budget. At 1M papers
`"language models"` went from 0.3-0.6 s to 3.5-5.6 ms so (docs/benchmarks.md).

ANDs with a prefix (`sparse att*`, as typed) keep no list in the catalog: typing would rank and
keep one for each letter. The process remembers the head of the last REMEMBERED it ranked in
full or proved from the lists, on the index as it was (_prefix_and_rows): the TUI's page of 200
after a query's first 50 rows, paging back, and the same search again read it.
"""

from __future__ import annotations

import json
import math
import threading

from catalog.store.sqlite.fts import FTS_COLUMNS, FTS_TABLE, CompiledQuery
from catalog.store.sqlite.topk import (_RANKED, _WEIGHTS, LIST_SIZE, SLACK, STATE_TABLE, TOP_TABLE, _term, _varints,
                                       bm25, idf, key_of, list_key, min_matches)

# The ANDs and phrases whose page the lists did not prove, on an index as it was (and_rows): the
# attempt (all but the page) -> the smallest end (offset + limit) of a page not proven.
_UNPROVEN: dict[tuple, int] = {}
# Papers missing from some of an AND's lists, tokenized again to score them (_and_scored): a
# temporary contentless FTS5 table of this connection (allowed in a read transaction) with
# paper_fts's tokenizer, and its words (~0.2 ms a paper at 1M papers). Scored in batches, best
# first, until the rest cannot reach the page; past a budget (a paper per 1,000 matches of the
# query's words) the full ranking runs instead.
TEXT_TABLE, TEXT_WORDS = "temp.term_and_text", "temp.term_and_words"
TOKENIZER = "unicode61 remove_diacritics 2"  # paper_fts's (migration 0001)
_BATCH, _RESCORE_PER_MATCH, _RESCORE_AT_LEAST = 32, 0.001, 256
_TOO_MANY = object()  # _and_scored's answer past that budget: the page goes to the full ranking

# ANDs with a prefix keep no list in the catalog (typing would rank one for each letter). A
# process remembers instead the head of the last ones it ranked in full or proved from the
# lists, each on the index as it was (_prefix_and_rows): the TUI asks for a typed query's first
# 50 rows, then for its page of 200 (the same ranking), and a search made again (paging back,
# typing back, the same query later) reads it from memory. Ranked in full, REMEMBER_DEPTH
# deep: ranking 200 costs what ranking 50 does (every match is scored either way).
REMEMBERED, REMEMBER_DEPTH = 32, 200
_REMEMBERED: dict[tuple, tuple[list[tuple[int, float]], bool]] = {}
_REMEMBERED_LOCK = threading.Lock()


def _remember(memo: tuple, made: tuple[list[tuple[int, float]], bool]) -> None:
    """Keep a head (as _made_page reads it) for `memo`, forgetting the oldest past REMEMBERED."""
    with _REMEMBERED_LOCK:
        _REMEMBERED.pop(memo, None)
        _REMEMBERED[memo] = made
        while len(_REMEMBERED) > REMEMBERED:
            _REMEMBERED.pop(next(iter(_REMEMBERED)))


def and_keys(compiled: CompiledQuery) -> list[str] | None:
    """The lists whose words an AND query's exact tier holds, in its order (two or more plain
    words or prefixes, each once); None for anything else (one word: list_key)."""
    match = compiled.match
    if match is None or compiled.exclude or " AND " not in match:
        return None
    keys = []
    for part in match.split(" AND "):
        key = list_key(CompiledQuery(match=part))
        if key is None or key in keys:
            return None  # a phrase, an OR, a NOT, a word twice: FTS5 scores it otherwise
        keys.append(key)
    return keys


def phrase_keys(compiled: CompiledQuery) -> list[str] | None:
    """The lists of the words of a phrase query's exact tier (`"language models"`: one
    phrase of two or more plain ASCII words, no prefix), each once; None for anything else."""
    match = compiled.match
    if match is None or compiled.exclude or not (match.startswith('("') and match.endswith('")')):
        return None
    inner = match[2:-2]
    words = inner.lower().split(" ")
    if '"' in inner or len(words) < 2 or not all(w.isascii() and w.isalnum() for w in words):
        return None
    return list(dict.fromkeys(key_of(w) for w in words))


def compound_key(compiled: CompiledQuery, keys: list[str], phrase: bool) -> str | None:
    """The key of the list of its own an AND (`keys` its words') or a phrase of frequent words
    may have: the exact tier's MATCH expression, its words lowercased as their lists' keys;
    None with a prefix (typed as you go: each letter would rank a list of its own)."""
    if phrase:
        return compiled.match.lower()  # phrase_keys: plain ASCII words, spaces, the quotes
    if any(key.endswith("*)") for key in keys):
        return None
    return " AND ".join(keys)


class AndPages:
    """Mixed into the SQLite transaction after TopLists (topk.py), whose lists and rescoring it
    reads."""

    def compound_rows(self, compiled: CompiledQuery, limit: int, offset: int, with_text: bool) -> list | None:
        """The exact tier's page of an AND or a phrase of frequent words (top_rows asks for
        any query that is not one word or prefix), or None."""
        phrase = False
        if (keys := and_keys(compiled)) is None:
            if (keys := phrase_keys(compiled)) is None:
                return None
            phrase = True
        key = compound_key(compiled, keys, phrase)
        if key is None:
            return self._prefix_and_rows(keys, compiled, limit, offset, with_text)
        made = self.__dict__.get("_ranked_now", {}).get(key)
        if made is not None:  # ranked by an earlier search in this transaction, not written yet
            return self._made_page(made, compiled, limit, offset, with_text)
        state = self.conn.execute(f"SELECT stamp, weights, listed, matches FROM {STATE_TABLE} WHERE term = ?",
                                  (key,)).first()
        if state is not None and state[0] == self.top_stamp() and state[1] == _WEIGHTS:
            return self._listed_rows(key, state, compiled, limit, offset, with_text)  # None: rank in full
        may_rank = self._may_rank_now(keys, compiled, limit, offset)
        # Straight to ranking a list of its own: for a phrase (its lists' proof counts its
        # papers over the whole index, as long as ranking them: 0.5 s for `"language models"`
        # at 1M papers, every time), for an AND whose stale list of its own says the words'
        # lists did not prove its page before (trying them costs 20-100 ms at 1M), and for an
        # AND whose lists' proof would be FTS5's (_fts_scored: it counts every word's papers
        # over the index, about what ranking costs: `language model` at 100k papers, 15-20 ms
        # every time against 2-3 ms from a list of its own) or that a word has no list for.
        straight = may_rank and (phrase or state is not None or self._text_budget(keys) is None)
        rows = None if straight else self.and_rows(keys, compiled, limit, offset, with_text, phrase=phrase)
        if rows is None and may_rank:
            rows = self._rank_now(key, compiled, limit, offset, with_text)
        return rows

    def _prefix_and_rows(self, keys: list[str], compiled: CompiledQuery, limit: int, offset: int,
                         with_text: bool) -> list | None:
        """The page of an AND with a prefix (`sparse att*`): from the head this process last
        ranked or proved of it on this index, else from its words' lists, else (no filter)
        ranked in full here, REMEMBER_DEPTH deep, and remembered; None: the full ranking."""
        memo = None if compiled.where else self._memo_key(compiled)
        if memo is not None and (made := _REMEMBERED.get(memo)) is not None:
            rows = self._made_page(made, compiled, limit, offset, with_text)
            if rows is not None:
                return rows
        self.__dict__.pop("_proven_head", None)
        rows = self.and_rows(keys, compiled, limit, offset, with_text)
        if memo is None or (rows is None and offset + limit > LIST_SIZE):
            return rows  # a page deep down: ranked in full as it asks, not remembered
        if rows is not None:
            if (head := self.__dict__.pop("_proven_head", None)) is not None:
                _remember(memo, (head, False))
            return rows
        depth = max(REMEMBER_DEPTH, offset + limit)
        ranked = [(r[0], r[1]) for r in self.conn.execute(_RANKED, (compiled.match, depth)).all()]
        made = (ranked, len(ranked) < depth)  # fewer than asked for: every match
        _remember(memo, made)
        return self._made_page(made, compiled, limit, offset, with_text)

    def _memo_key(self, compiled: CompiledQuery) -> tuple:
        """What a remembered head is valid for: this catalog file, its index as it is (the
        stamp, which every write to the index changes, and its totals record), the query."""
        file = self.conn.execute("PRAGMA database_list").first()[2]
        totals = self.conn.execute(f"SELECT block FROM {FTS_TABLE}_data WHERE id = 1").scalar()
        return file, self.top_stamp(), totals, compiled.match

    def _may_rank_now(self, keys: list[str], compiled: CompiledQuery, limit: int, offset: int) -> bool:
        """Whether this search may rank the list of its AND or phrase now: the store keeps it
        (a read transaction of SqliteStore, on a file it may write), the page is in it, no
        filter or `-word` (the list is the query's own ranking), and its words together match
        as many papers as a word needs for a list (topk.min_matches): ranking walks all their
        papers, slow (at 100k `sparse attention`, 13,185 + 22,840 papers, neither word with a
        list: 10-30 ms); rare words are quick to rank in full, and keep no list."""
        if ("lists_to_keep" not in self.__dict__ or compiled.where or compiled.exclude
                or offset + limit > LIST_SIZE):
            return False
        return self._words_matches(keys) >= min_matches(self._totals()[0])

    def _words_matches(self, keys: list[str]) -> int:
        """How many papers the words match, added up: a word's list says (as it was built),
        the others are counted (each in fewer papers than a list needs: ~1 ms at 100k)."""
        listed = dict(self.conn.execute(f"SELECT term, matches FROM {STATE_TABLE} WHERE weights = ? AND term IN"
                                        " (SELECT value FROM json_each(?))", (_WEIGHTS, json.dumps(keys))).all())
        return sum(listed[key] if key in listed else self.conn.execute(
            f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?", (key,)).scalar() for key in keys)

    def _text_budget(self, keys: list[str]) -> int | None:
        """How many papers _and_scored may tokenize again to prove an AND's page from its
        words' lists; None when FTS5 scores them instead (_fts_scored: an AND of whole words
        in a smaller catalog), or a word has no list.

        Tokenizing a paper again costs what ranking ~200 matches in full does (0.1 ms against
        0.5 us a match at 1M papers). One paper per 1,000 matches of the words: a page the
        lists cannot prove wastes at most a fifth of its full ranking on trying. FTS5 scores
        an AND of whole words cheaply in a smaller catalog (its words' match lists are short;
        `language model` at 100k: 10 ms): there, when the budget is under 256 papers, it does.
        A prefix AND always gets 256 (~25 ms): FTS5 would merge the prefix's matches."""
        rows = self.conn.execute(f"SELECT count(*), sum(matches) FROM {STATE_TABLE} WHERE weights = ? AND term IN"
                                 " (SELECT value FROM json_each(?))", (_WEIGHTS, json.dumps(keys))).first()
        if rows[0] < len(keys):
            return None
        budget = int((rows[1] or 0) * _RESCORE_PER_MATCH)
        if budget < _RESCORE_AT_LEAST:
            if not any(key.endswith("*)") for key in keys):
                return None
            budget = _RESCORE_AT_LEAST
        return budget

    def _rank_now(self, key: str, compiled: CompiledQuery, limit: int, offset: int, with_text: bool) -> list:
        """Rank the list of an AND or phrase, hand it to the store to keep, serve the page."""
        ranked = self.rank_compound_list(key)
        self.lists_to_keep.append(ranked)
        made = ([(r[2], r[3]) for r in ranked["rows"]], ranked["matches"] <= len(ranked["rows"]))
        self.__dict__.setdefault("_ranked_now", {})[key] = made
        return self._made_page(made, compiled, limit, offset, with_text)

    def _made_page(self, made: tuple[list[tuple[int, float]], bool], compiled: CompiledQuery, limit: int,
                   offset: int, with_text: bool) -> list | None:
        """The page from a list ranked in this transaction ((paper id, score) in ranking order,
        whether it holds every match): as _listed_rows reads a stored one."""
        ranked, complete = made
        ranked = self._filtered(ranked, compiled)
        if not complete and len(ranked) < offset + limit:
            return None  # the papers after the list could be on this page
        return self._proven_page(ranked, None, compiled, limit, offset, with_text)

    def _list_now(self, key: str) -> tuple[list[tuple[int, float]], float | None, float | None, float] | None:
        """The papers of one list with their scores under the current statistics (rescored
        after changes, in ranking order); the bound no paper outside it beats on this word
        (None: it holds every match); the same bound on bm25's term part alone (the score
        over the word's IDF: what a phrase holding the word can reach at most in those
        papers); the word's IDF. None when there is no list or it cannot be followed. Only
        the list's first LIST_SIZE papers are read (a deep list's LIST_SIZE-th score the bound,
        topk.DEEP_LIST_SIZE): what reads a list for a bound costs the same at any depth."""
        state = self.conn.execute(
            f"SELECT stamp, weights, listed, matches, papers, tokens, base FROM {STATE_TABLE} WHERE term = ?",
            (key,)).first()
        if state is None or state[1] != _WEIGHTS:
            return None
        if state[0] != self.top_stamp():
            found = self.rescored(key, state, LIST_SIZE)
            if found is None:
                return None
            ranked, bound, weight = found
        else:
            rows = self.conn.execute(f"SELECT paper_id, score FROM {TOP_TABLE} WHERE term = ? ORDER BY position"
                                     " LIMIT ?", (key, LIST_SIZE)).all()
            ranked, weight = [tuple(r) for r in rows], idf(state[4], state[3])
            whole = state[2] >= state[3] and len(rows) >= state[2]  # every match, all of it read
            bound = None if whole or not rows else rows[-1][1]
        part = None if bound is None else -bound / weight * (1 + SLACK)
        return ranked, bound, part, weight

    def and_rows(self, keys: list[str], compiled: CompiledQuery, limit: int, offset: int,
                 with_text: bool, phrase: bool = False) -> list | None:
        """The exact tier's page of an AND of words that all have lists, or of a phrase of
        such words (`phrase`), as rows (fts.search_sql's), or None when the lists do not
        prove it.

        AND: bm25 is the sum of its words' terms (fts5_aux.c adds one per phrase), so a
        matching paper outside every list scores no better than the sum of the lists'
        bounds; a list holding every match of its word leaves no such paper. Phrase: its
        frequency in a paper is at most each word's, so its term part is at most the smallest
        of the words' bounds on theirs, times the phrase's own IDF (its papers counted: one
        pass over the index, no scoring). The papers of the lists that match the query are
        scored with the same scores, bit for bit, as the full ranking: an AND's from the lists
        and the papers' text (_and_scored), a phrase's by FTS5 (_fts_scored)."""
        # Scoring the listed papers costs 20-100 ms at 1M papers; when that did not prove this
        # page on this index, it will not the next time (typing, paging back): go to the full
        # ranking at once. Nor will it prove a page ending further down (a larger page at the
        # same offset, a later page): each test below only gets harder as the page's end, its
        # last paper, moves down the ranking. Only ever a reason not to serve, never a wrong page.
        attempt = (self.top_stamp(), self._dirty_count(), compiled.match, tuple(compiled.where),
                   tuple(map(str, compiled.params)), compiled.reader)
        end = offset + limit
        if _UNPROVEN.get(attempt, end + 1) <= end:
            return None
        lists = []
        for key in keys:
            found = self._list_now(key)
            if found is None:
                return None  # a rare word (no list) or one rescoring cannot follow: rank in full
            lists.append(found)
        scores = [dict(ranked) for ranked, _, _, _ in lists]
        ids = sorted({pid for known in scores for pid in known})
        if phrase:
            parts = [part for _, _, part, _ in lists]
            if None in parts:
                bound = None  # a word's list holds every paper with it: every phrase match too
            else:
                papers = self._totals()[0]
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
        ranked = None if phrase else self._and_scored(keys, lists, bound, compiled, offset + limit)
        if ranked is _TOO_MANY:
            rows = None  # ranking every match costs less than proving this page would
        else:
            if ranked is None:
                ranked = self._fts_scored(ids, compiled)
            rows = self._proven_page(ranked, bound, compiled, limit, offset, with_text)
            if rows is not None:  # its head is the full ranking's too (for _prefix_and_rows)
                self._proven_head = ranked[:offset + limit]
        if rows is None:
            if len(_UNPROVEN) >= 256:
                _UNPROVEN.clear()
            _UNPROVEN[attempt] = min(end, _UNPROVEN.get(attempt, end))
        return rows

    def _fts_scored(self, ids: list[int], compiled: CompiledQuery) -> list[tuple[int, float]]:
        """The listed papers that match the query, scored by FTS5 (the query restricted to
        them), filters applied, in ranking order. For bm25 FTS5 counts each phrase's papers
        first: a prefix's whole match list is merged (over a second at 1M papers)."""
        scored = self.conn.execute(
            f"SELECT rowid, bm25({FTS_TABLE}, {_WEIGHTS}) AS score FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"
            " AND +rowid IN (SELECT value FROM json_each(?))", (compiled.match, json.dumps(ids))).all()
        ranked = sorted(((r[0], r[1]) for r in scored), key=lambda kv: (kv[1], kv[0]))
        return self._filtered(ranked, compiled)

    def _and_scored(self, keys: list[str], lists: list, bound: float | None, compiled: CompiledQuery,
                    depth: int) -> list[tuple[int, float]] | object | None:
        """The listed papers that match an AND query and could be among its first `depth`
        (filters applied), with their bm25 scores bit for bit as FTS5 ranks the query, in
        ranking order, without asking FTS5 to rank it; None when some part cannot be computed
        exactly (then FTS5 scores them: _fts_scored); _TOO_MANY when more papers would have
        to be tokenized again than the budget allows.

        FTS5's bm25 of an AND is -(0.0 + x_1 + x_2 + ...) in its phrases' order, x_i the
        paper's term of phrase i alone: the negated score of that word's (or prefix's) own
        query, which its list holds (or rescored). A paper missing from some lists is scored
        only if it could still reach the page (its known terms plus the other lists' bounds);
        its missing terms come from its own text tokenized again in a small temporary FTS5
        table (the word's or prefix's frequency there, the paper's length in the index, the
        word's IDF from its list's count: bm25() as topk.py recomputes it). Papers that
        cannot reach the page are left out: they rank after it."""
        terms = [_term(key) for key in keys]
        if None in terms:
            return None  # not plain ASCII: the tokenizer's folding is FTS5's to apply
        budget = self._text_budget(keys)
        if budget is None:
            return None
        scores = [dict(ranked) for ranked, _, _, _ in lists]
        bounds = [b for _, b, _, _ in lists]
        weights = [w for _, _, _, w in lists]
        ids = sorted({pid for known in scores for pid in known})
        keep = {pid for pid, _ in self._filtered([(pid, 0.0) for pid in ids], compiled)}
        exact: dict[int, float] = {}
        partial: list[tuple[float, int]] = []  # (best score it could reach, paper)
        for pid in ids:
            if pid not in keep:
                continue
            xs = [-known[pid] if pid in known else None for known in scores]
            if None not in xs:
                exact[pid] = _and_score(xs)
                continue
            if any(x is None and b is None for x, b in zip(xs, bounds)):
                continue  # that list holds every paper with its word: this one lacks it
            best = sum(-b if x is None else x for x, b in zip(xs, bounds))
            partial.append((-best * (1 + SLACK), pid))
        partial.sort()

        def threshold() -> float:
            """A score the page's last paper reaches at least: only papers that can reach it
            are to be scored."""
            ranked = sorted(exact.values())
            last = ranked[depth - 1] if 0 < depth <= len(ranked) else math.inf
            return last if bound is None else min(last, bound)

        papers, tokens = self._totals()
        if not papers:
            return None
        avgdl = tokens / papers
        done, limit, found_ids = 0, threshold(), []
        while done < len(partial) and partial[done][0] <= limit:
            batch = [pid for best, pid in partial[done:done + _BATCH] if best <= limit]
            done += len(batch)
            found_ids += batch
            if done > budget:
                return _TOO_MANY
            found = self._text_terms(batch, terms, weights, scores, avgdl)
            if found is None:
                return None
            exact.update(found)
            limit = threshold()
            if bound is not None and done >= 2 * _BATCH:
                # The page needs `depth` papers beating the bound. Those scored so far were the
                # likeliest; if at their rate the rest would not make up the difference, stop
                # trying (only ever a reason to rank in full).
                beating = sum(1 for score in exact.values() if score < bound)
                rate = sum(1 for pid in found_ids if exact.get(pid, 0.0) < bound) / len(found_ids)
                hopeful = sum(1 for best, _ in partial[done:] if best < bound)
                if beating < depth and beating + rate * hopeful < depth:
                    return _TOO_MANY
        return sorted(exact.items(), key=lambda kv: (kv[1], kv[0]))

    def _text_terms(self, ids: list[int], terms: list[tuple[str, bool]], weights: list[float],
                    scores: list[dict[int, float]], avgdl: float) -> dict[int, float] | None:
        """The AND scores of these papers (those that hold every word), their missing terms
        from their text tokenized again; None when the index and the text disagree."""
        self.conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {TEXT_TABLE} USING fts5({', '.join(FTS_COLUMNS)},"
                          f" tokenize={TOKENIZER!r}, content='')")
        self.conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {TEXT_WORDS}"
                          f" USING fts5vocab(temp, {TEXT_TABLE.split('.')[1]}, 'instance')")
        clear = f"INSERT INTO {TEXT_TABLE}({TEXT_TABLE.split('.')[1]}) VALUES ('delete-all')"
        self.conn.execute(clear)
        cols = ", ".join(FTS_COLUMNS)
        self.conn.execute(f"INSERT INTO {TEXT_TABLE}(rowid, {cols}) SELECT id, {cols} FROM paper"
                          " WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
        try:
            lengths = self._lengths(ids)
            # Their lengths tokenized again: the index's, or the text is not what it indexed.
            again = {r[0]: sum(_varints(r[1])) for r in self.conn.execute(f"SELECT id, sz FROM {TEXT_TABLE}_docsize")}
            freqs = [self._now_freqs(word, prefix, [pid for pid in ids if pid not in known], TEXT_WORDS)
                     for (word, prefix), known in zip(terms, scores)]
        finally:
            self.conn.execute(clear)
        out = {}
        for pid in ids:
            if pid not in lengths or again.get(pid) != lengths[pid]:
                return None
            xs = []
            for known, freq, weight in zip(scores, freqs, weights):
                if pid in known:
                    xs.append(-known[pid])
                elif freq.get(pid):
                    xs.append(-bm25(weight, freq[pid], lengths[pid], avgdl))
                else:
                    break  # it lacks this word: no match
            else:
                out[pid] = _and_score(xs)
        return out


def _and_score(xs: list[float]) -> float:
    """FTS5's bm25 of an AND from its phrases' terms, added in the same order (fts5_aux.c)."""
    total = 0.0
    for x in xs:
        total += x
    return -1.0 * total
