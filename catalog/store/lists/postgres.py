"""PostgreSQL's ranked lists (migration 0011): the best papers of each frequent word.

A ranked search scores every match with ts_rank, which reads each match's row: a frequent word
costs tens of milliseconds and more. For words in at least MIN_MATCHES papers, `rank_top` keeps the
head of the full ranking (LIST_SIZE papers, the search's own `ORDER BY -ts_rank(...), id`) per
index (`exact`: the words as written, `stems`: their forms, those in RANKED_AHEAD papers), and
for prefixes whose words are in MIN_MATCHES papers together (`model*`, exact index). Words in
RANKED_AHEAD papers or more and prefixes in PREFIX_AHEAD are ranked ahead (by imports, many
lists in one pass over the papers: _rank_many; `catalog doctor --fix`); the other words and
prefixes have a state row AT_FIRST_SEARCH, and their first search ranks their list (it would
rank every match anyway) and keeps it, as for several words (below). ts_rank with normalization 1 uses
no collection statistics: a paper's score depends on that paper alone, so unlike SQLite's bm25
lists (sqlite_words.py) nothing drifts when other papers change.

Freshness: `rank_top_change` logs every paper whose vectors changed (triggers on `paper`), in
order. A search reads the list's entries minus the papers changed since the list was ranked,
ranks those changed papers itself (still matching, and meeting the filters), merges both, and
serves the page only when the list proves it: it holds every match, or enough of its papers meet
the filters (every paper not listed ranks after the list's last). Past CHANGE_LIMIT changes a
list is not read (the search ranks every match) until it is ranked again: imports do that within
a time budget (store.lists.refresh), `catalog doctor --fix` for all.

Several words (an AND or a phrase): ts_rank scores them by the distances between every pair of
their positions (tsrank.c, calc_rank_and), which no word's list bounds: a paper low in both
words' lists can hold them side by side many times. So such a query gets a list of its own,
kept like a word's. The first search of an AND or phrase of frequent words (each with its
list), without filters or `-word`s, ranks its list instead of its page, in its own read
transaction, and reads its page from that ranking; its caller keeps the list after the read
(store.lists.keep: a short write transaction, skipped when another writer holds the catalog);
later searches, everyone's, read the list (ranking `"language model"` checks the positions of
every paper holding both words; from its list a search reads 50 rows). At most SEVERAL_LISTS are kept, the oldest
ranked dropped first; refresh ranks them again as it does the words'.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import psycopg

from catalog.errors import StoreError
from catalog.store import lists
from catalog.store.base import ListMaintenance, RankedLists, RankedListUpkeep
from catalog.store.rows import ListProblems
from catalog.store.compiler import TIERS
from catalog.store.lists.scoring import TYPED_FROM, catalog_resized
from catalog.store.rows import READER_JOIN, SUMMARY_COLUMNS
from catalog.store.tsvector import CONFIG, VECTORS, WEIGHTS

TOP_TABLE, STATE_TABLE, CHANGE_TABLE = "rank_top", "rank_top_state", "rank_top_change"
LIST_SIZE = 1000  # papers kept per word: pages, and room for filters to reject most of them
# Which words get a list: those in at least this many papers, where ts_rank over every match
# takes 10-30 ms or more (5-15 us a match at 100k on a busy 2-core machine, reading each
# match's row). A smaller catalog keeps none.
MIN_MATCHES = 2_000
# Which words imports rank ahead: ranking costs ts_rank for every match (20 million at 100k for
# the 2,262 words in MIN_MATCHES papers, 8 of 10 minutes of a `catalog import`); the 176 in
# RANKED_AHEAD (SQLite's threshold for its lists) hold 40% of those matches. A word between the
# two is ranked in full by its first search (as each of its searches was on SQLite), which
# keeps its list for everyone's next; in the forms index it keeps no list (as on SQLite).
RANKED_AHEAD = 20_000
# Which prefixes get their list ahead: those whose words are, summed, in this many papers,
# where ranking every match at a first search takes 100 ms and more (`infl*`, 15,782 papers at
# 100k: 120-137 ms). Prefixes with the same words share one ranking. An import ranks those of
# TYPED_FROM letters or more in PREFIX_AT_IMPORT papers (or IMPORT_SHARE of the catalog) before
# it returns; the rest (`infl*`, `tr*`) are left to the refresher it starts: ranking the 705
# rankings of the 1,254 prefixes of three letters and more at 100k took two minutes more (a
# pass ranking 100 of them: 15 s at load 9).
PREFIX_AHEAD = 10_000
PREFIX_AT_IMPORT, IMPORT_SHARE = 50_000, 0.5
# In a larger catalog, those in this share of its papers (how many prefixes reach the bar
# grows with the catalog, and ranking each reads its matches: a fixed bar would rank thousands).
PREFIX_SHARE = 0.1
AT_FIRST_SEARCH = "at first search"  # a state row's weights: no list yet, its first search ranks it
# A word's or prefix's list that a search ranks if it comes first: one left to its first search,
# or one to be ranked ahead ('') that the import left to the refresher (`infl*` at 100k).
NOT_RANKED = (AT_FIRST_SEARCH, "")
WINDOW = 4  # with filters: how many pages' worth of a list's papers are tried
CHANGE_LIMIT = 2000  # migration 0011's: past it a list is ranked again, not followed
CHOSEN_AT = "#papers"  # a state row that is no list: the catalog's size when words were chosen
_SCORE = "-ts_rank({weights}, p.{column}, q.q, 1)"  # the compiler's search_sql's score
SEVERAL_LISTS = 500  # lists of several words kept (1,000 papers each)
# Ranking many lists in one pass (_rank_many): the cut comes from SAMPLE_SHARE of the pages
# (in catalogs of SAMPLE_ABOVE lists' lengths or more), at SAMPLE_MARGIN times the rank
# expected there, so that a key's cut rarely leaves fewer than LIST_SIZE papers above it.
SAMPLE_SHARE, SAMPLE_ABOVE, SAMPLE_MARGIN = 1 / 16, 20, 1.5
# A refresh with no time budget ranks up to this many lists of one index in a pass.
IN_ONE_PASS = 100
# A key in fewer than this share of the papers is ranked alone (see _passes): at 100k the
# words an import ranks ahead are in 20% or more (ranked together: 0.32x the time).
DENSE = 0.1
_LEXEME = re.compile(r"'((?:[^']|'')*)'")
_ONE = re.compile(r"\(?'(?:[^']|'')*'(?::\*)?\)?")


def one_word(tsquery: str) -> bool:
    """Whether a tsquery (or a list's key) is one word or one prefix (`'model':*`)."""
    return _ONE.fullmatch(tsquery) is not None


def of_prefix(key: str) -> bool:
    return key.endswith(":*") and one_word(key.split(" ", 1)[-1])


def of_several(tsquery: str) -> bool:
    """Whether a tsquery (or a list's key) is an AND or a phrase of plain words: no OR, no NOT,
    no prefix (the words are quoted runs of letters and digits, so these are operators)."""
    return ("&" in tsquery or "<" in tsquery) and not any(op in tsquery for op in ("|", "!", ":*"))


def list_key(index: str, tsquery: str) -> str:
    """A list's key: the index and the tsquery's text (as PostgreSQL prints it)."""
    return f"{index} {tsquery}"


@dataclass(frozen=True)
class RankedList:
    """A list of several words ranked by a search (its read transaction's snapshot), for its
    caller to keep: its papers as (score, id), best first; `built_at` the last change the
    snapshot saw (later ones are followed as for any list)."""

    key: str
    built_at: int
    papers: list[tuple[float, int]]
    matches: int


class PostgresRankedLists(RankedLists):
    """The ranked lists of a transaction on a shared catalog, read with the tiers its
    `compiler` (postgres/search.py's) makes. `keeping`: whether its searches may rank lists of
    several words for the caller to keep (a read on a store that may write them)."""

    def __init__(self, conn, user: str, compiler, *, keeping: bool = False):
        super().__init__(conn, user)
        self.compiler = compiler
        self.keeping = keeping
        self._ranked_now: dict[str, RankedList] = {}
        # (compiled, {tier: state}, {tiers whose list a first search ranks}) of the walk under way
        self._list_states: tuple | None = None
        self._planned = None  # the compiled query whose walk may_serve planned

    def page(self, compiled, tier: str, limit: int, offset: int,
             with_text: bool, sort) -> list | None:
        """A tier's page (rows as the compiler's search_sql's) from a ranked list, or None when no list
        proves it: rank every match."""
        if (not lists.ENABLED or limit < 0 or tier == "some" or sort.reverse or sort.field != "relevance"):
            return None
        expression = self.compiler.tier_expression(compiled, tier)
        index = "exact" if tier == "exact" else "stems"
        column, config = VECTORS[index]
        state = self._list_state(compiled, tier)
        if state is None:
            state = self._list_now(compiled, tier)
        if state is None or state["changes"] > CHANGE_LIMIT:
            return None
        need = offset + limit
        complete = state["listed"] >= state["matches"]
        if not complete and need > state["listed"]:
            return None
        conds, params = self.compiler.tier_conditions(compiled, tier)
        where = "".join(f" AND {c}" for c in conds)
        changed = [] if not state["changes"] else [r[0] for r in self.conn.execute(
            f"SELECT DISTINCT paper_id FROM {CHANGE_TABLE} WHERE seq > ?", (state["built_at"],)).all()]
        # With filters, only the list's first papers are tried (WINDOW pages' worth): where the
        # filters are selective, the full query (which reads them first) is quicker than
        # reading a long run of the list's rows.
        window = min(state["listed"], need * WINDOW) if conds else state["listed"]
        text = "p.abstract_text" if with_text else "NULL"
        made = self._ranked_now.get(state["key"])
        if made is not None:  # ranked just now, not kept yet: its rows are not in the table
            if conds:  # (another search of the same words in this transaction)
                return None
            found = made.papers
        elif not changed:  # the page's rows in the same statement (a server: one round trip less)
            rows = self.conn.execute(
                f"SELECT {SUMMARY_COLUMNS}, {text} AS text, t.score AS score FROM {TOP_TABLE} t"
                f" JOIN paper p ON p.id = t.paper_id {READER_JOIN}"
                f" WHERE t.key = ? AND t.position <= ?{where} ORDER BY t.position LIMIT ?",
                [self.user, state["key"], window, *params, need]).all()
            if len(rows) < need and (window < state["listed"] or not complete):
                return None  # the papers tried ran out under the filters: the page is not proven
            return rows[offset:need]
        else:
            found = self._listed_found(state, changed, window, need, where, params, expression, column, config)
            if found is None:
                return None
        page = found[offset:need]
        if not page:
            return []
        return self.conn.execute(
            f"SELECT {SUMMARY_COLUMNS}, {text} AS text, v.score AS score"
            " FROM unnest(?::integer[], ?::real[]) WITH ORDINALITY AS v(id, score, n)"
            f" JOIN paper p ON p.id = v.id {READER_JOIN} ORDER BY v.n",
            [[i for _, i in page], [s for s, _ in page], self.user]).all()

    def _listed_found(self, state, changed, window, need, where, params, expression, column, config):
        """(score, id) of a list's papers meeting the conditions, merged with the changed papers
        ranked anew; None when they do not prove the page."""
        complete = state["listed"] >= state["matches"]
        listed = self.conn.execute(
            f"SELECT t.paper_id AS id, t.score FROM {TOP_TABLE} t JOIN paper p ON p.id = t.paper_id"
            f" WHERE t.key = ? AND t.position <= ? AND t.paper_id <> ALL(?){where} ORDER BY t.position LIMIT ?",
            [state["key"], window, changed, *params, need]).all()
        found = [(r["score"], r["id"]) for r in listed]
        if changed:  # ranked here, as they are now
            score = _SCORE.format(weights=WEIGHTS, column=column)
            found += [(r["score"], r["id"]) for r in self.conn.execute(
                f"WITH q AS (SELECT to_tsquery('{config}', ?) AS q) SELECT p.id, {score} AS score"
                f" FROM paper p, q WHERE p.id = ANY(?) AND p.{column} @@ q.q{where}",
                [expression, changed, *params]).all()]
            found.sort()
        if len(listed) < need and (window < state["listed"] or not complete):
            # The papers tried ran out under the filters: only those ranked before the last one
            # tried are proven.
            last = self.conn.execute(f"SELECT score, paper_id FROM {TOP_TABLE} WHERE key = ? AND position = ?",
                                     (state["key"], window)).first()
            if last is None:
                return None
            found = [f for f in found if f <= (last["score"], last["paper_id"])]
            if len(found) < need:
                return None
        return found

    def may_serve(self, compiled, tier: str) -> bool:
        """Whether a fresh list exists for this tier's words (ranked_page_from_lists may serve
        its page), or was ranked now for the walk's first tier (_list_now); False: the tier
        ranks every match."""
        if not lists.ENABLED or tier == "some":
            return False
        state = self._list_state(compiled, tier)
        if state is None and self._planned is not compiled:  # the walk's first tier
            state = self._list_now(compiled, tier)
        self._planned = compiled
        return state is not None and state["changes"] <= CHANGE_LIMIT

    def _list_now(self, compiled, tier: str):
        """For an exact tier of several frequent words (each with its list), or of one word or
        prefix NOT_RANKED, that has no list, in a search without filters or `-word`s, in a
        transaction that may keep it: rank its list now (to_keep hands it to the caller) and
        return its state. None: rank every match as before (other words, or no list to keep)."""
        expression = self.compiler.tier_expression(compiled, tier)
        if (tier != "exact" or not self.keeping or not expression or compiled.where or compiled.exclude):
            return None
        if of_several(expression):
            words = _LEXEME.findall(expression)
            frequent = self.conn.execute(
                f"SELECT count(*) FROM {STATE_TABLE} WHERE key = ANY(SELECT 'exact ' || to_tsquery(?::regconfig, w)::text"
                " FROM unnest(?::text[]) AS w)", (CONFIG, [f"'{w}'" for w in words])).scalar()
            if frequent < len(set(words)):
                return None
        elif tier not in self._list_states[2]:
            return None  # one word or prefix in fewer papers: ranking them all is quick
        tsquery = self.conn.execute("SELECT to_tsquery(?::regconfig, ?)::text",
                                    (VECTORS["exact"][1], expression)).scalar()
        key = list_key("exact", tsquery)
        if (not (of_several(tsquery) or one_word(tsquery)) or self.conn.execute(
                f"SELECT 1 FROM {STATE_TABLE} WHERE key = ? AND weights <> ALL(?)", (key, list(NOT_RANKED))).first()):
            return None
        made = self._rank(key, LIST_SIZE)
        self._ranked_now[key] = made
        state = {"key": key, "built_at": made.built_at, "listed": len(made.papers), "matches": made.matches,
                 "changes": 0}
        self._list_states[1][tier] = state
        return state

    def _rank(self, key: str, size: int) -> RankedList:
        """List `key` as the index ranks it in this transaction's snapshot (a read)."""
        index, tsquery = key.split(" ", 1)
        column, _ = VECTORS[index]
        score = _SCORE.format(weights=WEIGHTS, column=column)
        built_at = self.conn.execute(f"SELECT coalesce(max(seq), 0) FROM {CHANGE_TABLE}").scalar()
        # Scored before they are counted: a window over the matches' rows themselves kept
        # each row, vectors and all, and spilled them to disk (`model`'s 51,319 at 100k: 100 MB).
        rows = self.conn.execute(
            f"WITH q AS (SELECT ?::tsquery AS q), s AS MATERIALIZED (SELECT p.id, {score} AS score"
            f" FROM paper p, q WHERE p.{column} @@ q.q)"
            " SELECT id, score, count(*) OVER () AS matches FROM s ORDER BY score, id LIMIT ?", (tsquery, size)).all()
        return RankedList(key, built_at, [(r["score"], r["id"]) for r in rows], rows[0]["matches"] if rows else 0)

    def _rank_many(self, keys: list[str], size: int) -> list[RankedList]:
        """Lists `keys` (of one index) as _rank would, in one pass over the papers (a read):
        each paper's vector is read and decompressed once for all the keys, not once per key
        (the 176 lists an import ranks ahead at 100k: 0.32x the time of one by one).
        Only the papers that can be among a list's `size` best travel back: those scoring at
        least a cut read from a sample of the pages (a key the cut proves too tight is ranked
        alone)."""
        index = keys[0].split(" ", 1)[0]
        column, _ = VECTORS[index]
        tsqueries = [key.split(" ", 1)[1] for key in keys]
        built_at = self.conn.execute(f"SELECT coalesce(max(seq), 0) FROM {CHANGE_TABLE}").scalar()
        # A LATERAL subquery per paper: its vector made plain once (`|| ''`), then tested and
        # ranked against every key (the keys parsed once: MATERIALIZED). OFFSET 0 keeps each
        # subquery whole: flattened, the vector itself was carried up to the grouping (a sort
        # of 7 GB on disk for 76 keys at 100k) and each key's text was parsed for each paper.
        scored = (f" LATERAL (SELECT k.n, k.cut, -ts_rank({WEIGHTS}, v.v, k.q, 1) AS score"
                  f" FROM (SELECT p.{column} || ''::tsvector AS v OFFSET 0) AS v, k WHERE v.v @@ k.q OFFSET 0) AS x")
        # Grouped by hashing a few keys, not by sorting millions of matches (the planner,
        # which cannot count the keys, chose the sort).
        self.conn.execute("SET LOCAL enable_sort = off")
        cuts: list[float | None] = [None] * len(keys)
        papers = self.conn.execute("SELECT count(*) FROM paper").scalar()
        if papers >= size * SAMPLE_ABOVE:
            rank = int(size * SAMPLE_SHARE * SAMPLE_MARGIN) + 10
            for row in self.conn.execute(
                    "WITH k AS MATERIALIZED (SELECT k.n::int AS n, k.q::tsquery AS q, NULL::real AS cut"
                    " FROM unnest(?::text[]) WITH ORDINALITY AS k(q, n))"
                    f" SELECT x.n, (array_agg(x.score ORDER BY x.score))[?] AS cut"
                    f" FROM paper p TABLESAMPLE SYSTEM ({SAMPLE_SHARE * 100}),{scored}"
                    " GROUP BY x.n", (tsqueries, rank)).all():
                cuts[row["n"] - 1] = row["cut"]
        rows = {r["n"]: r for r in self.conn.execute(
            "WITH k AS MATERIALIZED (SELECT k.n::int AS n, k.q::tsquery AS q, k.cut"
            " FROM unnest(?::text[], ?::real[]) WITH ORDINALITY AS k(q, cut, n))"
            " SELECT x.n, count(*) AS matches, array_agg(p.id) FILTER (WHERE x.cut IS NULL OR x.score <= x.cut) AS ids,"
            " array_agg(x.score) FILTER (WHERE x.cut IS NULL OR x.score <= x.cut) AS scores"
            f" FROM paper p,{scored} GROUP BY x.n", (tsqueries, cuts)).all()}
        made = []
        for n, key in enumerate(keys, 1):
            row = rows.get(n)
            if row is None:
                made.append(RankedList(key, built_at, [], 0))
                continue
            found = sorted(zip(row["scores"] or [], row["ids"] or []))
            if len(found) < min(size, row["matches"]):  # the cut was too tight for this key
                made.append(self._rank(key, size))
            else:
                made.append(RankedList(key, built_at, found[:size], row["matches"]))
        return made

    def to_keep(self) -> list[RankedList]:
        return list(self._ranked_now.values())

    def _keep(self, made: RankedList) -> None:
        """In a write transaction: write a list a search ranked unless one exists by now, and
        drop the oldest lists of several words past SEVERAL_LISTS."""
        if self.conn.execute(f"SELECT 1 FROM {STATE_TABLE} WHERE key = ? AND weights <> ALL(?)",
                             (made.key, list(NOT_RANKED))).first():
            return
        self._write(made)
        old = [key for key in self.conn.execute(
            f"SELECT key FROM {STATE_TABLE} WHERE key != ? AND key != ? AND (key LIKE '%&%' OR key LIKE '%<%')"
            " ORDER BY built_at DESC, key OFFSET ?", (CHOSEN_AT, made.key, max(0, SEVERAL_LISTS - 1))).scalars()
            if of_several(key)]
        if old:
            self._drop(old)

    def _list_state(self, compiled, tier: str):
        """The state row of a tier's list (None: no list). The states of every tier of the
        query are read in one statement, the first time one is asked for in one walk of the
        tiers (one `compiled`, ranked.py): a rare word's walk (exact, then other forms) asks
        twice. A new walk reads them again (changes may have been logged since)."""
        held = self._list_states
        if held is None or held[0] is not compiled:
            tiers = [t for t in TIERS[:-1] if self.compiler.tier_expression(compiled, t) is not None]
            held = self._list_states = (compiled, *self._read_list_states(compiled, tiers))
        return held[1].get(tier)

    def _read_list_states(self, compiled, tiers: list[str]) -> tuple[dict, set]:
        """({tier: its list's state row} of the `tiers` that have a list, {the tiers whose
        list their first search ranks (NOT_RANKED: AT_FIRST_SEARCH, or not ranked ahead yet)})."""
        if not tiers:
            return {}, set()
        indexes = ["exact" if t == "exact" else "stems" for t in tiers]
        rows = self.conn.execute(
            f"SELECT v.n, s.key, s.built_at, s.listed, s.matches, s.weights, (SELECT count(*) FROM (SELECT 1 FROM"
            f" {CHANGE_TABLE} c WHERE c.seq > s.built_at LIMIT ?) AS n) AS changes"
            " FROM unnest(?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS v(idx, config, expression, n)"
            f" JOIN {STATE_TABLE} s ON s.key = v.idx || ' ' || to_tsquery(v.config::regconfig, v.expression)::text"
            " WHERE s.weights = ANY(?)",
            (CHANGE_LIMIT + 1, indexes, [VECTORS[i][1] for i in indexes],
             [self.compiler.tier_expression(compiled, t) for t in tiers], [WEIGHTS, *NOT_RANKED])).all()
        return ({tiers[r["n"] - 1]: r for r in rows if r["weights"] == WEIGHTS},
                {tiers[r["n"] - 1] for r in rows if r["weights"] in NOT_RANKED})

    # --- building ----------------------------------------------------------------------------------

    def _words(self, min_matches: int | None = None) -> list[tuple[str, int]]:
        """(key, papers matching) of every word in at least `min_matches` papers (of the forms
        index, in RANKED_AHEAD: a tier after the first reads its lists, and no first search
        ranks one), and of every prefix (of plain letters and digits) whose words are, summed,
        in the exact index; most papers first (ts_stat over every vector: seconds at 100k)."""
        return self._words_alike(min_matches)[0]

    def _words_alike(self, min_matches: int | None = None) -> tuple[list[tuple[str, int]], dict[str, str]]:
        """(words(), {a prefix's key: the key of the shortest prefix matching the same words}):
        `'influe':*` and `'influen':*` match the same words, so the same papers with the same
        scores, and one ranking serves both lists."""
        min_matches = MIN_MATCHES if min_matches is None else min_matches
        out, same = [], {}
        for index, (column, _) in VECTORS.items():
            at_least = min_matches if index == "exact" else max(min_matches, RANKED_AHEAD)
            prefixes = "" if index != "exact" else (
                " UNION ALL SELECT (quote_literal(prefix) || ':*')::tsquery::text, sum(ndoc)::integer,"
                " min(word) || ' ' || max(word) || ' ' || count(*) FROM"
                " (SELECT left(word, n) AS prefix, word, ndoc FROM w, generate_series(1, length(word)) AS n) AS p"
                " WHERE prefix ~ '^[a-z0-9]+$' GROUP BY prefix HAVING sum(ndoc) >= ?")
            rows = self.conn.execute(
                f"WITH w AS MATERIALIZED (SELECT word, ndoc FROM ts_stat('SELECT {column} FROM paper'))"
                f" SELECT quote_literal(word)::tsquery::text AS q, ndoc, NULL AS words FROM w WHERE ndoc >= ?{prefixes}",
                (at_least,) * (2 if prefixes else 1)).all()
            out += [(list_key(index, r["q"]), r["ndoc"]) for r in rows]
            # Prefixes with the same first and last word and as many words (any words: `'infl':*`
            # matches `inflé`) match the same: of two, one is the other's start or none is shared.
            first: dict[str, str] = {}
            for r in sorted((r for r in rows if r["words"]), key=lambda r: len(r["q"])):
                same[list_key(index, r["q"])] = first.setdefault(r["words"], list_key(index, r["q"]))
        return sorted(out, key=lambda kn: (-kn[1], kn[0])), same

    def _build(self, key: str, size: int | None = None) -> int:
        """Rank one list from the full ranking (in a write transaction: no change can slip
        between the ranking and the change it is stamped with); how many papers it lists."""
        made = self._rank(key, LIST_SIZE if size is None else size)
        self._write(made)
        return len(made.papers)

    def _write_with_copies(self, made: list[RankedList], copies: dict[str, list[str]]) -> None:
        """Write these lists, each also under the keys `copies` names for it (prefixes that
        match the same words)."""
        for one in made:
            self._write(one)
            for key in copies.get(one.key, ()):
                self._write(replace(one, key=key))

    def _write(self, made: RankedList) -> None:
        """Replace list `made.key`'s papers and state with these."""
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE key = ?", (made.key,))
        if made.papers:
            self.conn.execute(
                f"INSERT INTO {TOP_TABLE}(key, position, paper_id, score)"
                " SELECT ?, v.n, v.id, v.score FROM unnest(?::integer[], ?::real[]) WITH ORDINALITY AS v(id, score, n)",
                (made.key, [i for _, i in made.papers], [score for score, _ in made.papers]))
        self.conn.execute(
            f"INSERT INTO {STATE_TABLE}(key, built_at, weights, listed, matches) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET built_at = excluded.built_at, weights = excluded.weights,"
            " listed = excluded.listed, matches = excluded.matches",
            (made.key, made.built_at, WEIGHTS, len(made.papers), made.matches))

    def _choose(self, words: list[tuple[str, int]], wanted: list[str], papers: int) -> None:
        """Keep lists for the `wanted` keys only (`words` of them chosen now: (key, papers)) of
        a catalog of `papers`. Every word chosen has a state row, unranked until built (doctor
        and the next refresh see it stale; a first search ranks it meanwhile), or AT_FIRST_SEARCH: a prefix, or a
        word in fewer than RANKED_AHEAD papers (a row ranked already stays as it is)."""
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE NOT key = ANY(?)", (sorted(wanted),))
        self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE NOT key = ANY(?) AND key != ?", (sorted(wanted), CHOSEN_AT))
        self.conn.execute(
            f"INSERT INTO {STATE_TABLE} AS s (key, built_at, weights, listed, matches)"
            " SELECT unnest(?::text[]), 0, unnest(?::text[]), 0, unnest(?::integer[])"
            " ON CONFLICT (key) DO UPDATE SET weights = '' WHERE s.weights = ? AND excluded.weights = ''",
            ([k for k, _ in words], [_first_weights(k, n, papers) for k, n in words], [n for _, n in words],
             AT_FIRST_SEARCH))
        self.conn.execute(f"INSERT INTO {STATE_TABLE}(key, built_at, weights, listed, matches) VALUES (?, 0, '', 0, ?)"
                          " ON CONFLICT (key) DO UPDATE SET matches = excluded.matches", (CHOSEN_AT, papers))

    def _at_first_search(self, keys: list[str]) -> None:
        """These lists go back to being ranked by their next first search."""
        if keys:
            self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE key = ANY(?)", (keys,))
            self.conn.execute(f"UPDATE {STATE_TABLE} SET weights = ?, built_at = 0, listed = 0 WHERE key = ANY(?)",
                              (AT_FIRST_SEARCH, keys))

    def _several(self) -> tuple[list[str], list[str]]:
        """(the lists of several words kept, none a search would rank again: they follow
        changes as a word's do, and `stale` counts them)."""
        return [k for k in self._keys() if of_several(k)], []

    def _drop(self, keys: list[str]) -> None:
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE key = ANY(?)", (list(keys),))
        self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE key = ANY(?)", (list(keys),))

    def _forget_changes(self) -> None:
        """Forget the changes every list was ranked after."""
        self.conn.execute(f"DELETE FROM {CHANGE_TABLE} WHERE seq <= (SELECT coalesce(min(built_at), 0)"
                          f" FROM {STATE_TABLE} WHERE key != ? AND weights != ?)", (CHOSEN_AT, AT_FIRST_SEARCH))

    # --- doctor ------------------------------------------------------------------------------------

    def _keys(self) -> list[str]:
        """The lists kept or to be ranked ahead (not those AT_FIRST_SEARCH)."""
        return [r[0] for r in self.conn.execute(
            f"SELECT key FROM {STATE_TABLE} WHERE key != ? AND weights != ? ORDER BY matches DESC, key",
            (CHOSEN_AT, AT_FIRST_SEARCH)).all()]

    def _stale(self, keys: list[str] | None = None, *, rescored: bool = True) -> list[str]:
        """The lists (of `keys`, or all kept) a search would not read: missing, ranked with
        other weights, or more than CHANGE_LIMIT changes behind (without `rescored`: any). One
        AT_FIRST_SEARCH is none of these: its first search ranks it."""
        behind = CHANGE_LIMIT if rescored else 0
        fresh = {r[0] for r in self.conn.execute(
            f"SELECT key FROM {STATE_TABLE} s WHERE key != ? AND (weights = ? OR weights = ? AND (SELECT count(*)"
            f" FROM (SELECT 1 FROM {CHANGE_TABLE} c WHERE c.seq > s.built_at LIMIT ?) AS n) <= ?)",
            (CHOSEN_AT, AT_FIRST_SEARCH, WEIGHTS, behind + 1, behind)).all()}
        return [k for k in (self._keys() if keys is None else keys) if k not in fresh]

    def note(self) -> str | None:
        keys = self._keys()
        waiting = self.conn.execute(f"SELECT count(*) FROM {STATE_TABLE} WHERE weights = ?", (AT_FIRST_SEARCH,)).scalar()
        if not keys and not waiting:
            papers = self.conn.execute("SELECT count(*) FROM paper").scalar()
            if papers < MIN_MATCHES:
                return f"ranked lists: none (a catalog of fewer than {MIN_MATCHES:,} papers ranks every match)"
            return ("ranked lists: none yet (an import ranks them in the background;"
                    " `catalog doctor --fix` ranks them now)")
        stale = len(self._stale(keys))
        several = sum(1 for k in keys if of_several(k))
        prefixes = sum(1 for k in keys if of_prefix(k))
        return (f"ranked lists: {len(keys) - several - prefixes:,} words in {MIN_MATCHES:,}+ papers"
                + (f", {prefixes:,} prefixes" if prefixes else "")
                + (f" and {several:,} searches of several of them" if several else "")
                + f", each listing its best {LIST_SIZE:,} by ts_rank" + (f"; {stale:,} out of date" if stale else "")
                + (f"; {waiting:,} more words and prefixes get theirs at their first search" if waiting else ""))

    def maintenance(self) -> PostgresListMaintenance:
        return PostgresListMaintenance(self)

    def problems(self) -> ListProblems:
        papers = self.conn.execute("SELECT count(*) FROM paper").scalar()
        seen = self.conn.execute(f"SELECT matches FROM {STATE_TABLE} WHERE key = ?", (CHOSEN_AT,)).scalar()
        choose = papers >= MIN_MATCHES and (seen is None or catalog_resized(seen, papers))
        return ListProblems(self._stale(), self._differing(), papers if choose else None)

    def repair(self) -> tuple[int, int]:
        """Rank again any list unlike the ranking (those out of date are the refresh's, after;
        a list of several words follows changes as a word's does: none to drop)."""
        differing = self._differing()
        for key in differing:
            self._build(key)
        return len(differing), 0

    def _differing(self, how_many: int = 3, depth: int = 50) -> list[str]:
        """Lists a search reads (the `how_many` of fewest matches: quick to rank in full) whose
        head, as a search reads it, differs from the full ranking's."""
        unread = set(self._stale())
        keys = [k for k in self._keys()[::-1] if k not in unread][:how_many]
        wrong = []
        for key in keys:
            head = self._list_head(key, depth)
            if head != self._full_head(key, depth)[:len(head)]:
                wrong.append(key)
        return wrong

    def _full_head(self, key: str, depth: int) -> list[tuple[float, int]]:
        index, tsquery = key.split(" ", 1)
        column, _ = VECTORS[index]
        score = _SCORE.format(weights=WEIGHTS, column=column)
        return [(r["score"], r["id"]) for r in self.conn.execute(
            f"WITH q AS (SELECT ?::tsquery AS q) SELECT p.id, {score} AS score FROM paper p, q"
            f" WHERE p.{column} @@ q.q ORDER BY score, p.id LIMIT ?", (tsquery, depth)).all()]

    def _list_head(self, key: str, depth: int) -> list[tuple[float, int]]:
        """The first `depth` papers of a list as a search reads it (changed papers ranked anew;
        past the list's last paper only when it lists every match)."""
        state = self.conn.execute(f"SELECT built_at, listed, matches FROM {STATE_TABLE} WHERE key = ?",
                                  (key,)).one()
        index, tsquery = key.split(" ", 1)
        column, _ = VECTORS[index]
        changed = [r[0] for r in self.conn.execute(
            f"SELECT DISTINCT paper_id FROM {CHANGE_TABLE} WHERE seq > ?", (state["built_at"],)).all()]
        listed = [(r["score"], r["paper_id"]) for r in self.conn.execute(
            f"SELECT paper_id, score FROM {TOP_TABLE} WHERE key = ? ORDER BY position", (key,)).all()]
        found = [f for f in listed if f[1] not in set(changed)]
        if changed:
            score = _SCORE.format(weights=WEIGHTS, column=column)
            found = sorted(found + [(r["score"], r["id"]) for r in self.conn.execute(
                f"WITH q AS (SELECT ?::tsquery AS q) SELECT p.id, {score} AS score FROM paper p, q"
                f" WHERE p.id = ANY(?) AND p.{column} @@ q.q", (tsquery, changed)).all()])
            if listed and state["listed"] < state["matches"]:
                found = [f for f in found if f <= listed[-1]]
        return found[:depth]


def _passes(keys: list[str], *, one_by_one: bool, matches: dict[str, int] | None = None,
            papers: int = 0) -> list[list[str]]:
    """`keys` in the groups refresh ranks together: up to IN_ONE_PASS of one index at a time
    (in the order given), or each alone (`one_by_one`: a refresh within a time budget, which
    a pass over every paper could overrun); two or fewer of an index are ranked alone, and so
    is a key in fewer than DENSE of the `papers` (`matches`: of each key): a pass tests every
    paper against every key, where ranking one key alone reads only its matches (through the
    index, several times slower a match)."""
    if one_by_one:
        return [[key] for key in keys]
    groups: dict[str, list[str]] = {}
    out = []
    for key in keys:
        if matches is not None and matches.get(key, 0) < DENSE * papers:
            out.append([key])
        else:
            groups.setdefault(key.split(" ", 1)[0], []).append(key)
    for group in groups.values():
        if len(group) <= 2:
            out += [[key] for key in group]
        else:
            out += [group[i:i + IN_ONE_PASS] for i in range(0, len(group), IN_ONE_PASS)]
    return out


def _first_weights(key: str, matches: int, papers: int) -> str:
    """A chosen list's state row's weights in a catalog of `papers`: '' (to be ranked ahead),
    or AT_FIRST_SEARCH."""
    ahead = max(PREFIX_AHEAD, PREFIX_SHARE * papers) if of_prefix(key) else RANKED_AHEAD
    return "" if matches >= ahead else AT_FIRST_SEARCH


def _at_import(key: str, matches: int, papers: int) -> bool:
    """Whether an import ranks this list before it returns (refresh's `typed`): a word's, or a
    prefix's of TYPED_FROM letters or more (those searches as you type read) in PREFIX_AT_IMPORT
    papers or IMPORT_SHARE of them (first searches of a quarter second and more: `model*`)."""
    if not of_prefix(key):
        return True
    return len(_LEXEME.findall(key)[0]) >= TYPED_FROM and matches >= max(PREFIX_AT_IMPORT, IMPORT_SHARE * papers)


class PostgresListMaintenance(ListMaintenance):
    """What benchmarks and tests ask of a transaction's lists: the lists role's own."""

    def __init__(self, lists: PostgresRankedLists):
        self.lists = lists

    def keys(self) -> list[str]:
        return self.lists._keys()

    def words(self) -> list[tuple[str, int]]:
        return self.lists._words()

    def stale(self, keys: list[str] | None = None, *, rescored: bool = True) -> list[str]:
        return self.lists._stale(keys, rescored=rescored)

    def build(self, key: str) -> int:
        return self.lists._build(key)

    def several(self) -> tuple[list[str], list[str]]:
        return self.lists._several()

    def drop(self, keys: list[str]) -> None:
        self.lists._drop(keys)


class PostgresListUpkeep(RankedListUpkeep):
    """A shared catalog's ranked lists across transactions. `store`: the PostgresStore."""

    def __init__(self, store):
        self.store = store
        self.refused = False  # the server refused to keep a list (a read-only role): not tried again

    def refresh(self, *, budget: float | None, rescored: bool | None = None,
                progress: Callable[[int, int], None] | None = None, typed: bool = False) -> tuple[int, int]:
        """Rank the lists a search cannot read (`rescored`, the default with a budget: more than
        CHANGE_LIMIT changes behind; otherwise every list with any change), most papers first,
        one short write transaction each (without a budget: ranked together, _passes), until
        `budget` seconds are spent (None: all). Which
        words get lists is read from the whole vocabulary (ts_stat: seconds at 100k papers) only
        when asked for all (budget None), when there are no lists yet, or when the catalog has
        grown or shrunk by a quarter since; lists no longer wanted are forgotten then. (built,
        still stale). `typed` (an import's): only the lists _at_import; the other prefixes'
        are left stale, for the refresher the import starts."""
        start = time.perf_counter()
        rescored = budget is not None if rescored is None else rescored
        with self.store.read() as tx:
            papers = tx.papers.paper_count()
            rows = tx.conn.execute(f"SELECT key, matches, weights FROM {STATE_TABLE}").all()
            kept = {r["key"]: r["matches"] for r in rows}
            waiting = {r["key"] for r in rows if r["weights"] == AT_FIRST_SEARCH}
            seen = kept.pop(CHOSEN_AT, None)
            choose = budget is None or seen is None or catalog_resized(seen, papers)
            words, same = [], {}
            if choose and papers >= MIN_MATCHES:
                words, same = tx.lists._words_alike()
            if choose:
                chosen = {k for k, _ in words}
                # Lists of several words stay while all their words have lists (or will have).
                wanted = [k for k, _ in words] + sorted(
                    k for k in kept if of_several(k)
                    and all(list_key(k.split(" ", 1)[0], f"'{w}'") in chosen for w in _LEXEME.findall(k)))
            else:
                wanted = sorted(kept, key=lambda k: (-kept[k], k))
            # Lists of a word in fewer than RANKED_AHEAD papers, or of a prefix in fewer than
            # PREFIX_AHEAD, are their first search's: those out of date go back to it (ranked
            # at the next search that needs them, not by every import); those chosen now are no
            # list yet.
            matches = {**kept, **dict(words)}
            first = {k for k in wanted
                     if not of_several(k) and _first_weights(k, matches[k], papers) == AT_FIRST_SEARCH}
            # Lists left to their first search that are to be ranked ahead now (the catalog grew,
            # or an older version chose them) are as stale as lists never ranked.
            promoted = {k for k in wanted if k in waiting and k not in first and not of_several(k)}
            behind = set(tx.lists._stale(wanted, rescored=rescored))
            stale = [k for k in wanted if k in promoted or k in behind]
            again = [k for k in stale if k in first and k in kept]
            stale = [k for k in stale if k not in first]
            later = [k for k in stale if typed and not _at_import(k, matches.get(k, 0), papers)]  # the refresher's
            stale = [k for k in stale if k not in set(later)]
            # A prefix matching the words another does is written from that one's ranking.
            ranked = set(stale)
            copies: dict[str, list[str]] = {}
            for key in stale:
                if same.get(key, key) != key and same[key] in ranked:
                    copies.setdefault(same[key], []).append(key)
            alone = [k for k in stale if not (same.get(k, k) != k and same[k] in ranked)]
        if choose and (kept or wanted or seen is not None) or again:
            with self.store.write(catch_up=False) as tx:
                if choose and (kept or wanted or seen is not None):
                    tx.lists._choose(words, wanted, papers)
                tx.lists._at_first_search(again)
        built = 0
        for keys in _passes(alone, one_by_one=budget is not None, matches=matches, papers=papers):
            if budget is not None and time.perf_counter() - start > budget:
                break
            if len(keys) == 1:
                with self.store.write(catch_up=False) as tx:  # waits for another writer: no retries needed
                    made = [tx.lists._rank(keys[0], LIST_SIZE)]
                    tx.lists._write_with_copies(made, copies)
            else:  # ranked in a read (writers go on meanwhile), kept in a short write
                with self.store.read() as tx:
                    made = tx.lists._rank_many(keys, LIST_SIZE)
                with self.store.write(catch_up=False) as tx:
                    tx.lists._write_with_copies(made, copies)
            built += sum(1 + len(copies.get(one.key, ())) for one in made)
            if progress is not None:
                progress(built, len(stale))
        with self.store.write(catch_up=False) as tx:
            tx.lists._forget_changes()
        return built, len(stale) + len(later) - built

    def behind(self) -> bool:
        """Whether refresh has work: a list searches cannot read, or words to choose (none
        chosen yet in a catalog big enough, or it grew or shrank by a quarter since)."""
        with self.store.read() as tx:
            papers = tx.papers.paper_count()
            seen = tx.conn.execute(f"SELECT matches FROM {STATE_TABLE} WHERE key = ?", (CHOSEN_AT,)).scalar()
            if seen is None:
                return papers >= MIN_MATCHES
            return catalog_resized(seen, papers) or bool(tx.lists._stale())

    def left(self) -> int:
        with self.store.read() as tx:
            papers = tx.papers.paper_count()
            seen = tx.conn.execute(f"SELECT matches FROM {STATE_TABLE} WHERE key = ?", (CHOSEN_AT,)).scalar()
            if seen is None:
                return int(papers >= MIN_MATCHES)
            return max(len(tx.lists._stale()), int(catalog_resized(seen, papers)))

    def keep(self, made: list[RankedList]) -> None:
        """Write the lists a search ranked, unless another writer holds the catalog (an import:
        the next search of those words ranks again) or the database refuses writes (a
        read-only role, a standby: not tried again by this store, so the server's log gets one
        refusal, not one a search)."""
        if not made or self.refused:
            return
        try:
            with self.store.write_at_once() as tx:
                if tx is not None:
                    for one in made:
                        tx.lists._keep(one)
        except (StoreError, psycopg.Error) as error:
            refused = (psycopg.errors.InsufficientPrivilege, psycopg.errors.ReadOnlySqlTransaction)
            self.refused = isinstance(error.__cause__ or error, refused)
