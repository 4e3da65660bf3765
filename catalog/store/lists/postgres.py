"""PostgreSQL's ranked lists (migration 0011): the best papers of each frequent word.

A ranked search scores every match with ts_rank, which reads each match's row: a frequent word
costs tens of milliseconds and more. For words in at least MIN_MATCHES papers, `rank_top` keeps the
head of the full ranking (LIST_SIZE papers, the search's own `ORDER BY -ts_rank(...), id`) per
index (`exact`: the words as written, `stems`: their forms, those in RANKED_AHEAD papers), and
for prefixes whose words are in MIN_MATCHES papers together (`model*`, exact index). This
module reads them; postgres_build.py chooses, ranks and writes them (the words and prefixes
ranked ahead; the others have a state row AT_FIRST_SEARCH, and their first search ranks their
list here, as it would rank every match anyway, and keeps it, as for several words: below);
postgres_upkeep.py is the store's refresh across transactions. ts_rank with normalization 1 uses
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
from dataclasses import dataclass
from typing import Protocol

from catalog.store import lists
from catalog.store.base import ListMaintenance, RankedLists
from catalog.store.compiler import TIERS
from catalog.store.rows import READER_JOIN, SUMMARY_COLUMNS, ListProblems
from catalog.store.tsvector import CONFIG, VECTORS, WEIGHTS

TOP_TABLE, STATE_TABLE, CHANGE_TABLE = "rank_top", "rank_top_state", "rank_top_change"
AT_FIRST_SEARCH = "at first search"  # a state row's weights: no list yet, its first search ranks it
# A word's or prefix's list that a search ranks if it comes first: one left to its first search,
# or one to be ranked ahead ('') that the import left to the refresher (`infl*` at 100k).
NOT_RANKED = (AT_FIRST_SEARCH, "")
WINDOW = 4  # with filters: how many pages' worth of a list's papers are tried
# Past this many changes a list is not read (and doctor calls it out of date) until ranked
# again (migration 0011's); postgres_build.py reads it here.
CHANGE_LIMIT = 2000
CHOSEN_AT = "#papers"  # a state row that is no list: the catalog's size when words were chosen
_SCORE = "-ts_rank({weights}, p.{column}, q.q, 1)"  # the compiler's search_sql's score
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


class ListBuilding(Protocol):
    """What reading asks of its builder (postgres_build.PostgresListBuilder, which imports this
    module: the builder is handed in, never imported here)."""

    def rank(self, key: str, size: int | None = None) -> RankedList: ...
    def maintenance(self) -> ListMaintenance: ...
    def problems(self) -> ListProblems: ...
    def repair(self) -> tuple[int, int]: ...
    def note(self) -> str | None: ...


class PostgresRankedLists(RankedLists):
    """The ranked lists of a transaction on a shared catalog, read with the tiers its
    `compiler` (postgres/search.py's) makes. `keeping`: whether its searches may rank lists of
    several words for the caller to keep (a read on a store that may write them); `builder`: a
    PostgresListBuilder on the same connection (postgres_build.py)."""

    def __init__(self, conn, user: str, compiler, builder: ListBuilding, *, keeping: bool = False):
        super().__init__(conn, user)
        self.compiler = compiler
        self.builder = builder  # ranks a first search's list; doctor's checks
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
        made = self.builder.rank(key)
        self._ranked_now[key] = made
        state = {"key": key, "built_at": made.built_at, "listed": len(made.papers), "matches": made.matches,
                 "changes": 0}
        self._list_states[1][tier] = state
        return state

    def to_keep(self) -> list[RankedList]:
        return list(self._ranked_now.values())

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

    def maintenance(self) -> ListMaintenance:
        return self.builder.maintenance()

    def problems(self) -> ListProblems:
        return self.builder.problems()

    def repair(self) -> tuple[int, int]:
        return self.builder.repair()

    def note(self) -> str | None:
        return self.builder.note()
