"""Making and keeping the ranked lists of topk.py (issue 16): which words and prefixes get one,
ranking and writing them, dropping those no longer wanted, what `catalog doctor` reports, and
the refresh after imports (store.lists.refresh, `behind`: what an import asks first).

topk.py reads the lists and follows edits by rescoring; topand.py ranks the lists of ANDs and
phrases its searches need through `rank_compound_list` here. The tunables the tests change for
a whole run (topk.MIN_MATCHES, DEEP_SHARE, DIRTY_LIMIT) are read from topk when used.
"""

from __future__ import annotations

import time
from collections import Counter

from catalog.store.ranked import catalog_resized
from catalog.store.sqlite import topk
from catalog.store.sqlite.fts import FTS_TABLE, VOCAB_TABLE
from catalog.store.sqlite.topk import (_RANKED, _WEIGHTS, CHOSEN_AT, DEEP_LIST_SIZE, LIST_SIZE, NOW_TABLE, STATE_TABLE,
                                       TOP_TABLE, WAS_TABLE, B, K1, bm25, compound, idf, key_of, list_depth,
                                       min_matches)

# Lists of ANDs and phrases of frequent words (topand.py) kept at most, the oldest ranked dropped
# first: 1,000 papers each (~50 KB).
COMPOUND_LISTS = 500
# Of those, a refresh ranks again the newest this many when stale: all 500 would keep the
# background refresher busy for minutes after an import at 1M papers (0.2-2.4 s each).
COMPOUND_REFRESH = 50


def candidates(words: list[tuple[str, int]], min_matches: int) -> list[tuple[str, int]]:
    """(list key, papers it matches at most) of the words and prefixes (of any length) that get
    a list, most papers first: those matching at least `min_matches` papers."""
    prefixes: Counter = Counter()
    for term, n in words:
        for length in range(1, len(term) + 1):  # the whole word as a prefix too (`model*`)
            prefixes[term[:length]] += n
    out = [(key_of(term), n) for term, n in words if n >= min_matches]
    out += [(key_of(p, prefix=True), n) for p, n in prefixes.items() if n >= min_matches]
    return sorted(out, key=lambda kn: (-kn[1], kn[0]))


