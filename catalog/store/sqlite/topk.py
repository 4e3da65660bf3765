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
write to the index) and the column weights it was built with; a list whose stamp is not the
current one is never read (the full query runs, as before). A page is served from a list only
when the list proves it: the list holds every match, or the filtered list still fills the page
(any paper not listed ranks after every listed one). Otherwise the full query runs.

Imports refresh the lists (Store.refresh_top_lists), most frequent first, within a time budget
(a share of the import's own time; the rest stay stale and the full query serves them);
`catalog doctor` reports stale lists and checks the head of a few against the full ranking,
and `--fix` rebuilds every list.
"""

from __future__ import annotations

import os
import time
from collections import Counter

from catalog.query import Text
from catalog.store.sqlite.fts import FTS_COLUMNS, FTS_TABLE, SUMMARY_COLUMNS, VOCAB_TABLE, CompiledQuery, fts_phrase

TOP_TABLE = "term_top"  # (term, position, paper_id, score): each list in ranking order
STATE_TABLE = "term_top_state"  # (term, stamp, weights, listed, matches): one row a list
LIST_SIZE = 1000  # papers kept per word: pages, and room for filters to reject most of them
# Which words and prefixes get a list: those matching at least this many papers, where bm25
# over every match takes ~17 ms or more (0.7 us a match). Prefixes count the papers of their
# words (an upper bound of the papers they match). A catalog smaller than this keeps none.
MIN_MATCHES = 25_000
# Off: every search ranks every match (benchmarks compare against that; CATALOG_TOPK_LISTS=off
# does it for a whole process, such as the TUI's benchmark).
ENABLED = os.environ.get("CATALOG_TOPK_LISTS", "on") != "off"

# A row of STATE_TABLE that is no list (list keys start with "("): how many papers the catalog
# had when the words and prefixes were last chosen.
CHOSEN_AT = "#papers"
_WEIGHTS = ", ".join(str(w) for w in FTS_COLUMNS.values())
_STAMP = f"SELECT block FROM {FTS_TABLE}_data WHERE id = 10"
# The exact tier's full ranking of one word or prefix (fts.search_sql's order), its head.
_RANKED = (f"SELECT rowid, bm25({FTS_TABLE}, {_WEIGHTS}) AS score FROM {FTS_TABLE}"
           f" WHERE {FTS_TABLE} MATCH ? ORDER BY score, rowid LIMIT ?")


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


def key_of(term: str, prefix: bool = False) -> str:
    return "(" + fts_phrase(Text(term, prefix=prefix)) + ")"


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
        """The exact tier's page from a fresh list (rows as fts.search_sql's), or None when no
        list proves it (none for this query, stale, or too short for its filters)."""
        if not ENABLED or limit < 0:
            return None
        key = list_key(compiled)
        if key is None:
            return None
        state = self.conn.execute(
            f"SELECT stamp, weights, listed, matches FROM {STATE_TABLE} WHERE term = ?", (key,)).first()
        if state is None or state[1] != _WEIGHTS or state[0] != self.top_stamp():
            return None
        complete = state[2] >= state[3]
        if not complete and not compiled.where and offset + limit > state[2]:
            return None
        text = "p.abstract_text" if with_text else "NULL"
        where = "".join(f" AND {w}" for w in compiled.where)
        rows = self.conn.execute(
            f"SELECT {SUMMARY_COLUMNS}, {text} AS text, t.score AS score FROM {TOP_TABLE} t"
            f" CROSS JOIN paper p WHERE t.term = ? AND p.id = t.paper_id{where}"
            " ORDER BY t.position LIMIT ? OFFSET ?", [key, *compiled.params, limit, offset]).all()
        if len(rows) < limit and not complete:
            return None  # the papers after the list could fill the page
        return rows

    def top_list_words(self) -> list[tuple[str, int]]:
        return [(r[0], r[1]) for r in self.conn.execute(f"SELECT term, doc FROM {VOCAB_TABLE}").all()]

    def build_top_list(self, key: str, size: int | None = None) -> int:
        """(Re)build one list from the full ranking; how many papers it matches."""
        size = LIST_SIZE if size is None else size
        ranked = self.conn.execute(_RANKED, (key, size)).all()
        matches = len(ranked) if len(ranked) < size else self.conn.execute(
            f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?", (key,)).scalar()
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE term = ?", (key,))
        self.conn.executemany(f"INSERT INTO {TOP_TABLE}(term, position, paper_id, score) VALUES (?, ?, ?, ?)",
                              [(key, i, pid, score) for i, (pid, score) in enumerate(ranked)])
        self.conn.execute(
            f"INSERT INTO {STATE_TABLE}(term, stamp, weights, listed, matches) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (term) DO UPDATE SET stamp = excluded.stamp, weights = excluded.weights,"
            " listed = excluded.listed, matches = excluded.matches",
            (key, self.top_stamp(), _WEIGHTS, len(ranked), matches))
        return matches

    def drop_top_lists(self, keep: set[str]) -> None:
        """Forget the lists not in `keep` (words no longer frequent)."""
        for (key,) in self.conn.execute(f"SELECT term FROM {STATE_TABLE}").all():
            if key not in keep and key != CHOSEN_AT:
                self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE term = ?", (key,))
                self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE term = ?", (key,))

    def stale_top_lists(self, keys: list[str] | None = None) -> list[str]:
        """The lists (of `keys`, or all kept) a search would not read: missing or stale."""
        stamp = self.top_stamp()
        fresh = {r[0] for r in self.conn.execute(
            f"SELECT term FROM {STATE_TABLE} WHERE stamp = ? AND weights = ?", (stamp, _WEIGHTS)).all()}
        if keys is None:
            keys = [r[0] for r in self.conn.execute(f"SELECT term FROM {STATE_TABLE} WHERE term != ?",
                                                    (CHOSEN_AT,)).all()]
        return [k for k in keys if k not in fresh]

    def top_list_mismatches(self, how_many: int = 3, depth: int = 50) -> list[str]:
        """Fresh lists (the `how_many` of fewest matches: quick to rank in full) whose head differs
        from the full ranking's."""
        stamp = self.top_stamp()
        keys = [r[0] for r in self.conn.execute(
            f"SELECT term FROM {STATE_TABLE} WHERE stamp = ? AND weights = ? ORDER BY matches, term"
            " LIMIT ?", (stamp, _WEIGHTS, how_many)).all()]
        wrong = []
        for key in keys:
            full = [tuple(r) for r in self.conn.execute(_RANKED, (key, depth)).all()]
            listed = [tuple(r) for r in self.conn.execute(
                f"SELECT paper_id, score FROM {TOP_TABLE} WHERE term = ? ORDER BY position LIMIT ?",
                (key, depth)).all()]
            if full != listed:
                wrong.append(key)
        return wrong


