"""SQLite's ranked lists as its store asks for them: the RankedLists role of a transaction
(pages, and what doctor asks), its ListMaintenance (what benchmarks and tests ask) and the
store's RankedListUpkeep (refresh after imports, keeping what searches ranked)."""

from __future__ import annotations

import os
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from catalog.errors import StoreError
from catalog.store import lists
from catalog.store.base import ListMaintenance, RankedLists, RankedListUpkeep
from catalog.store.rows import ListProblems
from catalog.store.compiler import CompiledQuery
from catalog.store.lists import scoring
from catalog.store.lists.records import IndexRecords, KnownLengths
from catalog.store.lists.maintenance import BuilderMaintenance
from catalog.store.lists.memo import ListMemo
from catalog.store.lists.sqlite_build import ListBuilder, RankedList
from catalog.store.lists.sqlite_several import FewFiltered, Retokenized, SeveralWords
from catalog.store.lists.sqlite_words import CHOSEN_AT, ChangedPapers, WordLists, read_state

# Of the stale lists of several words, a refresh ranks again the newest this many: all 500
# would keep the background refresher busy for minutes after an import at 1M papers (0.2-2.4 s
# each); the others wait for their next search.
SEVERAL_REFRESH = 50
UPKEEP_LOCK = "ranked-lists.lock"  # in the store's cache folder
# Lists ranked at once by a refresh with no budget (threads; one per core, at most four).
RANKERS = max(1, min(4, os.cpu_count() or 1))
# A transaction of a refresh that another writer holds up (an import's file, a search keeping
# a list) waits the connection's busy timeout, then is tried again, this many times, before the
# refresh stops (what it ranked stays; the next one goes on from there).
BUSY_RETRIES = 20


class SqliteRankedLists(RankedLists):
    """The ranked lists in one transaction on a catalog file. `memo`: the store's; `keeping`:
    whether its searches may rank lists of several words for the caller to keep."""

    def __init__(self, conn, user: str, memo: ListMemo, *, keeping: bool = False):
        super().__init__(conn, user)
        self.memo = memo
        records = IndexRecords(conn)
        self.records = records
        self.changes = ChangedPapers(conn)
        self.word_lists = WordLists(conn, records, self.changes)
        self.builder = ListBuilder(conn, records, self.changes, self.word_lists)
        retokenized = Retokenized(conn, records)
        self.few = FewFiltered(conn, self.word_lists, retokenized, records)
        self.several_words = SeveralWords(conn, self.word_lists, retokenized, records, self.changes, memo,
                                          self.builder.rank_several, keeping=keeping)

    def page(self, compiled: CompiledQuery, tier: str, limit: int, offset: int, with_text: bool,
             sort) -> list | None:
        """Only the exact tier in relevance order, best first, has lists."""
        if tier != "exact" or sort.reverse or sort.field != "relevance" or not lists.ENABLED or limit < 0:
            return None
        key = scoring.word_key(compiled)
        if key is None:
            return self.several_words.page(compiled, limit, offset, with_text)
        return self._word_page(key, compiled, limit, offset, with_text)

    def _word_page(self, key: str, compiled: CompiledQuery, limit: int, offset: int, with_text: bool) -> list | None:
        """The page of one word or prefix from its list, or None."""
        state = read_state(self.conn, key)
        if state is None:
            return None
        attempt = None
        if compiled.where:  # a filtered page the list did not serve on this index: not again
            attempt = (state, self.records.stamp(), self.changes.count(), tuple(compiled.where),
                       tuple(map(str, compiled.params)), compiled.reader, limit, offset)
            if self.memo.was_unserved(attempt):
                return None
        rows = self.word_lists.page(state, compiled, limit, offset, with_text)
        if rows is None and compiled.where:  # filters few papers pass: score each
            rows = self.few.page(state, compiled, limit, offset, with_text)
        if rows is None and attempt is not None:
            self.memo.unserved(attempt)
        return rows

    def may_serve(self, compiled: CompiledQuery, tier: str) -> bool:
        """SQLite walks tier by tier: no tiers are ranked together that a list would split."""
        return False

    def to_keep(self) -> list[RankedList]:
        return list(self.several_words.to_keep)

    def maintenance(self) -> ListMaintenance:
        return BuilderMaintenance(self.builder, self.builder.vocabulary)

    def problems(self) -> ListProblems:
        return self.builder.problems()

    def repair(self) -> tuple[int, int]:
        return self.builder.repair()

    def note(self) -> str | None:
        return self.builder.note()


