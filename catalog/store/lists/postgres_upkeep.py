"""The store's upkeep of PostgreSQL's ranked lists across transactions: refreshing them after
imports and for `catalog doctor --fix` (which lists, in what groups, each group ranked in a
read and written in a short write: postgres_build.py ranks and writes), and keeping the lists
searches ranked.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import psycopg

from catalog.errors import StoreError
from catalog.store.base import RankedListUpkeep
from catalog.store.lists import postgres_build as build
from catalog.store.lists.postgres import _LEXEME, AT_FIRST_SEARCH, CHOSEN_AT, STATE_TABLE, RankedList, list_key, of_prefix, of_several
from catalog.store.lists.postgres_build import _first_weights
from catalog.store.lists.scoring import TYPED_FROM, catalog_resized

# Which prefixes an import ranks before it returns (refresh's `typed`): those of TYPED_FROM
# letters or more in PREFIX_AT_IMPORT papers (or IMPORT_SHARE of the catalog); the rest
# (`infl*`, `tr*`) are left to the refresher it starts: ranking the 705 rankings of the 1,254
# prefixes of three letters and more at 100k took two minutes more (a pass ranking 100 of them:
# 15 s at load 9).
PREFIX_AT_IMPORT, IMPORT_SHARE = 50_000, 0.5
# A refresh with no time budget ranks up to this many lists of one index in a pass.
IN_ONE_PASS = 100
# A key in fewer than this share of the papers is ranked alone (see _passes): at 100k the
# words an import ranks ahead are in 20% or more (ranked together: 0.32x the time).
DENSE = 0.1


def _passes(keys: list[str], *, one_by_one: bool, matches: dict[str, int] | None = None,
            papers: int = 0) -> list[list[str]]:
    """`keys` in the groups refresh ranks together, the lists searches as you type read (_typed)
    before the one- and two-letter prefixes' (`tr*`: in the most papers, so first by matches;
    ranked first, they kept the refresher an import starts from `infl*` for most of its run).
    Each part: up to IN_ONE_PASS of one index at a time (in the order given), or each alone
    (`one_by_one`: a refresh within a time budget, which a pass over every paper could
    overrun); two or fewer of an index are ranked alone, and so is a key in fewer than DENSE of
    the `papers` (`matches`: of each key): a pass tests every paper against every key, where
    ranking one key alone reads only its matches (through the index, several times slower a
    match)."""
    out = []
    for typed in (True, False):
        part = [key for key in keys if _typed(key) == typed]
        out += [[key] for key in part] if one_by_one else _grouped(part, matches, papers)
    return out


def _grouped(keys: list[str], matches: dict[str, int] | None, papers: int) -> list[list[str]]:
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


def _typed(key: str) -> bool:
    """Whether searches as you type read this list: a word's, or a prefix's of TYPED_FROM
    letters or more."""
    return not of_prefix(key) or len(_LEXEME.findall(key)[0]) >= TYPED_FROM


def _at_import(key: str, matches: int, papers: int) -> bool:
    """Whether an import ranks this list before it returns (refresh's `typed`): a word's, or a
    typed prefix's in PREFIX_AT_IMPORT papers or IMPORT_SHARE of them (first searches of a
    quarter second and more: `model*`)."""
    if not of_prefix(key):
        return True
    return _typed(key) and matches >= max(PREFIX_AT_IMPORT, IMPORT_SHARE * papers)


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
            if choose and papers >= build.MIN_MATCHES:
                words, same = tx.lists.builder.words_alike()
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
            behind = set(tx.lists.builder.stale(wanted, rescored=rescored))
            stale = [k for k in wanted if k in promoted or k in behind]
            again = [k for k in stale if k in first and k in kept]
            stale = [k for k in stale if k not in first]
            later = [k for k in stale if typed and not _at_import(k, matches.get(k, 0), papers)]  # the refresher's
            stale = [k for k in stale if k not in set(later)]
            # Prefixes matching the same words are written from one ranking: a typed one's, so
            # that `app*` does not wait for `ap*` (_passes ranks the typed first).
            alike: dict[str, list[str]] = {}
            for key in stale:
                alike.setdefault(same.get(key, key), []).append(key)
            copies: dict[str, list[str]] = {}
            alone = []
            for group in alike.values():
                one = next((key for key in group if _typed(key)), group[0])
                alone.append(one)
                if len(group) > 1:
                    copies[one] = [key for key in group if key != one]
        if choose and (kept or wanted or seen is not None) or again:
            with self.store.write(catch_up=False) as tx:
                if choose and (kept or wanted or seen is not None):
                    tx.lists.builder.choose(words, wanted, papers)
                tx.lists.builder.at_first_search(again)
        built = 0
        for keys in _passes(alone, one_by_one=budget is not None, matches=matches, papers=papers):
            if budget is not None and time.perf_counter() - start > budget:
                break
            if len(keys) == 1:
                with self.store.write(catch_up=False) as tx:  # waits for another writer: no retries needed
                    made = [tx.lists.builder.rank(keys[0], build.LIST_SIZE)]
                    tx.lists.builder.write_with_copies(made, copies)
            else:  # ranked in a read (writers go on meanwhile), kept in a short write
                with self.store.read() as tx:
                    made = tx.lists.builder.rank_many(keys, build.LIST_SIZE)
                with self.store.write(catch_up=False) as tx:
                    tx.lists.builder.write_with_copies(made, copies)
            built += sum(1 + len(copies.get(one.key, ())) for one in made)
            if progress is not None:
                progress(built, len(stale))
        with self.store.write(catch_up=False) as tx:
            tx.lists.builder.forget_changes()
        return built, len(stale) + len(later) - built

    def behind(self) -> bool:
        """Whether refresh has work: a list searches cannot read, or words to choose (none
        chosen yet in a catalog big enough, or it grew or shrank by a quarter since)."""
        with self.store.read() as tx:
            papers = tx.papers.paper_count()
            seen = tx.conn.execute(f"SELECT matches FROM {STATE_TABLE} WHERE key = ?", (CHOSEN_AT,)).scalar()
            if seen is None:
                return papers >= build.MIN_MATCHES
            return catalog_resized(seen, papers) or bool(tx.lists.builder.stale())

    def left(self) -> int:
        with self.store.read() as tx:
            papers = tx.papers.paper_count()
            seen = tx.conn.execute(f"SELECT matches FROM {STATE_TABLE} WHERE key = ?", (CHOSEN_AT,)).scalar()
            if seen is None:
                return int(papers >= build.MIN_MATCHES)
            return max(len(tx.lists.builder.stale()), int(catalog_resized(seen, papers)))

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
                        tx.lists.builder.keep(one)
        except (StoreError, psycopg.Error) as error:
            refused = (psycopg.errors.InsufficientPrivilege, psycopg.errors.ReadOnlySqlTransaction)
            self.refused = isinstance(error.__cause__ or error, refused)
