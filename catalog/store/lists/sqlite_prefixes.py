"""SQLite: the page of an AND with a prefix (`the mode*`) from the head of the same AND with a
shorter prefix (`the mod*`) ranked or proved on the index as it is (this store remembers it, or
the catalog keeps it as a list of its own): typing a word after a frequent one ranks every
match once, for the word's first letters, not at each letter after them.

Why it holds: every paper matching `the mode*` matches `the mod*`, and bm25's term of a prefix
grows with its frequency in the paper, which a longer prefix can only lower (its words are
some of the shorter one's): the paper's term of `mode*` is at most its term of `mod*` times
the ratio r of the two prefixes' IDFs, the other words' terms are the same, so its score on
`the mode*` is at most max(1, r) times its score on `the mod*`. A paper after the head scored
no better than the head's last on `the mod*`, so none can beat max(1, r) times that score
(the bound; when r > 1 the longer prefix's own list narrows it: LongerPrefix._narrowed). The
head's papers are scored exactly (their text tokenized again, Retokenized), best first, until
the rest cannot reach the page; the page is served when its last paper beats the bound.

When both words match most of a catalog (at 1M synthetic papers, `the` and `mod*` in 98% and
85%: both IDFs are FTS5's floor, 1e-6, and neither word orders the papers) no word's list
proves such an AND: the top 50 of `the mod*` score below what a paper could reach outside both
lists until about the 10,000th of each, and deeper lists would not do: the depth at which they
prove it with few papers tokenized again is a share of the catalog (docs/benchmarks.md). Its
first search ranks every match and the catalog keeps the head (sqlite_several.py); the letters
typed after it are proven here, in any process.
"""

from __future__ import annotations

import math

from catalog.store.compiler import CompiledQuery
from catalog.store.lists import scoring
from catalog.store.lists.records import IndexRecords
from catalog.store.lists.scoring import SLACK, idf, ranked
from catalog.store.lists.sqlite_words import WordLists
from catalog.store.fts5 import FTS_TABLE

BATCH = 32  # papers tokenized again at once (as the AND proofs do: sqlite_several.BATCH)
# Papers tokenized again at most for one page (0.1-0.2 ms each at 1M papers): past it the
# search goes on as if there were no shorter head.
MOST = 512


class LongerPrefix:
    """Pages of prefix ANDs proven from the head of a shorter prefix, in one transaction.
    `head_of(keys)`: the head of the AND of `keys` on the index as it is (the store remembers
    it, or the catalog keeps it: SeveralWords.head), or None."""

    def __init__(self, conn, words: WordLists, retokenized, records: IndexRecords, head_of):
        self.conn = conn
        self.words = words
        self.retokenized = retokenized
        self.records = records
        self.head_of = head_of
        self.head: list[tuple[int, float]] | None = None  # the proven page's head, to remember

    def page(self, keys: list[str], compiled: CompiledQuery, limit: int, offset: int, with_text: bool,
             budget: int = MOST) -> list | None:
        """The page of the AND of `keys` (one of them a plain ASCII prefix, no filters) from the
        head of a shorter prefix (the longest first), tokenizing at most `budget`
        papers again (and MOST) for each head tried; or None."""
        self.head = None
        for at, key in enumerate(keys):
            found = scoring.term(key)
            if found is None or not found[1]:
                continue
            word = found[0]
            for letters in range(len(word) - 1, 0, -1):
                shorter = scoring.key_of(word[:letters], prefix=True)
                head = self.head_of([*keys[:at], shorter, *keys[at + 1:]])
                if head is None or (not head[1] and len(head[0]) <= offset + limit):
                    continue  # none, or no deeper than the page: its last could not beat the bound
                rows = self._proven(head, keys, at, shorter, compiled, limit, offset, with_text, min(budget, MOST))
                if rows is not None:
                    return rows
        return None

    def _proven(self, head: tuple[list[tuple[int, float]], bool], keys: list[str], at: int, shorter: str,
                compiled: CompiledQuery, limit: int, offset: int, with_text: bool, most: int) -> list | None:
        """The page from `head` (the shorter AND's best, in ranking order; whether it holds
        every match), its `at`-th key the `shorter` prefix of keys[at]; None unless proven."""
        best, complete = head
        if not best:
            return [] if complete else None
        terms = [scoring.term(key) for key in keys]
        papers, tokens = self.records.totals()
        if None in terms or not papers:
            return None
        lists = {key: self.words.now(key) for key in {*keys, shorter}}  # (best, bound, part, IDF) or None
        weights = [self._weight(key, lists[key], papers) for key in keys]
        ratio = max(1.0, weights[at] / self._weight(shorter, lists[shorter], papers))
        reach = [(ratio * score * (1 + SLACK), pid) for pid, score in best]  # the best each could score
        bound = None if complete else ratio * best[-1][1] * (1 + SLACK)
        if ratio > 1.0 and bound is not None and lists[keys[at]] is not None:
            reach, bound = self._narrowed(best, lists[keys[at]], ratio)
        known = [{} if lists[key] is None else dict(lists[key][0]) for key in keys]
        depth = offset + limit
        exact: dict[int, float] = {}

        def limit_now() -> float:
            """A score a paper must beat to be on the page: the depth-th best so far, or the bound."""
            found = sorted(exact.values())
            last = found[depth - 1] if len(found) >= depth else math.inf
            return last if bound is None else min(last, bound)

        done = 0
        while done < len(reach) and reach[done][0] < limit_now():
            if done >= most:
                return None
            batch = [pid for _, pid in reach[done:done + BATCH]]
            done += len(batch)
            found = self.retokenized.scores(batch, terms, weights, known, tokens / papers)
            if found is None:
                return None
            exact.update(found)  # those holding every word (the others do not match)
        scored = ranked(exact)
        rows = self.words.proven_page(scored, bound, compiled, limit, offset, with_text)
        if rows is not None:
            self.head = scored[:depth]
        return rows

    @staticmethod
    def _narrowed(best: list[tuple[int, float]], longer, ratio: float
                  ) -> tuple[list[tuple[float, int]], float]:
        """Candidates (the best score each could reach, paper), best first, and the bound on
        every other paper, when the longer prefix's IDF is `ratio` (> 1) times the shorter's
        and it has a list (`longer`: WordLists.now's). With T the head's last score negated
        and x a paper's term of the longer prefix: a paper after the head scores at most
        T - x / ratio + x (its term of the shorter prefix, at least x / ratio, was part of a
        score of at most T), so at most T + x (1 - 1/ratio), and x is at most the longer
        prefix's list bound for a paper outside that list. Tighter than ratio * T when a
        word's term is a part of the AND's score; the list's papers after the head become
        candidates."""
        last = -best[-1][1]
        listed, outside = longer[0], (0.0 if longer[1] is None else -longer[1])
        in_head = {pid for pid, _ in best}

        def most(x: float) -> float:
            return -min(ratio * last, last + x * (1 - 1 / ratio)) * (1 + SLACK)

        reach = [(ratio * score * (1 + SLACK), pid) for pid, score in best]
        reach += [(most(-score), pid) for pid, score in listed if pid not in in_head]
        return sorted(reach), most(outside)

    def _weight(self, key: str, listed, papers: int) -> float:
        """The IDF of a word or prefix now: its list's (`listed`: WordLists.now's), else its
        papers counted."""
        if listed is not None:
            return listed[3]
        return idf(papers, self.conn.execute(f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?",
                                             (key,)).scalar())