class TopListUpkeep:
    """Mixed into the SQLite transaction with TopLists (topk.py), whose reading and
    rescoring it relies on."""

    def words(self) -> list[tuple[str, int]]:
        return [(r[0], r[1]) for r in self.conn.execute(f"SELECT term, doc FROM {VOCAB_TABLE}").all()]

    def build(self, key: str, size: int | None = None) -> int:
        """(Re)build one list from the full ranking, in this transaction; how many papers it
        matches."""
        ranked = self.rank_top_list(key, size)
        self.store_top_list(ranked)
        return ranked["matches"]

    def rank_top_list(self, key: str, size: int | None = None) -> dict:
        """One list as the index ranks it now (a read: seconds for the most frequent words):
        what store_top_list writes. Each paper's term frequency and length are kept for
        rescoring after changes (recovered from its score, and checked: a list whose scores
        they do not reproduce bit for bit keeps none, and is not rescored). `size` None: as deep
        as list_depth says for the papers it matches (counted first)."""
        if compound(key):
            return self.rank_compound_list(key, LIST_SIZE if size is None else size)
        papers, tokens = self._totals()
        count = f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?"
        if size is None:  # its depth by the share of papers it matches (list_depth)
            matches = self.conn.execute(count, (key,)).scalar()
            size = list_depth(matches, papers)
            ranked = self.conn.execute(_RANKED, (key, size)).all()
        else:
            ranked = self.conn.execute(_RANKED, (key, size)).all()
            matches = len(ranked) if len(ranked) < size else self.conn.execute(count, (key,)).scalar()
        lengths = self._lengths([r[0] for r in ranked])
        rows, exact = [], bool(papers)
        weight, avgdl = idf(papers, matches), tokens / papers if papers else 1.0
        for i, (pid, score) in enumerate(ranked):
            length = lengths.get(pid)
            freq = None
            if exact and length is not None:
                g = -score / weight
                k = K1 * (1 - B + B * length / avgdl)
                freq = float(round(g * k / (K1 + 1.0 - g))) if g < K1 + 1.0 else None
            if freq is None or bm25(weight, freq, length, avgdl) != score:
                exact, freq = False, None
            rows.append((key, i, pid, score, freq, length))
        if not exact:
            rows = [(key, i, pid, score, None, None) for key, i, pid, score, _, _ in rows]
        was = self.conn.execute(f"SELECT count(*) FROM {WAS_TABLE} WHERE {WAS_TABLE} MATCH ?", (key,)).scalar()
        now = self.conn.execute(f"SELECT count(*) FROM {NOW_TABLE} WHERE {NOW_TABLE} MATCH ?", (key,)).scalar()
        return {"key": key, "stamp": self.top_stamp(), "rows": rows, "matches": matches, "papers": papers,
                "tokens": tokens, "base": matches + was - now if exact else None}

    def rank_compound_list(self, key: str, size: int = LIST_SIZE) -> dict:
        """The list of an AND or a phrase (topand.py) as the index ranks it now: the query's
        own ranking, its head. Neither its matches are counted (a second pass over all of
        them, as long as ranking them: `matches` says only "more than listed") nor its papers'
        frequencies kept: such a list is read only while its stamp is the current one, never
        rescored (bm25 of several phrases after edits is not worth following)."""
        ranked = self.conn.execute(_RANKED, (key, size)).all()
        papers, tokens = self._totals()
        matches = len(ranked) if len(ranked) < size else len(ranked) + 1
        return {"key": key, "stamp": self.top_stamp(), "rows": [(key, i, pid, score, None, None)
                for i, (pid, score) in enumerate(ranked)], "matches": matches, "papers": papers,
                "tokens": tokens, "base": None}

    def store_top_list(self, ranked: dict) -> bool:
        """Write a list rank_top_list made, unless the index changed since (False)."""
        if ranked["stamp"] != self.top_stamp():
            return False
        key = ranked["key"]
        if compound(key):
            # Age: term_top_state's rowid. A list of several words is written as a new row
            # (the largest rowid), so the smallest are the oldest ranked; past COMPOUND_LISTS
            # they are dropped. (No time column: none needed, and no migration.)
            self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE term = ?", (key,))
            old = [r[0] for r in self.conn.execute(
                f"SELECT term FROM {STATE_TABLE} WHERE term LIKE '% %' ORDER BY rowid DESC LIMIT -1 OFFSET ?",
                (COMPOUND_LISTS - 1,)).all()]
            for term in old:
                self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE term = ?", (term,))
                self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE term = ?", (term,))
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE term = ?", (key,))
        self.conn.executemany(f"INSERT INTO {TOP_TABLE}(term, position, paper_id, score, freq, length)"
                              " VALUES (?, ?, ?, ?, ?, ?)", ranked["rows"])
        self.conn.execute(
            f"INSERT INTO {STATE_TABLE}(term, stamp, weights, listed, matches, papers, tokens, base)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (term) DO UPDATE SET stamp = excluded.stamp, weights = excluded.weights,"
            " listed = excluded.listed, matches = excluded.matches, papers = excluded.papers,"
            " tokens = excluded.tokens, base = excluded.base",
            (key, ranked["stamp"], _WEIGHTS, len(ranked["rows"]), ranked["matches"], ranked["papers"],
             ranked["tokens"], ranked["base"]))
        return True

    def drop_top_lists(self, keep: set[str]) -> None:
        """Forget the lists of words and prefixes not in `keep` (no longer frequent). Lists of
        several words stay: their searches made them, and the cap keeps their number."""
        for (key,) in self.conn.execute(f"SELECT term FROM {STATE_TABLE}").all():
            if key not in keep and key != CHOSEN_AT and not compound(key):
                self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE term = ?", (key,))
                self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE term = ?", (key,))

    def stale(self, keys: list[str] | None = None, *, rescored: bool = True) -> list[str]:
        """The lists (of `keys`, or all kept of words and prefixes) a search would not read:
        missing, or ranked on an older index (with `rescored`: only those rescoring cannot
        follow either). A list of several words is never rescored: stale once the index
        changed, which is no fault (the next search of its words ranks it again), so only
        `keys` asks for those (refresh; compound_lists counts them for doctor)."""
        stamp = self.top_stamp()
        fresh = {r[0] for r in self.conn.execute(
            f"SELECT term FROM {STATE_TABLE} WHERE stamp = ? AND weights = ?", (stamp, _WEIGHTS)).all()}
        if rescored and self._dirty_count() <= topk.DIRTY_LIMIT:
            fresh |= {r[0] for r in self.conn.execute(
                f"SELECT term FROM {STATE_TABLE} WHERE weights = ? AND base IS NOT NULL AND term NOT LIKE '% %'",
                (_WEIGHTS,)).all()}
        if keys is None:
            keys = [r[0] for r in self.conn.execute(f"SELECT term FROM {STATE_TABLE} WHERE term != ?"
                                                    " AND term NOT LIKE '% %'", (CHOSEN_AT,)).all()]
        return [k for k in keys if k not in fresh]

    def several(self) -> tuple[list[str], list[str]]:
        """(every list of several words kept, oldest ranked first; those ranked on an older
        index): doctor's note and --fix."""
        stamp = self.top_stamp()
        rows = self.conn.execute(f"SELECT term, stamp = ? AND weights = ? FROM {STATE_TABLE}"
                                 " WHERE term LIKE '% %' ORDER BY rowid", (stamp, _WEIGHTS)).all()
        return [r[0] for r in rows], [r[0] for r in rows if not r[1]]

    def drop(self, keys: list[str]) -> None:
        for key in keys:
            self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE term = ?", (key,))
            self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE term = ?", (key,))

    def note(self) -> str | None:
        """doctor's line on the lists kept: how many, of what, how many of several words a
        search will rank again."""
        words = self.conn.execute(f"SELECT count(*) FROM {STATE_TABLE} WHERE term != ? AND term NOT LIKE '% %'",
                                  (CHOSEN_AT,)).scalar()
        several, stale = self.several()
        if not words and not several:
            return None
        papers = self.conn.execute("SELECT count(*) FROM paper").scalar()
        note = f"ranked lists: {words:,} words and prefixes in {min_matches(papers):,}+ papers"
        if several:
            note += f" and {len(several):,} search{'es' if len(several) != 1 else ''} of several of them"
            if stale:
                note += (f" ({len(stale):,} ranked before the last change: the next search of each"
                         " ranks it again)")
        deep = self.conn.execute(f"SELECT count(*) FROM {STATE_TABLE} WHERE term != ? AND term NOT LIKE '% %'"
                                 " AND listed > ?", (CHOSEN_AT, LIST_SIZE)).scalar()
        note += f", each listing its best {LIST_SIZE:,} by bm25"
        if deep:
            note += (f" ({deep:,} of them, in {topk.DEEP_SHARE:.0%}+ of the papers, their best"
                     f" {DEEP_LIST_SIZE:,})")
        return note

    def mismatches(self, how_many: int = 3, depth: int = 50) -> list[str]:
        """Lists a search reads (the `how_many` of fewest matches: quick to rank in full) whose
        head (as stored, or rescored after changes) differs from the full ranking's."""
        stamp = self.top_stamp()
        unread = set(self.stale(rescored=True)) | set(self.several()[1])
        states = [r for r in self.conn.execute(
            f"SELECT term, stamp, weights, listed, matches, papers, tokens, base FROM {STATE_TABLE}"
            " WHERE term != ? AND weights = ? ORDER BY matches, term", (CHOSEN_AT, _WEIGHTS)).all()
            if r[0] not in unread][:how_many]
        wrong = []
        for state in states:
            key = state[0]
            full = [tuple(r) for r in self.conn.execute(_RANKED, (key, depth)).all()]
            if state[1] == stamp:
                listed = [tuple(r) for r in self.conn.execute(
                    f"SELECT paper_id, score FROM {TOP_TABLE} WHERE term = ? ORDER BY position LIMIT ?",
                    (key, depth)).all()]
            else:
                found = self.rescored(key, state[1:], LIST_SIZE)
                if found is None:
                    continue
                ranked, bound, _ = found
                listed = [r for r in ranked if bound is None or r[1] < bound][:depth]
                full = full[:len(listed)]
            if full != listed:
                wrong.append(key)
        return wrong