class SqliteListUpkeep(RankedListUpkeep):
    """A catalog file's ranked lists across transactions. `store`: the SqliteStore.

    Searches give way to a refresh: one holds the upkeep lock (a file in the catalog's cache
    folder) exclusively while it runs, and a search keeps what it ranked only when it can
    hold that lock shared at once, for its short write. So however often searches run (the
    TUI searches as you type), they never hold the write lock a refresh waits for."""

    def __init__(self, store):
        self.store = store
        self.memo = ListMemo()
        self.refused = False  # the file refused to keep a list (read-only): not tried again
        self.lock = UpkeepLock(lambda: store.cache_dir() / UPKEEP_LOCK)
        self.known = KnownLengths()  # papers' lengths, shared by a refresh's rankings

    def refresh(self, *, budget: float | None, rescored: bool | None = None,
                progress: Callable[[int, int], None] | None = None, typed: bool = False) -> tuple[int, int]:
        """Rank the lists a search cannot read (`rescored`, the default with a budget) or all
        ranked on an older index, most papers first, until `budget` seconds are spent (None:
        all). Each is ranked in a read transaction (seconds for the most frequent words at 1M
        papers: writers are not kept waiting) and written in a short write transaction, unless
        the index changed meanwhile (then it is left for the next refresh); a transaction
        another writer holds up is tried again (BUSY_RETRIES). Which words and prefixes qualify
        is read from the whole vocabulary (seconds at 1M papers) only when asked for all (budget
        None), when none were chosen yet, or when the catalog has grown or shrunk by a quarter
        since; lists no longer wanted are forgotten then, and each wanted one is noted, so that
        a refresh cut short resumes. When every list is then ranked on the index as it is, the
        changed papers are forgotten. The lists of several words searches made come after every
        word's, the newest SEVERAL_REFRESH stale ones. `typed` (an import's, before it
        returns): those searches as you type read first, then, in a catalog of at most
        scoring.SHORT_AT_IMPORT papers, the one- and two-letter prefixes' (above it they are
        left to the background refresher). (built, still stale)."""
        with self.lock.exclusive():
            return self._refresh(budget, rescored, progress, typed)

    def _refresh(self, budget: float | None, rescored: bool | None,
                 progress: Callable[[int, int], None] | None, typed: bool = False) -> tuple[int, int]:
        start = time.perf_counter()
        rescored = budget is not None if rescored is None else rescored
        with self._patiently(self.store.read) as tx:
            builder = tx.lists.builder
            papers = tx.papers.paper_count()
            kept = builder.kept()
            seen = kept.pop(CHOSEN_AT, None)
            choose = budget is None or seen is None or scoring.catalog_resized(seen, papers)
            words = None
            if choose:  # a small catalog keeps none
                words = builder.vocabulary() if scoring.keeps_lists(papers) else []
                wanted = scoring.candidates(words, scoring.min_matches(papers))
            else:
                wanted = sorted(((k, n) for k, n in kept.items() if not scoring.of_several(k)),
                                key=lambda kn: (-kn[1], kn[0]))
            several = builder.stale(builder.several()[0][::-1], rescored=rescored)[:SEVERAL_REFRESH]
            stale = builder.stale([key for key, _ in wanted], rescored=rescored) + several
            if typed:  # those typing reads first: each span is then ranked under one of them
                stale.sort(key=lambda key: not scoring.typed(key))
            spans, spanned_at = builder.spans(stale, words), tx.lists.records.stamp()
            # A word's papers, as the vocabulary counted them on this index: not counted again.
            counted = builder.exact_matches(spans, words) if words else {}
        if choose and (kept or wanted or seen is not None):
            with self._patiently(self._write) as tx:
                tx.lists.builder.choose(wanted, papers)
        if stale:
            with self._patiently(self._write) as tx:
                tx.lists.changes.restart()
        queue, same = _one_per_span(stale, spans)
        if typed and scoring.leaves_short_prefixes(papers):  # a span only untyped keys share: for later
            queue = [key for key in queue if scoring.typed(key)]
        todo = len(queue) + sum(len(same.get(key, ())) for key in queue)
        over = (lambda: False) if budget is None else (lambda: time.perf_counter() - start > budget)
        built = done = 0
        while queue and not over():
            again = []
            for key, made in self._rank_all(queue, over, counted, spanned_at):
                aliases = same.pop(key, [])
                if made.stamp != spanned_at:  # the index changed: its words may no longer be one span
                    again.extend(aliases)
                    aliases = []
                with self._patiently(self._write) as tx:
                    for one in [made, *(tx.lists.builder.alias(made, k) for k in aliases)]:
                        built += tx.lists.builder.store(one)
                done += 1 + len(aliases)
                if progress is not None:
                    progress(done, todo)
            queue = again
        if stale or not rescored:
            with self._patiently(self._write) as tx:
                tx.lists.builder.forget_changes()  # only when every list is ranked on the index as it is
        return built, len(stale) - built

    def _write(self):
        return self.store.write(catch_up=False)

    def _rank(self, key: str, counted: dict[str, int], counted_at: bytes | None) -> RankedList:
        """`counted`: keys' matches as counted on the index when its stamp was `counted_at`."""
        with self._patiently(self.store.read) as tx:
            matches = counted.get(key) if key in counted and tx.lists.records.stamp() == counted_at else None
            return tx.lists.builder.rank(key, known=self.known, matches=matches)

    def _rank_all(self, keys: list[str], over: Callable[[], bool], counted: dict[str, int],
                  counted_at: bytes | None) -> Iterator[tuple[str, RankedList]]:
        """(key, its list as ranked) in `keys`' order, none begun once `over()`. RANKERS
        threads rank at once, each in a read transaction of its own: FTS5 ranks in C with the
        GIL released, so a machine's cores share the work, while the caller writes each list."""
        if RANKERS == 1 or len(keys) < 2:
            for key in keys:
                if over():
                    return
                yield key, self._rank(key, counted, counted_at)
            return
        from concurrent.futures import ThreadPoolExecutor  # only refreshes rank in threads, never a search

        pool = ThreadPoolExecutor(RANKERS, thread_name_prefix="ranking")
        pending: deque = deque()
        rest = iter(keys)

        def fill() -> None:
            while len(pending) <= RANKERS and not over():
                key = next(rest, None)
                if key is None:
                    return
                pending.append((key, pool.submit(self._rank, key, counted, counted_at)))

        try:
            fill()
            while pending:
                key, future = pending.popleft()
                made = future.result()
                fill()
                yield key, made
        finally:  # cut short (Ctrl-C): wait only for the lists being ranked now
            pool.shutdown(wait=True, cancel_futures=True)

    @contextmanager
    def _patiently(self, transaction: Callable) -> Iterator:
        """`transaction()` (the store's read or write), begun again while another writer
        holds the file past the busy timeout, BUSY_RETRIES times at most."""
        for attempt in range(BUSY_RETRIES + 1):
            with ExitStack() as stack:
                try:
                    tx = stack.enter_context(transaction())
                except StoreError as exc:
                    if not _busy(exc) or attempt == BUSY_RETRIES:
                        raise
                    continue
                yield tx
                return

    def behind(self) -> bool:
        """Whether refresh has work: a list searches cannot read, or the words to keep lists for
        are to be chosen (none chosen yet in a catalog big enough, or it grew or shrank by a
        quarter since). Cheap: an import asks before deciding where the work runs."""
        with self.store.read() as tx:
            papers = tx.papers.paper_count()
            seen = tx.lists.builder.kept().get(CHOSEN_AT)
            if seen is None:
                return scoring.keeps_lists(papers)
            return scoring.catalog_resized(seen, papers) or bool(tx.lists.builder.stale())

    def left(self) -> int:
        with self.store.read() as tx:
            papers = tx.lists.records.totals()[0]  # from the index's own record: no count(*) at 1M
            seen = tx.lists.builder.kept().get(CHOSEN_AT)
            if seen is None:
                return int(scoring.keeps_lists(papers))
            return max(len(tx.lists.builder.stale()), int(scoring.catalog_resized(seen, papers)))

    def keep(self, made: list[RankedList]) -> None:
        """Write the lists a search ranked, unless the index changed since, a refresh is under
        way, or another process holds the write lock (an import: the search does not wait for
        it; the next search of those words ranks again). A read-only file refuses: not tried
        again by this store."""
        if not made or self.refused:
            return
        with self.lock.shared_now() as free:
            if not free:
                return  # a refresh is running: give way
            try:
                with self.store.write_at_once() as tx:
                    for one in made:
                        tx.lists.builder.store(one)
            except (StoreError, sqlite3.Error) as exc:  # busy ("database is locked"), or read-only
                if "readonly" in str(exc):
                    self.refused = True


