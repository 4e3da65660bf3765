"""What a store's searches learned about its ranked lists, kept in memory for that store (its
process): never a reason to serve a page, only to skip work that already failed, or to read
again a head ranked on the index as it still is. Every entry is keyed by the index's stamp, so
a change to the index makes it moot. Shared by the store's threads (the TUI's workers)."""

from __future__ import annotations

import threading
from collections import OrderedDict

# Entries of each kind kept at most (the oldest forgotten first).
UNSERVED, UNPROVEN, REMEMBERED = 256, 256, 32


class ListMemo:
    """One store's memory of its lists.

    unserved    filtered pages of a word its list did not serve (the filtered list too short,
                the filters passing too many papers to score each) on an index as it was: the
                same page again goes straight to the full ranking (instead of walking the list
                and counting the filters' papers for nothing, every time)
    unproven    ANDs and phrases whose page the words' lists did not prove, on an index as it
                was: the attempt -> the smallest end (offset + limit) not proven; a page ending
                there or further down is not tried again (each test only gets harder)
    remembered  heads of prefix ANDs (`sparse att*`) ranked in full or proved from the lists
                (or read from the catalog, which keeps those ranked in full): the TUI's page
                of 200 after a query's first 50 rows, the same search again, and the letters
                typed after it read them from here
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._unserved: OrderedDict[tuple, None] = OrderedDict()
        self._unproven: OrderedDict[tuple, int] = OrderedDict()
        self._remembered: OrderedDict[tuple, tuple[list[tuple[int, float]], bool]] = OrderedDict()

    def was_unserved(self, attempt: tuple) -> bool:
        with self._lock:
            return attempt in self._unserved

    def unserved(self, attempt: tuple) -> None:
        with self._lock:
            _put(self._unserved, attempt, None, UNSERVED)

    def may_prove(self, attempt: tuple, end: int) -> bool:
        """Whether a page of `attempt` ending at `end` is worth trying: False when one ending
        there or before it was not proven."""
        with self._lock:
            return self._unproven.get(attempt, end + 1) > end

    def unproven(self, attempt: tuple, end: int) -> None:
        with self._lock:
            _put(self._unproven, attempt, min(end, self._unproven.get(attempt, end)), UNPROVEN)

    def remembered(self, memo: tuple) -> tuple[list[tuple[int, float]], bool] | None:
        with self._lock:
            return self._remembered.get(memo)

    def remember(self, memo: tuple, head: tuple[list[tuple[int, float]], bool]) -> None:
        """Keep a head ((paper id, score) in ranking order, whether it holds every match)."""
        with self._lock:
            _put(self._remembered, memo, head, REMEMBERED)


def _put(entries: OrderedDict, key: tuple, value, most: int) -> None:
    entries.pop(key, None)
    entries[key] = value
    while len(entries) > most:
        entries.popitem(last=False)
