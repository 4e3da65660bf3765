"""Ranked lists on PostgreSQL (migration 0011): the best papers of each frequent word.

A ranked search scores every match with ts_rank, which reads each match's row: a word in 10,000
of 100,000 papers costs ~70 ms. For words in at least MIN_MATCHES papers, `rank_top` keeps the
head of the full ranking (LIST_SIZE papers, the search's own `ORDER BY -ts_rank(...), id`) per
index (`exact`: the words as written, `stems`: their forms). ts_rank with normalization 1 uses
no collection statistics: a paper's score depends on that paper alone, so unlike SQLite's bm25
lists (sqlite/topk.py) nothing drifts when other papers change.

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
list), without filters or `-word`s, ranks its list instead of its page (rank_list_now: the
store's `rank_list`, another connection, a short write transaction skipped when another writer
holds the catalog) and reads its page from that ranking; later searches, everyone's, read the
list. `"language model"` at 100k papers checks the positions of 14,621 papers to find 860,
then ranks those; from its list a search reads 50. At most COMPOUND_LISTS are kept, the oldest
ranked dropped first; refresh ranks them again as it does the words'.
"""

from __future__ import annotations

import os
import re
import time

from catalog.store.base import RankedLists
from catalog.store.compiler import TIERS
from catalog.store.postgres import search
from catalog.store.ranked import catalog_resized

TOP_TABLE, STATE_TABLE, CHANGE_TABLE = "rank_top", "rank_top_state", "rank_top_change"
LIST_SIZE = 1000  # papers kept per word: pages, and room for filters to reject most of them
# Which words get a list: those in at least this many papers, where ts_rank over every match
# takes 10-30 ms or more (5-15 us a match at 100k on a busy 2-core machine, reading each
# match's row). A smaller catalog keeps none.
MIN_MATCHES = 2_000
WINDOW = 4  # with filters: how many pages' worth of a list's papers are tried
CHANGE_LIMIT = 2000  # migration 0011's: past it a list is ranked again, not followed
ENABLED = os.environ.get("CATALOG_TOPK_LISTS", "on") != "off"
CHOSEN_AT = "#papers"  # a state row that is no list: the catalog's size when words were chosen
_SCORE = "-ts_rank({weights}, p.{column}, q.q, 1)"  # search.search_sql's score
COMPOUND_LISTS = 500  # lists of several words kept (1,000 papers each)
_LEXEME = re.compile(r"'((?:[^']|'')*)'")


def compound(tsquery: str) -> bool:
    """Whether a tsquery (or a list's key) is an AND or a phrase of plain words: no OR, no NOT,
    no prefix (the words are quoted runs of letters and digits, so these are operators)."""
    return ("&" in tsquery or "<" in tsquery) and not any(op in tsquery for op in ("|", "!", ":*"))


def list_key(index: str, tsquery: str) -> str:
    """A list's key: the index and the tsquery's text (as PostgreSQL prints it)."""
    return f"{index} {tsquery}"