def _one_per_span(keys: list[str], spans: dict[str, tuple[str, str]]) -> tuple[list[str], dict[str, list[str]]]:
    """The keys to rank (the first of each span, in `keys`' order, and every key without
    one), and the others of each one's span, which take its list: a third of the words and
    prefixes of a large catalog share their span with another."""
    first: dict[tuple[str, str], str] = {}
    queue, same = [], {}
    for key in keys:
        span = spans.get(key)
        if span is None or span not in first:
            queue.append(key)
            if span is not None:
                first[span] = key
        else:
            same.setdefault(first[span], []).append(key)
    return queue, same


class UpkeepLock:
    """An advisory lock on a file beside the catalog's derived files, between the processes
    that use it: held exclusively by a refresh, shared by a search keeping a list. Where no
    file can be made (a read-only cache folder) or locked (no fcntl), nothing is held."""

    def __init__(self, path: Callable[[], Path]):
        self.path = path  # found when first needed: not every command that opens a store does

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Held until the block ends; waits for the searches keeping lists now (short writes)."""
        with self._locked(exclusive=True, wait=True):
            yield

    @contextmanager
    def shared_now(self) -> Iterator[bool]:
        """Whether it was free (no refresh under way), held shared meanwhile."""
        with self._locked(exclusive=False, wait=False) as held:
            yield held

    @contextmanager
    def _locked(self, *, exclusive: bool, wait: bool) -> Iterator[bool]:
        try:
            import fcntl
        except ImportError:
            yield True
            return
        try:
            path = self.path()
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "a+b")
        except OSError:
            yield True
            return
        with handle:
            mode = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if wait else fcntl.LOCK_NB)
            try:
                fcntl.flock(handle, mode)
            except BlockingIOError:
                yield False
                return
            yield True  # closing the file releases the lock


def _busy(exc: Exception) -> bool:
    """Whether SQLite said another connection holds the lock it waited for."""
    return "locked" in str(exc) or "busy" in str(exc)
