"""Making and keeping SQLite's ranked lists: which words and prefixes get one, ranking and
writing them, dropping those no longer wanted, and what doctor checks of them.

A word's list is ranked by FTS5 itself (the exact tier's `ORDER BY bm25, rowid LIMIT n`), so it
is the full ranking's head by construction; each paper's term frequency and length are kept
beside its score (recovered from the score, and checked bit for bit) so that the list can be
rescored after changes (sqlite_words.py). A list of several words keeps neither: it is read
only while the index is as it was ranked on.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from catalog.store.rows import ListProblems
from catalog.store.lists import scoring
from catalog.store.lists.records import IndexRecords, KnownLengths
from catalog.store.lists.scoring import DEEP_LIST_SIZE, LIST_SIZE, bm25, idf, matches_from_scores
from catalog.store.lists.sqlite_words import (CHOSEN_AT, RANKED, STATE_TABLE, TOP_TABLE, WEIGHTS, ChangedPapers,
                                              WordLists, read_state)
from catalog.store.fts5 import FTS_TABLE, VOCAB_TABLE

# Lists of ANDs and phrases of frequent words kept at most, the oldest ranked dropped first:
# 1,000 papers each (~50 KB).
SEVERAL_LISTS = 500
# A list's matches are told by the scores of its first this many papers (then checked on all).
TOLD_BY = 16
COUNT = f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"


@dataclass(frozen=True)
class RankedList:
    """A list as the index ranked it, to be written (ListBuilder.store): its rows are
    (position, paper id, score, term frequency, length); `stamp` the index's when ranked."""

    key: str
    stamp: bytes | None
    rows: list[tuple]
    matches: int
    papers: int
    tokens: int
    base: int | None


def _frequencies(best: list, lengths: dict[int, int], papers: int, matches: int, avgdl: float
                 ) -> tuple[list[tuple], bool]:
    """A ranking's rows (position, paper id, score, term frequency, length), and whether every
    frequency gives its score back bit for bit (else none is kept)."""
    rows, exact = [], bool(papers)
    weight = idf(papers, matches)
    for position, row in enumerate(best):
        length, freq = lengths.get(row["id"]), None
        if exact and length is not None:
            freq = scoring.frequency_of(row["score"], weight, length, avgdl)
        if freq is None or bm25(weight, freq, length, avgdl) != row["score"]:
            exact, freq = False, None
        rows.append((position, row["id"], row["score"], freq, length))
    if not exact:
        rows = [(position, pid, score, None, None) for position, pid, score, _, _ in rows]
    return rows, exact


