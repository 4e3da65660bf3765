"""Making and keeping PostgreSQL's ranked lists in one transaction: which words and prefixes
get one, ranking them (one by one, or many in one pass over the papers), writing them, and what
doctor checks of them. Reading them is postgres.py's; the store's refresh across transactions
is postgres_upkeep.py's.

Words in RANKED_AHEAD papers or more and prefixes in PREFIX_AHEAD are ranked ahead (by imports,
many lists in one pass over the papers: rank_many; `catalog doctor --fix`); the other words and
prefixes in MIN_MATCHES papers have a state row AT_FIRST_SEARCH, and their first search ranks
their list (postgres.py) with `rank`.
"""

from __future__ import annotations

from dataclasses import replace

from catalog.store.base import ListMaintenance
from catalog.store.lists import postgres as reading
from catalog.store.lists.maintenance import BuilderMaintenance
from catalog.store.lists.postgres import (_SCORE, AT_FIRST_SEARCH, CHANGE_TABLE, CHOSEN_AT, NOT_RANKED,
                                          STATE_TABLE, TOP_TABLE, RankedList, list_key, of_prefix, of_several)
from catalog.store.lists.scoring import catalog_resized
from catalog.store.rows import ListProblems
from catalog.store.tsvector import VECTORS, WEIGHTS

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
# 100k: 120-137 ms). Prefixes with the same words share one ranking. Which of them an import
# ranks before it returns: postgres_upkeep.py.
PREFIX_AHEAD = 10_000
# In a larger catalog, those in this share of its papers (how many prefixes reach the bar
# grows with the catalog, and ranking each reads its matches: a fixed bar would rank thousands).
PREFIX_SHARE = 0.1
SEVERAL_LISTS = 500  # lists of several words kept (1,000 papers each)
# Ranking many lists in one pass (rank_many): the cut comes from SAMPLE_SHARE of the pages
# (in catalogs of SAMPLE_ABOVE lists' lengths or more), at SAMPLE_MARGIN times the rank
# expected there, so that a key's cut rarely leaves fewer than LIST_SIZE papers above it.
SAMPLE_SHARE, SAMPLE_ABOVE, SAMPLE_MARGIN = 1 / 16, 20, 1.5