class PostgresLists(RankedLists):
    """The ranked lists of a transaction on a shared catalog. `rank_list`: the store's way to
    rank a list of several words on another connection (read transactions only)."""

    rank_list = None

    def page(self, compiled, tier: str, limit: int, offset: int,
             with_text: bool, sort) -> list | None:
        """A tier's page (rows as search.search_sql's) from a ranked list, or None when no list
        proves it: rank every match."""
        if (not ENABLED or limit < 0 or tier == "some" or sort.reverse or sort.field != "relevance"):
            return None
        expression = search.tier_expression(compiled, tier)
        index = "exact" if tier == "exact" else "stems"
        column, config = search.VECTORS[index]
        state = self._list_state(compiled, tier)
        if state is None:
            state = self._list_now(compiled, tier)
        if state is None or state["changes"] > CHANGE_LIMIT:
            return None
        need = offset + limit
        complete = state["listed"] >= state["matches"]
        if not complete and need > state["listed"]:
            return None
        conds, params = search.tier_conditions(compiled, tier)
        where = "".join(f" AND {c}" for c in conds)
        changed = [] if not state["changes"] else [r[0] for r in self.conn.execute(
            f"SELECT DISTINCT paper_id FROM {CHANGE_TABLE} WHERE seq > ?", (state["built_at"],)).all()]
        # With filters, only the list's first papers are tried (WINDOW pages' worth): where the
        # filters are selective, the full query (which reads them first) is quicker than
        # reading a long run of the list's rows.
        window = min(state["listed"], need * WINDOW) if conds else state["listed"]
        text = "p.abstract_text" if with_text else "NULL"
        made = self.__dict__.get("_made_lists", {}).get(state["key"])
        if made is not None:  # ranked just now: newer than this transaction's snapshot
            if conds:  # (another search of the same words in this transaction) not seen here
                return None
            found = made
        elif not changed:  # the page's rows in the same statement (a server: one round trip less)
            rows = self.conn.execute(
                f"SELECT {search.SUMMARY_COLUMNS}, {text} AS text, t.score AS score FROM {TOP_TABLE} t"
                f" JOIN paper p ON p.id = t.paper_id {search.READER_JOIN}"
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
            f"SELECT {search.SUMMARY_COLUMNS}, {text} AS text, v.score AS score"
            " FROM unnest(?::integer[], ?::real[]) WITH ORDINALITY AS v(id, score, n)"
            f" JOIN paper p ON p.id = v.id {search.READER_JOIN} ORDER BY v.n",
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
            score = _SCORE.format(weights=search.WEIGHTS, column=column)
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
        if not ENABLED or tier == "some":
            return False
        state = self._list_state(compiled, tier)
        if state is None and self.__dict__.get("_planned") is not compiled:  # the walk's first tier
            state = self._list_now(compiled, tier)
        self._planned = compiled
        return state is not None and state["changes"] <= CHANGE_LIMIT

    def _list_now(self, compiled, tier: str):
        """For an exact tier of several frequent words (each with its list) that has no list,
        in a search without filters or `-word`s: rank its list now (the store's `rank_list`:
        another connection, committed) and return its state; its papers are kept for this
        transaction, whose snapshot is older than them. None: rank every match as before
        (other words, or the store could not write)."""
        expression = search.tier_expression(compiled, tier)
        rank = self.rank_list
        if (tier != "exact" or rank is None or not expression or not compound(expression)
                or compiled.where or compiled.exclude):
            return None
        words = _LEXEME.findall(expression)
        frequent = self.conn.execute(
            f"SELECT count(*) FROM {STATE_TABLE} WHERE key = ANY(SELECT 'exact ' || to_tsquery(?::regconfig, w)::text"
            " FROM unnest(?::text[]) AS w)", (search.CONFIG, [f"'{w}'" for w in words])).scalar()
        if frequent < len(set(words)):
            return None
        made = rank("exact", expression)
        if made is None:
            return None
        state, papers = made
        self.__dict__.setdefault("_made_lists", {})[state["key"]] = papers
        self._list_states[1][tier] = state
        return state

    def rank_list_now(self, index: str, expression: str):
        """In a write transaction: rank the list of `expression` (a tsquery as the compiler
        wrote it) unless one exists, and drop the oldest lists of several words past
        COMPOUND_LISTS. (its state, its papers as (score, id)), or None when it exists."""
        tsquery = self.conn.execute("SELECT to_tsquery(?::regconfig, ?)::text",
                                    (search.VECTORS[index][1], expression)).scalar()
        key = list_key(index, tsquery)
        if not compound(tsquery) or self.conn.execute(f"SELECT 1 FROM {STATE_TABLE} WHERE key = ?", (key,)).first():
            return None
        built_at, matches, papers = self._rank_into(key, LIST_SIZE)
        old = [r[0] for r in self.conn.execute(
            f"SELECT key FROM {STATE_TABLE} WHERE key != ? AND key != ? AND (key LIKE '%&%' OR key LIKE '%<%')"
            " ORDER BY built_at DESC, key OFFSET ?", (CHOSEN_AT, key, max(0, COMPOUND_LISTS - 1))).all()
            if compound(r[0])]
        if old:
            self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE key = ANY(?)", (old,))
            self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE key = ANY(?)", (old,))
        state = {"key": key, "built_at": built_at, "listed": len(papers), "matches": matches, "changes": 0}
        return state, papers

    def _list_state(self, compiled, tier: str):
        """The state row of a tier's list (None: no list). The states of every tier of the
        query are read in one statement, the first time one is asked for in one walk of the
        tiers (one `compiled`, ranked.py): a rare word's walk (exact, then other forms) asks
        twice. A new walk reads them again (changes may have been logged since)."""
        held = self.__dict__.get("_list_states")
        if held is None or held[0] is not compiled:
            tiers = [t for t in TIERS[:-1] if search.tier_expression(compiled, t) is not None]
            held = self._list_states = (compiled, self._read_list_states(compiled, tiers))
        return held[1].get(tier)

    def _read_list_states(self, compiled, tiers: list[str]) -> dict:
        """{tier: its list's state row} of the `tiers` that have a list."""
        if not tiers:
            return {}
        indexes = ["exact" if t == "exact" else "stems" for t in tiers]
        rows = self.conn.execute(
            f"SELECT v.n, s.key, s.built_at, s.listed, s.matches, (SELECT count(*) FROM (SELECT 1 FROM"
            f" {CHANGE_TABLE} c WHERE c.seq > s.built_at LIMIT ?) AS n) AS changes"
            " FROM unnest(?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS v(idx, config, expression, n)"
            f" JOIN {STATE_TABLE} s ON s.key = v.idx || ' ' || to_tsquery(v.config::regconfig, v.expression)::text"
            " WHERE s.weights = ?",
            (CHANGE_LIMIT + 1, indexes, [search.VECTORS[i][1] for i in indexes],
             [search.tier_expression(compiled, t) for t in tiers], search.WEIGHTS)).all()
        return {tiers[r["n"] - 1]: r for r in rows}

    # --- building ----------------------------------------------------------------------------------

    def words(self, min_matches: int | None = None) -> list[tuple[str, int]]:
        """(key, papers matching) of every word in at least `min_matches` papers, in both
        indexes, most papers first (ts_stat over every vector: seconds at 100k papers)."""
        min_matches = MIN_MATCHES if min_matches is None else min_matches
        out = []
        for index, (column, _) in search.VECTORS.items():
            out += [(list_key(index, r["q"]), r["ndoc"]) for r in self.conn.execute(
                f"SELECT quote_literal(word)::tsquery::text AS q, ndoc FROM ts_stat('SELECT {column} FROM paper')"
                " WHERE ndoc >= ?", (min_matches,)).all()]
        return sorted(out, key=lambda kn: (-kn[1], kn[0]))

    def build(self, key: str, size: int | None = None) -> int:
        """Rank one list from the full ranking (in a write transaction: no change can slip
        between the ranking and the change it is stamped with); how many papers it lists."""
        return len(self._rank_into(key, LIST_SIZE if size is None else size)[2])

    def _rank_into(self, key: str, size: int) -> tuple[int, int, list[tuple[float, int]]]:
        """Rank list `key` into the tables: (the change it was ranked after, the papers
        matching, its papers as (score, id) best first)."""
        index, tsquery = key.split(" ", 1)
        column, _ = search.VECTORS[index]
        score = _SCORE.format(weights=search.WEIGHTS, column=column)
        built_at = self.conn.execute(f"SELECT coalesce(max(seq), 0) FROM {CHANGE_TABLE}").scalar()
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE key = ?", (key,))
        rows = self.conn.execute(
            f"WITH q AS (SELECT ?::tsquery AS q), ranked AS (SELECT p.id, {score} AS score, count(*) OVER () AS matches"
            f" FROM paper p, q WHERE p.{column} @@ q.q ORDER BY score, p.id LIMIT ?),"
            f" stored AS (INSERT INTO {TOP_TABLE}(key, position, paper_id, score)"
            "  SELECT ?, row_number() OVER (ORDER BY score, id), id, score FROM ranked)"
            " SELECT score, id, matches FROM ranked ORDER BY score, id", (tsquery, size, key)).all()
        matches = rows[0]["matches"] if rows else 0
        self.conn.execute(
            f"INSERT INTO {STATE_TABLE}(key, built_at, weights, listed, matches) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET built_at = excluded.built_at, weights = excluded.weights,"
            " listed = excluded.listed, matches = excluded.matches",
            (key, built_at, search.WEIGHTS, len(rows), matches))
        return built_at, matches, [(r["score"], r["id"]) for r in rows]

    def drop_top_lists(self, keep: set[str]) -> None:
        """Forget the lists not in `keep` (words no longer frequent)."""
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE NOT key = ANY(?)", (sorted(keep),))
        self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE NOT key = ANY(?) AND key != ?",
                          (sorted(keep), CHOSEN_AT))

    def several(self) -> tuple[list[str], list[str]]:
        """(the lists of several words kept, none a search would rank again: they follow
        changes as a word's do, and `stale` counts them)."""
        return [k for k in self.keys() if compound(k)], []

    def drop(self, keys: list[str]) -> None:
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE key = ANY(?)", (list(keys),))
        self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE key = ANY(?)", (list(keys),))

    def forget_changes(self) -> bool:
        """Forget the changes every list was ranked after."""
        self.conn.execute(f"DELETE FROM {CHANGE_TABLE} WHERE seq <= (SELECT coalesce(min(built_at), 0)"
                          f" FROM {STATE_TABLE} WHERE key != ?)", (CHOSEN_AT,))
        return True

    # --- doctor ------------------------------------------------------------------------------------

    def keys(self) -> list[str]:
        return [r[0] for r in self.conn.execute(
            f"SELECT key FROM {STATE_TABLE} WHERE key != ? ORDER BY matches DESC, key", (CHOSEN_AT,)).all()]

    def stale(self, keys: list[str] | None = None, *, rescored: bool = True) -> list[str]:
        """The lists (of `keys`, or all kept) a search would not read: missing, ranked with
        other weights, or more than CHANGE_LIMIT changes behind (without `rescored`: any)."""
        behind = CHANGE_LIMIT if rescored else 0
        fresh = {r[0] for r in self.conn.execute(
            f"SELECT key FROM {STATE_TABLE} s WHERE key != ? AND weights = ? AND (SELECT count(*) FROM"
            f" (SELECT 1 FROM {CHANGE_TABLE} c WHERE c.seq > s.built_at LIMIT ?) AS n) <= ?",
            (CHOSEN_AT, search.WEIGHTS, behind + 1, behind)).all()}
        return [k for k in (self.keys() if keys is None else keys) if k not in fresh]

    def note(self) -> str | None:
        keys = self.keys()
        if not keys:
            papers = self.conn.execute("SELECT count(*) FROM paper").scalar()
            if papers < MIN_MATCHES:
                return f"ranked lists: none (a catalog of fewer than {MIN_MATCHES:,} papers ranks every match)"
            return ("ranked lists: none yet (an import ranks them in the background;"
                    " `catalog doctor --fix` ranks them now)")
        stale = len(self.stale(keys))
        several = sum(1 for k in keys if compound(k))
        return (f"ranked lists: {len(keys) - several:,} words in {MIN_MATCHES:,}+ papers"
                + (f" and {several:,} searches of several of them" if several else "")
                + f", each listing its best {LIST_SIZE:,} by ts_rank" + (f"; {stale:,} out of date" if stale else ""))

    def mismatches(self, how_many: int = 3, depth: int = 50) -> list[str]:
        """Lists a search reads (the `how_many` of fewest matches: quick to rank in full) whose
        head, as a search reads it, differs from the full ranking's."""
        unread = set(self.stale())
        keys = [k for k in self.keys()[::-1] if k not in unread][:how_many]
        wrong = []
        for key in keys:
            head = self._list_head(key, depth)
            if head != self._full_head(key, depth)[:len(head)]:
                wrong.append(key)
        return wrong

    def _full_head(self, key: str, depth: int) -> list[tuple[float, int]]:
        index, tsquery = key.split(" ", 1)
        column, _ = search.VECTORS[index]
        score = _SCORE.format(weights=search.WEIGHTS, column=column)
        return [(r["score"], r["id"]) for r in self.conn.execute(
            f"WITH q AS (SELECT ?::tsquery AS q) SELECT p.id, {score} AS score FROM paper p, q"
            f" WHERE p.{column} @@ q.q ORDER BY score, p.id LIMIT ?", (tsquery, depth)).all()]

    def _list_head(self, key: str, depth: int) -> list[tuple[float, int]]:
        """The first `depth` papers of a list as a search reads it (changed papers ranked anew;
        past the list's last paper only when it lists every match)."""
        state = self.conn.execute(f"SELECT built_at, listed, matches FROM {STATE_TABLE} WHERE key = ?",
                                  (key,)).one()
        index, tsquery = key.split(" ", 1)
        column, _ = search.VECTORS[index]
        changed = [r[0] for r in self.conn.execute(
            f"SELECT DISTINCT paper_id FROM {CHANGE_TABLE} WHERE seq > ?", (state["built_at"],)).all()]
        listed = [(r["score"], r["paper_id"]) for r in self.conn.execute(
            f"SELECT paper_id, score FROM {TOP_TABLE} WHERE key = ? ORDER BY position", (key,)).all()]
        found = [f for f in listed if f[1] not in set(changed)]
        if changed:
            score = _SCORE.format(weights=search.WEIGHTS, column=column)
            found = sorted(found + [(r["score"], r["id"]) for r in self.conn.execute(
                f"WITH q AS (SELECT ?::tsquery AS q) SELECT p.id, {score} AS score FROM paper p, q"
                f" WHERE p.id = ANY(?) AND p.{column} @@ q.q", (tsquery, changed)).all()])
            if listed and state["listed"] < state["matches"]:
                found = [f for f in found if f <= listed[-1]]
        return found[:depth]