class ListBuilder:
    """Ranking, writing and checking lists in one transaction."""

    def __init__(self, conn, records: IndexRecords, changes: ChangedPapers, words: WordLists):
        self.conn = conn
        self.records = records
        self.changes = changes
        self.words = words

    def vocabulary(self) -> list[tuple[str, int]]:
        """(word, papers holding it) of every word of the index."""
        return [(r["term"], r["doc"]) for r in self.conn.execute(f"SELECT term, doc FROM {VOCAB_TABLE}").all()]

    def kept(self) -> dict[str, int]:
        """Key -> papers matching, of every list kept (and of CHOSEN_AT: the catalog's size
        when the words were chosen)."""
        return {r["term"]: r["matches"] for r in self.conn.execute(f"SELECT term, matches FROM {STATE_TABLE}").all()}

    def keys(self) -> list[str]:
        return [key for key in self.kept() if key != CHOSEN_AT]

    def rank(self, key: str, size: int | None = None, known: KnownLengths | None = None,
             matches: int | None = None) -> RankedList:
        """One list as the index ranks it now (a read: seconds for the most frequent words at
        1M papers). Each paper's term frequency and length are kept for rescoring after
        changes (recovered from its score, and checked: a list whose scores they do not
        reproduce bit for bit keeps none, and is not rescored). `size` None: as deep as
        scoring.list_depth says for the papers it matches. `known`: lengths read by the
        rankings before this one (a refresh's). `matches`: how many papers the key matches
        on the index as it is now, when the caller knows it exactly (exact_matches)."""
        if scoring.of_several(key):
            return self.rank_several(key, LIST_SIZE if size is None else size)
        papers, tokens = self.records.totals()
        avgdl = tokens / papers if papers else 1.0
        # Ranked once, as deep as any list is, and cut to its depth once its matches are known:
        # counting them first read every match of the key once more (a tenth of the ranking,
        # a quarter at `a*`). The ranking's own scores tell its IDF, so its matches, unless a
        # key in half the papers or more (the IDF is then a floor) or scores that do not add up.
        best = self.conn.execute(RANKED, (key, DEEP_LIST_SIZE if size is None else size)).all()
        ids = [r["id"] for r in best]
        lengths = known.lengths(self.records, ids) if known is not None else self.records.lengths(ids)
        told = None
        if len(best) < (DEEP_LIST_SIZE if size is None else size):
            matches = len(best)
        elif matches is None:
            told = matches_from_scores([(r["score"], lengths.get(r["id"])) for r in best[:TOLD_BY]], papers, avgdl)
            matches = told if told is not None else self.conn.execute(COUNT, (key,)).scalar()
        depth = scoring.list_depth(matches, papers) if size is None else size
        rows, exact = _frequencies(best[:depth], lengths, papers, matches, avgdl)
        if told is not None and not exact:  # a score the told count does not give back: count them
            matches = self.conn.execute(COUNT, (key,)).scalar()
            depth = scoring.list_depth(matches, papers) if size is None else size
            rows, exact = _frequencies(best[:depth], lengths, papers, matches, avgdl)
        return RankedList(key, self.records.stamp(), rows, matches, papers, tokens,
                          self._base(key, matches) if exact else None)

    def _base(self, key: str, matches: int) -> int:
        """The matches a rescored list counts from: those at this ranking, as if the changed
        papers still held their text then."""
        return matches + self.changes.matching_then(key) - len(self.changes.matching_now(key))

    def spans(self, keys: list[str], words: list[tuple[str, int]] | None = None) -> dict[str, tuple[str, str]]:
        """Of each word's or prefix's key (plain ASCII: scoring.term): the first and the last
        word of the index it matches, in the index's order. Keys of one span match the same
        words, so they are one list under several keys (`("such")` and `("such"*)`,
        `("explai"*)` and `("explain"*)`): ranked once (alias). A key no word matches has none.
        `words`: the vocabulary, when read already (else each prefix's range is asked of it)."""
        terms = sorted(term for term, _ in words) if words is not None else None
        out = {}
        for key in keys:
            found = scoring.term(key)
            if found is None or scoring.of_several(key):
                continue
            word, prefix = found
            if not prefix:
                out[key] = (word, word)
                continue
            if terms is not None:
                first, last = bisect_left(terms, word), bisect_left(terms, scoring.after_prefix(word))
                if first < last:
                    out[key] = (terms[first], terms[last - 1])
                continue
            row = self.conn.execute(f"SELECT min(term) AS first, max(term) AS last FROM {VOCAB_TABLE}"
                                    " WHERE term >= ? AND term < ?", (word, scoring.after_prefix(word))).first()
            if row is not None and row["first"] is not None:
                out[key] = (row["first"], row["last"])
        return out

    @staticmethod
    def exact_matches(spans: dict[str, tuple[str, str]], words: list[tuple[str, int]]) -> dict[str, int]:
        """Of the keys whose span (spans) is one word of the index: the papers they match, from
        the vocabulary `words` (fts5vocab's count of the papers holding each word, read on the
        same index): a query of that word alone matches exactly those. Ranking such a key
        then counts nothing, even in half the papers or more (where its scores cannot tell
        its matches: `the`, `model`)."""
        papers = dict(words)
        return {key: papers[first] for key, (first, last) in spans.items() if first == last and first in papers}

    def alias(self, made: RankedList, key: str) -> RankedList:
        """The list `made` under another key of the same span (spans): the same papers and
        scores, counted from its own changed papers."""
        base = self._base(key, made.matches) if made.base is not None else None
        return RankedList(key, made.stamp, made.rows, made.matches, made.papers, made.tokens, base)

    def rank_several(self, key: str, size: int = LIST_SIZE) -> RankedList:
        """The list of an AND or a phrase as the index ranks it now: the query's own ranking,
        its head. Neither its matches are counted (a second pass over all of them, as long as
        ranking them: `matches` says only "more than listed") nor its papers' frequencies
        kept: such a list is read only while its stamp is the current one, never rescored."""
        best = self.conn.execute(RANKED, (key, size)).all()
        papers, tokens = self.records.totals()
        matches = len(best) if len(best) < size else len(best) + 1
        rows = [(position, r["id"], r["score"], None, None) for position, r in enumerate(best)]
        return RankedList(key, self.records.stamp(), rows, matches, papers, tokens, None)

    def store(self, made: RankedList) -> bool:
        """Write a list `rank` made, unless the index changed since (False)."""
        if made.stamp != self.records.stamp():
            return False
        key = made.key
        if scoring.of_several(key):
            # Age: the state row's rowid. A list of several words is written as a new row (the
            # largest rowid), so the smallest are the oldest ranked; past SEVERAL_LISTS they are
            # dropped.
            self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE term = ?", (key,))
            self.drop(self.conn.execute(
                f"SELECT term FROM {STATE_TABLE} WHERE term LIKE '% %' ORDER BY rowid DESC LIMIT -1 OFFSET ?",
                (SEVERAL_LISTS - 1,)).scalars())
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE term = ?", (key,))
        self.conn.executemany(f"INSERT INTO {TOP_TABLE}(term, position, paper_id, score, freq, length)"
                              " VALUES (?, ?, ?, ?, ?, ?)", [(key, *row) for row in made.rows])
        self.conn.execute(
            f"INSERT INTO {STATE_TABLE}(term, stamp, weights, listed, matches, papers, tokens, base)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (term) DO UPDATE SET stamp = excluded.stamp, weights = excluded.weights,"
            " listed = excluded.listed, matches = excluded.matches, papers = excluded.papers,"
            " tokens = excluded.tokens, base = excluded.base",
            (key, made.stamp, WEIGHTS, len(made.rows), made.matches, made.papers, made.tokens, made.base))
        return True

    def build(self, key: str) -> int:
        """(Re)build one list from the full ranking, in this transaction; how many papers it
        matches."""
        made = self.rank(key)
        self.store(made)
        return made.matches

    def choose(self, wanted: list[tuple[str, int]], papers: int) -> None:
        """Keep lists for the `wanted` words and prefixes ((key, papers matching)) of a catalog
        of `papers`: the others of words and prefixes are forgotten (lists of several words
        stay: their searches made them, and the cap keeps their number); each wanted one
        without a list gets a state row, unranked (never read, stale until ranked), so that
        a refresh cut short resumes with it."""
        keep = {key for key, _ in wanted}
        self.drop([key for key in self.keys() if key not in keep and not scoring.of_several(key)])
        self.conn.executemany(f"INSERT INTO {STATE_TABLE}(term, stamp, weights, listed, matches) VALUES"
                              " (?, NULL, '', 0, ?) ON CONFLICT (term) DO NOTHING", wanted)
        self.conn.execute(f"INSERT INTO {STATE_TABLE}(term, stamp, weights, listed, matches) VALUES (?, NULL, '', 0, ?)"
                          " ON CONFLICT (term) DO UPDATE SET matches = excluded.matches", (CHOSEN_AT, papers))

    def drop(self, keys: list[str]) -> None:
        for key in keys:
            self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE term = ?", (key,))
            self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE term = ?", (key,))

    # --- what searches cannot read -----------------------------------------------------------------

    def stale(self, keys: list[str] | None = None, *, rescored: bool = True) -> list[str]:
        """The lists (of `keys`, or all of words and prefixes) a search would not read: missing,
        unranked, or ranked on an older index (with `rescored`: only those rescoring cannot
        follow either). A list of several words is never rescored: stale once the index
        changed, which is no fault (the next search of its words ranks it again), so only
        `keys` asks for those."""
        stamp = self.records.stamp()
        fresh = set(self.conn.execute(f"SELECT term FROM {STATE_TABLE} WHERE stamp = ? AND weights = ?",
                                      (stamp, WEIGHTS)).scalars())
        if rescored and not self.changes.too_many():
            fresh |= set(self.conn.execute(
                f"SELECT term FROM {STATE_TABLE} WHERE weights = ? AND base IS NOT NULL AND term NOT LIKE '% %'",
                (WEIGHTS,)).scalars())
        if keys is None:
            keys = self.conn.execute(f"SELECT term FROM {STATE_TABLE} WHERE term != ? AND term NOT LIKE '% %'",
                                     (CHOSEN_AT,)).scalars()
        return [k for k in keys if k not in fresh]

    def several(self) -> tuple[list[str], list[str]]:
        """(every list of several words kept, oldest ranked first; those ranked on an older
        index)."""
        rows = self.conn.execute(f"SELECT term, stamp = ? AND weights = ? AS fresh FROM {STATE_TABLE}"
                                 " WHERE term LIKE '% %' ORDER BY rowid", (self.records.stamp(), WEIGHTS)).all()
        return [r["term"] for r in rows], [r["term"] for r in rows if not r["fresh"]]

    def forget_changes(self) -> bool:
        """When every list is ranked on the index as it is now: forget the changed papers."""
        return self.changes.forget(self.records.stamp())

    # --- doctor ----------------------------------------------------------------------------------------

    def problems(self) -> ListProblems:
        return ListProblems(self.stale(), self.differing(), self.choose_at())

    def choose_at(self) -> int | None:
        """The catalog's size when its frequent words are to be chosen: big enough for lists,
        and none chosen yet, or it grew or shrank by a quarter since; else None."""
        papers = self.conn.execute("SELECT count(*) FROM paper").scalar()
        seen = self.kept().get(CHOSEN_AT)
        if not scoring.keeps_lists(papers) or (seen is not None and not scoring.catalog_resized(seen, papers)):
            return None
        return papers

    def differing(self, how_many: int = 3, depth: int = 50) -> list[str]:
        """Lists a search reads (the `how_many` of fewest matches: quick to rank in full) whose
        head (as stored, or rescored after changes) differs from the full ranking's."""
        stamp = self.records.stamp()
        unread = set(self.stale(rescored=True)) | set(self.several()[1])
        keys = self.conn.execute(f"SELECT term FROM {STATE_TABLE} WHERE term != ? AND weights = ?"
                                 " ORDER BY matches, term", (CHOSEN_AT, WEIGHTS)).scalars()
        wrong = []
        for key in [k for k in keys if k not in unread][:how_many]:
            state = read_state(self.conn, key)
            full = [(r["id"], r["score"]) for r in self.conn.execute(RANKED, (key, depth)).all()]
            if state.stamp == stamp:
                listed = [(r["paper_id"], r["score"]) for r in self.conn.execute(
                    f"SELECT paper_id, score FROM {TOP_TABLE} WHERE term = ? ORDER BY position LIMIT ?",
                    (key, depth)).all()]
            else:
                found = self.words.rescored(state, LIST_SIZE)
                if found is None:
                    continue
                best, bound, _ = found
                listed = [r for r in best if bound is None or r[1] < bound][:depth]
                full = full[:len(listed)]
            if full != listed:
                wrong.append(key)
        return wrong

    def repair(self) -> tuple[int, int]:
        """Rebuild any list unlike the ranking; drop the lists of several words ranked before
        the last change (no problem: the next search of each ranks it again, which ranking
        hundreds here would only do sooner). The lists out of date are the refresh's, after.
        (rebuilt, dropped)."""
        differing = self.differing()
        for key in differing:
            self.build(key)
        dropped = [k for k in self.several()[1] if k not in differing]
        self.drop(dropped)
        return len(differing), len(dropped)

    def note(self) -> str | None:
        """doctor's line on the lists kept: how many, of what, how many of several words a
        search will rank again."""
        words = self.conn.execute(f"SELECT count(*) FROM {STATE_TABLE} WHERE term != ? AND term NOT LIKE '% %'",
                                  (CHOSEN_AT,)).scalar()
        several, stale = self.several()
        if not words and not several:
            return None
        papers = self.conn.execute("SELECT count(*) FROM paper").scalar()
        note = f"ranked lists: {words:,} words and prefixes in {scoring.min_matches(papers):,}+ papers"
        if several:
            note += f" and {len(several):,} search{'es' if len(several) != 1 else ''} of several of them"
            if stale:
                note += (f" ({len(stale):,} ranked before the last change: the next search of each"
                         " ranks it again)")
        deep = self.conn.execute(f"SELECT count(*) FROM {STATE_TABLE} WHERE term != ? AND term NOT LIKE '% %'"
                                 " AND listed > ?", (CHOSEN_AT, LIST_SIZE)).scalar()
        note += f", each listing its best {LIST_SIZE:,} by bm25"
        if deep:
            note += (f" ({deep:,} of them, in {scoring.DEEP_SHARE:.0%}+ of the papers, their best"
                     f" {scoring.DEEP_LIST_SIZE:,})")
        return note