def refresh(store, *, budget: float | None) -> tuple[int, int]:
    """Build the stale lists, most papers first, one write transaction each (a list's stamp is
    the index it was ranked on), until `budget` seconds are spent (None: all). Which words and
    prefixes qualify is read from the whole vocabulary (seconds at 1M papers) only when asked
    for all (budget None), when there are no lists yet, or when the catalog has grown or shrunk
    by a quarter since; lists no longer wanted are forgotten then. (built, still stale)."""
    start = time.perf_counter()
    with store.read() as tx:
        papers = tx.conn.execute("SELECT count(*) FROM paper").scalar()
        kept = {r[0]: r[1] for r in tx.conn.execute(f"SELECT term, matches FROM {STATE_TABLE}").all()}
        seen = kept.pop(CHOSEN_AT, None)
        choose = budget is None or seen is None or not 0.8 * seen <= papers <= 1.25 * seen
        if choose:
            words = tx.top_list_words() if papers >= MIN_MATCHES else []  # a small catalog keeps none
            wanted = [k for k, _ in candidates(words, MIN_MATCHES)]
        else:
            wanted = sorted(kept, key=lambda k: (-kept[k], k))
        stale = tx.stale_top_lists(wanted)
    if choose and (kept or wanted or seen is not None):
        with store.write(catch_up=False) as tx:
            tx.drop_top_lists(set(wanted))
            tx.conn.execute(
                f"INSERT INTO {STATE_TABLE}(term, stamp, weights, listed, matches) VALUES (?, NULL, '', 0, ?)"
                " ON CONFLICT (term) DO UPDATE SET matches = excluded.matches", (CHOSEN_AT, papers))
    built = 0
    for key in stale:
        if budget is not None and time.perf_counter() - start > budget:
            break
        with store.write(catch_up=False) as tx:
            tx.build_top_list(key, LIST_SIZE)
        built += 1
    return built, len(stale) - built