def refresh(store, *, budget: float | None, rescored: bool | None = None) -> tuple[int, int]:
    """Rank the lists a search cannot read (`rescored`, the default with a budget: more than
    CHANGE_LIMIT changes behind; otherwise every list with any change), most papers first, one
    short write transaction each, until `budget` seconds are spent (None: all). Which words get
    lists is read from the whole vocabulary (ts_stat: seconds at 100k papers) only when asked for
    all (budget None), when there are no lists yet, or when the catalog has grown or shrunk by a
    quarter since; lists no longer wanted are forgotten then. (built, still stale)."""
    start = time.perf_counter()
    rescored = budget is not None if rescored is None else rescored
    with store.read() as tx:
        papers = tx.conn.execute("SELECT count(*) FROM paper").scalar()
        kept = {r[0]: r[1] for r in tx.conn.execute(f"SELECT key, matches FROM {STATE_TABLE}").all()}
        seen = kept.pop(CHOSEN_AT, None)
        choose = budget is None or seen is None or catalog_resized(seen, papers)
        if choose:
            words = tx.lists.words() if papers >= MIN_MATCHES else []
            chosen = {k for k, _ in words}
            # Lists of several words stay while all their words have lists.
            wanted = [k for k, _ in words] + sorted(
                k for k in kept if compound(k)
                and all(list_key(k.split(" ", 1)[0], f"'{w}'") in chosen for w in _LEXEME.findall(k)))
        else:
            wanted = sorted(kept, key=lambda k: (-kept[k], k))
        stale = tx.lists.stale(wanted, rescored=rescored)
    if choose and (kept or wanted or seen is not None):
        with store.write(catch_up=False) as tx:
            tx.lists.drop_top_lists(set(wanted))
            # Every word chosen has a state row, unranked until built (never read; doctor and
            # the next refresh see it stale).
            tx.conn.execute(f"INSERT INTO {STATE_TABLE}(key, built_at, weights, listed, matches)"
                            " SELECT unnest(?::text[]), 0, '', 0, unnest(?::integer[]) ON CONFLICT (key) DO NOTHING",
                            ([k for k, _ in words], [n for _, n in words]))
            tx.conn.execute(
                f"INSERT INTO {STATE_TABLE}(key, built_at, weights, listed, matches) VALUES (?, 0, '', 0, ?)"
                " ON CONFLICT (key) DO UPDATE SET matches = excluded.matches", (CHOSEN_AT, papers))
    built = 0
    for key in stale:
        if budget is not None and time.perf_counter() - start > budget:
            break
        with store.write(catch_up=False) as tx:
            tx.lists.build(key)
            built += 1
    with store.write(catch_up=False) as tx:
        tx.lists.forget_changes()
    return built, len(stale) - built


def behind(store) -> bool:
    """Whether refresh has work: a list searches cannot read, or words to choose (none chosen
    yet in a catalog big enough, or it grew or shrank by a quarter since)."""
    with store.read() as tx:
        papers = tx.conn.execute("SELECT count(*) FROM paper").scalar()
        seen = tx.conn.execute(f"SELECT matches FROM {STATE_TABLE} WHERE key = ?", (CHOSEN_AT,)).scalar()
        if seen is None:
            return papers >= MIN_MATCHES
        return catalog_resized(seen, papers) or bool(tx.lists.stale())