class PostgresListBuilder:
    """Ranking, writing and checking lists in one transaction (`conn`)."""

    def __init__(self, conn):
        self.conn = conn

    def rank(self, key: str, size: int | None = None) -> RankedList:
        """List `key` as the index ranks it in this transaction's snapshot (a read), LIST_SIZE
        papers unless `size`."""
        size = LIST_SIZE if size is None else size
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

    def rank_many(self, keys: list[str], size: int) -> list[RankedList]:
        """Lists `keys` (of one index) as `rank` would, in one pass over the papers (a read):
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
                made.append(self.rank(key, size))
            else:
                made.append(RankedList(key, built_at, found[:size], row["matches"]))
        return made

    def keep(self, made: RankedList) -> None:
        """In a write transaction: write a list a search ranked unless one exists by now, and
        drop the oldest lists of several words past SEVERAL_LISTS."""
        if self.conn.execute(f"SELECT 1 FROM {STATE_TABLE} WHERE key = ? AND weights <> ALL(?)",
                             (made.key, list(NOT_RANKED))).first():
            return
        self.write(made)
        old = [key for key in self.conn.execute(
            f"SELECT key FROM {STATE_TABLE} WHERE key != ? AND key != ? AND (key LIKE '%&%' OR key LIKE '%<%')"
            " ORDER BY built_at DESC, key OFFSET ?", (CHOSEN_AT, made.key, max(0, SEVERAL_LISTS - 1))).scalars()
            if of_several(key)]
        if old:
            self.drop(old)

    def words(self, min_matches: int | None = None) -> list[tuple[str, int]]:
        """(key, papers matching) of every word in at least `min_matches` papers (of the forms
        index, in RANKED_AHEAD: a tier after the first reads its lists, and no first search
        ranks one), and of every prefix (of plain letters and digits) whose words are, summed,
        in the exact index; most papers first (ts_stat over every vector: seconds at 100k)."""
        return self.words_alike(min_matches)[0]

    def words_alike(self, min_matches: int | None = None) -> tuple[list[tuple[str, int]], dict[str, str]]:
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

    def build(self, key: str, size: int | None = None) -> int:
        """Rank one list from the full ranking (in a write transaction: no change can slip
        between the ranking and the change it is stamped with); how many papers it lists."""
        made = self.rank(key, size)
        self.write(made)
        return len(made.papers)

    def write_with_copies(self, made: list[RankedList], copies: dict[str, list[str]]) -> None:
        """Write these lists, each also under the keys `copies` names for it (prefixes that
        match the same words)."""
        for one in made:
            self.write(one)
            for key in copies.get(one.key, ()):
                self.write(replace(one, key=key))

    def write(self, made: RankedList) -> None:
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

    def choose(self, words: list[tuple[str, int]], wanted: list[str], papers: int) -> None:
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

    def at_first_search(self, keys: list[str]) -> None:
        """These lists go back to being ranked by their next first search."""
        if keys:
            self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE key = ANY(?)", (keys,))
            self.conn.execute(f"UPDATE {STATE_TABLE} SET weights = ?, built_at = 0, listed = 0 WHERE key = ANY(?)",
                              (AT_FIRST_SEARCH, keys))

    def several(self) -> tuple[list[str], list[str]]:
        """(the lists of several words kept, none a search would rank again: they follow
        changes as a word's do, and `stale` counts them)."""
        return [k for k in self.keys() if of_several(k)], []

    def drop(self, keys: list[str]) -> None:
        self.conn.execute(f"DELETE FROM {TOP_TABLE} WHERE key = ANY(?)", (list(keys),))
        self.conn.execute(f"DELETE FROM {STATE_TABLE} WHERE key = ANY(?)", (list(keys),))

    def forget_changes(self) -> None:
        """Forget the changes every list was ranked after."""
        self.conn.execute(f"DELETE FROM {CHANGE_TABLE} WHERE seq <= (SELECT coalesce(min(built_at), 0)"
                          f" FROM {STATE_TABLE} WHERE key != ? AND weights != ?)", (CHOSEN_AT, AT_FIRST_SEARCH))

    def keys(self) -> list[str]:
        """The lists kept or to be ranked ahead (not those AT_FIRST_SEARCH)."""
        return [r[0] for r in self.conn.execute(
            f"SELECT key FROM {STATE_TABLE} WHERE key != ? AND weights != ? ORDER BY matches DESC, key",
            (CHOSEN_AT, AT_FIRST_SEARCH)).all()]

    def stale(self, keys: list[str] | None = None, *, rescored: bool = True) -> list[str]:
        """The lists (of `keys`, or all kept) a search would not read: missing, ranked with
        other weights, or more than CHANGE_LIMIT changes behind (without `rescored`: any). One
        AT_FIRST_SEARCH is none of these: its first search ranks it."""
        behind = reading.CHANGE_LIMIT if rescored else 0
        fresh = {r[0] for r in self.conn.execute(
            f"SELECT key FROM {STATE_TABLE} s WHERE key != ? AND (weights = ? OR weights = ? AND (SELECT count(*)"
            f" FROM (SELECT 1 FROM {CHANGE_TABLE} c WHERE c.seq > s.built_at LIMIT ?) AS n) <= ?)",
            (CHOSEN_AT, AT_FIRST_SEARCH, WEIGHTS, behind + 1, behind)).all()}
        return [k for k in (self.keys() if keys is None else keys) if k not in fresh]

    def note(self) -> str | None:
        keys = self.keys()
        waiting = self.conn.execute(f"SELECT count(*) FROM {STATE_TABLE} WHERE weights = ?", (AT_FIRST_SEARCH,)).scalar()
        if not keys and not waiting:
            papers = self.conn.execute("SELECT count(*) FROM paper").scalar()
            if papers < MIN_MATCHES:
                return f"ranked lists: none (a catalog of fewer than {MIN_MATCHES:,} papers ranks every match)"
            return ("ranked lists: none yet (an import ranks them in the background;"
                    " `catalog doctor --fix` ranks them now)")
        stale = len(self.stale(keys))
        several = sum(1 for k in keys if of_several(k))
        prefixes = sum(1 for k in keys if of_prefix(k))
        return (f"ranked lists: {len(keys) - several - prefixes:,} words in {MIN_MATCHES:,}+ papers"
                + (f", {prefixes:,} prefixes" if prefixes else "")
                + (f" and {several:,} searches of several of them" if several else "")
                + f", each listing its best {LIST_SIZE:,} by ts_rank" + (f"; {stale:,} out of date" if stale else "")
                + (f"; {waiting:,} more words and prefixes get theirs at their first search" if waiting else ""))

    def maintenance(self) -> ListMaintenance:
        return BuilderMaintenance(self, self.words)

    def problems(self) -> ListProblems:
        papers = self.conn.execute("SELECT count(*) FROM paper").scalar()
        seen = self.conn.execute(f"SELECT matches FROM {STATE_TABLE} WHERE key = ?", (CHOSEN_AT,)).scalar()
        choose = papers >= MIN_MATCHES and (seen is None or catalog_resized(seen, papers))
        return ListProblems(self.stale(), self._differing(), papers if choose else None)

    def repair(self) -> tuple[int, int]:
        """Rank again any list unlike the ranking (those out of date are the refresh's, after;
        a list of several words follows changes as a word's does: none to drop)."""
        differing = self._differing()
        for key in differing:
            self.build(key)
        return len(differing), 0

    def _differing(self, how_many: int = 3, depth: int = 50) -> list[str]:
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


def _first_weights(key: str, matches: int, papers: int) -> str:
    """A chosen list's state row's weights in a catalog of `papers`: '' (to be ranked ahead),
    or AT_FIRST_SEARCH."""
    ahead = max(PREFIX_AHEAD, PREFIX_SHARE * papers) if of_prefix(key) else RANKED_AHEAD
    return "" if matches >= ahead else AT_FIRST_SEARCH