def refresh(store, *, budget: float | None, rescored: bool | None = None) -> tuple[int, int]:
    """Build the lists a search cannot read (`rescored`, the default with a budget) or all
    ranked on an older index, most papers first, until `budget` seconds are spent (None: all).
    Each is ranked in a read transaction (seconds for the most frequent words at 1M papers:
    writers are not kept waiting) and written in a short write transaction, unless the index
    changed meanwhile (then it is left for the next refresh). Which words and prefixes qualify
    is read from the whole vocabulary (seconds at 1M papers) only when asked for all (budget
    None), when there are no lists yet, or when the catalog has grown or shrunk by a quarter
    since; lists no longer wanted are forgotten then. When every list is then ranked on the
    index as it is, the changed papers are forgotten. The lists of ANDs and phrases searches
    made come after every word's, the newest COMPOUND_REFRESH stale ones. (built, still stale)."""
    start = time.perf_counter()
    rescored = budget is not None if rescored is None else rescored
    with store.read() as tx:
        papers = tx.conn.execute("SELECT count(*) FROM paper").scalar()
        kept = {r[0]: r[1] for r in tx.conn.execute(f"SELECT term, matches FROM {STATE_TABLE}").all()}
        seen = kept.pop(CHOSEN_AT, None)
        choose = budget is None or seen is None or catalog_resized(seen, papers)
        if choose:
            words = tx.lists.words() if papers >= topk.MIN_MATCHES else []  # a small catalog keeps none
            wanted = [k for k, _ in candidates(words, min_matches(papers))]
        else:
            wanted = sorted((k for k in kept if not compound(k)), key=lambda k: (-kept[k], k))
        # Then the stale lists of several words (searches made them), the newest ranked first,
        # COMPOUND_REFRESH at most: the next search of any other ranks it again.
        several = tx.lists.stale(tx.lists.several()[0][::-1], rescored=rescored)[:COMPOUND_REFRESH]
        stale = tx.lists.stale(wanted, rescored=rescored) + several
    if choose and (kept or wanted or seen is not None):
        with store.write(catch_up=False) as tx:
            tx.lists.drop_top_lists(set(wanted))
            tx.conn.execute(
                f"INSERT INTO {STATE_TABLE}(term, stamp, weights, listed, matches) VALUES (?, NULL, '', 0, ?)"
                " ON CONFLICT (term) DO UPDATE SET matches = excluded.matches", (CHOSEN_AT, papers))
    if stale:
        with store.write(catch_up=False) as tx:
            tx.lists.restart_top_changes()
    built = 0
    for key in stale:
        if budget is not None and time.perf_counter() - start > budget:
            break
        with store.read() as tx:
            ranked = tx.lists.rank_top_list(key)
        with store.write(catch_up=False) as tx:
            built += tx.lists.store_top_list(ranked)
    if stale or not rescored:
        with store.write(catch_up=False) as tx:
            tx.lists.forget_changes()  # only when every list is ranked on the index as it is
    return built, len(stale) - built


def behind(store) -> bool:
    """Whether refresh has work: a list searches cannot read, or the words to keep lists for
    are to be chosen (none chosen yet in a catalog big enough, or it grew or shrank by a
    quarter since). Cheap: an import asks before deciding where the work runs."""
    with store.read() as tx:
        papers = tx.conn.execute("SELECT count(*) FROM paper").scalar()
        seen = tx.conn.execute(f"SELECT matches FROM {STATE_TABLE} WHERE term = ?", (CHOSEN_AT,)).scalar()
        if seen is None:
            return papers >= topk.MIN_MATCHES
        return catalog_resized(seen, papers) or bool(tx.lists.stale())
