"""Ranked lists: for each frequent word (and prefix, and some searches of several words), the
head of its full ranking, kept so a search reads its first page instead of scoring every match.

A ranked search scores every paper a word matches before the first page can be shown: a word in
half of a million papers costs hundreds of milliseconds. A list holds the word's best papers in
the order the search's own ranking puts them, with their scores, so a page read from it is the
full ranking's page by construction; a page is served from a list only when the list proves it
(it holds every match, or no paper outside it can reach the page). After edits a list is
followed (SQLite: its papers rescored under the new statistics; PostgreSQL: the changed papers
ranked anew) until too much has changed, then ranked again.

    scoring.py        pure: FTS5's bm25 recomputed bit for bit, the bounds, which words get a
                      list and how deep, list keys (unit-tested without a database)
    records.py        what bm25 reads of an FTS5 index and FTS5 offers no SQL for (its records)
    memo.py           what a store's searches learned about its lists (one per store)
    sqlite_words.py   SQLite: reading a word's list, following edits by rescoring
    sqlite_several.py SQLite: ANDs and phrases of frequent words, and filters few papers pass
    sqlite_prefixes.py SQLite: a prefix AND typed one letter further, from the shorter one's head
    sqlite_build.py   SQLite: choosing, ranking, writing and checking lists
    sqlite.py         SQLite: the role a transaction has (RankedLists) and the store's upkeep
    postgres.py       PostgreSQL: reading its lists (ts_rank needs no rescoring: its scores are
                      per paper), and ranking a first search's
    postgres_build.py PostgreSQL: choosing, ranking (one by one, or many in one pass) and writing
                      lists, and what doctor checks of them
    postgres_upkeep.py PostgreSQL: the store's refresh after imports, and keeping searches' lists

Every search asks `tx.lists.page(...)`; doctor asks `problems` and `fix`; imports and the
background refresher call `store.lists.refresh(...)`; benchmarks and tests list, rank and drop
lists by hand through `tx.lists.maintenance()` (base.ListMaintenance), which nothing else
uses. A search that ranks a list of its own hands it to its caller (`tx.lists.to_keep()`),
who keeps it with `store.lists.keep(...)` after the read: a short write that never waits for
a writer.
"""

from __future__ import annotations

import os

# Off: every search ranks every match (benchmarks and tests compare against that;
# CATALOG_RANKED_LISTS=off does it for a whole process, such as the TUI's benchmark).
ENABLED = os.environ.get("CATALOG_RANKED_LISTS", "on") != "off"
